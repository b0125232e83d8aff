"""WhatsAppTransport driven through a fake neonize client: no network, no Go client."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from neonize import _binder
from neonize.aioze import events as neonize_events
from neonize.aioze.client import NewAClient
from neonize.aioze.events import (
    ConnectedEv,
    DisconnectedEv,
    LoggedOutEv,
    MessageEv,
    PairStatusEv,
    ReceiptEv,
    StreamReplacedEv,
)
from neonize.exc import NeonizeError, SendMessageError
from neonize.proto.Neonize_pb2 import (
    JID,
    MessageInfo,
    MessageSource,
    PairPhoneParams,
    PairPhoneReturnFunction,
    SendResponse,
)
from neonize.proto.waCommon.WACommon_pb2 import MessageKey
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message, PollCreationMessage, PollUpdateMessage, PollVoteMessage
from neonize.utils.enum import ChatPresence, ReceiptType, VoteType

from promptpipe.errors import NotConnected, SendFailed
from promptpipe.transport import _whatsapp_login as whatsapp_login
from promptpipe.transport import _whatsapp_support as whatsapp_support
from promptpipe.transport.base import DeliveryReceipt, InboundMessage, PollVote, Recipient, Transport, poll_option_hash
from promptpipe.transport.whatsapp import SessionTiming, WhatsAppOptions, WhatsAppTransport
from tests.ports import free_port

PHONE = "14165550123"
LID = "204857239405761"
ALICE = Recipient(phone="+14165550123")


# ----------------------------------------------------------------------------- fakes


class FakeEvents:
    """Mimics ``client.event``: ``event(EvType)(handler)`` and ``event.qr(handler)``."""

    def __init__(self) -> None:
        self.handlers: dict[Any, Callable[..., Any]] = {}
        self.qr_handler: Callable[..., Any] | None = None

    def __call__(self, event_type: Any) -> Callable[[Callable[..., Any]], None]:
        def register(handler: Callable[..., Any]) -> None:
            self.handlers[event_type] = handler

        return register

    def qr(self, handler: Callable[..., Any]) -> None:
        self.qr_handler = handler


class FakeClient:
    """The slice of ``NewAClient`` the transport uses (its signatures are checked against
    neonize's own below). ``connect`` returns a session future that fails with the next scripted
    error, or stays open until ``stop``, except, as in neonize 0.5.2, while a login is waiting for
    its QR code to be scanned: then the Go library is stuck and ``stop`` ends nothing."""

    uuid = b"promptpipe"

    def __init__(self, connect_errors: list[Exception] | None = None) -> None:
        self.event = FakeEvents()
        self.waiting_for_scan = False
        self.presences: list[Any] = []
        self.connect_errors = list(connect_errors or [])
        self.connect_calls = 0
        self.stop_calls = 0
        self.session: asyncio.Future[None] | None = None
        self.sent: list[tuple[JID, Any]] = []
        self.send_errors: list[Exception] = []
        self.send_hangs = False
        self.polls_built: list[tuple[str, list[str], VoteType]] = []
        self.presence: list[tuple[JID, ChatPresence]] = []
        self.pn_lookups: list[JID] = []
        self.pair_calls: list[tuple[str, bool]] = []
        self.decrypt_error: Exception | None = None
        self.read_marks: list[tuple[tuple[str, ...], JID, JID, ReceiptType]] = []

    async def connect(self, proxy_settings: Any = None) -> asyncio.Future[None]:
        self.connect_calls += 1
        self.session = asyncio.get_running_loop().create_future()
        if self.connect_errors:
            self.session.set_exception(self.connect_errors.pop(0))
        return self.session

    async def stop(self) -> None:
        self.stop_calls += 1
        if self.waiting_for_scan:
            return  # 0.5.2: FetchMe loops until a login that cannot come; stop does not reach it
        if self.session is not None and not self.session.done():
            self.session.set_result(None)

    async def send_presence(self, presence: Any) -> None:
        self.presences.append(presence)

    async def send_message(self, to: JID, message: Any, link_preview: bool = False, ghost_mentions: Any = None,
                           mentions_are_lids: bool = False, add_msg_secret: bool = False) -> SendResponse:
        if self.send_hangs:
            await asyncio.Event().wait()
        if self.send_errors:
            raise self.send_errors.pop(0)
        self.sent.append((to, message))
        return SendResponse(ID=f"3EB0{len(self.sent):04d}", Timestamp=1_767_610_800)

    async def build_poll_vote_creation(self, name: str, options: list[str], selectable_count: VoteType,
                                       quoted: Any = None) -> Message:
        self.polls_built.append((name, options, selectable_count))
        return Message(pollCreationMessage=PollCreationMessage(name=name))

    async def send_chat_presence(self, jid: JID, state: ChatPresence, media: Any) -> None:
        self.presence.append((jid, state))

    async def mark_read(self, *message_ids: str, chat: JID, sender: JID, receipt: ReceiptType,
                        timestamp: int | None = None) -> None:
        self.read_marks.append((message_ids, chat, sender, receipt))

    async def get_pn_from_lid(self, jid: JID) -> JID:
        self.pn_lookups.append(jid)
        return JID(User=PHONE, Server="s.whatsapp.net")

    async def decrypt_poll_vote(self, message: MessageEv) -> PollVoteMessage:
        if self.decrypt_error is not None:
            raise self.decrypt_error
        return PollVoteMessage(selectedOptions=[hashlib.sha256(b"Done").digest()])

    @staticmethod
    async def reachable() -> None:
        return None

    async def emit(self, event_type: Any, ev: Any) -> None:
        """Deliver an event the way neonize does: handler(client, event)."""
        if event_type in (ConnectedEv, PairStatusEv):
            self.waiting_for_scan = False
        await self.event.handlers[event_type](self, ev)

    async def emit_qr(self, data: bytes = b"2@qr-payload") -> None:
        assert self.event.qr_handler is not None
        self.waiting_for_scan = True
        await self.event.qr_handler(self, data)


FAKE_ONLY = {"emit", "emit_qr", "reachable"}


class FakeGoLibrary:
    """neonize's shared FFI object, for the one call the transport makes on it (PairPhone)."""

    def __init__(self, error: str = "") -> None:
        self.pair_requests: list[PairPhoneParams] = []
        self.error = error

    async def PairPhone(self, uuid: bytes, payload: bytes, size: int) -> bytes:
        assert size == len(payload)
        self.pair_requests.append(PairPhoneParams.FromString(payload))
        return PairPhoneReturnFunction(Code="ABCD-EFGH" if not self.error else "", Error=self.error).SerializeToString()


class RecordingLogger:
    def __init__(self) -> None:
        self.records: list[tuple[str, str, dict[str, Any]]] = []

    def _record(self, level: str, event: str, kw: dict[str, Any]) -> None:
        self.records.append((level, event, kw))

    def debug(self, event: str, **kw: Any) -> None:
        self._record("debug", event, kw)

    def info(self, event: str, **kw: Any) -> None:
        self._record("info", event, kw)

    def warning(self, event: str, **kw: Any) -> None:
        self._record("warning", event, kw)

    def error(self, event: str, **kw: Any) -> None:
        self._record("error", event, kw)

    def exception(self, event: str, **kw: Any) -> None:
        self._record("exception", event, kw)

    def events(self, level: str | None = None) -> list[str]:
        return [event for lvl, event, _ in self.records if level in (None, lvl)]

    def find(self, event: str) -> list[dict[str, Any]]:
        return [kw for _, name, kw in self.records if name == event]

    def text(self) -> str:
        return repr(self.records)


async def settle(condition: Callable[[], bool], rounds: int = 200) -> None:
    """Let background tasks run until ``condition`` holds (no wall-clock waiting)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never became true")


async def spin(rounds: int = 50) -> None:
    """Give background tasks a fair chance to do something they should not."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class Harness:
    def __init__(self, **kwargs: Any) -> None:
        self.client = FakeClient(kwargs.pop("connect_errors", None))
        self.states: list[Any] = []
        kwargs.setdefault("stop_grace_s", 0.05)
        self.unreachable: list[str] = list(kwargs.pop("unreachable", []))
        kwargs.setdefault("probe", self._probe)
        kwargs.setdefault("on_state", self.states.append)
        self.log = RecordingLogger()
        self.delays: list[float] = []
        self.received: list[InboundMessage] = []
        self.sleep_blocks = kwargs.pop("sleep_blocks", False)
        options = WhatsAppOptions(**{k: kwargs.pop(k) for k in ("pair_phone", "bot_label") if k in kwargs})
        timing = SessionTiming(**{k: kwargs.pop(k) for k in SessionTiming.__dataclass_fields__ if k in kwargs})
        self.transport = WhatsAppTransport(
            "session.db", options, timing=timing, logger=self.log, client_factory=self._factory, sleep=self._sleep,
            **kwargs,
        )
        self.factory_paths: list[str] = []

    async def _probe(self) -> str | None:
        """WhatsApp answers, unless the test scripted outages (one per attempt)."""
        return self.unreachable.pop(0) if self.unreachable else None

    def _factory(self, path: str) -> FakeClient:
        self.factory_paths.append(path)
        return self.client

    async def _sleep(self, delay_s: float) -> None:
        self.delays.append(delay_s)
        if self.sleep_blocks:
            await asyncio.Event().wait()

    async def on_message(self, msg: InboundMessage) -> None:
        self.received.append(msg)

    async def start_connected(self) -> None:
        await self.transport.start(self.on_message)
        await settle(lambda: self.client.connect_calls == 1)
        await self.client.emit(ConnectedEv, ConnectedEv(status=True))


@pytest.fixture
async def harness() -> AsyncIterator[Callable[..., Harness]]:
    made: list[Harness] = []

    def make(**kwargs: Any) -> Harness:
        made.append(Harness(**kwargs))
        return made[-1]

    yield make
    for h in made:
        await h.transport.stop()


def message_event(
    text: str = "I walked 20 minutes",
    *,
    sender: JID | None = None,
    sender_alt: JID | None = None,
    from_me: bool = False,
    message: Message | None = None,
) -> MessageEv:
    sender = sender or JID(User=PHONE, Server="s.whatsapp.net", Device=0)
    source = MessageSource(
        Chat=JID(User=sender.User, Server=sender.Server),
        Sender=sender,
        SenderAlt=sender_alt or JID(User="", Server="", IsEmpty=True),
        IsFromMe=from_me,
        IsGroup=False,
    )
    info = MessageInfo(MessageSource=source, ID="3EB0INBOUND", Timestamp=1_767_610_800_000, Pushname="Ada")
    return MessageEv(Info=info, Message=message or Message(conversation=text))


# ----------------------------------------------------------------------- lifecycle


def test_it_is_a_transport_that_must_not_resend_blindly() -> None:
    transport = WhatsAppTransport("session.db", client_factory=lambda _: FakeClient(), probe=FakeClient.reachable)

    assert isinstance(transport, Transport)
    assert (transport.name, transport.resend_is_safe) == ("whatsapp", False)


def test_poll_vote_decrypt_workaround_is_installed() -> None:
    assert _binder.gocode.DecryptPollVote.errcheck is _binder.consume_bytes_struct


async def test_start_returns_at_once_and_retries_unreachable_server_with_backoff(harness) -> None:
    h = harness(unreachable=["cannot reach web.whatsapp.com:443: no such host"] * 2)

    await h.transport.start(h.on_message)
    assert not h.transport.connected and h.client.connect_calls == 0  # nothing awaited the network

    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))

    assert await h.transport.wait_connected(timeout_s=1)
    assert h.delays == [2.0, 4.0]
    assert [kw["retry_in_s"] for kw in h.log.find("whatsapp_unreachable")] == [2.0, 4.0]
    assert h.factory_paths == ["session.db"]


