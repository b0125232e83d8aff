"""The daylight-saving policy and daily occurrences, as pure functions (Toronto and Berlin)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from promptpipe.domain.localtime import FIXED, RANDOM, DailySpec, parse_hhmm, to_instant

TORONTO, BERLIN = ZoneInfo("America/Toronto"), ZoneInfo("Europe/Berlin")
UTC = timezone.utc


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "day", "wall", "expected_utc", "expected_local"),
    [
        # Spring forward: 02:30 does not exist; it fires at the jump (03:00 local), not an hour late.
        (TORONTO, date(2026, 3, 8), time(2, 30), utc(2026, 3, 8, 7, 0), "03:00"),
        (BERLIN, date(2026, 3, 29), time(2, 15), utc(2026, 3, 29, 1, 0), "03:00"),
        # Fall back: 01:30 (Toronto) / 02:15 (Berlin) happen twice; the first one counts.
        (TORONTO, date(2026, 11, 1), time(1, 30), utc(2026, 11, 1, 5, 30), "01:30"),
        (BERLIN, date(2026, 10, 25), time(2, 15), utc(2026, 10, 25, 0, 15), "02:15"),
        # Ordinary times on those days keep their wall-clock time.
        (TORONTO, date(2026, 3, 8), time(9, 0), utc(2026, 3, 8, 13, 0), "09:00"),
        (TORONTO, date(2026, 3, 7), time(9, 0), utc(2026, 3, 7, 14, 0), "09:00"),
        (BERLIN, date(2026, 10, 25), time(9, 0), utc(2026, 10, 25, 8, 0), "09:00"),
    ],
)
def test_wall_time_to_instant_follows_the_policy(zone, day, wall, expected_utc, expected_local) -> None:  # type: ignore[no-untyped-def]
    instant = to_instant(day, wall, zone)
    assert instant == expected_utc
    assert instant.astimezone(zone).strftime("%H:%M") == expected_local


@pytest.mark.parametrize(
    ("zone", "habit", "days", "first_day"),
    [(TORONTO, "02:40", 4, date(2026, 3, 6)), (TORONTO, "01:40", 4, date(2026, 10, 30)),
     (BERLIN, "02:25", 4, date(2026, 3, 27)), (BERLIN, "02:25", 4, date(2026, 10, 23))],
)
def test_one_prompt_per_local_day_across_a_clock_change(zone, habit, days, first_day) -> None:  # type: ignore[no-untyped-def]
    """Walking occurrence by occurrence over the change gives exactly one per local day."""
    spec = DailySpec(FIXED, habit_time=parse_hhmm(habit), prep_minutes=10)
    after = to_instant(first_day, time(0, 0), zone)
    seen = []
    for _ in range(days):
        day, when = spec.next_fire(after, zone)
        seen.append(day)
        after = when
    assert seen == [first_day + timedelta(days=n) for n in range(days)]


def test_a_prompt_before_a_habit_just_after_midnight_goes_out_at_the_start_of_its_own_day() -> None:
    """A 00:05 habit with 10 minutes of preparation: the prompt goes at 00:00 on the habit's day,
    never at 23:55 the evening before (which would be the day before's second prompt)."""
    spec = DailySpec(FIXED, habit_time=time(0, 5), prep_minutes=10)
    day, when = spec.next_fire(utc(2026, 1, 5, 12, 0), TORONTO)
    assert day == date(2026, 1, 6)
    assert when.astimezone(TORONTO) == datetime(2026, 1, 6, 0, 0, tzinfo=TORONTO)
    assert spec.day_of_fire(when, TORONTO) == day
    assert spec.last_fire(when - timedelta(seconds=1), TORONTO)[0] == date(2026, 1, 5)


@pytest.mark.parametrize(("zone", "night", "habit"), [
    ("America/Santiago", date(2026, 9, 6), "00:30"), ("America/Santiago", date(2026, 9, 6), "00:05"),
    ("America/Havana", date(2026, 3, 8), "00:30"), ("America/Havana", date(2026, 3, 8), "00:05"),
])
def test_on_a_night_that_skips_midnight_each_local_day_gets_one_prompt_on_that_day(
    zone: str, night: date, habit: str,
) -> None:
    """Santiago and Havana spring forward at midnight: 00:00-00:59 does not exist that night. The
    day's prompt goes at the first minute it has (01:00), not the evening before."""
    where = ZoneInfo(zone)
    spec = DailySpec(FIXED, habit_time=parse_hhmm(habit), prep_minutes=10)
    after = to_instant(night - timedelta(days=3), time(12, 0), where)
    fired = []
    for _ in range(5):
        day, after = spec.next_fire(after, where)
        fired.append((day, after.astimezone(where).date()))
        assert spec.day_of_fire(after, where) == day
    assert fired == [(night + timedelta(days=n), night + timedelta(days=n)) for n in range(-2, 3)]
    assert spec.fire_at(night, where).astimezone(where).time() == time(1, 0)


def test_random_window_draws_a_new_repeatable_time_each_day() -> None:
    spec = DailySpec(RANDOM, window_start=time(8, 0), window_end=time(10, 0), prep_minutes=10, seed="s_1")
    draws = [spec.habit_time_on(date(2026, 5, d)) for d in range(1, 15)]
    assert all(time(8, 0) <= t <= time(10, 0) for t in draws)
    assert len(set(draws)) > 5  # it varies from day to day
    again = DailySpec(RANDOM, window_start=time(8, 0), window_end=time(10, 0), prep_minutes=10, seed="s_1")
    assert draws == [again.habit_time_on(date(2026, 5, d)) for d in range(1, 15)]  # and survives a restart


def test_last_fire_finds_the_latest_occurrence() -> None:
    spec = DailySpec(FIXED, habit_time=time(9, 0), prep_minutes=10)
    day, when = spec.last_fire(utc(2026, 6, 1, 7, 0), BERLIN)  # 09:00 Berlin; prompt at 08:50 (06:50 UTC)
    assert (day, when) == (date(2026, 6, 1), utc(2026, 6, 1, 6, 50))
    day, when = spec.last_fire(utc(2026, 6, 1, 6, 49), BERLIN)
    assert day == date(2026, 5, 31)


def test_bad_specs_are_refused() -> None:
    with pytest.raises(ValueError):
        DailySpec(RANDOM, window_start=time(10), window_end=time(9))
    with pytest.raises(ValueError):
        parse_hhmm("25:00")
