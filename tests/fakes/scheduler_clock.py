"""Make APScheduler read the test's clock.

APScheduler decides which jobs are due with ``datetime.now()``; our code asks a Clock. Tests move
a ManualClock instead of sleeping, so APScheduler's ``now`` is pointed at that clock (only in
tests; the service runs on the system clock, where both agree).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any

import apscheduler.schedulers.base
import pytest


def follow_clock(monkeypatch: pytest.MonkeyPatch, current_clock: Callable[[], Any]) -> None:
    class ClockDatetime(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            instant = current_clock().now()
            return instant.astimezone(tz) if tz is not None else instant.astimezone().replace(tzinfo=None)

    monkeypatch.setattr(apscheduler.schedulers.base, "datetime", ClockDatetime)
