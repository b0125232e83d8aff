"""Time as a dependency: the service asks a :class:`Clock`, tests move a :class:`ManualClock`."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Protocol


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return utcnow()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that only moves when told to. ``sleep`` moves it by the time asked for (and
    yields once), so code that waits finishes at once while the time it waited is measurable."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
        if self._now.tzinfo is None:
            raise ValueError("ManualClock needs an aware datetime")

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float) -> datetime:
        self._now += delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when

    async def sleep(self, seconds: float) -> None:
        self._now += timedelta(seconds=max(seconds, 0.0))
        await asyncio.sleep(0)