async def test_backoff_doubles_up_to_the_maximum(harness) -> None:
    h = harness(unreachable=["no answer"] * 6, reconnect_initial_s=1.0, reconnect_max_s=5.0)

    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    assert h.delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]


async def test_disconnect_clears_connected_until_the_next_connected_event(harness) -> None:
    h = harness()
    await h.start_connected()
    assert h.transport.connected

    await h.client.emit(DisconnectedEv, DisconnectedEv(status=True))
    assert not h.transport.connected
    assert not await h.transport.wait_connected(timeout_s=0)

    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    assert h.transport.connected


@pytest.mark.parametrize(
    ("event_type", "reason", "hint"),
    [
        (LoggedOutEv, "logged_out", "delete the WhatsApp session database"),
        (StreamReplacedEv, "stream_replaced", "Another program"),
    ],
)
async def test_logged_out_or_replaced_session_stops_reconnecting_and_says_why(
    harness, event_type: Any, reason: str, hint: str
) -> None:
    h = harness()
    await h.start_connected()

    await h.client.emit(event_type, event_type())
    await settle(lambda: h.client.stop_calls == 1)
    await spin()

    assert h.client.connect_calls == 1  # no reconnect
    assert not h.transport.connected
    await h.transport.stop()
    assert h.client.stop_calls == 1
    assert h.transport.gave_up_reason == reason
    (logged,) = h.log.find(f"whatsapp_{reason}")
    assert hint in logged["action"]


