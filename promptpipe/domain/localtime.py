"""Local wall-clock time → aware UTC instants, with one daylight-saving policy: a time inside the spring-forward gap
fires once, at the moment clocks jump; one inside the repeated fall-back hour once, at its first occurrence."""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from importlib import resources
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

FIXED, RANDOM = "fixed", "random"


IANA_ZONES = frozenset(resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split()) - {"Factory"}
"""The zone names the IANA database defines (tzdata's list; ``Factory`` is a placeholder, not a place)."""


def is_iana_zone(name: str) -> bool:
    """True for a real IANA zone; False for ``localtime``, ``posixrules``, paths and what zoneinfo cannot load."""
    if name not in IANA_ZONES:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


@functools.lru_cache(maxsize=2048)
def parse_hhmm(text: str) -> time:
    """``"9:05"`` → ``time(9, 5)``; ValueError otherwise. Remembered: each of a burst's alarms reads its times."""
    match = _HHMM.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a 24-hour time like 07:30 or 18:05")
    return time(int(match.group(1)), int(match.group(2)))


def format_hhmm(value: time) -> str:
    return f"{value.hour:02d}:{value.minute:02d}"


@functools.lru_cache(maxsize=4096)
def to_instant(day: date, wall: time, zone: ZoneInfo) -> datetime:
    """The UTC instant of ``wall`` on ``day`` in ``zone`` under the policy above. Remembered: a pass over 10,000 due
    alarms asks mostly for the same few zones, days and times (it was a fifth of the pass)."""
    first = datetime.combine(day, wall, tzinfo=zone)  # fold=0: the first of two, if repeated
    instant = first.astimezone(timezone.utc)
    if instant.astimezone(zone).replace(tzinfo=None) == first.replace(tzinfo=None):
        return instant  # the wall time exists (fold=0 is its first occurrence)
    # In a gap: the jump is the first valid instant, between the two readings (earlier and later than ``wall``).
    low, high = sorted((first.replace(fold=1).astimezone(timezone.utc), instant))
    target = first.replace(tzinfo=None)
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(zone).replace(tzinfo=None) >= target:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0)  # zone transitions happen on whole seconds


@dataclass(frozen=True)
class DailySpec:
    """When one schedule's prompt fires; ``seed`` makes a random window's daily draw repeatable."""

    kind: str
    habit_time: time | None = None
    window_start: time | None = None
    window_end: time | None = None
    prep_minutes: int = 10
    seed: str = ""

    def __post_init__(self) -> None:
        if self.kind == FIXED and self.habit_time is None:
            raise ValueError("a fixed schedule needs a habit time")
        if self.kind == RANDOM:
            if self.window_start is None or self.window_end is None:
                raise ValueError("a random schedule needs a window start and end")
            if self.window_end <= self.window_start:
                raise ValueError("the window must end after it starts (same day)")
        if self.kind not in (FIXED, RANDOM):
            raise ValueError(f"unknown schedule kind {self.kind!r}")

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def from_text(kind: str, habit_time: str | None, window_start: str | None, window_end: str | None,
                  prep_minutes: int, seed: str) -> DailySpec:
        """A spec from its times as stored (``"HH:MM"`` or empty); remembered, as alarms read it again and again."""
        def hhmm(value: str | None) -> time | None:
            return parse_hhmm(value) if value else None

        return DailySpec(kind=kind, habit_time=hhmm(habit_time), window_start=hhmm(window_start),
                         window_end=hhmm(window_end), prep_minutes=prep_minutes, seed=seed)

    def habit_time_on(self, day: date) -> time:
        """The habit time on ``day``: fixed, or this day's draw from the window (whole minutes)."""
        if self.kind == FIXED:
            assert self.habit_time is not None
            return self.habit_time
        assert self.window_start is not None and self.window_end is not None
        start = self.window_start.hour * 60 + self.window_start.minute
        end = self.window_end.hour * 60 + self.window_end.minute
        minute = random.Random(f"{self.seed}:{day.isoformat()}").randint(start, end)
        return time(minute // 60, minute % 60)

    def fire_at(self, day: date, zone: ZoneInfo) -> datetime:
        """The instant the prompt for local ``day`` is sent: ``prep_minutes`` before the habit, but never before the day
        begins (a 00:05 habit's prompt at 23:55 would give the evening before two prompts)."""
        return max(to_instant(day, self.habit_time_on(day), zone) - timedelta(minutes=self.prep_minutes),
                   to_instant(day, time(0, 0), zone))

    def next_fire(self, after: datetime, zone: ZoneInfo, *, inclusive: bool = False) -> tuple[date, datetime]:
        """The first occurrence after ``after`` (or at it, when ``inclusive``): (its day, its instant)."""
        start = after.astimezone(zone).date() - timedelta(days=1)
        for offset in range(4):
            day = start + timedelta(days=offset)
            when = self.fire_at(day, zone)
            if when > after or (inclusive and when == after):
                return day, when
        raise AssertionError("a daily schedule fires within three days")  # pragma: no cover

    def last_fire(self, at_or_before: datetime, zone: ZoneInfo) -> tuple[date, datetime]:
        """The latest occurrence at or before the given instant."""
        start = at_or_before.astimezone(zone).date() + timedelta(days=2)
        for offset in range(5):
            day = start - timedelta(days=offset)
            when = self.fire_at(day, zone)
            if when <= at_or_before:
                return day, when
        raise AssertionError("a daily schedule fires within three days")  # pragma: no cover

    def day_of_fire(self, fired: datetime, zone: ZoneInfo) -> date | None:
        """Which day's prompt fires at ``fired`` (None if none of this schedule's does)."""
        guess = (fired + timedelta(minutes=self.prep_minutes)).astimezone(zone).date()
        for day in (guess, guess - timedelta(days=1), guess + timedelta(days=1)):
            if abs((self.fire_at(day, zone) - fired).total_seconds()) < 1:
                return day
        return None

    def describe(self) -> str:
        """A short human description: "09:00" or "a random time 08:00-10:00"."""
        if self.kind == FIXED:
            assert self.habit_time is not None
            return format_hhmm(self.habit_time)
        assert self.window_start is not None and self.window_end is not None
        return f"a random time {format_hhmm(self.window_start)}-{format_hhmm(self.window_end)}"


def zone_or_utc(name: str) -> ZoneInfo:
    """The participant's zone; an unknown name (should not happen: it is validated) falls back to UTC."""
    try:
        return ZoneInfo(name)
    except Exception:
        return ZoneInfo("UTC")


def local_label(instant: datetime, zone: ZoneInfo) -> str:
    """``Tuesday 2026-03-10 08:50 (America/Toronto)``: how fire times are shown to models and people."""
    return instant.astimezone(zone).strftime("%A %Y-%m-%d %H:%M") + f" ({zone.key})"
