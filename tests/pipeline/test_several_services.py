"""Several services on one PostgreSQL database (SEVERAL_SERVICES): each serves the numbers it
holds a lease on, one runs the alarm clock; a service that dies leaves its numbers, its alarm
clock and its sends to another within a lease's time; one that comes back after its leases moved
on sends nothing. Leases go round by hand (``Sharing.step``) on the test's manual clock."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.domain.numbers import NumberPlan
from promptpipe.pipeline.sharing import Sharing
from promptpipe.research import admin
from promptpipe.research.status import read_status
from promptpipe.storage.db import Database
from promptpipe.storage.queue_tables import OutboxItem
from promptpipe.storage.transcript import queue_outgoing
from promptpipe.transport.memory import MemoryTransport, NotConnected
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import MONDAY_PROMPT
from tests.pipeline.test_lanes import until
from tests.schedule_helpers import NUDGE, PROFILE, QUIET, phone_marker

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

ANA, BEN = "+14165550161", "+14165550162"
NUMBERS = NumberPlan(("toronto", "montreal"))
SHARED = {"SEVERAL_SERVICES": "on", "WHATSAPP_NUMBERS": "toronto,montreal", "LEASE_TTL": "15s",
          "LEASE_HEARTBEAT": "5s", "PREFERRED_SERVICES": "toronto=service-1,montreal=service-2"}


def named(index: int) -> dict[str, str]:
    """The settings of the ``index``-th service (from 1): its name, the same at every restart."""
    return {**SHARED, "SERVICE_NAME": f"service-{index}"}


async def _services(make_app: AppFactory, clock: ManualClock, count: int = 2,
                    settings: dict[str, str] | None = None) -> list[tuple[App, MemoryTransport]]:
    started = []
    for index in range(1, count + 1):
        transport = MemoryTransport()
        started.append((await make_app(transport, **{**named(index), **(settings or {})}), transport))
    for _ in range(3):  # the numbers settle: each with its preferred service
        for app, _ in started:
            assert app.sharing is not None
            await app.sharing.step()
    for app, _ in started:
        assert app.sharing is not None
        await app.sharing.alarm_clock_started()
    return started


async def _settle(*apps: App) -> None:
    for _ in range(3):
        for app in apps:
            await app.run_until_idle()


async def _enrolled(app: App, phone: str, number: str) -> str:
    view = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name="P", timezone="America/Toronto",
                              numbers=NUMBERS, number=number))
    return view.id


def _holder(services: list[tuple[App, MemoryTransport]], number: str) -> tuple[App, MemoryTransport]:
    [found] = [(app, transport) for app, transport in services if app.sharing and number in app.sharing.held()]
    return found


async def test_each_number_is_served_by_one_service_and_one_runs_the_alarm_clock(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _services(make_app, clock)
    held = [app.sharing.held() for app, _ in services if app.sharing]
    assert sorted(name for names in held for name in names) == ["montreal", "toronto"]
    assert all(len(names) == 1 for names in held)
    assert sum(bool(app.alarm_role and app.alarm_role.running) for app, _ in services) == 1
    lines = (await read_status(services[0][0].db, NUMBERS, clock.now())).lines()
    for app, _ in services:
        assert app.sharing is not None
        [number] = app.sharing.held()
        assert (f"served by: number {number}: {app.sharing.service} ({app.sharing.holder}) (renewed 0s ago); "
                f"prefers {app.sharing.service}; 0 moves in the last 24 h") in lines
    assert sum(line.startswith("served by: the alarm clock: ") for line in lines) == 1

    fake_openai.say("Welcome! What habit would you like to build?")
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(services[0][0], ANA, "toronto")
    await _enrolled(services[0][0], BEN, "montreal")
    await _settle(*(app for app, _ in services))
    toronto, montreal = _holder(services, "toronto"), _holder(services, "montreal")
    assert toronto[1].texts_to(ANA) and not montreal[1].texts_to(ANA)  # greeted from the service holding toronto
    assert montreal[1].texts_to(BEN) and not toronto[1].texts_to(BEN)

    fake_openai.say("Walking after lunch sounds good.")
    await montreal[1].inject(ANA, "I want to walk more", number="toronto")  # stored by the other service
    await _settle(*(app for app, _ in services))
    assert toronto[1].texts_to(ANA)[-1] == "Walking after lunch sounds good."
    assert len(montreal[1].texts_to(ANA)) == 0


async def test_a_service_that_dies_leaves_its_number_and_its_unsent_work_to_another(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _services(make_app, clock)
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(services[0][0], BEN, "montreal")
    dead, dead_transport = _holder(services, "montreal")
    [(survivor, survivor_transport)] = [s for s in services if s[0] is not dead]
    dead_transport.fail_next.append(NotConnected())  # the greeting cannot go: it waits for a retry
    await _settle(dead)
    assert not dead_transport.texts_to(BEN)

    clock.advance(timedelta(seconds=16))  # the dead one stops heart-beating; its lease runs out
    assert survivor.sharing is not None and dead.sharing is not None
    await survivor.sharing.step()
    await survivor.sharing.alarm_clock_started()
    assert "montreal" in survivor.sharing.held() and not dead.sharing.held()
    assert survivor.alarm_role is not None and survivor.alarm_role.running
    served = {served.name: served.holder for served in (await read_status(survivor.db, NUMBERS, clock.now())).services}
    assert served["montreal"] == served["toronto"] == served["@alarms"] == survivor.sharing.holder
    clock.advance(timedelta(minutes=10))  # past the retry's wait (the survivor heart-beats meanwhile)
    await survivor.sharing.step()
    await _settle(survivor)
    assert survivor_transport.texts_to(BEN) == ["Welcome! What habit would you like to build?"]

    # it comes back without a round: its lease is gone, it runs no turn of Ben's and sends nothing
    fake_openai.say("Stretching every morning it is.")
    await dead_transport.inject(BEN, "I want to stretch", number="montreal")
    await _settle(dead)
    assert not dead_transport.texts_to(BEN)
    await _settle(survivor)
    assert survivor_transport.texts_to(BEN)[-1] == "Stretching every morning it is."


async def test_a_turn_whose_number_moved_while_the_model_wrote_commits_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    """The service that held Ana's number is slow (its model call hangs) and its lease moves on;
    the new holder answers her. When the old one's answer comes back, its commit writes nothing
    (no second answer, no decision twice), and her next message is answered as usual."""
    services = await _services(make_app, clock)
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(services[0][0], ANA, "toronto")
    await _settle(*(app for app, _ in services))
    slow, slow_transport = _holder(services, "toronto")
    [(other, other_transport)] = [s for s in services if s[0] is not slow]
    slow_gate, new_gate = threading.Event(), threading.Event()
    fake_openai.say("the slow service's answer, never sent", match="I want to walk more", gate=slow_gate)
    fake_openai.say("Walking it is, then.", match="I want to walk more", gate=new_gate)
    await slow_transport.inject(ANA, "I want to walk more", number="toronto", message_id="wa-walk")
    slow_turn = asyncio.create_task(slow.run_until_idle())
    new_turn: asyncio.Task[None] | None = None
    try:
        await until(lambda: fake_openai.in_flight() == 1, "the slow service's turn to reach the model")
        clock.advance(timedelta(seconds=16))  # the slow one misses its heartbeats: its lease runs out
        assert other.sharing is not None
        await other.sharing.step()
        new_turn = asyncio.create_task(other.run_until_idle())
        await until(lambda: fake_openai.in_flight() == 2, "the new holder's turn to reach the model")
        slow_gate.set()  # the slow answer comes back first: its commit must write nothing
        await slow_turn
        new_gate.set()
        await new_turn
    finally:
        slow_gate.set()
        new_gate.set()
        await asyncio.gather(slow_turn, *([new_turn] if new_turn else []), return_exceptions=True)
    await _settle(slow, other)
    assert slow_transport.texts_to(ANA) == ["Welcome! What habit would you like to build?"]
    assert other_transport.texts_to(ANA) == ["Walking it is, then."]
    sent = [t.text for t in await admin.transcript(other.db, ANA) if t.direction == "out"]
    assert "the slow service's answer, never sent" not in sent and sent.count("Walking it is, then.") == 1

    fake_openai.say("Great, see you tomorrow.", match="thanks")
    await other_transport.inject(ANA, "thanks", number="toronto", message_id="wa-thanks")  # each fake counts its own
    await _settle(other, slow)
    assert other_transport.texts_to(ANA)[-1] == "Great, see you tomorrow."


async def test_a_schedule_set_where_the_alarm_clock_does_not_run_prompts_once_from_its_number(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    clock.set(MONDAY_PROMPT - timedelta(minutes=5))  # Monday 07:45 in Toronto, her prompt due at 07:50
    services = await _services(make_app, clock, settings=QUIET)
    [(other, other_transport)] = [s for s in services if s[0].alarm_role and not s[0].alarm_role.running]
    [(alarms, alarms_transport)] = [s for s in services if s[0] is not other]
    assert other.sharing is not None and alarms.alarm_role is not None
    number = sorted(other.sharing.held())[0]
    view = await admin.enroll(other.db, clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                                                               numbers=NUMBERS,
                              number=number))
    fake_openai.call_tool("save_user_profile", PROFILE, match=phone_marker("Ana"))
    fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"},
                          match=phone_marker("Ana"))
    fake_openai.say("Welcome Ana!", match=phone_marker("Ana"))
    await _settle(other, alarms)
    await until(lambda: alarms.alarm_role is not None and alarms.alarm_role.notices_heard > 0,
                "the alarm clock's service to hear of the new schedule")
    await _settle(alarms)
    assert [job.id for job in alarms.alarms.scheduler.get_jobs() if view.id in job.id]

    fake_openai.say(NUDGE, match="scheduled daily nudge")
    while clock.now() < MONDAY_PROMPT:  # both services heart-beat as time passes
        clock.advance(timedelta(seconds=10))
        for app, _ in services:
            assert app.sharing is not None
            await app.sharing.step()
        await _settle(alarms, other)
    assert other_transport.texts_to(ANA).count(NUDGE) == 1 and not alarms_transport.texts_to(ANA)


async def test_a_send_the_dead_service_left_half_done_is_settled_a_lease_later_never_resent(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    """A service dies in the middle of a send (its row is *sending*): the one taking its number
    over leaves the row a lease's time (the send may still be finishing), then marks it uncertain,
    as after a crash; it never sends it again."""
    services = await _services(make_app, clock)
    fake_openai.say("Welcome! What habit would you like to build?")
    ben = await _enrolled(services[0][0], BEN, "montreal")
    await _settle(*(app for app, _ in services))
    dead, _ = _holder(services, "montreal")
    [(survivor, survivor_transport)] = [s for s in services if s[0] is not dead]

    def in_flight(session: Session) -> None:  # what the dead service had claimed when it died
        queue_outgoing(session, participant_id=ben, key="test:in-flight", text="sent when it died?", now=clock.now())
        session.execute(update(OutboxItem).where(OutboxItem.key == "test:in-flight")  # type: ignore[arg-type]
                        .values(status="sending", claimed_at=clock.now()))

    await dead.db.run(in_flight)
    clock.advance(timedelta(seconds=16))
    assert survivor.sharing is not None
    await survivor.sharing.step()
    await _settle(survivor)
    assert await _status_of(survivor, "test:in-flight") == "sending"  # it may still be on its way
    clock.advance(timedelta(seconds=15))
    await survivor.sharing.step()
    await _settle(survivor)
    assert await _status_of(survivor, "test:in-flight") == "uncertain"
    assert "sent when it died?" not in survivor_transport.texts_to(BEN)


async def _status_of(app: App, key: str) -> str:
    status: str = await app.db.run(lambda session: session.execute(
        select(OutboxItem.status).where(OutboxItem.key == key)).scalar_one())  # type: ignore[arg-type]
    return status


async def test_a_long_alarm_clock_start_does_not_cost_the_service_its_leases(db: Database, clock: ManualClock) -> None:
    """Taking the alarm clock over reconciles every job (tens of seconds at 30,000 participants):
    the keepers' rounds go on meanwhile, so the role is not lost halfway and passed round."""
    sharing = Sharing(db, clock, NUMBERS, ttl=timedelta(seconds=15), heartbeat=timedelta(seconds=5))
    started, release = asyncio.Event(), asyncio.Event()

    async def slow_start() -> None:
        started.set()
        await release.wait()

    sharing.on_alarms_gained = slow_start
    await asyncio.wait_for(sharing.step(), 10)  # the round ends though the start has not
    await asyncio.wait_for(started.wait(), 10)
    for _ in range(4):  # 40 s of rounds while the start still runs
        clock.advance(timedelta(seconds=10))
        await asyncio.wait_for(sharing.step(), 10)
        assert sharing.runs_alarms and sharing.held() == {"toronto", "montreal"}
    release.set()
    await sharing.alarm_clock_started()
    await sharing.stop()


async def test_a_service_alone_and_services_sharing_never_run_side_by_side(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    await make_app(**SHARED)
    with pytest.raises(Exception, match="SEVERAL_SERVICES"):
        app = await make_app(start=False)
        await app.start(background=False)