async def test_an_expired_qr_asks_for_a_fresh_process_and_says_so(harness, capsys) -> None:
    h = harness(qr_timeout_s=170.0)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    await h.client.emit_qr()
    await settle(lambda: h.transport.exit_requested.is_set())

    out = capsys.readouterr().out
    assert "Linked devices" in out and ("▀" in out or "█" in out)
    assert out.rstrip().endswith("The QR code expired; showing a new one.")
    assert 170.0 in h.delays
    assert h.transport.exit_request is not None and h.transport.exit_request.restart
    assert h.client.connect_calls == 1  # no new login in this process: neonize 0.5.2 cannot give one
    assert [s.name for s in h.states][:2] == ["connecting", "waiting_for_scan"]


async def test_stop_while_waiting_for_a_scan_returns_although_the_library_does_not(harness) -> None:
    h = harness(sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit_qr()

    await asyncio.wait_for(h.transport.stop(), timeout=5)  # the guard only stops a hang

    assert h.client.stop_calls == 1
    assert h.client.session.cancelled()  # it never ended by itself (as in 0.5.2): the transport left it
    assert h.states[-1].name == "stopped"


async def test_qr_scanned_in_time_does_not_restart(harness) -> None:
    h = harness(sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    await h.client.emit_qr()
    linked = PairStatusEv(ID=JID(User=PHONE, Server="s.whatsapp.net"), Status=PairStatusEv.SUCCESS)
    await h.client.emit(PairStatusEv, linked)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await spin()

    assert h.client.connect_calls == 1 and h.client.stop_calls == 0
    assert h.transport.connected
    assert PHONE not in h.log.text()


async def test_pair_phone_shows_an_eight_character_code_once_as_a_browser_whatsapp_accepts(
    harness, capsys, monkeypatch,
) -> None:
    go = FakeGoLibrary()
    monkeypatch.setattr(whatsapp_login, "async_gocode", go)
    h = harness(pair_phone="+1 416 555 0123", sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    await h.client.emit_qr(b"first")
    await h.client.emit_qr(b"second")

    (request,) = go.pair_requests
    assert (request.phone, request.clientDisplayName, request.clientType) == (PHONE, "Chrome (Linux)", 1)
    assert request.showPushNotification
    out = capsys.readouterr().out
    assert "ABCD-EFGH" in out and "phone number" in out
    assert PHONE not in out and "█" not in out  # no QR code while the code is the way in


async def test_a_failed_pairing_code_prints_every_new_qr_code(harness, capsys, monkeypatch) -> None:
    monkeypatch.setattr(whatsapp_login, "async_gocode", FakeGoLibrary(error="pairing rejected"))
    h = harness(pair_phone="+1 416 555 0123", sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    for code in (b"first", b"second", b"third"):
        await h.client.emit_qr(code)

    out = capsys.readouterr().out
    assert out.count("Scan this code") == 3
    assert h.log.find("whatsapp_pair_code_failed")


async def test_a_code_typed_wrongly_still_leaves_the_qr_codes(harness, capsys, monkeypatch) -> None:
    monkeypatch.setattr(whatsapp_login, "async_gocode", FakeGoLibrary())
    h = harness(pair_phone="+1 416 555 0123", sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit_qr(b"first")

    await h.client.emit(PairStatusEv, PairStatusEv(Status=PairStatusEv.ERROR, Error="code not entered"))
    await h.client.emit_qr(b"second")
    await h.client.emit_qr(b"third")

    assert capsys.readouterr().out.count("Scan this code") == 2


async def test_stop_is_idempotent_and_stops_the_client_once(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.transport.stop()
    await h.transport.stop()
    await spin()

    assert h.client.stop_calls == 1
    assert h.client.connect_calls == 1  # stopping is not mistaken for a dropped session
    assert not h.transport.connected
    with pytest.raises(NotConnected):
        await h.transport.send_text(ALICE, "hello")


async def test_stop_during_backoff_and_before_start_returns(harness) -> None:
    never_started = WhatsAppTransport("session.db", client_factory=lambda _: FakeClient(), probe=FakeClient.reachable)
    await never_started.stop()

    h = harness(unreachable=["no answer"], sleep_blocks=True)
    await h.transport.start(h.on_message)
    await settle(lambda: h.delays == [2.0])

    await h.transport.stop()
    await spin()

    assert h.client.connect_calls == 0
    assert h.delays == [2.0]


async def test_bot_label_off_is_requested_and_a_late_setting_is_flagged(harness, monkeypatch) -> None:
    monkeypatch.setenv("NEONIZE_BOT_TAG", "on")  # restored after the test
    monkeypatch.setattr(whatsapp_support, "bot_tag_off_at_exec", lambda: False)  # not set when the process began
    h = harness(bot_label=False)

    await h.transport.start(h.on_message)

    assert os.environ["NEONIZE_BOT_TAG"] == "off"
    (warning,) = h.log.find("whatsapp_bot_label_may_show")
    assert "NEONIZE_BOT_TAG=off" in warning["hint"]


async def test_event_loop_left_over_from_a_closed_loop_is_forgotten(harness, monkeypatch) -> None:
    dead = asyncio.new_event_loop()
    dead.close()
    monkeypatch.setattr(neonize_events, "event_global_loop", dead)
    h = harness()

    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    assert neonize_events.event_global_loop is None  # NewAClient.connect() sets the live loop next


# ------------------------------------------------------------------------ inbound


async def test_message_from_a_participant_reaches_on_message(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.client.emit(MessageEv, message_event("I walked 20 minutes"))

    (msg,) = h.received
    assert (msg.message_id, msg.sender_phone, msg.text) == ("3EB0INBOUND", "+14165550123", "I walked 20 minutes")
    assert PHONE not in h.log.text() and "walked" not in h.log.text()


async def test_own_message_is_not_delivered(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.client.emit(MessageEv, message_event("echo", from_me=True))

    assert h.received == []


async def test_lid_only_sender_gets_phone_from_the_local_map(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.client.emit(MessageEv, message_event(sender=JID(User=LID, Server="lid", Device=2)))

    (msg,) = h.received
    assert (msg.sender_phone, msg.sender_lid) == ("+14165550123", LID)
    (looked_up,) = h.client.pn_lookups
    assert (looked_up.User, looked_up.Server, looked_up.Device) == (LID, "lid", 0)


async def test_lid_lookup_is_skipped_while_not_connected(harness) -> None:
    h = harness()
    await h.start_connected()
    await h.client.emit(DisconnectedEv, DisconnectedEv(status=True))

    await h.client.emit(MessageEv, message_event(sender=JID(User=LID, Server="lid")))

    assert h.client.pn_lookups == []
    (msg,) = h.received
    assert (msg.sender_phone, msg.sender_lid) == (None, LID)


async def test_poll_vote_is_decrypted_and_delivered(harness) -> None:
    h = harness()
    await h.start_connected()
    update = Message(pollUpdateMessage=PollUpdateMessage(pollCreationMessageKey=MessageKey(ID="3EB0POLL")))

    await h.client.emit(MessageEv, message_event(message=update))

    (msg,) = h.received
    assert msg.poll_vote == PollVote(poll_message_id="3EB0POLL", selected_hashes=(poll_option_hash("Done"),))
    assert msg.text == ""


async def test_undecryptable_poll_vote_is_logged_and_dropped(harness) -> None:
    h = harness()
    await h.start_connected()
    h.client.decrypt_error = NeonizeError("original message secret key not found")
    update = Message(pollUpdateMessage=PollUpdateMessage(pollCreationMessageKey=MessageKey(ID="3EB0POLL")))

    await h.client.emit(MessageEv, message_event(message=update))

    assert h.received == []
    assert h.log.find("whatsapp_poll_vote_unreadable")


async def test_failing_on_message_is_logged_not_raised(harness) -> None:
    h = harness()

    async def broken(_msg: InboundMessage) -> None:
        raise RuntimeError("agent bug")

    await h.transport.start(broken)
    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))

    await h.client.emit(MessageEv, message_event())  # must not raise

    assert "whatsapp_inbound_handler_failed" in h.log.events("exception")


async def test_broken_event_is_logged_by_the_handler_guard(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.client.emit(MessageEv, object())  # not a MessageEv at all

    assert "whatsapp_event_handler_failed" in h.log.events("exception")
    assert h.received == []


# ----------------------------------------------------------------------- outbound


async def test_send_before_connected_raises_not_connected(harness) -> None:
    h = harness()
    await h.transport.start(h.on_message)

    with pytest.raises(NotConnected):
        await h.transport.send_text(ALICE, "hello")
    assert h.client.sent == []


async def test_send_text_returns_id_and_time_and_sends_plain_text(harness) -> None:
    h = harness()
    await h.start_connected()

    sent = await h.transport.send_text(ALICE, "Ask @14165550123 for help")

    assert sent.message_id == "3EB00001"
    assert sent.timestamp.isoformat() == "2026-01-05T11:00:00+00:00"
    ((jid, body),) = h.client.sent
    assert (jid.User, jid.Server) == (PHONE, "s.whatsapp.net")
    assert body == "Ask @\u200d14165550123 for help"
    assert PHONE not in h.log.text() and "help" not in h.log.text()


async def test_send_prefers_the_lid_address(harness) -> None:
    h = harness()
    await h.start_connected()

    await h.transport.send_text(Recipient(phone="+14165550123", lid=LID), "hi")

    ((jid, _),) = h.client.sent
    assert (jid.User, jid.Server) == (LID, "lid")


@pytest.mark.parametrize(
    ("error_text", "expected", "retryable"),
    [
        ("websocket not connected", NotConnected, None),
        ("no LID found for 14165550123@s.whatsapp.net from server", SendFailed, False),
        ("server returned error 503", SendFailed, True),
    ],
)
async def test_send_failures_are_mapped(harness, error_text: str, expected: type, retryable: bool | None) -> None:
    h = harness()
    await h.start_connected()
    h.client.send_errors.append(SendMessageError(error_text))

    with pytest.raises(expected) as caught:
        await h.transport.send_text(ALICE, "hello")

    if retryable is not None:
        assert caught.value.retryable is retryable
    assert PHONE not in h.log.text()


async def test_send_that_never_answers_is_reported_as_possibly_delivered(harness) -> None:
    h = harness(send_timeout_s=0.01)
    await h.start_connected()
    h.client.send_hangs = True

    with pytest.raises(SendFailed) as caught:
        await h.transport.send_text(ALICE, "hello")

    assert caught.value.ambiguous is True and caught.value.retryable is False


async def test_send_poll_builds_a_single_choice_poll(harness) -> None:
    h = harness()
    await h.start_connected()

    sent = await h.transport.send_poll(ALICE, "Did you do it?", ("Done", "Not yet"))

    assert h.client.polls_built == [("Did you do it?", ["Done", "Not yet"], VoteType.SINGLE)]
    ((_jid, poll),) = h.client.sent
    assert poll.pollCreationMessage.name == "Did you do it?"
    assert sent.message_id == "3EB00001"


async def test_typing_indicator_is_best_effort(harness) -> None:
    h = harness()
    await h.transport.start(h.on_message)
    await h.transport.set_typing(ALICE, True)  # not connected: nothing happens
    assert h.client.presence == []

    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await h.transport.set_typing(ALICE, True)
    await h.transport.set_typing(ALICE, False)

    assert [state for _, state in h.client.presence] == [
        ChatPresence.CHAT_PRESENCE_COMPOSING,
        ChatPresence.CHAT_PRESENCE_PAUSED,
    ]

    async def broken(*_: Any) -> None:
        raise NeonizeError("client is nil")

    h.client.send_chat_presence = broken  # type: ignore[method-assign]
    await h.transport.set_typing(ALICE, True)  # must not raise


# ------------------------------------------------------------------------ receipts


def receipt_event(kind: int, *ids: str, from_me: bool = False, group: bool = False) -> ReceiptEv:
    chat = JID(User="120363000000000000", Server="g.us") if group else JID(User=PHONE, Server="s.whatsapp.net")
    source = MessageSource(Chat=chat, Sender=JID(User=PHONE, Server="s.whatsapp.net"), IsFromMe=from_me,
                           IsGroup=group)
    return ReceiptEv(MessageSource=source, MessageIDs=list(ids), Timestamp=1_767_610_800, Type=kind)


async def test_delivered_read_and_played_receipts_reach_the_service(harness) -> None:
    h = harness()
    receipts: list[DeliveryReceipt] = []

    async def on_receipt(receipt: DeliveryReceipt) -> None:
        receipts.append(receipt)

    await h.transport.start(h.on_message, on_receipt)
    for kind in (ReceiptEv.DELIVERED, ReceiptEv.READ, ReceiptEv.PLAYED):
        await h.client.emit(ReceiptEv, receipt_event(kind, "3EB0A", "3EB0B"))
    # Our own phone reading the chat, a retry request and a group receipt say nothing about a participant.
    await h.client.emit(ReceiptEv, receipt_event(ReceiptEv.READ_SELF, "3EB0A", from_me=True))
    await h.client.emit(ReceiptEv, receipt_event(ReceiptEv.RETRY, "3EB0A"))
    await h.client.emit(ReceiptEv, receipt_event(ReceiptEv.READ, "3EB0C", group=True))

    assert [(r.kind, r.message_ids) for r in receipts] == [
        ("delivered", ("3EB0A", "3EB0B")), ("read", ("3EB0A", "3EB0B")), ("played", ("3EB0A", "3EB0B")),
    ]
    assert receipts[0].timestamp.isoformat() == "2026-01-05T11:00:00+00:00"  # seconds, not milliseconds


async def test_an_inactive_receipt_counts_as_delivered(harness) -> None:
    """WhatsApp sends "inactive" instead of "delivered" when the phone got the message while its
    app was not in use: the message reached the phone all the same."""
    h = harness()
    receipts: list[DeliveryReceipt] = []

    async def on_receipt(receipt: DeliveryReceipt) -> None:
        receipts.append(receipt)

    await h.transport.start(h.on_message, on_receipt)
    await h.client.emit(ReceiptEv, receipt_event(ReceiptEv.INACTIVE, "3EB0D"))
    assert [(r.kind, r.message_ids) for r in receipts] == [("delivered", ("3EB0D",))]


async def test_mark_read_sends_a_read_receipt_for_the_chat_once_connected(harness) -> None:
    h = harness()
    await h.transport.start(h.on_message)
    await h.transport.mark_read(ALICE, ["3EB0IN1"])  # not connected: nothing, no error
    assert h.client.read_marks == []

    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await h.transport.mark_read(ALICE, ["3EB0IN1", "3EB0IN2"])

    ((ids, chat, sender, receipt),) = h.client.read_marks
    assert ids == ("3EB0IN1", "3EB0IN2") and receipt == ReceiptType.READ
    assert (chat.User, chat.Server) == (sender.User, sender.Server) == (PHONE, "s.whatsapp.net")


# ------------------------------------------------------- honest fake, states WhatsApp ends in


def test_the_fake_client_has_neonize_0_5_2s_signatures() -> None:
    """Every call the fake stands in for exists on neonize's NewAClient with the same parameters,
    so a drifting signature fails here rather than on a study phone."""
    import inspect

    checked = 0
    for name, member in vars(FakeClient).items():
        if name.startswith("_") or name in FAKE_ONLY or not callable(member):
            continue
        real = getattr(NewAClient, name, None)
        assert real is not None, f"NewAClient has no {name}"
        fake_params = list(inspect.signature(member).parameters.values())[1:]
        real_params = list(inspect.signature(real).parameters.values())[1:]
        assert [(p.name, p.kind) for p in fake_params] == [(p.name, p.kind) for p in real_params], name
        assert inspect.iscoroutinefunction(real) == inspect.iscoroutinefunction(member), name
        checked += 1
    assert checked >= 9
    assert hasattr(NewAClient(":memory:"), "uuid")


async def test_connected_announces_presence_once_per_connection(harness) -> None:
    from neonize.utils.enum import Presence

    h = harness()
    await h.start_connected()
    await h.client.emit(DisconnectedEv, DisconnectedEv(status=True))
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))

    assert h.client.presences == [Presence.AVAILABLE, Presence.AVAILABLE]
    assert [s.name for s in h.states] == ["connecting", "connected", "unreachable", "connected"]


async def test_a_temporary_ban_is_waited_out_then_the_process_starts_afresh(harness) -> None:
    from neonize.aioze.events import TemporaryBanEv

    h = harness()
    await h.start_connected()

    await h.client.emit(TemporaryBanEv, TemporaryBanEv(Code=2, Expire=3600))
    await settle(lambda: h.transport.exit_request is not None)  # then a fresh process connects
    assert h.client.connect_calls == 1 and h.transport.exit_request.kind == "reconnect"

    (logged,) = h.log.find("whatsapp_temporarily_banned")
    assert logged["reason"] == "blocked by too many users" and "until" in logged
    banned = next(s for s in h.states if s.name == "banned")
    assert (banned.until - banned.since).total_seconds() == pytest.approx(3600, abs=5)
    assert h.delays[-1] == pytest.approx(3602, abs=5)  # until the ban ends (plus the first back-off step)


async def test_an_outdated_client_stops_the_service_with_one_clear_line(harness) -> None:
    from neonize.aioze.events import ClientOutdatedEv

    h = harness()
    await h.start_connected()

    await h.client.emit(ClientOutdatedEv, ClientOutdatedEv())
    await spin()

    request = h.transport.exit_request
    assert request is not None and not request.restart and "pip install --upgrade neonize" in request.message
    assert h.client.connect_calls == 1 and h.states[-1].name == "outdated"


@pytest.mark.parametrize(("reason", "reconnects"), [(1, True), (8, True), (10, False)])
async def test_a_refused_connection_is_logged_with_its_reason_then_retried_afresh(
    harness, reason: int, reconnects: bool,
) -> None:
    from neonize.aioze.events import ConnectFailureEv

    h = harness()
    await h.start_connected()

    await h.client.emit(ConnectFailureEv, ConnectFailureEv(Reason=reason, Message="stream error"))
    if reconnects:  # in a fresh process: this one connected once already
        await settle(lambda: h.transport.exit_request is not None)
        unreachable = next(state for state in h.states if state.name == "unreachable")
        assert "connect refused" in unreachable.detail and h.client.connect_calls == 1
    else:  # 503: whatsmeow retries by itself
        await spin()
        assert h.client.connect_calls == 1
    (logged,) = h.log.find("whatsapp_connect_refused")
    assert logged["reason"] in ("generic", "internal_server_error", "service_unavailable")


async def test_unreachable_keeps_the_time_it_started(harness) -> None:
    h = harness(unreachable=["cannot reach web.whatsapp.com:443: no route"] * 3)
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    unreachable = [s for s in h.states if s.name == "unreachable"]
    assert len({s.since for s in unreachable}) == 1  # one outage, however many tries
    assert "no route" in unreachable[-1].detail


async def test_stop_waits_for_a_phone_lookup_still_running(harness) -> None:
    """neonize aborts the process when a look-up runs without its Go client: stop lets it finish."""
    h = harness()
    await h.start_connected()
    release = asyncio.Event()
    order: list[str] = []

    async def slow_lookup(jid: JID) -> JID:
        await release.wait()
        order.append("lookup returned")
        return JID(User=PHONE, Server="s.whatsapp.net")

    original_stop = h.client.stop

    async def stop() -> None:
        order.append("client stopped")
        await original_stop()

    h.client.get_pn_from_lid = slow_lookup  # type: ignore[method-assign]
    h.client.stop = stop  # type: ignore[method-assign]
    lid_only = message_event(sender=JID(User=LID, Server="lid"))
    receiving = asyncio.create_task(h.client.emit(MessageEv, lid_only))
    await spin()
    stopping = asyncio.create_task(h.transport.stop())
    await spin()
    release.set()
    await asyncio.gather(receiving, stopping)

    assert order == ["lookup returned", "client stopped"]


async def test_no_lookup_starts_once_stopping(harness) -> None:
    h = harness()
    await h.start_connected()
    await h.transport.stop()

    await h.client.emit(MessageEv, message_event(sender=JID(User=LID, Server="lid")))

    assert h.client.pn_lookups == []


# ------------------------------------------------- through neonize's own event dispatch


def complete(message: Any) -> Any:
    """Give every required proto2 field that is unset its zero value, recursively: a real event
    has them all, and neonize parses with ``FromString``, which refuses a message without them."""
    for field in message.DESCRIPTOR.fields:
        if field.is_repeated:
            if field.message_type is not None:
                for item in getattr(message, field.name):
                    complete(item)
            continue
        if field.message_type is not None:
            if message.HasField(field.name) or field.is_required:
                getattr(message, field.name).SetInParent()
                complete(getattr(message, field.name))
        elif field.is_required and not message.HasField(field.name):
            zero = field.enum_type.values[0].number if field.enum_type is not None else field.default_value
            setattr(message, field.name, zero)
    return message


async def test_events_through_neonizes_own_dispatch_reach_the_service(capsys) -> None:
    """A real NewAClient (offline: its connect is replaced) with our handlers; events enter where
    the Go library hands them over (``event.execute`` and the QR callback), from another thread."""
    import ctypes

    from neonize.aioze.events import EVENT_TO_INT

    client = NewAClient(":memory:", uuid="promptpipe-dispatch-test")
    session: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def offline_connect(proxy_settings: Any = None) -> asyncio.Future[None]:
        neonize_events.set_event_loop(asyncio.get_running_loop())  # as the real connect does
        return session

    client.connect = offline_connect  # type: ignore[method-assign]

    async def never(_: float) -> None:
        await asyncio.Event().wait()

    async def reachable() -> None:
        return None

    transport = WhatsAppTransport("unused", client_factory=lambda _: client, sleep=never,
                                  timing=SessionTiming(stop_grace_s=0.05), probe=reachable)
    received: list[InboundMessage] = []
    receipts: list[DeliveryReceipt] = []

    async def on_message(msg: InboundMessage) -> None:
        received.append(msg)

    async def on_receipt(receipt: DeliveryReceipt) -> None:
        receipts.append(receipt)

    neonize_events.event_global_loop = None
    await transport.start(on_message, on_receipt)
    await settle(lambda: neonize_events.event_global_loop is not None)
    source = MessageSource(Chat=JID(User=PHONE, Server="s.whatsapp.net"),
                           Sender=JID(User=PHONE, Server="s.whatsapp.net"))
    message = complete(MessageEv(Info=MessageInfo(MessageSource=source, ID="3EB0REAL", Pushname="Ana",
                                                  Timestamp=1_767_610_800_000), Message=Message(conversation="hi")))
    receipt = complete(ReceiptEv(MessageSource=source, MessageIDs=["3EB0OURS"], Timestamp=1_767_610_900,
                                 Type=ReceiptEv.READ))

    def go_library_thread() -> None:
        for code, event in ((EVENT_TO_INT[MessageEv], message), (EVENT_TO_INT[ReceiptEv], receipt)):
            raw = event.SerializeToString()
            buffer = ctypes.create_string_buffer(raw, len(raw))
            client.event.execute(0, ctypes.addressof(buffer), len(raw), code)
        qr = ctypes.create_string_buffer(b"2@qr-from-go")
        client._NewAClient__onQr(0, ctypes.addressof(qr))  # the callback neonize gives the Go library

    try:
        await asyncio.to_thread(go_library_thread)
        await settle(lambda: received and receipts and "Scan this code" in capsys.readouterr().out)
    finally:
        await transport.stop()
        neonize_events.event_global_loop = None

    assert [(m.message_id, m.sender_phone, m.text) for m in received] == [("3EB0REAL", "+14165550123", "hi")]
    assert [(r.kind, r.message_ids) for r in receipts] == [("read", ("3EB0OURS",))]
    assert transport.connection_state.name == "stopped"


# ------------------------------------------------------------- offline for a long time


async def test_the_library_is_not_asked_to_connect_while_whatsapp_cannot_be_reached(harness) -> None:
    h = harness(unreachable=["cannot reach web.whatsapp.com:443: Network is unreachable"] * 3)

    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)

    assert h.delays == [2.0, 4.0, 8.0]  # backing off as before, without touching the Go library
    unreachable = [s for s in h.states if s.name == "unreachable"]
    assert unreachable and "Network is unreachable" in unreachable[0].detail


async def test_open_handles_stay_flat_over_100_failed_connects(harness, tmp_path) -> None:
    """neonize 0.5.2 leaves a handle on the session database open after every connect that fails
    (16 → 116 descriptors over 100 offline connects, measured with the real library). The fake
    leaks the same way; the real reachability check, against a port where nothing listens,
    keeps the library out of it."""
    from promptpipe.transport._whatsapp_session import reach_whatsapp

    closed_port = free_port()  # nothing listens there: connections are refused
    leaked: list[int] = []

    class LeakyClient(FakeClient):
        async def connect(self, proxy_settings: Any = None) -> asyncio.Future[None]:
            leaked.append(os.open(tmp_path / "session.db", os.O_RDONLY | os.O_CREAT))
            return await super().connect(proxy_settings)

    h = harness(probe=lambda: reach_whatsapp("127.0.0.1", closed_port), reconnect_max_s=0.0)
    h.client = LeakyClient()
    before = len(os.listdir("/proc/self/fd"))
    try:
        await h.transport.start(h.on_message)
        await settle(lambda: len(h.delays) >= 100, rounds=100_000)
        after = len(os.listdir("/proc/self/fd"))
        detail = h.transport.connection_state.detail
    finally:
        await h.transport.stop()
        for fd in leaked:
            os.close(fd)

    assert leaked == [] and h.client.connect_calls == 0
    assert after - before <= 2  # flat (the check's own socket may be open at that instant)
    assert "cannot reach 127.0.0.1" in detail


async def test_the_go_library_logs_warnings_only_unless_debugging(harness) -> None:
    import logging

    from promptpipe.transport.whatsapp import GO_LOG_LEVEL_FROM

    h = harness()
    await h.transport.start(h.on_message)
    assert logging.getLogger(GO_LOG_LEVEL_FROM).level == logging.WARNING  # what neonize hands to whatsmeow


async def test_sends_wait_while_the_keepalive_is_lost_and_go_out_once_it_is_back(harness) -> None:
    """A send into a dead socket times out and cannot be told from a delivery (so it is marked
    uncertain, never resent); while WhatsApp's keepalive is lost, a send is refused as not
    connected instead, and the outbox retries it once the keepalive is restored."""
    from neonize.aioze.events import KeepAliveRestoredEv, KeepAliveTimeoutEv

    h = harness()
    await h.start_connected()
    await h.client.emit(KeepAliveTimeoutEv, KeepAliveTimeoutEv())
    with pytest.raises(NotConnected):
        await h.transport.send_text(ALICE, "hello")
    assert h.client.sent == []
    await h.client.emit(KeepAliveRestoredEv, KeepAliveRestoredEv())
    assert (await h.transport.send_text(ALICE, "hello")).message_id
