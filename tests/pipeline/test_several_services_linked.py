"""Several services on one PostgreSQL database with linked phones (neonize, driven by fake
clients): each service connects only the numbers it holds a lease on, each number's session lives
in its own schema of the shared database, and a number whose service stops is connected by the
service that takes it over, which answers its participants."""

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


async def test_each_service_links_only_the_numbers_it_holds_and_a_stopped_ones_move_on(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    services = await _linked_services(make_app)
    for app, phones in services:
        assert app.sharing is not None and len(app.sharing.held()) == 1
        assert phones.connected() == set(app.sharing.held()) == phones.transport.serving
    schemas = await services[0][0].db.run(lambda session: set(session.execute(text(
        "SELECT schema_name FROM information_schema.schemata")).scalars()))
    assert {session_schema(name) for name in NUMBERS} <= schemas

    [(holder, holder_phones)] = [s for s in services if s[0].sharing and "toronto" in s[0].sharing.held()]
    [(other, other_phones)] = [s for s in services if s[0] is not holder]
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(holder, ANA, "toronto")
    await _settle(holder, other)
    assert holder_phones.texts_to_ana("toronto") == ["Welcome! What habit would you like to build?"]

    await holder.stop()  # its leases are given back at once
    clock.advance(timedelta(seconds=1))
    assert other.sharing is not None
    await other.sharing.step()
    await other_phones.link()
    assert other_phones.connected() == set(NUMBERS) == other_phones.transport.serving

    fake_openai.say("Walking after lunch sounds good.", match="I want to walk more")
    toronto = other_phones.clients["toronto"][-1]
    await toronto.emit(MessageEv, message_event("I want to walk more", sender=ANA_JID))
    await _settle(other)
    assert other_phones.texts_to_ana("toronto") == ["Walking after lunch sounds good."]
    assert holder_phones.texts_to_ana("toronto") == ["Welcome! What habit would you like to build?"]
