"""Every declared transition, driven through the running service: its row in the transition log
(name, who triggered it, from and to) and its side effects (timers, alarms, consent)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from promptpipe.domain import transitions
from promptpipe.domain.transitions import REGISTRY, UndeclaredTransition
from promptpipe.flow.commands import STUDY_OVER
from promptpipe.flow.lifecycle import INTAKE_ON_HOLD
from promptpipe.research import admin, erasure, oversight
from promptpipe.research.number_moves import move_to_number
from promptpipe.storage.conversations import load_turn_state
from promptpipe.storage.models import Transition
from promptpipe.study.rules.protocol import DEFAULT_CLOSING_MESSAGE
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, polls, prompted, vote
from tests.participant_helpers import ANA as BEA
from tests.participant_helpers import enrolled
from tests.schedule_helpers import NUDGE, at, job_ids, pending_timers, utc
from tests.study_helpers import in_study

PROJECT = Path(__file__).resolve().parents[2]
CHECK_IN = {"FEEDBACK_INITIAL_TIMEOUT": "15m"}


async def log_rows(app, pid: str) -> list[tuple[str, str | None, str | None, str]]:  # type: ignore[no-untyped-def]
    rows = await app.db.run(lambda s: s.execute(
        select(Transition.name, Transition.actor, Transition.from_value, Transition.to_value)
        .where(Transition.participant_id == pid).order_by(Transition.id)).all())
    return [tuple(row) for row in rows]


async def timer_jobs(app) -> set[str]:  # type: ignore[no-untyped-def]
    """Alarms other than the daily ones (a paused participant keeps those: each prompt time is
    still recorded as a decision point, and nothing is sent)."""
    return {job for job in await job_ids(app) if not job.startswith("daily:")}


async def say(app, transport, text: str) -> None:  # type: ignore[no-untyped-def]
    await say_to(app, transport, ANA, text)


async def say_to(app, transport, phone: str, text: str) -> None:  # type: ignore[no-untyped-def]
    await transport.inject(phone, text)
    await app.run_until_idle()


Driver = Callable[[AppFactory, FakeOpenAIServer], Awaitable[None]]
DRIVERS: dict[str, list[Driver]] = {}


def drives(name: str) -> Callable[[Driver], Driver]:
    def register(driver: Driver) -> Driver:
        DRIVERS.setdefault(name, []).append(driver)
        return driver
    return register


@drives("intake_to_feedback")
async def model_moves_to_feedback(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake, **CHECK_IN, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on")
    assert "auto_feedback" in await pending_timers(app, pid)
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "plan complete"}, match="all set")
    fake.say("Great, tell me how it goes.", match="all set")
    await transport.inject(ANA, "I'm all set")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("intake_to_feedback", "model", "INTAKE", "FEEDBACK")
    timers = await pending_timers(app, pid)
    assert "feedback_check_in" in timers and "auto_feedback" not in timers


@drives("intake_to_feedback")
async def timer_moves_a_silent_participant(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, **CHECK_IN, AUTO_FEEDBACK_AFTER_PROMPT_ENABLED="on")
    await at(app, MONDAY_PROMPT + timedelta(minutes=5))
    assert (await log_rows(app, pid))[-1] == ("intake_to_feedback", "timer", "INTAKE", "FEEDBACK")
    assert "feedback_check_in" in await pending_timers(app, pid)


@drives("intake_to_feedback")
async def a_vote_moves_without_a_check_in(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake, **CHECK_IN)
    await vote(app, transport, polls(transport)[-1], "Done")
    assert (await log_rows(app, pid))[-1] == ("intake_to_feedback", "participant", "INTAKE", "FEEDBACK")
    assert "feedback_check_in" not in await pending_timers(app, pid)  # they just answered


@drives("feedback_to_intake")
async def model_hands_back_to_intake(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake, **CHECK_IN)
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "feedback"}, match="it went well")
    fake.say("Glad to hear!", match="it went well")
    await say(app, transport, "it went well")
    assert "feedback_check_in" in await pending_timers(app, pid)
    fake.call_tool("transition_state", {"target_state": "INTAKE", "reason": "new habit"}, match="switch to reading")
    fake.say("Let's set that up.", match="switch to reading")
    await say(app, transport, "I want to switch to reading")
    assert (await log_rows(app, pid))[-1] == ("feedback_to_intake", "model", "FEEDBACK", "INTAKE")
    assert not {"feedback_check_in", "feedback_followup"} & set(await pending_timers(app, pid))


@drives("opted_out")
async def stop_pauses_and_silences_everything(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    assert await pending_timers(app, pid) and any(job.startswith("daily:") for job in await job_ids(app))
    await say(app, transport, "STOP")
    assert (await log_rows(app, pid))[-1] == ("opted_out", "participant", "active", "paused")
    assert await pending_timers(app, pid) == {} and await timer_jobs(app) == set()
    assert (await oversight.consent(app.db, ANA)).events[-1].event == "opted_out"


@drives("opted_out")
async def the_model_opts_out_on_their_words(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    fake.call_tool("opt_out", {"reason": "no more texts"}, match="had enough of these")
    await say(app, transport, "I have had enough of these texts, honestly")
    assert (await log_rows(app, pid))[-1] == ("opted_out", "model", "active", "paused")
    assert await timer_jobs(app) == set()


@drives("opted_in")
async def start_switches_messages_back_on(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    await say(app, transport, "STOP")
    await say(app, transport, "START")
    assert (await log_rows(app, pid))[-1] == ("opted_in", "participant", "paused", "active")
    assert any(job.startswith("daily:") for job in await job_ids(app))
    assert (await oversight.consent(app.db, ANA)).events[-1].event == "opted_in"


@drives("paused_by_researcher")
@drives("resumed_by_researcher")
async def a_researcher_pauses_and_resumes(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause", by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("paused_by_researcher", "researcher", "active", "paused")
    assert await pending_timers(app, pid) == {} and await timer_jobs(app) == set()
    await admin.set_status(app.db, app.clock, phone=ANA, action="resume", by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("resumed_by_researcher", "researcher", "paused", "active")
    assert any(job.startswith("daily:") for job in await job_ids(app))
    events = (await oversight.consent(app.db, ANA)).events
    assert [(e.event, e.actor) for e in events[-2:]] == [("paused", "Dr Lee"), ("resumed", "Dr Lee")]


@drives("withdrawn_by_researcher")
async def a_researcher_withdraws(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("withdrawn_by_researcher", "researcher", "active", "withdrawn")
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()


@drives("timezone_changed")
async def a_researcher_moves_the_time_zone(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake)
    before = await admin.schedules(app.db, app.clock, phone=ANA)
    await admin.set_timezone(app.db, app.clock, phone=ANA, timezone="Europe/Berlin")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("timezone_changed", "researcher", "America/Toronto", "Europe/Berlin")
    after = await admin.schedules(app.db, app.clock, phone=ANA)
    assert after.schedules[0].next_prompt != before.schedules[0].next_prompt
    assert after.schedules[0].armed


@drives("number_changed")
async def a_researcher_moves_them_to_another_number(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake, WHATSAPP_NUMBERS="toronto,montreal")
    moved = await move_to_number(app.db, app.clock, who=ANA, to="montreal", numbers=app.settings.number_plan,
                                text="From today we write from this new number; the old one is retired.")
    await app.run_until_idle()
    assert moved.message_sent and "now written to from montreal (was the default number)" in moved.line  # enrolled
    # before there were two numbers
    assert (await log_rows(app, pid))[-1] == ("number_changed", "researcher", None, "montreal")
    assert transport.sent[-1].to.number == "montreal" and "new number" in transport.sent[-1].text


@drives("timezone_changed")
async def the_model_records_a_new_zone(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    fake.call_tool("scheduler", {"action": "list", "timezone": "Europe/Lisbon"}, match="moved to Lisbon")
    fake.say("Noted, Lisbon time from now on.", match="moved to Lisbon")
    await say(app, transport, "I just moved to Lisbon")
    assert (await log_rows(app, pid))[-1] == ("timezone_changed", "model", "America/Toronto", "Europe/Lisbon")
    assert (await admin.schedules(app.db, app.clock, phone=ANA)).schedules[0].armed


@drives("enrolled")
async def enrolment_is_the_first_row(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake)
    assert (await log_rows(app, pid))[0] == ("enrolled", "researcher", None, "active")
    assert (await oversight.consent(app.db, ANA)).events[0].event == "enrolled"


@drives("erased_by_researcher")
async def an_erasure_leaves_a_tombstone(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("erased_by_researcher", "researcher", "active", "withdrawn")
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()


async def greeted(make_app: AppFactory, fake: FakeOpenAIServer, **settings: str):  # type: ignore[no-untyped-def]
    """Bea enrolled and greeted (intake has begun)."""
    app, transport = await enrolled(make_app, fake, phone=BEA, name="Bea", **settings)
    participant = await admin.find(app.db, BEA)
    assert participant is not None
    return app, transport, participant.id


@drives("intake_suspended")
async def an_escape_phrase_puts_intake_on_hold(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await greeted(make_app, fake)
    await transport.inject(BEA, "Not now, thanks!")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("intake_suspended", "participant", "INTAKE", "INTAKE_SUSPENDED")
    assert transport.texts_to(BEA)[-1] == INTAKE_ON_HOLD  # the server's words: no model was asked
    assert await pending_timers(app, pid) == {"intake_reminder": app.clock.now() + timedelta(days=1)}


@drives("intake_suspended")
async def the_model_puts_intake_on_hold(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await greeted(make_app, fake)
    fake.call_tool("transition_state", {"target_state": "INTAKE_SUSPENDED", "reason": "busy week"}, match="swamped")
    fake.say("Of course, another time then.", match="swamped")
    await transport.inject(BEA, "I'm swamped this week, can we do this some other time?")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("intake_suspended", "model", "INTAKE", "INTAKE_SUSPENDED")
    assert set(await pending_timers(app, pid)) == {"intake_reminder"}


@drives("intake_suspended")
async def silence_puts_intake_on_hold(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await greeted(make_app, fake)
    sent = len(transport.sent)
    await at(app, app.clock.now() + timedelta(minutes=30))
    assert (await log_rows(app, pid))[-1] == ("intake_suspended", "timer", "INTAKE", "INTAKE_SUSPENDED")
    assert len(transport.sent) == sent  # going quiet is their right: nothing is said then
    assert set(await pending_timers(app, pid)) == {"intake_reminder"}


@drives("intake_resumed")
async def writing_again_resumes_intake(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await greeted(make_app, fake)
    await say_to(app, transport, BEA, "later")
    fake.say("Welcome back, Bea! What habit would you like to build?", match="put on hold earlier")
    await say_to(app, transport, BEA, "ok I have time now")
    assert (await log_rows(app, pid))[-1] == ("intake_resumed", "participant", "INTAKE_SUSPENDED", "INTAKE")
    assert "intake_reminder" not in await pending_timers(app, pid)
    assert transport.texts_to(BEA)[-1].startswith("Welcome back")


@drives("study_started")
async def finishing_intake_sets_study_day_one(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await in_study(make_app, fake)
    rows = await log_rows(app, pid)
    assert ("study_started", "server", None, "2026-01-06") in rows  # the day after intake (Monday, Toronto)
    # two study days: the end is midnight after Wednesday, Toronto time
    assert (await pending_timers(app, pid))["study_end"] == utc(2026, 1, 8, 5, 0)
    assert NUDGE not in transport.texts_to(ANA)  # Monday is before the study


@drives("study_completed")
async def the_last_day_ends_the_study(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await in_study(make_app, fake)
    for day in (1, 2):
        fake.say(NUDGE, match="scheduled daily nudge")
        await at(app, MONDAY_PROMPT + day * DAY)
    await at(app, utc(2026, 1, 8, 5, 0))
    assert (await log_rows(app, pid))[-1] == ("study_completed", "timer", "active", "completed")
    assert transport.texts_to(ANA).count(NUDGE) == 2
    assert transport.texts_to(ANA)[-1] == DEFAULT_CLOSING_MESSAGE
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()
    await say(app, transport, "thanks, it was fun")
    assert transport.texts_to(ANA)[-1] == STUDY_OVER


@drives("study_extended")
@drives("reopened_by_researcher")
async def a_researcher_extends_one_participant(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await in_study(make_app, fake)
    study = app.settings.study
    line = await admin.extend(app.db, app.clock, study=study, phone=ANA, days=1, by="Dr Lee")
    assert "day 3 (2026-01-08)" in line
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("study_extended", "researcher", "0 extra days", "1 extra days")
    assert (await pending_timers(app, pid))["study_end"] == utc(2026, 1, 9, 5, 0)
    for day in (1, 2, 3):
        fake.say(NUDGE, match="scheduled daily nudge")
        await at(app, MONDAY_PROMPT + day * DAY)
    await at(app, utc(2026, 1, 9, 5, 0))
    assert (await log_rows(app, pid))[-1][0] == "study_completed"
    await admin.extend(app.db, app.clock, study=study, phone=ANA, days=2, by="Dr Lee")
    await app.run_until_idle()
    assert [row[0] for row in (await log_rows(app, pid))[-2:]] == ["study_extended", "reopened_by_researcher"]
    assert (await admin.show(app.db, ANA)).status == "active"
    assert any(job.startswith("daily:") for job in await job_ids(app))


def test_every_declared_transition_is_driven_by_a_test() -> None:
    assert set(DRIVERS) == set(REGISTRY)


@pytest.mark.parametrize("driver", [d for name in REGISTRY for d in DRIVERS.get(name, [])],
                         ids=lambda d: d.__name__)
async def test_transition(driver: Driver, make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    await driver(make_app, fake_openai)
    fake_openai.assert_complete()


async def test_an_undeclared_move_is_a_bug(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake_openai)
    state = await app.db.run(lambda session: load_turn_state(session, pid))
    attempts: list[dict[str, Any]] = [
        {"name": "graduated", "actor": "server"},  # not declared
        {"name": "paused_by_researcher", "actor": "model"},  # a trigger it does not allow
        {"name": "opted_in", "actor": "participant"},  # from active: not a start state it declares
    ]
    for attempt in attempts:
        with pytest.raises(UndeclaredTransition):
            transitions.apply(state, attempt["name"], actor=attempt["actor"], reason="test")
    assert state.transitions == [] and state.status == "active"


def test_the_readme_shows_the_registry() -> None:
    assert transitions.markdown_table() in (PROJECT / "README.md").read_text(encoding="utf-8")
