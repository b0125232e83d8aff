"""Study days, counted on the participant's own calendar (a 23- or 25-hour day is still one): day 1 is their first
whole local day after intake (or enrollment), and the study ends at local midnight after the last."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from promptpipe.domain.localtime import to_instant
from promptpipe.study.rules.protocol import AFTER_ENROLLMENT, AFTER_INTAKE, DAY_ONE_RULES

__all__ = ["day_one", "in_study", "study_day", "study_end"]

_ONE_DAY = timedelta(days=1)


def day_one(rule: str, *, intake_completed_on: date | None, enrolled_on: date) -> date | None:
    """The local date of study day 1 under ``rule`` (None while intake is not complete)."""
    if rule == AFTER_INTAKE:
        return None if intake_completed_on is None else intake_completed_on + _ONE_DAY
    if rule == AFTER_ENROLLMENT:
        return enrolled_on + _ONE_DAY
    raise ValueError(f"unknown day-one rule {rule!r} (one of {', '.join(DAY_ONE_RULES)})")


def study_day(first: date | None, local_day: date) -> int | None:
    """The study day number of ``local_day`` (0 or less before day one; None when day one is not known)."""
    if first is None:
        return None
    return (local_day - first).days + 1


def study_end(first: date, length_days: int, zone: ZoneInfo) -> datetime:
    """The UTC instant the study ends: local midnight at the end of study day ``length_days``."""
    return to_instant(first + timedelta(days=length_days), time(0, 0), zone)


def in_study(day: int | None, length_days: int | None) -> bool:
    if day is None or day < 1:
        return False
    return length_days is None or day <= length_days
