"""Questionnaires the study file schedules, as a participant meets them without anyone sending
them by hand: once when intake is complete, on study days at a fixed time, at a random minute in
a daily window (the draw recorded), one after the other when two are due together, and recorded
as not sent when the participant was paused while one was due."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from promptpipe.app import App
from promptpipe.questionnaires.rules.definition import EndReason
from promptpipe.research import admin
from promptpipe.storage.models import table_of
from promptpipe.study.store.tables import QuestionnaireInstance
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, vote
from tests.schedule_helpers import NUDGE, QUIET, at, step_through
from tests.study_helpers import in_study, with_study

TORONTO = ZoneInfo("America/Toronto")
TUESDAY = datetime(2026, 1, 6, tzinfo=TORONTO)
"""Study day 1 of in_study's Ana (intake done on Monday)."""
HEAD = 'name = "Pilot"\nlength_days = 3\n'


def questionnaire(qid: str, send: str, question: str, open_for: str = "2h") -> str:
    return (f'[[questionnaires]]\nid = "{qid}"\ntitle = "{qid}"\nsend = {send}\nopen_for = "{open_for}"\n'
            f'[[questionnaires.items]]\nid = "q"\ntext = "{question}"\ntype = "yes_no"\n')


async def instances(app: App) -> list[sa.Row]:  # type: ignore[type-arg]
    return list(await app.db.run(lambda session: session.execute(
        sa.select(table_of(QuestionnaireInstance)).order_by(sa.column("scheduled_at"), sa.column("id"))).all()))


def asked(transport: MemoryTransport, question: str) -> list[str]:
    return [item.message_id for item in transport.sent if item.text == question]


async def test_a_questionnaire_at_intake_complete_goes_out_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "baseline", '{ event = "intake_complete" }', "Ready to start?", open_for="1d"))
    assert len(asked(transport, "Ready to start?")) == 1
    await vote(app, transport, asked(transport, "Ready to start?")[0], "Yes")
    await at(app, datetime(2026, 1, 8, 12, tzinfo=TORONTO))
    assert len(asked(transport, "Ready to start?")) == 1
    [row] = await instances(app)
    assert (row.occasion, row.schedule_kind, row.status) == ("intake_complete", "event", "completed")


async def test_study_days_at_a_fixed_time_and_not_after_the_last_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "evening", '{ study_days = [1, 3], at = "19:00" }', "Did you walk today?"))
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, TUESDAY + timedelta(hours=18, minutes=59))
    assert asked(transport, "Did you walk today?") == []
    await at(app, TUESDAY + timedelta(hours=19))
    assert len(asked(transport, "Did you walk today?")) == 1
    for day in (1, 2, 3):  # the service runs all along: it sees each moment come
        await at(app, TUESDAY + timedelta(days=day, hours=19))
    assert len(asked(transport, "Did you walk today?")) == 2  # day 1 and day 3, not day 2 nor after day 3
    rows = await instances(app)
    assert [(r.study_day, r.local_date, r.schedule_kind, r.status) for r in rows] == [
        (1, "2026-01-06", "fixed", "expired"), (3, "2026-01-08", "fixed", "expired")]
    assert [r.scheduled_at.astimezone(TORONTO).time() for r in rows] == [time(19), time(19)]


async def test_a_random_minute_in_the_window_each_day_with_the_draw_recorded(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "mood", '{ between = ["10:00", "16:00"], min_gap = "30m" }', "In a good mood?"))
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await step_through(app, TUESDAY + timedelta(days=2, hours=23), step=timedelta(minutes=30))
    rows = await instances(app)
    assert [r.study_day for r in rows] == [1, 2, 3]
    for row in rows:
        local = row.scheduled_at.astimezone(TORONTO)
        assert time(10) <= local.time() < time(16)
        assert row.window_start.astimezone(TORONTO).time() == time(10)
        assert row.window_end.astimezone(TORONTO).time() == time(16)
    assert len({r.scheduled_at.astimezone(TORONTO).time() for r in rows}) > 1  # drawn afresh each day
    sent = [item for item in transport.sent if item.text == "In a good mood?"]
    assert len(sent) == 3


