"""When a day-based questionnaire is due on a participant's clock: its fixed time, or a minute
drawn afresh each day inside its window that keeps clear of quiet hours and of the day's other
messages, the same again after a restart, and sensible across daylight-saving jumps."""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from promptpipe.questionnaires.rules.definition import EndReason, SendAt, SendEvent
from promptpipe.questionnaires.rules.schedule import due_on
from promptpipe.study.rules.protocol import QuietHours

TORONTO = ZoneInfo("America/Toronto")
DAY = date(2026, 6, 10)
WINDOW = SendAt(between=(time(10), time(20)), min_gap=timedelta(hours=1))


def local(moment: datetime) -> datetime:
    return moment.astimezone(TORONTO)


def test_a_fixed_time_is_that_time_on_the_participants_clock() -> None:
    due = due_on(SendAt(study_days=(1,), at=time(19)), DAY, TORONTO, None, [], random.Random(1))
    assert due.at == datetime(2026, 6, 10, 23, 0, tzinfo=timezone.utc) and due.window is None


def test_draws_fall_inside_the_window_clear_of_quiet_hours_and_other_messages() -> None:
    quiet = QuietHours(time(18), time(7))  # the window's last two hours are quiet
    prompt = datetime(2026, 6, 10, 12, 30, tzinfo=TORONTO)
    for seed in range(300):
        due = due_on(WINDOW, DAY, TORONTO, quiet, [prompt], random.Random(seed))
        assert due.at is not None and due.window is not None
        wall = local(due.at).time()
        assert time(10) <= wall < time(18), wall
        assert abs(due.at - prompt) >= timedelta(hours=1), wall
        assert local(due.window[0]).time() == time(10) and local(due.window[1]).time() == time(20)


def test_the_draw_differs_from_day_to_day_and_repeats_with_the_same_seed() -> None:
    draws = {due_on(WINDOW, DAY + timedelta(days=n), TORONTO, None, [], random.Random(f"p1:mood:{n}")).at
             for n in range(10)}
    assert len({local(at).time() for at in draws if at}) > 5
    again = due_on(WINDOW, DAY, TORONTO, None, [], random.Random("p1:mood:0")).at
    assert again == due_on(WINDOW, DAY, TORONTO, None, [], random.Random("p1:mood:0")).at


def test_no_free_minute_gives_no_time_and_says_why() -> None:
    tight = SendAt(between=(time(12), time(13)), min_gap=timedelta(hours=2))
    due = due_on(tight, DAY, TORONTO, None, [datetime(2026, 6, 10, 12, 30, tzinfo=TORONTO)], random.Random(1))
    assert due.at is None and due.reason is EndReason.NO_FREE_MINUTE


def test_a_window_across_the_spring_forward_jump_only_draws_real_times() -> None:
    night = SendAt(between=(time(1), time(4)), min_gap=timedelta(0))
    jump = date(2026, 3, 8)  # in Toronto 02:00 becomes 03:00
    seen = set()
    for seed in range(400):
        at = due_on(night, jump, TORONTO, None, [], random.Random(seed)).at
        assert at is not None
        seen.add(local(at).time())
    assert not any(time(2) <= wall < time(3) for wall in seen)
    assert time(1, 30) in seen or time(3, 30) in seen


def test_an_event_questionnaire_has_no_time_of_day() -> None:
    with pytest.raises(ValueError):
        due_on(SendAt(event=SendEvent.STUDY_END), DAY, TORONTO, None, [], random.Random(1))
