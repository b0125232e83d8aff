"""Study-day questionnaires across a daylight-saving change, as a participant meets them through
the running service (the alarm clock driven by the test's clock, an hour at a time and to the
minute around every planned moment): a fixed 19:00 comes at 19:00 on their clock on every day,
before the change and after it; a random minute is drawn inside the local window, outside the
quiet hours and away from the daily prompt; each is sent once, none is missed; and a fixed time
the clocks skip (02:30 on spring-forward night) or repeat (01:30 on fall-back night) comes once:
at the jump, or at its first occurrence, and is recorded with that time."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.questionnaires.rules.schedule import due_on
from promptpipe.storage.models import table_of
from promptpipe.study.rules.file import parse_study
from promptpipe.study.store.tables import QuestionnaireInstance
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, vote
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule
from tests.study_helpers import with_study

MINUTE = timedelta(minutes=1)
STEP = timedelta(hours=1)
EVENING, MOOD = "Did you walk today?", "In a good mood right now?"
HABIT = time(10)
"""Ana's habit: her daily prompt comes at 09:50 on her clock (ten minutes before)."""


def study(*questionnaires: str, quiet: str = "") -> str:
    return 'name = "DST pilot"\nlength_days = 5\n' + quiet + "".join(questionnaires)


def questionnaire(qid: str, send: str, question: str, open_for: str) -> str:
    return (f'[[questionnaires]]\nid = "{qid}"\ntitle = "{qid}"\nsend = {send}\nopen_for = "{open_for}"\n'
            f'[[questionnaires.items]]\nid = "q"\ntext = "{question}"\ntype = "yes_no"\n')


QUIET_HOURS = '[quiet_hours]\nstart = "22:00"\nend = "08:00"\n'
DAILY = study(questionnaire("evening", '{ study_days = [1, 2, 3, 4, 5], at = "19:00" }', EVENING, "2h"),
              questionnaire("mood", '{ between = ["07:00", "12:00"], min_gap = "30m" }', MOOD, "1h"),
              quiet=QUIET_HOURS)
"""Every study day: 19:00, and a minute drawn from 07:00-12:00 (its first hour is quiet), at least
30 minutes from the daily prompt at 09:50."""

TRANSITIONS = {
    # zone, the moment intake is done (study day 1 is the next day), the study day of the change
    "toronto-spring-forward": ("America/Toronto", datetime(2026, 3, 5, 9), 3),   # 2026-03-08 02:00 → 03:00
    "toronto-fall-back": ("America/Toronto", datetime(2026, 10, 29, 9), 3),      # 2026-11-01 02:00 → 01:00
    "berlin-spring-forward": ("Europe/Berlin", datetime(2026, 3, 26, 9), 3),     # 2026-03-29 02:00 → 03:00
}


async def joined(make_app: AppFactory, fake: FakeOpenAIServer, clock: ManualClock, text: str, zone: str,
                 intake_done: datetime) -> tuple[App, MemoryTransport]:
    """Ana in ``zone`` enrolled and through intake at ``intake_done`` (her local time): the turn
    that sets study day 1 plans every study-day questionnaire."""
    clock.set(intake_done.replace(tzinfo=ZoneInfo(zone)).astimezone(timezone.utc))
    transport = MemoryTransport()
    app = await make_app(transport, **{**QUIET, **with_study(text)})
    await enroll_with_schedule(app, fake, ANA, zone, {"action": "create", "type": "fixed",
                                                      "fixed_time": HABIT.strftime("%H:%M")})
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "plan complete"}, match="all set")
    fake.say("Great, tell me how it goes.", match="all set")
    await transport.inject(ANA, "I'm all set")
    await app.run_until_idle()
    fake.always(NUDGE, match="scheduled daily nudge")
    return app, transport


async def instances(app: App) -> list[sa.Row]:  # type: ignore[type-arg]
    table = table_of(QuestionnaireInstance)
    return list(await app.db.run(lambda session: session.execute(
        sa.select(table).order_by(table.c.scheduled_at, table.c.id)).all()))


def questions(transport: MemoryTransport) -> list[str]:
    return [item.text for item in transport.sent if item.to.phone == ANA and item.text in (EVENING, MOOD)]