async def test_two_due_together_go_one_after_the_other(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD
                                       + questionnaire("first", '{ study_days = [1], at = "19:00" }', "First?")
                                       + questionnaire("second", '{ study_days = [1], at = "19:00" }', "Second?"))
    await at(app, TUESDAY + timedelta(hours=19))
    assert len(asked(transport, "First?")) == 1 and asked(transport, "Second?") == []
    await vote(app, transport, asked(transport, "First?")[0], "No")
    await at(app, TUESDAY + timedelta(hours=19, minutes=1))
    assert len(asked(transport, "Second?")) == 1
    assert [r.status for r in await instances(app)] == ["completed", "sent"]


async def test_a_questionnaire_due_while_paused_is_recorded_as_not_sent(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "evening", '{ study_days = [1, 2], at = "19:00" }', "Did you walk today?"))
    await at(app, TUESDAY + timedelta(hours=12))
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause", reason="travelling")
    await app.run_until_idle()
    await at(app, TUESDAY + timedelta(days=1, hours=12))
    await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    await app.run_until_idle()
    await at(app, TUESDAY + timedelta(days=1, hours=19))
    assert len(asked(transport, "Did you walk today?")) == 1  # day 2 only
    rows = await instances(app)
    assert [(r.study_day, r.status) for r in rows] == [(1, "not_sent"), (2, "sent")]
    assert rows[0].reason == EndReason.NOT_SENT_IN_TIME


async def test_a_questionnaire_added_mid_study_is_planned_from_that_day_on(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, TUESDAY + timedelta(days=1, hours=9))  # study day 2
    await app.stop()
    changed = await make_app(transport, start=False, **{**QUIET, **with_study(HEAD + questionnaire(
        "evening", '{ study_days = [1, 2, 3], at = "19:00" }', "Did you walk today?"))})
    await changed.start(background=False, allow_protocol_change=True)
    await transport.inject(ANA, "hello again")  # any turn of hers plans it
    fake_openai.say("Hi Ana!", match="hello again")
    await changed.run_until_idle()
    assert [r.study_day for r in await instances(changed)] == [2, 3]  # day 1 was before the protocol had it


async def test_a_new_time_zone_moves_the_planned_ones_to_the_same_time_on_the_new_clock(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "evening", '{ study_days = [1, 2, 3], at = "19:00" }', "Did you walk today?"))
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, TUESDAY + timedelta(hours=16))  # 22:00 in Berlin
    await admin.set_timezone(app.db, app.clock, phone=ANA, timezone="Europe/Berlin", study=app.settings.study)
    await app.run_until_idle()
    berlin = ZoneInfo("Europe/Berlin")
    rows = await instances(app)
    assert [(r.local_date, r.scheduled_at.astimezone(berlin).time()) for r in rows[1:]] == [
        ("2026-01-07", time(19)), ("2026-01-08", time(19))]
    assert rows[0].status == "not_sent"  # day 1's 19:00 and its two hours had passed in Berlin
    assert rows[0].reason == EndReason.TIME_ZONE_CHANGED
    await at(app, datetime(2026, 1, 7, 19, tzinfo=berlin))
    assert len(asked(transport, "Did you walk today?")) == 1


