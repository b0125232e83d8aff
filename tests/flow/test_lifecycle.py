"""The participant's way through intake as they meet it: offered, put on hold in their own words,
reminded (at most twice, never at night), resumed where it stopped; quiet hours hold back what the
study schedules but never an answer to something they just wrote."""

from __future__ import annotations

from datetime import timedelta

import pytest

from promptpipe.domain.phrases import ESCAPE_PHRASES
from promptpipe.flow.commands import CONFIRM_STOP, CONVERSATION_WINDOW, STOPPED
from promptpipe.flow.lifecycle import INTAKE_ON_HOLD, INTAKE_REMINDER_TEXT
from promptpipe.flow.timers import REMINDER_TEXT
from promptpipe.research import admin
from promptpipe.research.status import read_status
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA as ANA_TORONTO
from tests.feedback_helpers import DAY, MONDAY_PROMPT, prompted
from tests.participant_helpers import ANA, enrolled
from tests.schedule_helpers import NUDGE, at, pending_timers, utc
from tests.study_helpers import in_study, with_study

NIGHTS_OFF = """
name = "Quiet nights"
length_days = 28
[quiet_hours]
start = "22:00"
end = "07:00"
"""


async def participant_id(app, phone: str = ANA) -> str:  # type: ignore[no-untyped-def]
    found = await admin.find(app.db, phone)
    assert found is not None
    return found.id


async def write(app, transport, text: str, phone: str = ANA) -> None:  # type: ignore[no-untyped-def]
    await transport.inject(phone, text)
    await app.run_until_idle()


