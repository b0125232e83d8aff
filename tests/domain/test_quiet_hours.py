"""Quiet hours on the participant's wall clock: periods across midnight and within a day, the
edges, daylight-saving days (Toronto and Berlin) and a participant who changes time zone."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from promptpipe.domain.localtime import to_instant
from promptpipe.domain.quiet_hours import after_quiet_hours, in_quiet_hours, quiet_period_end
from promptpipe.study.rules.protocol import QuietHours

TORONTO, BERLIN, TOKYO = ZoneInfo("America/Toronto"), ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo")
UTC = timezone.utc
NIGHT = QuietHours(time(21, 30), time(8, 0))
"""Across midnight."""
SIESTA = QuietHours(time(13, 0), time(15, 0))
"""Within one day."""


def local(
    zone: ZoneInfo, year: int, month: int, day: int, hour: int, minute: int, second: int = 0, *, fold: int = 0
) -> datetime:
    """The UTC instant a local wall-clock reading shows (``fold=1``: the repeated one). In UTC so
    that arithmetic and comparisons are between instants, not wall-clock readings."""
    return datetime(year, month, day, hour, minute, second, tzinfo=zone, fold=fold).astimezone(UTC)


def wall(instant: datetime, zone: ZoneInfo) -> str:
    return instant.astimezone(zone).strftime("%Y-%m-%d %H:%M")


@pytest.mark.parametrize(
    ("quiet", "hhmm", "quiet_then"),
    [
        (NIGHT, (21, 29), False), (NIGHT, (21, 30), True), (NIGHT, (23, 59), True), (NIGHT, (0, 0), True),
        (NIGHT, (7, 59), True), (NIGHT, (8, 0), False), (NIGHT, (12, 0), False),
        (SIESTA, (12, 59), False), (SIESTA, (13, 0), True), (SIESTA, (14, 59), True), (SIESTA, (15, 0), False),
        (SIESTA, (0, 0), False), (SIESTA, (23, 0), False),
        (None, (3, 0), False),
    ],
)
def test_start_is_quiet_and_end_is_not(quiet: QuietHours | None, hhmm: tuple[int, int], quiet_then: bool) -> None:
    at = local(BERLIN, 2026, 6, 10, *hhmm)
    assert in_quiet_hours(quiet, at, BERLIN) is quiet_then
    assert (quiet_period_end(quiet, at, BERLIN) is not None) is quiet_then


def test_the_last_second_before_the_end_is_still_quiet() -> None:
    assert in_quiet_hours(NIGHT, local(BERLIN, 2026, 6, 10, 7, 59, 59), BERLIN)


@pytest.mark.parametrize(
    ("quiet", "at", "expected_end"),
    [
        # Before midnight: the night ends tomorrow morning.
        (NIGHT, (2026, 6, 10, 22, 15), "2026-06-11 08:00"),
        (NIGHT, (2026, 6, 10, 21, 30), "2026-06-11 08:00"),
        # After midnight: it ends this morning.
        (NIGHT, (2026, 6, 11, 0, 0), "2026-06-11 08:00"),
        (NIGHT, (2026, 6, 11, 6, 45), "2026-06-11 08:00"),
        # Across a month and a year end.
        (NIGHT, (2026, 12, 31, 23, 0), "2027-01-01 08:00"),
        (SIESTA, (2026, 6, 10, 13, 0), "2026-06-10 15:00"),
    ],
)
def test_a_quiet_timer_moves_to_the_local_end_time(
    quiet: QuietHours, at: tuple[int, int, int, int, int], expected_end: str
) -> None:
    instant = local(TORONTO, *at)
    moved = after_quiet_hours(quiet, instant, TORONTO)
    assert moved.tzinfo is not None and moved.utcoffset() == timedelta(0)
    assert wall(moved, TORONTO) == expected_end
    assert quiet_period_end(quiet, instant, TORONTO) == moved


@pytest.mark.parametrize("hhmm", [(8, 0), (12, 0), (21, 29)])
def test_a_timer_outside_quiet_hours_is_left_alone(hhmm: tuple[int, int]) -> None:
    at = local(TORONTO, 2026, 6, 10, *hhmm)
    assert after_quiet_hours(NIGHT, at, TORONTO) == at
    assert quiet_period_end(NIGHT, at, TORONTO) is None


def test_without_quiet_hours_nothing_moves() -> None:
    at = local(TORONTO, 2026, 6, 10, 3, 0)
    assert after_quiet_hours(None, at, TORONTO) == at


@pytest.mark.parametrize(
    ("zone", "at", "expected_local"),
    [
        # Spring forward: 02:30 does not exist; the night ends when clocks jump (03:00), not at 03:30.
        (TORONTO, local(TORONTO, 2026, 3, 8, 1, 15), "2026-03-08 03:00"),
        (TORONTO, local(TORONTO, 2026, 3, 7, 23, 0), "2026-03-08 03:00"),
        (BERLIN, local(BERLIN, 2026, 3, 29, 1, 59), "2026-03-29 03:00"),
    ],
)
def test_an_end_inside_the_spring_forward_gap_lands_at_the_jump(
    zone: ZoneInfo, at: datetime, expected_local: str
) -> None:
    quiet = QuietHours(time(22, 0), time(2, 30))
    end = quiet_period_end(quiet, at, zone)
    assert end is not None
    assert wall(end, zone) == expected_local
    assert end == to_instant(end.astimezone(zone).date(), time(2, 30), zone)
    assert not in_quiet_hours(quiet, end, zone)


@pytest.mark.parametrize(
    ("zone", "day", "end"),
    [(TORONTO, date(2026, 11, 1), time(1, 30)), (BERLIN, date(2026, 10, 25), time(2, 30))],
)
def test_on_a_fall_back_night_the_end_is_always_after_the_timer(zone: ZoneInfo, day: date, end: time) -> None:
    """The end time happens twice; a timer in the second run of the repeated hour must not be
    "moved" back to the first one. Walk the whole night minute by minute."""
    quiet = QuietHours(time(22, 0), end)
    at = to_instant(day - timedelta(days=1), time(21, 0), zone)
    moved_count = 0
    while at < to_instant(day, time(6, 0), zone):
        moved = after_quiet_hours(quiet, at, zone)
        if in_quiet_hours(quiet, at, zone):
            moved_count += 1
            assert moved > at
            assert moved - at <= timedelta(hours=4, minutes=30)  # never skips to the next night
            assert moved.astimezone(zone).time() == end
            assert not in_quiet_hours(quiet, moved, zone)
        else:
            assert moved == at
        at += timedelta(minutes=1)
    assert moved_count > 0


def test_in_the_repeated_hour_each_run_ends_at_its_own_occurrence() -> None:
    quiet = QuietHours(time(22, 0), time(1, 30))
    first_run = local(TORONTO, 2026, 11, 1, 1, 10)
    second_run = local(TORONTO, 2026, 11, 1, 1, 10, fold=1)
    assert second_run - first_run == timedelta(hours=1)
    assert quiet_period_end(quiet, first_run, TORONTO) == first_run + timedelta(minutes=20)
    assert quiet_period_end(quiet, second_run, TORONTO) == second_run + timedelta(minutes=20)


def test_quiet_hours_follow_the_participant_into_another_zone() -> None:
    """The same instant: night in Toronto, late morning in Berlin, afternoon-quiet in Tokyo."""
    at = datetime(2026, 6, 10, 5, 0, tzinfo=UTC)  # 01:00 Toronto, 07:00 Berlin, 14:00 Tokyo
    late = datetime(2026, 6, 10, 9, 0, tzinfo=UTC)  # 05:00 Toronto, 11:00 Berlin
    assert in_quiet_hours(NIGHT, late, TORONTO) and not in_quiet_hours(NIGHT, late, BERLIN)
    assert after_quiet_hours(NIGHT, late, BERLIN) == late
    assert wall(after_quiet_hours(NIGHT, late, TORONTO), TORONTO) == "2026-06-10 08:00"
    assert wall(after_quiet_hours(NIGHT, at, BERLIN), BERLIN) == "2026-06-10 08:00"
    assert after_quiet_hours(NIGHT, at, TORONTO) != after_quiet_hours(NIGHT, at, BERLIN)
    assert in_quiet_hours(SIESTA, at, TOKYO) and not in_quiet_hours(SIESTA, at, TORONTO)


@pytest.mark.parametrize("zone", [TORONTO, BERLIN])
@pytest.mark.parametrize(
    "quiet", [NIGHT, SIESTA, QuietHours(time(0, 30), time(2, 30)), QuietHours(time(2, 30), time(3, 0))]
)
def test_a_moved_timer_is_never_quiet_and_never_earlier(zone: ZoneInfo, quiet: QuietHours) -> None:
    """Sweep both of a year's clock changes every 13 minutes: whatever comes out of
    after_quiet_hours may be sent, and nothing is sent before it was due."""
    for start in (date(2026, 3, 6), date(2026, 3, 27), date(2026, 10, 23), date(2026, 10, 30)):
        at = to_instant(start, time(0, 0), zone)
        stop = at + timedelta(days=4)
        while at < stop:
            moved = after_quiet_hours(quiet, at, zone)
            assert moved >= at
            assert not in_quiet_hours(quiet, moved, zone)
            at += timedelta(minutes=13)
