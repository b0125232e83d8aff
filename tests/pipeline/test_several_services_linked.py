"""Several services on one PostgreSQL database with linked phones (neonize, driven by fake
clients): each service connects only the numbers it holds a lease on (so a number's QR code is
shown by the service that will hold it: its preferred one, whatever the order of their starts),
and each number's session lives in its own schema of the shared database. A number moves to
another service only on an operator's word or once its service is gone; one that comes back to a
service that served it before starts that service afresh (never opening a session twice in one
process), and the fresh process links the number and answers its participants."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from neonize.aioze.events import ConnectedEv, MessageEv
from neonize.proto.Neonize_pb2 import JID
from sqlalchemy import text

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.domain.numbers import NumberPlan
from promptpipe.research.handovers import hand_over
from promptpipe.transport.session_stores import session_schema
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline.test_several_services import ANA, _enrolled, _settle, named
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


async def _linked_services(make_app: AppFactory, order: tuple[int, ...] = (1, 2),
                          **settings: str) -> list[tuple[App, LinkedPhones]]:
    """Services started in ``order`` (service-1 prefers toronto, service-2 montreal, unless
    ``settings`` say otherwise), each linking the numbers it holds."""
    started = []
    for index in order:
        phones = LinkedPhones()
        started.append((await make_app(phones.transport, PROMPTPIPE_TRANSPORT="whatsapp",
                                       **{**named(index), **settings}), phones))
    for _ in range(3):
        for app, _ in started:
            assert app.sharing is not None
            await app.sharing.step()
    for app, phones in started:
        assert app.sharing is not None
        await app.sharing.alarm_clock_started()
        await phones.link()
    return started


async def test_each_number_is_linked_by_its_preferred_service_whatever_the_order_of_their_starts(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    (second, second_phones), (first, first_phones) = await _linked_services(make_app, order=(2, 1))
    assert second.sharing is not None and first.sharing is not None
    assert second.sharing.held() == {"montreal"} and first.sharing.held() == {"toronto"}
    assert second_phones.connected() == {"montreal"} and first_phones.connected() == {"toronto"}
    assert not second_phones.clients["toronto"]  # no session (no QR code) for a number it does not keep
    schemas = await first.db.run(lambda session: set(session.execute(text(
        "SELECT schema_name FROM information_schema.schemata")).scalars()))
    assert {session_schema(name) for name in NUMBERS} <= schemas


async def test_a_number_handed_over_and_back_starts_its_first_service_afresh(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock: ManualClock,
) -> None:
    """Nobody prefers a number yet: the first service takes both and links them; the second takes
    none until an operator hands one over. When the second stops, the number waits a lease's time
    for it, then goes back to the first, which served it before: a fresh process links it."""
    services = await _linked_services(make_app, PREFERRED_SERVICES="")
    (first, first_phones), (second, second_phones) = services
    assert second.sharing is not None and first.sharing is not None
    assert first_phones.connected() == set(NUMBERS) and second_phones.connected() == set()
    number = "montreal"
    await hand_over(first.db, clock, number=number, to="service-2", numbers=NumberPlan(NUMBERS))
    for app in (first, second):
        assert app.sharing is not None
        await app.sharing.step()
    await second_phones.link()
    assert second.sharing.held() == {number} == second_phones.connected()
    assert number not in first_phones.connected()
    fake_openai.say("Welcome! What habit would you like to build?")
    await _enrolled(second, ANA, number)
    await _settle(first, second)
    assert second_phones.texts_to_ana(number) == ["Welcome! What habit would you like to build?"]

    await second.stop()  # it gives its number back; the number waits a lease's time for it
    clock.advance(timedelta(seconds=5))
    await first.sharing.step()
    assert number not in first.sharing.held()
    clock.advance(timedelta(seconds=11))
    await first.sharing.step()
    assert number in first.sharing.held()
    assert first_phones.transport.exit_requested.is_set()  # it served that number before: a fresh process
    assert number not in first_phones.connected()  # its session is never opened twice in one process

    await first.stop()  # the fresh process of the same service takes every number back at once and links them
    fresh_phones = LinkedPhones()
    fresh = await make_app(fresh_phones.transport, PROMPTPIPE_TRANSPORT="whatsapp",
                           **{**named(1), "PREFERRED_SERVICES": ""})
    assert fresh.sharing is not None and fresh.sharing.held() == set(NUMBERS)
    await fresh.sharing.alarm_clock_started()
    await fresh_phones.link()
    assert fresh_phones.connected() == set(NUMBERS) == fresh_phones.transport.serving

    fake_openai.say("Walking after lunch sounds good.", match="I want to walk more")
    await fresh_phones.clients[number][-1].emit(MessageEv, message_event("I want to walk more", sender=ANA_JID))
    await _settle(fresh)
    assert fresh_phones.texts_to_ana(number) == ["Walking after lunch sounds good."]
    assert second_phones.texts_to_ana(number) == ["Welcome! What habit would you like to build?"]