@pytest.mark.parametrize("words", ["later", "Never mind"])
async def test_an_escape_phrase_puts_intake_on_hold_without_the_model(
    words: str, make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The whole path of two; every escape phrase is decided in test_words_decided.py."""
    app, transport = await enrolled(make_app, fake_openai)
    await write(app, transport, words)
    assert transport.texts_to(ANA)[-1] == INTAKE_ON_HOLD
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.sub_state) == ("active", "INTAKE_SUSPENDED")
    fake_openai.assert_complete()  # nothing was asked of the model


def test_every_documented_escape_phrase_is_in_the_readme() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    missing = [phrase for phrase in ESCAPE_PHRASES if f"`{phrase}`" not in readme]
    assert not missing


async def test_stop_during_intake_still_means_stop(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    await write(app, transport, "STOP")
    assert transport.texts_to(ANA)[-1] == STOPPED
    assert (await admin.show(app.db, ANA)).status == "paused"


async def test_cancel_after_intake_stops_the_messages(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """Outside intake "cancel" keeps its usual meaning (unsubscribe); right after the coach spoke it
    is asked about first (it may answer what the coach said), hours later it stops at once."""
    app, transport, _ = await prompted(make_app, fake_openai)
    fake_openai.call_tool("transition_state", {"target_state": "FEEDBACK"}, match="all set")
    fake_openai.say("Great!", match="all set")
    await write(app, transport, "all set", ANA_TORONTO)
    await write(app, transport, "cancel", ANA_TORONTO)
    assert transport.texts_to(ANA_TORONTO)[-1] == CONFIRM_STOP
    assert (await admin.show(app.db, ANA_TORONTO)).status == "active"

    app.clock.advance(CONVERSATION_WINDOW)
    await write(app, transport, "cancel", ANA_TORONTO)
    assert transport.texts_to(ANA_TORONTO)[-1] == STOPPED


async def test_intake_reminders_come_twice_at_most_and_never_at_night(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    # Enrolled at 04:00 Toronto (09:00 UTC); the hold starts at 22:00 Toronto, inside the quiet hours.
    app, transport = await enrolled(make_app, fake_openai, **with_study(NIGHTS_OFF))
    pid = await participant_id(app)
    await at(app, utc(2026, 1, 6, 3, 0))
    await write(app, transport, "not now")
    due = (await pending_timers(app, pid))["intake_reminder"]
    assert due == utc(2026, 1, 7, 12, 0)  # a day later is 22:00 again: moved to 07:00 the morning after
    await at(app, due)
    assert transport.texts_to(ANA)[-1] == INTAKE_REMINDER_TEXT
    second = (await pending_timers(app, pid))["intake_reminder"]
    assert second == due + timedelta(days=1)  # 07:00 + 1 day is outside the quiet hours
    await at(app, second)
    assert transport.texts_to(ANA).count(INTAKE_REMINDER_TEXT) == 2
    assert "intake_reminder" not in await pending_timers(app, pid)  # INTAKE_REMINDER_MAX is 2
    await at(app, second + timedelta(days=5))
    assert transport.texts_to(ANA).count(INTAKE_REMINDER_TEXT) == 2


async def test_writing_again_resumes_intake_where_it_stopped(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.call_tool("save_user_profile", {"habit_domain": "a short walk"}, match="walking")
    fake_openai.say("A short walk, lovely. What moment of your day could it follow?", match="walking")
    await write(app, transport, "I'd like to start walking more")
    await write(app, transport, "maybe later")
    welcome = fake_openai.say("Welcome back! What moment of your day could your walk follow?",
                              match="put on hold earlier")
    await write(app, transport, "hi, I have a few minutes now")
    assert transport.texts_to(ANA)[-1].startswith("Welcome back")
    situation = "\n".join(m["content"] for m in welcome.request["messages"] if m["role"] == "system")  # type: ignore[index]
    assert "habit_domain: a short walk" in situation and "prompt_anchor" in situation  # known, and still missing
    shown = await admin.show(app.db, ANA)
    assert shown.sub_state == "INTAKE"
    assert "intake_reminder" not in await pending_timers(app, await participant_id(app))
    fake_openai.assert_complete()


async def test_a_reply_is_never_held_back_by_quiet_hours(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai, **with_study(NIGHTS_OFF))
    await at(app, utc(2026, 1, 6, 4, 30))  # 23:30 in Toronto
    fake_openai.say("Happy to help, even this late.", match="can't sleep")
    await write(app, transport, "I can't sleep, can we talk about my habit?")
    assert transport.texts_to(ANA)[-1] == "Happy to help, even this late."


async def test_a_reminder_due_at_night_waits_for_the_morning(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Tuesday's prompt at 07:50 with a 15-hour reminder delay: 22:50 is quiet, so it comes at 07:00."""
    app, transport, pid = await in_study(make_app, fake_openai, NIGHTS_OFF, DAILY_PROMPT_REMINDER_DELAY="15h")
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    due = (await pending_timers(app, pid))["reminder"]
    assert due == utc(2026, 1, 7, 12, 0)
    await at(app, MONDAY_PROMPT + DAY + timedelta(hours=15))
    assert REMINDER_TEXT not in transport.texts_to(ANA_TORONTO)
    await at(app, due)
    assert transport.texts_to(ANA_TORONTO)[-1] == REMINDER_TEXT


async def test_a_timer_that_comes_due_at_night_after_a_move_waits_for_the_morning(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The reminder was armed for 17:50 Toronto; the participant moved to Berlin, where that is
    23:50: it is not sent then, but at 07:00 Berlin time."""
    app, transport, pid = await in_study(make_app, fake_openai, NIGHTS_OFF, DAILY_PROMPT_REMINDER_DELAY="10h")
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    due = (await pending_timers(app, pid))["reminder"]
    assert due == utc(2026, 1, 6, 22, 50)
    await admin.set_timezone(app.db, app.clock, phone=ANA_TORONTO, timezone="Europe/Berlin")
    await at(app, due)
    assert REMINDER_TEXT not in transport.texts_to(ANA_TORONTO)
    assert (await pending_timers(app, pid))["reminder"] == utc(2026, 1, 7, 6, 0)  # 07:00 in Berlin
    await at(app, utc(2026, 1, 7, 6, 0))
    assert transport.texts_to(ANA_TORONTO)[-1] == REMINDER_TEXT


async def test_the_model_cannot_schedule_a_prompt_inside_quiet_hours(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai, **with_study(NIGHTS_OFF))
    refused = fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "06:30"},
                                    match="half past six")
    accepted = fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "07:30"},
                                     match="quiet hours")
    fake_openai.say("Done: your nudge comes at 07:20.", match="begin on study day")
    await write(app, transport, "remind me at half past six please")
    tool_results = [m["content"] for m in accepted.request["messages"] if m["role"] == "tool"]  # type: ignore[index]
    assert "quiet hours (22:00-07:00" in tool_results[-1] and "06:20" in tool_results[-1]
    assert refused.request is not None
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert [s.habit for s in shown.schedules] == ["07:30"]  # only the allowed time was saved
    fake_openai.assert_complete()


async def test_a_paused_participant_s_study_still_ends_without_a_closing_message(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai)
    await write(app, transport, "STOP", ANA_TORONTO)
    sent = len(transport.sent)
    await at(app, utc(2026, 1, 8, 5, 0))  # the end of study day 2
    shown = await admin.show(app.db, ANA_TORONTO)
    assert shown.status == "completed" and shown.completed_at is not None
    assert len(transport.sent) == sent  # they said STOP: not even the closing message
    await write(app, transport, "START", ANA_TORONTO)
    assert (await admin.show(app.db, ANA_TORONTO)).status == "completed"


async def test_intake_goes_on_hold_after_thirty_quiet_minutes_not_while_they_talk(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    pid = await participant_id(app)
    start = app.clock.now()
    fake_openai.always("Thanks, tell me more.", match="more detail")
    for minutes in (20, 40, 60):  # an answer every 20 minutes: never 30 minutes of silence
        await at(app, start + timedelta(minutes=minutes))
        await write(app, transport, f"more detail after {minutes} minutes")
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"
    await at(app, start + timedelta(minutes=89))
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"
    await at(app, start + timedelta(minutes=90))  # 30 minutes after the last turn
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE_SUSPENDED"
    assert "intake_reminder" in await pending_timers(app, pid)


async def test_a_prompt_asked_for_while_intake_is_on_hold_asks_for_what_it_lacks(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Found by the consent property test: the prompt's turn moved a participant whose intake was
    on hold "back to intake", a transition that does not start there; the turn failed for good and
    every later input of theirs waited behind it."""
    app, transport = await enrolled(make_app, fake_openai)
    await write(app, transport, "not now")
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1].startswith("It's time for your daily nudge, but I can't write it yet")
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")  # the lane is not stuck
    assert (await admin.show(app.db, ANA)).status == "paused"
    assert not (await read_status(app.db)).stuck_inputs
