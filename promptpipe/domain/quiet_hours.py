"""Quiet hours: a daily period on the participant's own wall clock (so it follows a zone change and daylight saving)
when nothing scheduled is sent; a timer inside it is moved to its end, never dropped."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from promptpipe.domain.localtime import to_instant
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["after_quiet_hours", "in_quiet_hours", "quiet_contains", "quiet_period_end"]


def quiet_contains(quiet: QuietHours, wall: time) -> bool:
    """Whether a local wall time is inside the period (``start`` inclusive, ``end`` exclusive)."""
    if quiet.start > quiet.end:  # across midnight
        return wall >= quiet.start or wall < quiet.end
    return quiet.start <= wall < quiet.end


def in_quiet_hours(quiet: QuietHours | None, at: datetime, zone: ZoneInfo) -> bool:
    if quiet is None:
        return False
    return quiet_contains(quiet, at.astimezone(zone).time())


def quiet_period_end(quiet: QuietHours | None, at: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC instant the quiet period containing ``at`` ends; None when ``at`` is not inside one. Always strictly
    later than ``at``: inside the second run of a repeated fall-back hour, the end time's later occurrence is used."""
    if quiet is None or not in_quiet_hours(quiet, at, zone):
        return None
    local = at.astimezone(zone)  # a period across midnight entered before midnight ends tomorrow
    day = local.date() + timedelta(days=1) if quiet.start > quiet.end and local.time() >= quiet.start else local.date()
    # the end under the DST policy (first occurrence, or the jump in a gap), then a repeated end time's later occurrence
    for candidate in (to_instant(day, quiet.end, zone),
                      datetime.combine(day, quiet.end, tzinfo=zone).replace(fold=1).astimezone(timezone.utc)):
        if candidate > at:
            return candidate
    raise AssertionError("a quiet period ends after any instant inside it")  # pragma: no cover


def after_quiet_hours(quiet: QuietHours | None, at: datetime, zone: ZoneInfo) -> datetime:
    """When something due at ``at`` may be sent: ``at`` itself outside quiet hours, else their end."""
    return quiet_period_end(quiet, at, zone) or at
