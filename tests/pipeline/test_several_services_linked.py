"""Several services on one PostgreSQL database with linked phones (neonize, driven by fake
clients): each service connects only the numbers it holds a lease on, and each number's session
lives in its own schema of the shared database. A number whose service stops goes to another;
that one served it before, so it starts afresh (never opening a session twice in one process),
and the fresh process links the number and answers its participants."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from neonize.aioze.events import ConnectedEv, MessageEv
from neonize.proto.Neonize_pb2 import JID
from sqlalchemy import text

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.transport.session_stores import session_schema
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline.test_several_services import ANA, SHARED, _enrolled, _settle
from tests.transport.test_linked_numbers import Phones
from tests.transport.test_whatsapp_transport import message_event, settle

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

NUMBERS = ("toronto", "montreal")
ANA_JID = JID(User=ANA.lstrip("+"), Server="s.whatsapp.net", Device=0)


class LinkedPhones(Phones):
    """One service's linked phones: a fake neonize client per number it connects."""

    def __init__(self) -> None:
        super().__init__(on_demand=True)

    def connected(self) -> set[str]:
        """The numbers whose session is open here (connected, and not stopped since)."""
        return {name for name, made in self.clients.items()
                if made and made[-1].connect_calls and not made[-1].stop_calls}

    async def link(self) -> None:
        """Every number this service started connects."""
        for name in self.transport.serving:
            await settle(lambda name=name: bool(self.clients[name]) and self.clients[name][-1].connect_calls == 1)
            client = self.clients[name][-1]
            if not self.transport.connected_for(name):
                await client.emit(ConnectedEv, ConnectedEv(status=True))

    def texts_to_ana(self, name: str) -> list[Any]:
        return [body for made in self.clients[name] for _, body in made.sent]


async def _linked_services(make_app: AppFactory) -> list[tuple[App, LinkedPhones]]:
    started = []
    for _ in range(2):
        phones = LinkedPhones()
        started.append((await make_app(phones.transport, PROMPTPIPE_TRANSPORT="whatsapp", **SHARED), phones))
    for _ in range(3):
        for app, _ in started:
            assert app.sharing is not None
            await app.sharing.step()
    for app, phones in started:
        assert app.sharing is not None
        await app.sharing.alarm_clock_started()
        await phones.link()
    return started


async def test_each_service_links_only_its_numbers_and_a_stopped_ones_go_to_a_fresh_process(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _linked_services(make_app)
    for app, phones in services:
        assert app.sharing is not None and len(app.sharing.held()) == 1
        assert phones.connected() == set(app.sharing.held()) == phones.transport.serving
    schemas = await services[0][0].db.run(lambda session: set(session.execute(text(
        "SELECT schema_name FROM information_schema.schemata")).scalars()))
    assert {session_schema(name) for name in NUMBERS} <= schemas

    (first, first_phones), (second, second_phones) = services  # the first, alone at first, took both
    assert second.sharing is not None and first.sharing is not None
    [number] = second.sharing.held()
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(second, ANA, number)
    await _settle(first, second)
    assert second_phones.texts_to_ana(number) == ["Welcome! What habit would you like to build?"]

    await second.stop()  # its leases are given back at once; the first takes its number back
    clock.advance(timedelta(seconds=1))
    await first.sharing.step()
    assert number in first.sharing.held()
    assert first_phones.transport.exit_requested.is_set()  # it served that number before: a fresh process
    assert number not in first_phones.connected()  # its session is never opened twice in one process

    await first.stop()  # the fresh process takes every number and links them
    fresh_phones = LinkedPhones()
    fresh = await make_app(fresh_phones.transport, PROMPTPIPE_TRANSPORT="whatsapp", **SHARED)
    assert fresh.sharing is not None and fresh.sharing.held() == set(NUMBERS)
    await fresh.sharing.alarm_clock_started()
    await fresh_phones.link()
    assert fresh_phones.connected() == set(NUMBERS) == fresh_phones.transport.serving

    fake_openai.say("Walking after lunch sounds good.", match="I want to walk more")
    await fresh_phones.clients[number][-1].emit(MessageEv, message_event("I want to walk more", sender=ANA_JID))
    await _settle(fresh)
    assert fresh_phones.texts_to_ana(number) == ["Walking after lunch sounds good."]
    assert second_phones.texts_to_ana(number) == ["Welcome! What habit would you like to build?"]
