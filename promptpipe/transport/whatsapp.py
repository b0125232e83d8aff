"""WhatsApp transport: neonize's asyncio client behind the Transport protocol. Every neonize call goes through
``self._client`` (``client_factory``) or a module-level helper, so tests drive it with a fake client."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from neonize.aioze.client import NewAClient
from neonize.aioze.events import MessageEv, ReceiptEv
from neonize.events import UndecryptableMessageEv
from neonize.exc import NeonizeError
from neonize.utils.enum import ChatPresence, ChatPresenceMedia, ReceiptType, VoteType
from neonize.utils.jid import JIDToNonAD, build_jid

from promptpipe.errors import NotConnected, SendFailed
from promptpipe.logging import mask_phone
from promptpipe.transport import _neonize_mapping as mapping
from promptpipe.transport import _whatsapp_support as support
from promptpipe.transport._whatsapp_login import request_pair_code
from promptpipe.transport._whatsapp_session import STOP_GRACE_S, EventHandler, SessionTiming, WhatsAppSession
from promptpipe.transport._whatsapp_support import capture_library_output, use_executor_for_sessions
from promptpipe.transport.base import InboundHandler, InboundMessage, ReceiptHandler, Recipient, SentMessage
from promptpipe.transport.connection_state import ConnectionState, ExitRequest

__all__ = ["SessionTiming", "WhatsAppOptions", "WhatsAppTransport", "capture_library_output",
           "use_executor_for_sessions"]

CLIENT_UUID = "promptpipe"
TYPING_TIMEOUT_S = 10.0
GO_LOG_LEVEL_FROM = "neonize.utils.log"  # the logger whose level neonize hands to whatsmeow at connect


support.patch_decrypt_poll_vote()


@dataclass(frozen=True)
class WhatsAppOptions:
    """How the service sets up one linked number (from its settings)."""

    pair_phone: str | None = None
    bot_label: bool = True
    capture_library_output: bool = False
    log_format: str = "console"
    debug: bool = False
    number: str | None = None
    """The deployment's number this links, named on the login screen (None: it has one)."""
    client_uuid: str = CLIENT_UUID
    own_executor: bool = True
    """False when a transport over several numbers sizes the loop's executor for all of them."""


