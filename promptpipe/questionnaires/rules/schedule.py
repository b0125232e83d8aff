"""When a day-based questionnaire is due on a participant's local day: at its fixed time, or at a minute drawn from
its window, outside quiet hours and ``min_gap`` from everything else that day (``rng`` is seeded by the caller)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from promptpipe.domain.localtime import to_instant
from promptpipe.domain.quiet_hours import quiet_contains
from promptpipe.questionnaires.rules.definition import EndReason, SendAt
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["Due", "due_on", "window_minutes"]


@dataclass(frozen=True)
class Due:
    """A questionnaire's time on one day (None: no free minute, ``reason`` says why) and the window the draw saw."""

    at: datetime | None
    window: tuple[datetime, datetime] | None = None
    reason: EndReason | None = None


def window_minutes(start: time, end: time) -> list[time]:
    """The whole minutes from ``start`` up to ``end`` on a clock (none if ``end`` comes first)."""
    first, last = start.hour * 60 + start.minute, end.hour * 60 + end.minute
    return [time(minute // 60, minute % 60) for minute in range(first, last)]


def due_on(send: SendAt, day: date, zone: ZoneInfo, quiet: QuietHours | None, busy: Sequence[datetime],
           rng: random.Random) -> Due:
    """The time ``send`` is due on local ``day`` (a fixed time, or a fresh draw in its window)."""
    if send.at is not None:
        return Due(to_instant(day, send.at, zone))
    if send.between is None:
        raise ValueError("an event-based questionnaire has no time of day")
    start, end = send.between
    window = (to_instant(day, start, zone), to_instant(day, end, zone))
    free: list[datetime] = []
    for minute in window_minutes(start, end):
        if quiet is not None and quiet_contains(quiet, minute):
            continue
        instant = to_instant(day, minute, zone)
        if free and free[-1] == instant:  # minutes a spring-forward jump skipped land on the jump
            continue
        if all(abs(instant - other) >= send.min_gap for other in busy):
            free.append(instant)
    if not free:
        return Due(None, window, reason=EndReason.NO_FREE_MINUTE)
    return Due(rng.choice(free), window)
