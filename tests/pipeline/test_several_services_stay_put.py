"""Several services whose numbers and alarm clock stay put (issue 50): a joining service takes no
number another holds, however busy the services are; a number moves only once its service is gone
(stopped for longer than a lease, or its lease ran out), each move is recorded with its reason and
`promptpipe-admin status` counts them; a service that comes back finds its number where it went.
Leases go round by hand (``Sharing.step``) on the test's manual clock."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.research.status import read_status
from promptpipe.storage.leases import LeaseRow, holders
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline.test_several_services import NUMBERS, _enrolled, _services, _settle, named

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

HEARTBEAT = timedelta(seconds=5)
PEOPLE = [f"+1416555{n:04d}" for n in range(170, 182)]
"""Twelve participants, six on each number."""
MESSAGES_EACH = 3


async def _leases(app: App) -> dict[str, tuple[str, int]]:
    rows: list[LeaseRow] = await app.db.run(holders)
    return {row.name: (row.holder, row.token) for row in rows if not row.is_presence}


def _move_counts(lines: list[str]) -> list[str]:
    return [line.rsplit("; ", 1)[-1] for line in lines if line.startswith("served by: ")]


async def test_a_burst_of_work_while_others_join_moves_no_number_and_not_the_alarm_clock(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    """One service holds both numbers and the alarm clock; twelve participants write three
    messages each while the leases renew every heartbeat and two more services join. Every
    message is answered from its number's service, and nothing changes hands."""
    fake_openai.always("Noted, thanks.", match='"role": "')  # every request, the greetings' too
    [(first, first_transport)] = await _services(make_app, clock, 1, settings={"PREFERRED_SERVICES": ""})
    assert first.sharing is not None and first.sharing.held() == set(NUMBERS.numbers) and first.sharing.runs_alarms
    for index, phone in enumerate(PEOPLE):
        await _enrolled(first, phone, NUMBERS.numbers[index % 2])
    await _settle(first)
    before = await _leases(first)

    async def burst() -> None:  # three waves: everyone writes, and is answered
        for message in range(MESSAGES_EACH):
            for index, phone in enumerate(PEOPLE):
                await first_transport.inject(phone, f"step {message} done", number=NUMBERS.numbers[index % 2])
            await _settle(first)

    apps = [first]
    work = asyncio.create_task(burst())
    rounds = rounds_in_burst = 0
    while rounds < 6 or not work.done():  # a heartbeat's round of every service beside the turns
        clock.advance(HEARTBEAT)
        rounds += 1
        rounds_in_burst += not work.done()
        if rounds in (2, 4):  # another service joins mid-burst
            apps.append(await make_app(MemoryTransport(), **{**named(len(apps) + 1), "PREFERRED_SERVICES": ""}))
        for app in apps:
            assert app.sharing is not None
            await app.sharing.step()
        await asyncio.sleep(0)
    await work
    await _settle(*apps)
    assert rounds_in_burst >= 3

    assert all(first_transport.texts_to(phone).count("Noted, thanks.") == 1 + MESSAGES_EACH for phone in PEOPLE)
    assert await _leases(first) == before  # the same holders, with the same tokens: nothing changed hands
    for app in apps[1:]:
        assert app.sharing is not None and app.sharing.held() == frozenset() and not app.sharing.runs_alarms
    lines = (await read_status(first.db, NUMBERS, clock.now())).lines()
    assert _move_counts(lines) == ["0 moves in the last 24 h"] * 3  # both numbers and the alarm clock


async def test_a_stopped_service_s_number_moves_after_a_lease_and_stays_when_it_comes_back(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _services(make_app, clock)
    (first, _), (second, _) = services
    assert first.sharing is not None and second.sharing is not None
    assert second.sharing.held() == {"montreal"}
    await second.stop()
    for _ in range(2):  # it may be back in a moment: its number waits
        clock.advance(HEARTBEAT)
        await first.sharing.step()
        assert first.sharing.held() == {"toronto"}
    clock.advance(HEARTBEAT + timedelta(seconds=1))  # a lease's time since its last heartbeat
    await first.sharing.step()
    assert first.sharing.held() == {"toronto", "montreal"}
    lines = (await read_status(first.db, NUMBERS, clock.now())).lines()
    [montreal] = [line for line in lines if line.startswith("served by: number montreal: ")]
    assert montreal.startswith(f"served by: number montreal: service-1 ({first.sharing.holder}) (renewed 0s ago); "
                               "prefers service-2; 1 move in the last 24 h, the last ")
    assert montreal.endswith(" from service-2 to service-1 (its service stopped)")

    back = await make_app(MemoryTransport(), **named(2))  # the same service, started again
    for _ in range(3):
        clock.advance(HEARTBEAT)
        for app in (first, back):
            assert app.sharing is not None
            await app.sharing.step()
    assert back.sharing is not None and back.sharing.held() == frozenset()
    assert first.sharing.held() == {"toronto", "montreal"}


async def test_a_service_that_stops_heart_beating_leaves_its_number_with_the_reason_recorded(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _services(make_app, clock)
    (first, _), (second, _) = services
    assert first.sharing is not None and second.sharing is not None
    clock.advance(timedelta(seconds=16))  # the second one hangs: its lease runs out
    await first.sharing.step()
    assert first.sharing.held() == {"toronto", "montreal"}
    report = await read_status(first.db, NUMBERS, clock.now())
    [montreal] = [served for served in report.services if served.name == "montreal"]
    assert (montreal.service, montreal.preferred, montreal.moves_24h) == ("service-1", "service-2", 1)
    assert montreal.last_move is not None
    assert (montreal.last_move["from_service"], montreal.last_move["reason"]) == ("service-2", "its lease ran out")
    [as_json] = [served for served in report.to_json()["services"] if served["name"] == "montreal"]
    assert as_json["moves_24h"] == 1 and as_json["preferred"] == "service-2"