class WhatsAppTransport:
    """WhatsApp direct messages through a linked device; ``start`` returns at once and connects in the background."""

    name = "whatsapp"
    resend_is_safe = False
    reaches_people = True
    sends_receipts = True

    def __init__(self, session_db_path: str, options: WhatsAppOptions = WhatsAppOptions(), *,
                 timing: SessionTiming | None = None, logger: Any = None,
                 client_factory: Callable[[str], Any] | None = None,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 probe: Callable[[], Awaitable[str | None]] | None = None,
                 on_state: Callable[[ConnectionState], None] | None = None) -> None:
        """``logger``, ``client_factory``, ``sleep`` and ``probe`` stand in for the real ones in tests."""
        digits = "".join(ch for ch in options.pair_phone or "" if ch.isdigit())
        if options.pair_phone and not digits:
            raise ValueError("pair_phone must be an international phone number, e.g. +14165550123")
        self._session_db_path = session_db_path
        self._options = options
        self._log = logger or structlog.get_logger("promptpipe.transport.whatsapp")
        if options.number is not None:
            self._log = self._log.bind(number=options.number)
        # neonize keys its Go session by ``uuid`` (never the session store's URL, which may hold a password)
        self._client_factory = client_factory or (lambda db_path: NewAClient(db_path, uuid=options.client_uuid))
        timing = timing or SessionTiming()
        self._send_timeout_s = timing.send_timeout_s
        self._session = WhatsAppSession(pair_phone=digits or None, logger=self._log, timing=timing, sleep=sleep,
                                        pair_code=lambda client, phone: request_pair_code(client, phone),
                                        on_state=on_state, probe=probe, number=options.number)
        self._restore_output: list[Callable[[], None]] = []
        self._client: Any = None
        self._on_message: InboundHandler | None = None
        self._on_receipt: ReceiptHandler | None = None
        self._handling = support.CallsInFlight()  # inbound messages being taken in
        self._sends = asyncio.Semaphore(support.SENDS_IN_FLIGHT)
        self._chatter = asyncio.Semaphore(support.CHATTER_IN_FLIGHT)

    def __repr__(self) -> str:
        state = "connected" if self.connected else (self.gave_up_reason or "not connected")
        return f"<WhatsAppTransport {state} attempts={self._session.attempt}>"

    # ------------------------------------------------------------------ lifecycle

    @property
    def connected(self) -> bool:
        return self._session.connected

    def on_state_change(self, callback: Callable[[ConnectionState], None]) -> None:
        self._session.on_state = callback

    @property
    def connection_state(self) -> ConnectionState:
        return self._session.state

    @property
    def exit_request(self) -> ExitRequest | None:
        return self._session.exit_request

    @property
    def exit_requested(self) -> asyncio.Event:
        return self._session.exit_requested

    @property
    def gave_up_reason(self) -> str | None:
        return self._session.gave_up_reason

    async def wait_connected(self, timeout_s: float) -> bool:
        return await self._session.wait_connected(timeout_s)

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        if self._session.started or self._session.stopping:
            raise RuntimeError("WhatsAppTransport.start() can only be called once")
        self._on_message, self._on_receipt = on_message, on_receipt
        if self._options.own_executor:
            use_executor_for_sessions(1)
        if not self._options.bot_label:
            support.turn_bot_label_off(self._log)
        # neonize hands this logger's level to whatsmeow at connect: its info lines are noise (and
        # some name numbers), so it logs warnings and worse unless PROMPTPIPE_DEBUG is on.
        debug = self._options.debug
        logging.getLogger(GO_LOG_LEVEL_FROM).setLevel(logging.DEBUG if debug else logging.WARNING)
        if self._options.capture_library_output:
            self._restore_output = [capture_library_output(self._log, self._options.log_format, debug=debug)]
        before, after = support.raise_open_file_limit()
        self._log.debug("open_file_limit", before=before, after=after)
        self._client = self._client_factory(self._session_db_path)
        self._register_handlers(self._client)
        self._session.start(self._client)

    async def stop(self) -> None:
        """Messages handed over meanwhile are stored before it returns. Safe to call more than once."""
        await self._session.stop()
        await self._handling.wait(STOP_GRACE_S)
        for restore in self._restore_output:
            restore()

    def _register_handlers(self, client: Any) -> None:
        """All handlers go in before connect(): neonize sends the subscription list to Go then."""
        unreadable = functools.partial(self._on_message_event, undecryptable=True)
        handlers: dict[Any, EventHandler] = {MessageEv: self._on_message_event, ReceiptEv: self._on_receipt_event,
                                             UndecryptableMessageEv: unreadable, **self._session.lifecycle_handlers()}
        for event_type, handler in handlers.items():
            client.event(event_type)(self._guard(event_type.__name__, handler))
        client.event.qr(self._guard("QR", self._session.login.on_qr))

    def _guard(self, name: str, handler: EventHandler) -> Callable[[Any, Any], Awaitable[None]]:
        """neonize drops exceptions from async handlers without a trace; log them instead."""

        async def guarded(_client: Any, payload: Any) -> None:
            try:
                await handler(payload)
            except Exception:
                self._log.exception("whatsapp_event_handler_failed", event_type=name)

        return guarded

    # ------------------------------------------------------------------- inbound

    async def _on_message_event(self, ev: Any, undecryptable: bool = False) -> None:
        """``undecryptable``: recorded as such, so the participant hears we could not read it."""
        if self._on_message is None or self._session.go_stopped or not mapping.is_direct_message(ev):
            return  # while stopping, whatsmeow may still hand over what it acknowledged: take it in
        with self._handling.track():
            msg = await (self._unreadable(ev) if undecryptable else self._readable(ev))
            if msg is None:
                return
            try:
                await self._on_message(msg)
            except Exception:
                self._log.exception("whatsapp_inbound_handler_failed", message_id=ev.Info.ID)

    async def _readable(self, ev: Any) -> InboundMessage | None:
        poll_vote = None
        if ev.Message.HasField("pollUpdateMessage"):
            poll_vote = await self._decrypt_vote(ev)
            if poll_vote is None:
                return None
        msg = mapping.to_inbound(ev, resolved_phone=await self._lookup_phone(ev), poll_vote=poll_vote)
        if msg is None:
            self._log.debug("whatsapp_message_skipped", message_id=ev.Info.ID)
        else:
            self._log.info("whatsapp_message_received", message_id=ev.Info.ID,
                           kind="poll_vote" if msg.poll_vote else msg.content,
                           sender=mask_phone(msg.sender_phone) or mapping.mask_lid(msg.sender_lid))
        return msg

    async def _unreadable(self, ev: Any) -> InboundMessage | None:
        msg = mapping.unreadable_from(ev, resolved_phone=await self._lookup_phone(ev))
        self._log.warning("whatsapp_message_undecryptable", message_id=ev.Info.ID, unavailable=bool(ev.IsUnavailable),
                          recorded=msg is not None)
        return msg

    async def _on_receipt_event(self, ev: Any) -> None:
        if self._on_receipt is None or self._session.go_stopped:
            return
        receipt = mapping.receipt_from(ev)
        if receipt is None:
            return
        self._log.debug("whatsapp_receipt", kind=receipt.kind, ids=len(receipt.message_ids))
        try:
            await self._on_receipt(receipt)
        except Exception:
            self._log.exception("whatsapp_receipt_handler_failed", kind=receipt.kind)

    async def _decrypt_vote(self, ev: Any) -> Any:
        try:
            decrypted = await self._client.decrypt_poll_vote(ev)
        except Exception as exc:
            self._log.warning("whatsapp_poll_vote_unreadable", message_id=ev.Info.ID,
                              error=mapping.redact_numbers(str(exc)))
            return None
        return mapping.poll_vote_from_decrypted(ev.Message.pollUpdateMessage.pollCreationMessageKey.ID, decrypted)

    async def _lookup_phone(self, ev: Any) -> str | None:
        """The LID→phone map's answer; only while connected (without the Go client the call aborts the process)."""
        if not mapping.needs_phone_lookup(ev):
            return None
        async with self._session.using_client() as usable:
            if not usable:
                return None
            try:
                jid = await self._client.get_pn_from_lid(JIDToNonAD(mapping.sender_jid(ev)))
            except Exception as exc:
                self._log.warning("whatsapp_lid_lookup_failed", message_id=ev.Info.ID,
                                  error=mapping.redact_numbers(str(exc)))
                return None
            return jid.User or None

    # ------------------------------------------------------------------ outbound

    def _require_connected(self) -> Any:
        if not self.connected or self._client is None:
            raise NotConnected("WhatsApp is not connected yet")
        return self._client

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        client = self._require_connected()
        jid, body = build_jid(*mapping.jid_for(to)), mapping.sanitize_outgoing_text(text)
        return await self._send(to, "text", lambda: client.send_message(jid, body))

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        if not 2 <= len(options) <= 12:
            raise ValueError("a WhatsApp poll needs between 2 and 12 options")
        client = self._require_connected()
        jid = build_jid(*mapping.jid_for(to))

        async def build_and_send() -> Any:
            poll = await client.build_poll_vote_creation(question, list(options),
                                                         VoteType.MULTIPLE if multiple else VoteType.SINGLE)
            return await client.send_message(jid, poll)

        return await self._send(to, "poll", build_and_send)

    async def _send(self, to: Recipient, kind: str, call: Callable[[], Awaitable[Any]]) -> SentMessage:
        recipient = mask_phone(to.phone)
        try:
            async with self._sends:
                resp = await asyncio.wait_for(call(), timeout=self._send_timeout_s)
        except TimeoutError:
            self._log.warning("whatsapp_send_timed_out", to=recipient, kind=kind, timeout_s=self._send_timeout_s)
            raise SendFailed(f"WhatsApp send did not finish within {self._send_timeout_s:g} s", retryable=False,
                             ambiguous=True) from None
        except NeonizeError as exc:
            error = mapping.classify_send_error(exc)
            self._log.warning("whatsapp_send_failed", to=recipient, kind=kind,
                              retryable=getattr(error, "retryable", True), error=str(error))
            raise error from exc
        sent = mapping.sent_message_from(resp)
        self._log.info("whatsapp_sent", to=recipient, kind=kind, message_id=sent.message_id)
        return sent

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        """Show or clear "typing…"; best effort, never raises."""
        state = ChatPresence.CHAT_PRESENCE_COMPOSING if typing else ChatPresence.CHAT_PRESENCE_PAUSED
        await self._chatter_with(to, "whatsapp_typing_failed", lambda client, jid: client.send_chat_presence(
            jid, state, ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT))

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        """Blue ticks on the participant's messages; best effort, never raises."""
        ids = [mid for mid in message_ids if mid]
        if ids:
            await self._chatter_with(to, "whatsapp_mark_read_failed", lambda client, jid: client.mark_read(
                *ids, chat=jid, sender=jid, receipt=ReceiptType.READ))

    async def _chatter_with(self, to: Recipient, failed: str, call: Callable[[Any, Any], Awaitable[Any]]) -> None:
        """Skipped while not connected or when enough such calls are in flight; failures are logged."""
        if not self.connected or self._client is None or self._chatter.locked():
            return
        try:
            jid = build_jid(*mapping.jid_for(to))
            async with self._chatter:
                await asyncio.wait_for(call(self._client, jid), timeout=TYPING_TIMEOUT_S)
        except Exception as exc:
            self._log.debug(failed, to=mask_phone(to.phone), error=mapping.redact_numbers(str(exc)))
