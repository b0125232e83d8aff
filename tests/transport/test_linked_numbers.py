"""Several linked phones in one service (LinkedNumbersTransport), each number its own neonize
session driven by a fake client: its own session store and login, its own messages and state;
with several services, only the numbers held here are connected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from neonize.aioze.events import ConnectedEv, MessageEv

from promptpipe.config import load_settings
from promptpipe.config.generate import what_differs
from promptpipe.errors import ConfigError, NotConnected
from promptpipe.transport.base import InboundMessage, Recipient
from promptpipe.transport.connection_state import ConnectionState
from promptpipe.transport.linked_numbers import LinkedNumbersTransport
from promptpipe.transport.session_stores import postgres_session_dsn, sqlite_session_path
from promptpipe.transport.whatsapp import SessionTiming, WhatsAppOptions, WhatsAppTransport
from tests.transport.test_whatsapp_transport import PHONE, FakeClient, message_event, settle, spin

NUMBERS = ("toronto", "montreal")
ANA = Recipient(phone="+14165550123")


class Phones:
    """The transport under test, and every fake client (by number, in the order made)."""

    def __init__(self, *, on_demand: bool = False, pair: dict[str, str] | None = None) -> None:
        self.clients: dict[str, list[FakeClient]] = {name: [] for name in NUMBERS}
        self.stores: dict[str, str] = {}
        self.received: list[InboundMessage] = []
        self.states: list[tuple[str, str | None]] = []
        self.pair = pair or {}
        self.transport = LinkedNumbersTransport(NUMBERS, self._make, on_demand=on_demand)
        self.transport.on_state_change(self._state)

    def _make(self, name: str) -> WhatsAppTransport:
        def factory(store: str) -> FakeClient:
            self.stores[name] = store
            self.clients[name].append(FakeClient())
            return self.clients[name][-1]

        return WhatsAppTransport(f"session-{name}.db", WhatsAppOptions(pair_phone=self.pair.get(name), number=name,
                                                                       own_executor=False),
                                 timing=SessionTiming(stop_grace_s=0.05, qr_timeout_s=0.0), client_factory=factory,
                                 probe=FakeClient.reachable, sleep=self._sleep)

    @staticmethod
    async def _sleep(_: float) -> None:
        await asyncio.sleep(0)

    def _state(self, state: ConnectionState, number: str | None = None) -> None:
        self.states.append((state.name, number))

    async def on_message(self, message: InboundMessage) -> None:
        self.received.append(message)

    def client(self, name: str) -> FakeClient:
        return self.clients[name][-1]

    async def connect(self, name: str) -> FakeClient:
        await settle(lambda: bool(self.clients[name]) and self.client(name).connect_calls == 1)
        await self.client(name).emit(ConnectedEv, ConnectedEv(status=True))
        return self.client(name)


@pytest.fixture
async def phones() -> AsyncIterator[list[Phones]]:
    made: list[Phones] = []
    yield made
    for each in made:
        await each.transport.stop()


async def test_each_number_has_its_own_session_and_its_own_qr_code(phones: list[Phones], capsys: Any) -> None:
    phones.append(Phones())
    p = phones[0]
    await p.transport.start(p.on_message)
    await settle(lambda: all(p.clients[name] for name in NUMBERS))

    assert p.stores == {"toronto": "session-toronto.db", "montreal": "session-montreal.db"}
    await p.client("montreal").emit_qr()
    shown = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Scan")]
    assert shown == ["Scan this code with WhatsApp on the phone of the study's number 'montreal': "
                     "Settings → Linked devices → Link a device."]


async def test_a_pairing_code_names_the_number_it_links(phones: list[Phones], capsys: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    async def code(_client: Any, _phone: str) -> str:
        return "WXYZ-1234"

    monkeypatch.setattr("promptpipe.transport.whatsapp.request_pair_code", code)
    phones.append(Phones(pair={"toronto": "+14165550177"}))
    p = phones[0]
    await p.transport.start(p.on_message)
    await settle(lambda: all(p.clients[name] for name in NUMBERS))

    await p.client("toronto").emit_qr()
    await spin()
    shown = [line for line in capsys.readouterr().out.splitlines() if line.startswith("WhatsApp pairing code")]
    assert shown == ["WhatsApp pairing code for +*******0177 (the study's number 'toronto'): WXYZ-1234"]


async def test_a_message_says_the_number_it_came_to_and_replies_go_from_the_participants_number(
    phones: list[Phones],
) -> None:
    phones.append(Phones())
    p = phones[0]
    await p.transport.start(p.on_message)
    toronto, montreal = await p.connect("toronto"), await p.connect("montreal")

    await montreal.emit(MessageEv, message_event("I walked today"))
    [message] = p.received
    assert (message.number, message.text, message.sender_phone) == ("montreal", "I walked today", "+" + PHONE)

    await p.transport.send_text(Recipient(phone="+14165550123", number="montreal"), "Well done!")
    await p.transport.send_text(ANA, "From the default number")  # None: the first number
    assert [body for _, body in montreal.sent] == ["Well done!"]
    assert [body for _, body in toronto.sent] == ["From the default number"]


async def test_each_number_reports_its_own_state(phones: list[Phones]) -> None:
    phones.append(Phones())
    p = phones[0]
    await p.transport.start(p.on_message)
    await p.connect("montreal")

    assert ("connected", "montreal") in p.states
    assert ("connected", "toronto") not in p.states
    assert p.transport.connected_for("montreal") and not p.transport.connected_for("toronto")


async def test_with_several_services_only_the_numbers_held_are_connected(phones: list[Phones]) -> None:
    phones.append(Phones(on_demand=True))
    p = phones[0]
    await p.transport.start(p.on_message)
    await spin()
    assert p.clients == {"toronto": [], "montreal": []}  # nothing is held yet

    await p.transport.serve_numbers({"montreal"})
    montreal = await p.connect("montreal")
    assert p.transport.serving == {"montreal"} and not p.clients["toronto"]
    with pytest.raises(NotConnected, match="toronto"):
        await p.transport.send_text(ANA, "not from here")

    await p.transport.serve_numbers({"toronto"})  # montreal moved to another service
    await settle(lambda: montreal.stop_calls == 1)
    await p.connect("toronto")
    assert p.transport.serving == {"toronto"}
    assert ("stopped", "montreal") not in p.states  # its new holder records montreal's state
    with pytest.raises(NotConnected, match="montreal"):
        await p.transport.send_text(Recipient(phone="+14165550123", number="montreal"), "gone")
    assert not p.transport.exit_requested.is_set()


async def test_a_number_back_to_a_service_that_served_it_asks_for_a_fresh_process(phones: list[Phones]) -> None:
    phones.append(Phones(on_demand=True))
    p = phones[0]
    await p.transport.start(p.on_message)
    await p.transport.serve_numbers({"montreal"})
    await p.connect("montreal")
    await p.transport.serve_numbers(set())
    await p.transport.serve_numbers({"montreal"})

    assert p.transport.exit_requested.is_set()
    request = p.transport.exit_request
    assert request is not None and request.restart and "'montreal'" in request.message
    assert len(p.clients["montreal"]) == 1  # its session was not opened twice in this process


async def test_unscanned_codes_restart_the_service_while_no_number_is_connected(phones: list[Phones]) -> None:
    phones.append(Phones())
    p = phones[0]
    await p.transport.start(p.on_message)
    await settle(lambda: all(p.clients[name] and p.client(name).connect_calls == 1 for name in NUMBERS))

    await p.client("montreal").emit_qr()  # nobody scans it (qr_timeout_s is 0 here)
    await settle(p.transport.exit_requested.is_set)
    request = p.transport.exit_request
    assert request is not None and request.restart
    assert request.message.startswith("WhatsApp number 'montreal': ")


async def test_unscanned_codes_of_one_number_leave_it_flagged_and_the_others_running(phones: list[Phones]) -> None:
    phones.append(Phones())
    p = phones[0]
    await p.transport.start(p.on_message)
    toronto = await p.connect("toronto")
    await settle(lambda: bool(p.clients["montreal"]) and p.client("montreal").connect_calls == 1)

    await p.client("montreal").emit_qr()
    await settle(lambda: ("logged_out", "montreal") in p.states)
    await spin()
    assert not p.transport.exit_requested.is_set()
    await p.transport.send_text(ANA, "still going")
    assert [body for _, body in toronto.sent] == ["still going"]


def test_the_default_number_keeps_its_session_file_and_the_others_get_their_own(tmp_path: Path) -> None:
    default = tmp_path / "whatsapp-session.db"
    assert sqlite_session_path(default, "toronto", is_default=True) == default
    assert sqlite_session_path(default, "montreal", is_default=False) == tmp_path / "whatsapp-session-montreal.db"


@pytest.mark.parametrize(("url", "expected"), [
    ("postgresql+psycopg://postgres@127.0.0.1:5432/study",
     'postgres://postgres@127.0.0.1:5432/study?search_path=%22whatsapp_session_north-1%22&sslmode=disable'),
    ("postgresql+psycopg://pp:s%40cret@db.example.org/study?application_name=x",
     'postgres://pp:s%40cret@db.example.org/study?search_path=%22whatsapp_session_north-1%22&sslmode=require'),
    ("postgresql://pp@db.example.org/study?sslmode=verify-full",
     'postgres://pp@db.example.org/study?search_path=%22whatsapp_session_north-1%22&sslmode=verify-full'),
])
def test_a_shared_session_lives_in_its_own_schema_of_the_services_database(url: str, expected: str) -> None:
    assert postgres_session_dsn(url, "north-1") == expected


def test_a_session_is_never_kept_in_postgresql_for_a_sqlite_service() -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        postgres_session_dsn("sqlite:///promptpipe.db", "main")


def _settings(tmp_path: Path, **env: str) -> Any:
    base = {"PROMPTPIPE_STATE_DIR": str(tmp_path), "PROMPTPIPE_TRANSPORT": "whatsapp",
            "WHATSAPP_NUMBERS": "toronto,montreal"}
    return load_settings({**base, **env}, env_file=None)


def test_pairing_phones_are_given_per_number(tmp_path: Path) -> None:
    settings = _settings(tmp_path, WHATSAPP_PAIR_PHONE="montreal=+14165550177")
    assert (settings.pair_phone_of("toronto"), settings.pair_phone_of("montreal")) == (None, "+14165550177")
    bare = _settings(tmp_path, WHATSAPP_PAIR_PHONE="+14165550178")
    assert (bare.pair_phone_of("toronto"), bare.pair_phone_of("montreal")) == ("+14165550178", None)
    assert "WHATSAPP_PAIR_PHONE=+14165550178" in what_differs(bare)  # as written, in `promptpipe check`
    assert "WHATSAPP_PAIR_PHONE=montreal=+14165550177" in what_differs(settings)


@pytest.mark.parametrize(("raw", "says"), [
    ("ottawa=+14165550177", "'ottawa', which WHATSAPP_NUMBERS does not have"),
    ("montreal=4165550177", "must be E.164"),
    ("montreal=+14165550177,montreal=+14165550178", "each number once"),
])
def test_a_wrong_pairing_phone_is_refused_saying_why(tmp_path: Path, raw: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        _settings(tmp_path, WHATSAPP_PAIR_PHONE=raw)