async def test_a_long_study_asks_every_day_once_and_an_extension_adds_days(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Study days are planned a week ahead as the study goes on, so a study longer than a week is
    covered to its last day and the days an extension adds are asked too."""
    app, transport, _ = await in_study(make_app, fake_openai, 'name = "Pilot"\nlength_days = 12\n' + questionnaire(
        "evening", '{ at = "19:00" }', "Did you walk today?"))
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    for day in range(12):
        await at(app, TUESDAY + timedelta(days=day, hours=19))
        if day == 9:
            await admin.extend(app.db, app.clock, study=app.settings.study, phone=ANA, days=2)
            await app.run_until_idle()
    for day in range(12, 16):
        await at(app, TUESDAY + timedelta(days=day, hours=19))
    assert len(asked(transport, "Did you walk today?")) == 14  # 12 days and the 2 added, nothing after
    assert [r.study_day for r in await instances(app)] == list(range(1, 15))


EXIT = (HEAD + 'closing_message = "That was the last day. Thank you!"\n'
        + questionnaire("exit", '{ event = "study_end" }', "Would you recommend this?", open_for="2d"))


async def test_the_exit_questionnaire_follows_the_closing_message_and_is_answered_after_the_end(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, EXIT)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    for day in range(4):
        await at(app, TUESDAY + timedelta(days=day))  # the last study day ends at midnight
    texts = transport.texts_to(ANA)
    assert texts[-2:] == ["That was the last day. Thank you!", "Would you recommend this?"]
    await vote(app, transport, asked(transport, "Would you recommend this?")[0], "Yes")
    await at(app, TUESDAY + timedelta(days=6))
    [row] = await instances(app)
    assert (row.occasion, row.status) == ("study_end", "completed")
    assert len(asked(transport, "Would you recommend this?")) == 1
    assert (await admin.show(app.db, phone=ANA)).status == "completed"


async def test_after_an_extension_the_exit_questionnaire_is_asked_at_the_new_end(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Completed on Friday with the exit questionnaire unanswered, then given two more days: the
    first asking stops (the study did not end there) and it is asked again at the true end."""
    app, transport, _ = await in_study(make_app, fake_openai, EXIT)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    for day in range(4):
        await at(app, TUESDAY + timedelta(days=day))
    assert len(asked(transport, "Would you recommend this?")) == 1
    await at(app, TUESDAY + timedelta(days=3, hours=9))
    await admin.extend(app.db, app.clock, study=app.settings.study, phone=ANA, days=2)
    await app.run_until_idle()
    assert (await admin.show(app.db, phone=ANA)).status == "active"
    for day in range(4, 6):
        await at(app, TUESDAY + timedelta(days=day))
    assert transport.texts_to(ANA)[-2:] == ["That was the last day. Thank you!", "Would you recommend this?"]
    await vote(app, transport, asked(transport, "Would you recommend this?")[-1], "Yes")
    first, last = await instances(app)
    assert (first.occasion, first.status) == ("study_end", "stopped") and "extended" in (first.reason or "")
    assert (last.occasion, last.status) == ("study_end_day_5", "completed")
    assert (await admin.show(app.db, phone=ANA)).status == "completed"


async def _stops(app: App, transport: MemoryTransport) -> None:
    await transport.inject(ANA, "STOP")


async def _is_withdrawn(app: App, transport: MemoryTransport) -> None:
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="Dr. Lee")


@pytest.mark.parametrize(("leaves", "why"), [(_stops, EndReason.OPTED_OUT), (_is_withdrawn, EndReason.WITHDRAWN)],
                         ids=["stop", "withdrawal"])
async def test_no_exit_questionnaire_for_someone_who_left_and_the_record_says_why(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
    leaves: Callable[[App, MemoryTransport], Awaitable[None]], why: EndReason,
) -> None:
    """A row all the same (at their STOP's study end, or at the withdrawal), so the exit
    questionnaire's file has one for everyone who started, with why it is empty."""
    app, transport, _ = await in_study(make_app, fake_openai, EXIT)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, TUESDAY + timedelta(hours=12))
    await leaves(app, transport)
    await app.run_until_idle()
    for day in range(1, 6):
        await at(app, TUESDAY + timedelta(days=day))
    assert asked(transport, "Would you recommend this?") == []
    [row] = await instances(app)
    assert (row.occasion, row.status) == ("study_end", "not_sent")
    assert row.reason == why


async def test_a_withdrawal_records_every_planned_day_as_not_sent(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, _, _ = await in_study(make_app, fake_openai, HEAD + questionnaire(
        "evening", '{ at = "19:00" }', "Did you walk today?"))
    await at(app, TUESDAY + timedelta(hours=20))
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="Dr. Lee")
    await app.run_until_idle()
    rows = await instances(app)
    assert [(r.study_day, r.status) for r in rows] == [(1, "stopped"), (2, "not_sent"), (3, "not_sent")]
    assert all(r.reason == EndReason.WITHDRAWN for r in rows[1:])


async def test_one_due_in_the_quiet_hours_waits_for_their_end(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Intake is done at 04:00 on Monday; 20 hours later is midnight, inside the quiet hours."""
    app, transport, _ = await in_study(make_app, fake_openai, HEAD + '[quiet_hours]\nstart = "22:00"\nend = "07:00"\n'
                                       + questionnaire("baseline", '{ event = "intake_complete", delay = "20h" }',
                                                       "Ready?", open_for="1d"))
    await at(app, TUESDAY + timedelta(minutes=1))
    await at(app, TUESDAY + timedelta(hours=6, minutes=59))
    assert asked(transport, "Ready?") == []
    await at(app, TUESDAY + timedelta(hours=7))
    assert len(asked(transport, "Ready?")) == 1
    [row] = await instances(app)
    assert row.scheduled_at.astimezone(TORONTO) == TUESDAY  # due at midnight
    assert row.sent_at.astimezone(TORONTO).time() == time(7)  # sent when the quiet hours ended
