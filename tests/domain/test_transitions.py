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
from promptpipe.research import admin, erasure, oversight
from promptpipe.storage.conversations import load_turn_state
from promptpipe.storage.models import Transition
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, MONDAY_PROMPT, polls, prompted, vote
from tests.schedule_helpers import at, job_ids, pending_timers

PROJECT = Path(__file__).resolve().parents[2]
CHECK_IN = {"FEEDBACK_INITIAL_TIMEOUT": "15m"}


async def log_rows(app, pid: str) -> list[tuple[str, str | None, str | None, str]]:  # type: ignore[no-untyped-def]
    rows = await app.db.run(lambda s: s.execute(
        select(Transition.name, Transition.actor, Transition.from_value, Transition.to_value)
        .where(Transition.participant_id == pid).order_by(Transition.id)).all())
    return [tuple(row) for row in rows]


async def say(app, transport, text: str) -> None:  # type: ignore[no-untyped-def]
    await transport.inject(ANA, text)
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
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()
    assert (await oversight.consent(app.db, ANA))["events"][-1]["event"] == "opted_out"


@drives("opted_out")
async def the_model_opts_out_on_their_words(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    fake.call_tool("opt_out", {"reason": "no more texts"}, match="leave me alone")
    await say(app, transport, "please leave me alone now")
    assert (await log_rows(app, pid))[-1] == ("opted_out", "model", "active", "paused")
    assert await job_ids(app) == set()


@drives("opted_in")
async def start_switches_messages_back_on(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    await say(app, transport, "STOP")
    await say(app, transport, "START")
    assert (await log_rows(app, pid))[-1] == ("opted_in", "participant", "paused", "active")
    assert any(job.startswith("daily:") for job in await job_ids(app))
    assert (await oversight.consent(app.db, ANA))["events"][-1]["event"] == "opted_in"


@drives("paused_by_researcher")
@drives("resumed_by_researcher")
async def a_researcher_pauses_and_resumes(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause", by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("paused_by_researcher", "researcher", "active", "paused")
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()
    await admin.set_status(app.db, app.clock, phone=ANA, action="resume", by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("resumed_by_researcher", "researcher", "paused", "active")
    assert any(job.startswith("daily:") for job in await job_ids(app))
    events = (await oversight.consent(app.db, ANA))["events"]
    assert [(e["event"], e["actor"]) for e in events[-2:]] == [("paused", "Dr Lee"), ("resumed", "Dr Lee")]


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
    assert after["schedules"][0]["next_prompt"] != before["schedules"][0]["next_prompt"]
    assert after["schedules"][0]["armed"]


@drives("timezone_changed")
async def the_model_records_a_new_zone(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, transport, pid = await prompted(make_app, fake)
    fake.call_tool("scheduler", {"action": "list", "timezone": "Europe/Lisbon"}, match="moved to Lisbon")
    fake.say("Noted, Lisbon time from now on.", match="moved to Lisbon")
    await say(app, transport, "I just moved to Lisbon")
    assert (await log_rows(app, pid))[-1] == ("timezone_changed", "model", "America/Toronto", "Europe/Lisbon")
    assert (await admin.schedules(app.db, app.clock, phone=ANA))["schedules"][0]["armed"]


@drives("enrolled")
async def enrolment_is_the_first_row(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake)
    assert (await log_rows(app, pid))[0] == ("enrolled", "researcher", None, "active")
    assert (await oversight.consent(app.db, ANA))["events"][0]["event"] == "enrolled"


@drives("erased_by_researcher")
async def an_erasure_leaves_a_tombstone(make_app: AppFactory, fake: FakeOpenAIServer) -> None:
    app, _, pid = await prompted(make_app, fake, DAILY_PROMPT_REMINDER_DELAY="5h")
    await erasure.erase(app.db, app.clock, phone=ANA, by="Dr Lee")
    await app.run_until_idle()
    assert (await log_rows(app, pid))[-1] == ("erased_by_researcher", "researcher", "active", "withdrawn")
    assert await pending_timers(app, pid) == {} and await job_ids(app) == set()


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
            state.apply(attempt["name"], actor=attempt["actor"], reason="test")
    assert state.transitions == [] and state.status == "active"


def test_the_readme_shows_the_registry() -> None:
    assert transitions.markdown_table() in (PROJECT / "README.md").read_text(encoding="utf-8")
