"""Study days on the participant's calendar: when day 1 is, how days count across month, year and
daylight-saving changes, when the study ends, and which days are inside it."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest

from promptpipe.study.rules.days import day_one, in_study, study_day, study_end
from promptpipe.study.rules.protocol import AFTER_ENROLLMENT, AFTER_INTAKE

TORONTO, BERLIN, HAVANA = ZoneInfo("America/Toronto"), ZoneInfo("Europe/Berlin"), ZoneInfo("America/Havana")
UTC = timezone.utc


@pytest.mark.parametrize(
    ("rule", "intake_completed_on", "enrolled_on", "expected"),
    [
        (AFTER_INTAKE, date(2026, 5, 4), date(2026, 5, 1), date(2026, 5, 5)),
        (AFTER_INTAKE, None, date(2026, 5, 1), None),  # intake still running: no day 1 yet
        (AFTER_ENROLLMENT, date(2026, 5, 4), date(2026, 5, 1), date(2026, 5, 2)),
        (AFTER_ENROLLMENT, None, date(2026, 5, 1), date(2026, 5, 2)),  # intake does not matter
        (AFTER_INTAKE, date(2026, 1, 31), date(2026, 1, 30), date(2026, 2, 1)),
        (AFTER_INTAKE, date(2028, 2, 28), date(2028, 2, 27), date(2028, 2, 29)),  # leap year
        (AFTER_ENROLLMENT, None, date(2026, 12, 31), date(2027, 1, 1)),
    ],
)
def test_day_one_is_the_first_local_day_after_intake_or_enrollment(
    rule: str, intake_completed_on: date | None, enrolled_on: date, expected: date | None
) -> None:
    assert day_one(rule, intake_completed_on=intake_completed_on, enrolled_on=enrolled_on) == expected


def test_an_unknown_day_one_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="after_intake"):
        day_one("on_intake", intake_completed_on=date(2026, 5, 4), enrolled_on=date(2026, 5, 1))


@pytest.mark.parametrize(
    ("first", "local_day", "expected"),
    [
        (date(2026, 5, 5), date(2026, 5, 5), 1),
        (date(2026, 5, 5), date(2026, 5, 6), 2),
        (date(2026, 5, 5), date(2026, 5, 4), 0),  # the intake day itself
        (date(2026, 5, 5), date(2026, 5, 1), -3),
        (date(2026, 1, 30), date(2026, 2, 2), 4),  # across a month end
        (date(2026, 12, 30), date(2027, 1, 2), 4),  # across a year end
        (date(2028, 2, 28), date(2028, 3, 1), 3),  # 29 February counts
        (date(2026, 3, 7), date(2026, 3, 9), 3),  # Toronto springs forward on 8 March
        (date(2026, 10, 24), date(2026, 10, 26), 3),  # Berlin falls back on 25 October
        (None, date(2026, 5, 5), None),
    ],
)
def test_study_days_count_calendar_days(first: date | None, local_day: date, expected: int | None) -> None:
    assert study_day(first, local_day) == expected


@pytest.mark.parametrize(("zone", "first"), [(TORONTO, date(2026, 3, 6)), (BERLIN, date(2026, 10, 23))])
def test_a_daily_prompt_gets_one_study_day_each_across_a_clock_change(zone: ZoneInfo, first: date) -> None:
    """Prompts at 08:30 local for a week: the participant's local date of each gives 1, 2, … 7,
    although one of those days has 23 or 25 hours."""
    prompts = [datetime.combine(first + timedelta(days=n), time(8, 30), tzinfo=zone).astimezone(UTC)
               for n in range(7)]
    assert {b - a for a, b in pairwise(prompts)} != {timedelta(days=1)}
    days = [study_day(first, prompt.astimezone(zone).date()) for prompt in prompts]
    assert days == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize(
    ("zone", "first", "length_days", "last_local_day", "hours"),
    [
        (TORONTO, date(2026, 6, 1), 7, date(2026, 6, 7), 7 * 24),
        # The week of the spring-forward change is an hour short, the fall-back week an hour long.
        (TORONTO, date(2026, 3, 5), 7, date(2026, 3, 11), 7 * 24 - 1),
        (BERLIN, date(2026, 10, 22), 7, date(2026, 10, 28), 7 * 24 + 1),
        (BERLIN, date(2026, 12, 29), 4, date(2027, 1, 1), 4 * 24),
        (BERLIN, date(2026, 5, 1), 1, date(2026, 5, 1), 24),
    ],
)
def test_the_study_ends_at_local_midnight_after_the_last_day(
    zone: ZoneInfo, first: date, length_days: int, last_local_day: date, hours: int
) -> None:
    end = study_end(first, length_days, zone)
    assert end.utcoffset() == timedelta(0)
    local_end = end.astimezone(zone)
    assert local_end.time() == time(0, 0)
    assert local_end.date() == last_local_day + timedelta(days=1)
    start = datetime.combine(first, time(0, 0), tzinfo=zone).astimezone(UTC)
    assert end - start == timedelta(hours=hours)
    # The last second of the last day is still in the study; the end is the first day after it.
    assert study_day(first, (end - timedelta(seconds=1)).astimezone(zone).date()) == length_days
    assert study_day(first, local_end.date()) == length_days + 1


def test_a_midnight_skipped_by_a_clock_change_ends_the_study_at_the_jump() -> None:
    """Havana springs forward at midnight (00:00 → 01:00) on 8 March 2026: there is no midnight
    that night, so the study ends at the first instant of 8 March, which reads 01:00."""
    end = study_end(date(2026, 3, 1), 7, HAVANA)
    assert end.astimezone(HAVANA).strftime("%Y-%m-%d %H:%M") == "2026-03-08 01:00"
    assert (end - timedelta(seconds=1)).astimezone(HAVANA).date() == date(2026, 3, 7)


@pytest.mark.parametrize(
    ("day", "length_days", "expected"),
    [
        (None, 28, False),
        (None, None, False),
        (-1, 28, False),
        (0, 28, False),
        (1, 28, True),
        (28, 28, True),
        (29, 28, False),
        (1, 1, True),
        (2, 1, False),
        (0, None, False),
        (1, None, True),
        (10_000, None, True),  # open-ended: no last day
    ],
)
def test_in_study_from_day_one_to_the_last_day(day: int | None, length_days: int | None, expected: bool) -> None:
    assert in_study(day, length_days) is expected