def poll_of(transport: MemoryTransport, question: str) -> str:
    return [item.message_id for item in transport.sent if item.kind == "poll" and item.text == question][-1]


async def live_through(app: App, transport: MemoryTransport, until: datetime,
                       moments: list[datetime]) -> list[tuple[datetime, str]]:
    """Let the service run to ``until``, an hour at a time and, around each planned moment, a
    minute before it and at it; Ana answers each question when it comes. What was asked, when."""
    now = app.clock.now()
    stops = {now + STEP * n for n in range(1, int((until - now) / STEP) + 1)}
    stops |= {moment + offset for moment in moments for offset in (-MINUTE, timedelta(0))}
    asked: list[tuple[datetime, str]] = []
    for stop in sorted(stop for stop in stops if stop > now):
        seen = len(questions(transport))
        await at(app, stop)
        for question in questions(transport)[seen:]:
            asked.append((stop, question))
            await vote(app, transport, poll_of(transport, question), "Yes")
    return asked


def local(moment: datetime, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


@pytest.mark.parametrize("transition", list(TRANSITIONS))
async def test_daily_questionnaires_keep_the_local_clock_across_a_daylight_saving_change(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock, transition: str
) -> None:
    name, intake_done, change_day = TRANSITIONS[transition]
    zone = ZoneInfo(name)
    app, transport = await joined(make_app, fake_openai, clock, DAILY, name, intake_done)
    planned = await instances(app)
    days = [(intake_done + timedelta(days=n)).date() for n in range(1, 6)]
    assert len({datetime.combine(day, time(12), zone).utcoffset() for day in days}) == 2, "days straddle the change"
    assert sorted((row.questionnaire_id, row.study_day, row.local_date, row.schedule_kind, row.status)
                  for row in planned) == sorted(
        [("evening", n, day.isoformat(), "fixed", "scheduled") for n, day in enumerate(days, 1)]
        + [("mood", n, day.isoformat(), "random", "scheduled") for n, day in enumerate(days, 1)])

    moods = [row for row in planned if row.questionnaire_id == "mood"]
    for row in moods:
        day = datetime.fromisoformat(row.local_date).date()
        drawn = row.scheduled_at.astimezone(zone)
        assert drawn.date() == day and time(8) <= drawn.time() < time(12), (
            f"day {row.study_day}: {local(row.scheduled_at, zone)} is outside 07:00-12:00 or in the quiet hours")
        assert (local(row.window_start, zone)[11:16], local(row.window_end, zone)[11:16]) == ("07:00", "12:00")
        prompt = datetime.combine(day, time(9, 50), zone)
        assert abs(row.scheduled_at - prompt) >= timedelta(minutes=30), (
            f"day {row.study_day}: drawn {local(row.scheduled_at, zone)}, too close to the prompt at 09:50")

    asked = await live_through(app, transport, datetime.combine(days[-1], time(23, 30), zone),
                               [row.scheduled_at for row in planned])

    expected = sorted([(datetime.combine(day, time(19), zone), EVENING) for day in days]
                      + [(row.scheduled_at, MOOD) for row in moods])
    assert [(local(moment, zone), question) for moment, question in asked] == [
        (local(moment, zone), question) for moment, question in expected]  # each on time, once; none missed
    evenings = [moment for moment, question in asked if question == EVENING]
    assert {moment.astimezone(zone).strftime("%H:%M") for moment in evenings} == {"19:00"}
    assert len({moment.utcoffset() for moment in (m.astimezone(zone) for m in evenings)}) == 2  # both sides
    assert evenings[change_day - 1] - evenings[change_day - 2] != timedelta(days=1)  # 23 h or 25 h: the local clock
    done = await instances(app)
    assert [(row.questionnaire_id, row.status) for row in done if row.status != "completed"] == []
    assert all(row.sent_at == row.scheduled_at for row in done), "an instance went out at another time than planned"


SKIPPED_AND_REPEATED = {
    # zone, intake done, the fixed time, what that time is on each of study days 1-4 (local, as sent)
    "skipped-hour": ("America/Toronto", datetime(2026, 3, 5, 9), "02:30",
                     ["2026-03-06 02:30 EST", "2026-03-07 02:30 EST", "2026-03-08 03:00 EDT",
                      "2026-03-09 02:30 EDT"]),
    "repeated-hour": ("America/Toronto", datetime(2026, 10, 29, 9), "01:30",
                      ["2026-10-30 01:30 EDT", "2026-10-31 01:30 EDT", "2026-11-01 01:30 EDT",
                       "2026-11-02 01:30 EST"]),
}


@pytest.mark.parametrize("case", list(SKIPPED_AND_REPEATED))
async def test_a_fixed_time_the_clocks_skip_or_repeat_comes_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock, case: str
) -> None:
    """02:30 does not exist on spring-forward night: that day's questionnaire comes at the jump
    (03:00, the first minute after 02:30 the clock shows), the time recorded for it; the nights
    before and after it comes at 02:30. 01:30 happens twice on fall-back night: it comes at the
    first, not again at the second."""
    name, intake_done, fixed, expected = SKIPPED_AND_REPEATED[case]
    zone = ZoneInfo(name)
    text = study(questionnaire("night", f'{{ study_days = [1, 2, 3, 4], at = "{fixed}" }}', EVENING, "30m"))
    app, transport = await joined(make_app, fake_openai, clock, text, name, intake_done)
    planned = await instances(app)
    assert [local(row.scheduled_at, zone) for row in planned] == expected
    assert [row.local_date for row in planned] == [moment[:10] for moment in expected]

    last = planned[-1].scheduled_at
    odd = planned[2].scheduled_at  # the night of the change; also watched: when the clock shows
    watch = [odd + timedelta(minutes=30), odd + timedelta(hours=1)]  # 02:30 on the old offset, 01:30 again
    asked = await live_through(app, transport, last + timedelta(hours=3),
                               [row.scheduled_at for row in planned] + watch)
    assert [local(moment, zone) for moment, _ in asked] == expected  # once each night, at the time planned
    done = await instances(app)
    assert [(row.study_day, row.status, row.sent_at == row.scheduled_at) for row in done] == [
        (1, "completed", True), (2, "completed", True), (3, "completed", True), (4, "completed", True)]


