"""Timers: reminder, auto-feedback, delayed hand-over, feedback check-ins, the intensity poll,
and silence for paused or withdrawn participants. Each timer is an APScheduler job that writes
an inbox row; the clock is moved by hand."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from sqlalchemy import text

from promptpipe.errors import ConfigError
from promptpipe.flow import intensity
from promptpipe.flow.timers import REMINDER_TEXT
from promptpipe.research import admin
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, job_ids, pending_timers, sent_kinds, utc

ANA = "+15145550101"
PROMPT_AT = utc(2026, 1, 5, 12, 50)  # 07:50 in Toronto, for a habit at 08:00


async def prompted(make_app: AppFactory, fake: FakeOpenAIServer, **settings: str):  # type: ignore[no-untyped-def]
    """Ana in Toronto with an 08:00 habit, at the moment her Monday prompt went out."""
    transport = MemoryTransport()
    app = await make_app(transport, **{**QUIET, **settings})
    pid = await enroll_with_schedule(app, fake, ANA, "America/Toronto")
    fake.say(NUDGE, match="scheduled daily nudge")
    await at(app, PROMPT_AT)
    assert sent_kinds(transport, ANA)[1] == ("text", NUDGE)
    return app, transport, pid


async def test_reminder_after_silence_then_a_late_reply_is_answered(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    assert f"reminder:{pid}" in await job_ids(app)
    await at(app, PROMPT_AT + timedelta(hours=4, minutes=59))
    assert REMINDER_TEXT not in transport.texts_to(ANA)
    await at(app, PROMPT_AT + timedelta(hours=5))
    assert transport.texts_to(ANA)[-1] == REMINDER_TEXT
    assert await pending_timers(app, pid) == {}
    assert f"reminder:{pid}" not in await job_ids(app)  # a one-shot alarm is gone after it rang

    fake_openai.say("Glad you managed it after all!", match="did it at lunch")
    await transport.inject(ANA, "did it at lunch")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Glad you managed it after all!"
    await at(app, PROMPT_AT + timedelta(hours=12))
    assert transport.texts_to(ANA).count(REMINDER_TEXT) == 1


async def test_a_reply_cancels_the_reminder(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    fake_openai.say("Nice work!", match="done already")
    await at(app, PROMPT_AT + timedelta(minutes=30))
    await transport.inject(ANA, "done already")
    await app.run_until_idle()
    assert "reminder" not in await pending_timers(app, pid)
    assert f"reminder:{pid}" not in await job_ids(app)
    await at(app, PROMPT_AT + timedelta(hours=6))
    assert REMINDER_TEXT not in transport.texts_to(ANA)


async def test_auto_feedback_hands_a_silent_participant_to_feedback(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on",
                                         AUTO_FEEDBACK_DELAY="5m")
    await at(app, PROMPT_AT + timedelta(minutes=4))
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"
    await at(app, PROMPT_AT + timedelta(minutes=5))
    assert (await admin.show(app.db, ANA)).sub_state == "FEEDBACK"
    assert len(transport.texts_to(ANA)) == 3  # the hand-over itself sends nothing
    fake_openai.say("How did the stretch feel?", match="it was fine")
    await transport.inject(ANA, "it was fine")
    await app.run_until_idle()
    assert "you hear how it went" in fake_openai.requests[-1]["messages"][0]["content"]  # the feedback module answered


async def test_a_reply_before_the_delay_keeps_auto_feedback_from_firing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on")
    fake_openai.say("Great!", match="on it")
    await at(app, PROMPT_AT + timedelta(minutes=2))
    await transport.inject(ANA, "on it")
    await app.run_until_idle()
    await at(app, PROMPT_AT + timedelta(minutes=30))
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"


async def test_a_newer_delayed_transition_replaces_the_pending_one(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    pid = await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    start = app.clock.now()
    fake_openai.call_tool("transition_state",
                          {"target_state": "FEEDBACK", "delay_minutes": 30, "reason": "after lunch"})
    fake_openai.say("I'll check in after lunch.")
    await transport.inject(ANA, "ask me after lunch")
    await app.run_until_idle()
    fake_openai.call_tool("transition_state", {"target_state": "FEEDBACK", "delay_minutes": 90, "reason": "later"})
    fake_openai.say("Later it is.")
    await transport.inject(ANA, "actually make it later")
    await app.run_until_idle()
    assert "replaces the delayed move" in fake_openai.requests[-1]["messages"][-1]["content"]
    assert await pending_timers(app, pid) == {"transition": start + timedelta(minutes=90)}
    await at(app, start + timedelta(minutes=31))
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"  # the first one no longer counts
    await at(app, start + timedelta(minutes=90))
    assert (await admin.show(app.db, ANA)).sub_state == "FEEDBACK"


async def test_feedback_check_in_and_follow_up_break_a_silence(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on",
                                         FEEDBACK_INITIAL_TIMEOUT="15m", FEEDBACK_FOLLOWUP_DELAY="3h")
    await at(app, PROMPT_AT + timedelta(minutes=5))  # auto-feedback: now in FEEDBACK
    fake_openai.say("How did today's stretch go?", match="has not written anything")
    await at(app, PROMPT_AT + timedelta(minutes=19))
    assert len(transport.texts_to(ANA)) == 3
    await at(app, PROMPT_AT + timedelta(minutes=20))
    assert transport.texts_to(ANA)[-1] == "How did today's stretch go?"
    fake_openai.say("No pressure: just 'done' or 'not today' is fine.", match="still not answered")
    await at(app, PROMPT_AT + timedelta(hours=3, minutes=20))
    assert transport.texts_to(ANA)[-1] == "No pressure: just 'done' or 'not today' is fine."
    await at(app, PROMPT_AT + timedelta(hours=10))
    assert len(transport.texts_to(ANA)) == 5  # and nothing more

    # Still in FEEDBACK the next day: the check-in clock starts with the new prompt.
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    fake_openai.say("And how did it go today?", match="has not written anything")
    await at(app, PROMPT_AT + timedelta(days=1))
    await at(app, PROMPT_AT + timedelta(days=1, minutes=15))
    assert transport.texts_to(ANA)[-1] == "And how did it go today?"
    fake_openai.assert_complete()


async def test_a_reply_cancels_pending_feedback_check_ins(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on",
                                         FEEDBACK_INITIAL_TIMEOUT="15m", FEEDBACK_FOLLOWUP_DELAY="3h")
    await at(app, PROMPT_AT + timedelta(minutes=5))
    assert "feedback_check_in" in await pending_timers(app, pid)
    fake_openai.say("Lovely, thanks for telling me.", match="felt good")
    await transport.inject(ANA, "felt good")
    await app.run_until_idle()
    assert await pending_timers(app, pid) == {}
    await at(app, PROMPT_AT + timedelta(hours=5))
    assert transport.texts_to(ANA)[-1] == "Lovely, thanks for telling me."


async def test_intensity_poll_once_a_day_and_a_vote_changes_intensity(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai, INTENSITY_POLL_ENABLED="on")
    polls = [item for item in transport.sent if item.kind == "poll"]
    assert [p.text for p in polls] == ["Did you do it?", intensity.QUESTION]
    assert polls[1].options == (intensity.LESS, intensity.SAME, intensity.MORE)

    # A second prompt the same local day (a researcher's prompt-now) carries no second intensity poll.
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()
    assert [p.text for p in transport.sent if p.kind == "poll"].count(intensity.QUESTION) == 1

    await transport.inject(ANA, "", vote=PollVote(poll_message_id=polls[1].message_id,
                                                  selected_hashes=(poll_option_hash(intensity.MORE),)))
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == intensity.ACKS[intensity.MORE]
    conversation = await admin.show(app.db, ANA)
    assert conversation.intensity == "high"

    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, PROMPT_AT + timedelta(days=1))  # the next local day: a new poll, without "more"
    last_poll = [p for p in transport.sent if p.kind == "poll"][-1]
    assert last_poll.text == intensity.QUESTION and last_poll.options == (intensity.LESS, intensity.SAME)


async def test_stop_and_admin_pause_silence_every_timer_and_resume_restores(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h",
                                         AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on")
    assert set(await pending_timers(app, pid)) == {"reminder", "auto_feedback"}
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert await pending_timers(app, pid) == {}
    # Only the daily alarm is left: each prompt time is recorded as a decision point, unavailable.
    assert {j for j in await job_ids(app) if pid in j} == {j for j in await job_ids(app) if j.startswith("daily:")}
    sent_before = len(transport.sent)
    await at(app, PROMPT_AT + timedelta(days=1, hours=1))  # two prompt times pass in silence
    await at(app, PROMPT_AT + timedelta(days=2, hours=1))
    assert len(transport.sent) == sent_before
    decisions = await app.db.run(lambda s: s.execute(text(
        "SELECT local_date, available, unavailable_reason FROM decision ORDER BY id")).all())
    assert [(day, bool(available), reason) for day, available, reason in decisions] == [  # coded as their own STOP
        ("2026-01-05", True, None), ("2026-01-06", False, "opted_out"), ("2026-01-07", False, "opted_out")]

    await transport.inject(ANA, "START")
    await app.run_until_idle()
    assert {j for j in await job_ids(app) if j.startswith(f"daily:{pid}:")}
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, PROMPT_AT + timedelta(days=3))
    assert transport.texts_to(ANA)[-2] == NUDGE

    # The researcher's pause does the same from the admin script; resume brings the schedule back.
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    await app.run_until_idle()
    assert await pending_timers(app, pid) == {}
    assert {j for j in await job_ids(app) if pid in j} == {j for j in await job_ids(app) if j.startswith("daily:")}
    sent_before = len(transport.sent)
    await at(app, PROMPT_AT + timedelta(days=4, hours=6))
    assert len(transport.sent) == sent_before
    await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    await app.run_until_idle()
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert (shown.schedules[0].armed
            and shown.schedules[0].next_prompt.startswith("Saturday 2026-01-10 07:50"))
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, PROMPT_AT + timedelta(days=5))
    assert transport.texts_to(ANA)[-2] == NUDGE


async def test_withdrawn_participant_gets_nothing_scheduled(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw")
    sent_before = len(transport.sent)
    await at(app, PROMPT_AT + timedelta(days=3))
    assert len(transport.sent) == sent_before
    assert await pending_timers(app, pid) == {}
    assert not {j for j in await job_ids(app) if pid in j}


async def test_reminder_due_while_the_service_was_down(  # type: ignore[no-untyped-def]
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock,
) -> None:
    """Inside the grace window it comes late; the next one, far outside, is skipped and recorded."""
    app, transport, _pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    await app.stop()
    clock.set(PROMPT_AT + timedelta(hours=5, minutes=40))  # 40 minutes late: inside the 1 h grace
    again = await make_app(transport, **{**QUIET, "DAILY_PROMPT_REMINDER_DELAY": "5h"})
    await again.run_until_idle()
    assert transport.texts_to(ANA)[-1] == REMINDER_TEXT

    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(again, PROMPT_AT + timedelta(days=1))  # Tuesday's prompt; its reminder is due at 17:50 UTC
    await again.stop()
    clock.set(PROMPT_AT + timedelta(days=1, hours=7))  # two hours after that: outside the grace
    third = await make_app(transport, **{**QUIET, "DAILY_PROMPT_REMINDER_DELAY": "5h"})
    await third.run_until_idle()
    assert transport.texts_to(ANA).count(REMINDER_TEXT) == 1
    statuses = await third.db.run(lambda s: s.execute(text("SELECT status FROM timer ORDER BY id")).scalars().all())
    assert statuses == ["fired", "missed"]


async def test_admin_lists_schedules_and_pending_timers(
    cli_env, capsys, make_app: AppFactory, fake_openai: FakeOpenAIServer  # type: ignore[no-untyped-def]
) -> None:
    _app, _transport, _pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "schedules", "--phone", ANA)
    assert code == 0
    assert "08:00" in out and "(America/Toronto)" in out and "reminder" in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "timers", "--json")
    rows = json.loads(out)
    assert [(r["phone"], r["kind"], r["armed"]) for r in rows] == [(ANA, "reminder", True)]
    assert rows[0]["due"] == "Monday 2026-01-05 12:50 (America/Toronto)"  # 07:50 + 5 h, local time


async def test_a_second_service_on_the_same_database_refuses_to_start(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    await make_app(**QUIET)
    with pytest.raises(ConfigError, match="already running on this DATABASE_URL"):
        await make_app(**QUIET)


async def test_a_new_timer_wakes_the_alarm_loop_at_once(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """Regression: a timer armed while the alarm loop slept waited for the loop's next alarm (up to
    30 s) before its job was stored; the first queued change must wake the loop, which then waits
    at most the short batching delay."""
    from promptpipe.domain.conversation import PendingTimer, TimerChange
    from promptpipe.scheduling.requests import TIMER_BATCH_DELAY_S

    app = await make_app(**QUIET)
    kick = app.alarms._kick
    assert kick is not None
    kick.clear()
    due = app.clock.now() + timedelta(minutes=5)
    app.alarms.request_timer_changes([TimerChange("p_x", "reminder", PendingTimer(1, "reminder", due, {}))])
    assert kick.is_set()
    wait = app.alarms.requests.wait_s()
    assert wait is not None and wait <= TIMER_BATCH_DELAY_S