class Recording(random.Random):
    """A seeded draw that keeps the minutes it drew from."""

    offered: list[datetime]

    def choice(self, seq: Sequence[datetime]) -> datetime:  # type: ignore[override]
        self.offered = list(seq)
        return super().choice(seq)


@pytest.mark.parametrize(("name", "day", "window", "minutes"), [
    ("America/Toronto", "2026-03-08", ("01:00", "04:00"), 50 + 1 + 59),  # 02:00-02:59 do not exist: the jump, once
    ("America/Toronto", "2026-11-01", ("00:30", "03:00"), 30 + 50 + 60),  # 01:00-01:59 twice: their first run
    ("Europe/Berlin", "2026-03-29", ("01:30", "02:30"), 30 + 1),         # the window ends inside the gap
])
def test_a_window_around_the_change_offers_each_local_minute_once(
    name: str, day: str, window: tuple[str, str], minutes: int
) -> None:
    """The night of the change, a window across it (quiet hours 01:00-01:10): every minute the
    draw may pick lies in the window on the participant's clock, outside the quiet hours, on that
    day, and is a different instant (the minutes a spring-forward jump skips count once, at the
    jump, so it is no likelier than any other minute; a repeated hour counts once)."""
    text = study(questionnaire("night", f'{{ between = ["{window[0]}", "{window[1]}"], min_gap = "15m" }}',
                               EVENING, "30m"), quiet='[quiet_hours]\nstart = "01:00"\nend = "01:10"\n')
    parsed = parse_study(text.encode())
    zone, local_day = ZoneInfo(name), datetime.fromisoformat(day).date()
    rng = Recording(7)
    due = due_on(parsed.questionnaires[0].send, local_day, zone, parsed.quiet_hours, [], rng)
    assert due.at in rng.offered and due.window is not None
    assert len(rng.offered) == len(set(rng.offered)) == minutes
    for instant in rng.offered:
        wall = instant.astimezone(zone)
        assert due.window[0] <= instant <= due.window[1], f"{local(instant, zone)} is outside {window}"
        assert wall.date() == local_day and not time(1) <= wall.time() < time(1, 10), local(instant, zone)
