"""WhatsApp transport: neonize's asyncio client (``NewAClient``) behind the Transport protocol.

Every neonize call goes through ``self._client`` (made by ``client_factory``) or one of the
module-level helpers below, so the tests drive this class with a fake client. Conversions
live in :mod:`promptpipe.transport._neonize_mapping`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import segno
import structlog
from neonize import _binder
from neonize.aioze import events as _neonize_events
from neonize.aioze.client import NewAClient
from neonize.aioze.events import (
    ConnectedEv, DisconnectedEv, LoggedOutEv, MessageEv, PairStatusEv, StreamReplacedEv,
)
from neonize.exc import NeonizeError
from neonize.utils.enum import ChatPresence, ChatPresenceMedia, VoteType
from neonize.utils.jid import JIDToNonAD, build_jid

from promptpipe.errors import NotConnected, SendFailed
from promptpipe.logging import mask_phone
from promptpipe.transport._neonize_mapping import (
    classify_send_error, is_direct_message, jid_for, mask_lid, needs_phone_lookup, poll_vote_from_decrypted,
    redact_numbers, sanitize_outgoing_text, sender_jid, sent_message_from, to_inbound,
)
from promptpipe.transport.base import InboundHandler, Recipient, SentMessage

__all__ = ["WhatsAppTransport"]

CLIENT_UUID = "promptpipe"
EXECUTOR_WORKERS = 16  # neonize keeps one worker busy for the whole session
SEND_TIMEOUT_S = 90.0  # whatsmeow gives up on its own after ~75 s
TYPING_TIMEOUT_S = 10.0
QR_TIMEOUT_S = 170.0  # whatsmeow closes the login socket after ~160 s of unscanned codes
STOP_GRACE_S = 5.0
BOT_TAG_ENV = "NEONIZE_BOT_TAG"

_Handler = Callable[[Any], Awaitable[None]]


def _patch_decrypt_poll_vote() -> None:
    """neonize 0.5.2 forgot the result converter on ``DecryptPollVote``, so every call fails
    with ``TypeError: expected bytes, LP_Bytes found``. Attach the one its siblings use."""
    ffi = getattr(getattr(_binder, "gocode", None), "DecryptPollVote", None)
    converter = getattr(_binder, "consume_bytes_struct", None)
    if ffi is not None and converter is not None and ffi.errcheck is not converter:
        ffi.errcheck = converter


_patch_decrypt_poll_vote()


def _reset_stale_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    """neonize remembers the first loop that connected, process-wide; forget a dead or other one
    so events reach the loop we run on now."""
    current = _neonize_events.event_global_loop
    if current is not None and (current is not loop or current.is_closed()):
        _neonize_events.event_global_loop = None


def _bot_tag_off_at_exec() -> bool | None:
    """Whether ``NEONIZE_BOT_TAG=off`` was in the environment the process started with.

    The Go library reads its own copy of the environment taken at process start, so setting
    ``os.environ`` later may not reach it. None when this cannot be checked (not Linux).
    """
    try:
        with open("/proc/self/environ", "rb") as fh:
            entries = fh.read().split(b"\0")
    except OSError:
        return None
    return f"{BOT_TAG_ENV}=off".encode() in entries


def _default_client_factory(db_path: str) -> Any:
    return NewAClient(db_path, uuid=CLIENT_UUID)


def _print_qr(data: bytes) -> None:
    print("\nScan this code with WhatsApp on the study phone: Settings → Linked devices → Link a device.")
    segno.make_qr(data).terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()


def _print_pair_code(phone: str, code: str) -> None:
    print(
        f"\nWhatsApp pairing code for {mask_phone(phone)}: {code}\nOn that phone open WhatsApp → Settings → "
        "Linked devices → Link a device → 'Link with phone number instead', and type the code.",
        flush=True,
    )


class WhatsAppTransport:
    """Send and receive WhatsApp direct messages through a linked device (neonize/whatsmeow).

    ``start`` returns at once; a background task connects and keeps retrying with back-off.
    Use ``wait_connected`` or ``connected`` to learn when sends can go out.
    """

    name = "whatsapp"
    resend_is_safe = False

    def __init__(
        self,
        session_db_path: str,
        *,
        pair_phone: str | None = None,
        bot_label: bool = True,
        logger: Any = None,
        client_factory: Callable[[str], Any] | None = None,
        reconnect_initial_s: float = 2.0,
        reconnect_max_s: float = 60.0,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        qr_timeout_s: float = QR_TIMEOUT_S,
        send_timeout_s: float = SEND_TIMEOUT_S,
    ) -> None:
        digits = "".join(ch for ch in pair_phone or "" if ch.isdigit())
        if pair_phone and not digits:
            raise ValueError("pair_phone must be an international phone number, e.g. +15551234567")
        self._session_db_path = session_db_path
        self._pair_phone = digits or None
        self._bot_label = bot_label
        self._log = logger or structlog.get_logger("promptpipe.transport.whatsapp")
        self._client_factory = client_factory or _default_client_factory
        self._reconnect_initial_s = reconnect_initial_s
        self._reconnect_max_s = reconnect_max_s
        self._sleep = sleep
        self._qr_timeout_s = qr_timeout_s
        self._send_timeout_s = send_timeout_s

        self._client: Any = None
        self._on_message: InboundHandler | None = None
        self._connected = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._qr_watchdog: asyncio.Task[None] | None = None
        self._go_session_open = False  # connect() called and client.stop() not yet
        self._in_session = False  # the loop is waiting on a live session, not sleeping
        self._stopping = False
        self._gave_up: str | None = None  # why we stopped trying (logged out, replaced)
        self._attempt = 0
        self._begin_attempt(count=False)

    def __repr__(self) -> str:
        state = "connected" if self.connected else (self._gave_up or "not connected")
        return f"<WhatsAppTransport {state} attempts={self._attempt}>"

    # ------------------------------------------------------------------ lifecycle

    @property
    def connected(self) -> bool:
        """True between a ConnectedEv and the next disconnect/stop (neonize's own flag never resets)."""
        return self._connected.is_set()

    @property
    def gave_up_reason(self) -> str | None:
        """``"logged_out"`` or ``"stream_replaced"`` once the transport stopped reconnecting."""
        return self._gave_up

    async def wait_connected(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the connection; True if connected."""
        try:
            await asyncio.wait_for(self._connected.wait(), timeout=timeout_s)
        except asyncio.TimeoutError:
            return False
        return True

    async def start(self, on_message: InboundHandler) -> None:
        """Prepare the client and connect in the background; returns without waiting."""
        if self._supervisor is not None or self._stopping:
            raise RuntimeError("WhatsAppTransport.start() can only be called once")
        self._on_message = on_message
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=EXECUTOR_WORKERS, thread_name_prefix="neonize"))
        self._configure_bot_label()
        self._client = self._client_factory(self._session_db_path)
        self._register_handlers(self._client)
        self._supervisor = asyncio.create_task(self._supervise(), name="whatsapp-connect")

    async def stop(self) -> None:
        """Disconnect and stop reconnecting. Safe to call more than once."""
        if self._stopping:
            return
        self._stopping = True
        self._cancel_qr_watchdog()
        if self._go_session_open:
            await self._end_session()
        self._connected.clear()
        supervisor = self._supervisor
        if supervisor is not None and not supervisor.done():
            if self._in_session:  # the stopped session lets the loop end by itself
                await asyncio.wait({supervisor}, timeout=STOP_GRACE_S)
            if not supervisor.done():  # waiting out a back-off, or the session did not end
                supervisor.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await supervisor
        self._log.info("whatsapp_stopped", attempts=self._attempt)

    def _configure_bot_label(self) -> None:
        if self._bot_label:
            return
        os.environ[BOT_TAG_ENV] = "off"
        if _bot_tag_off_at_exec() is False:
            self._log.warning(
                "whatsapp_bot_label_may_show",
                hint=f"set {BOT_TAG_ENV}=off in the environment before starting PromptPipe; "
                "the WhatsApp library only reads it at process start",
            )

    def _register_handlers(self, client: Any) -> None:
        """All handlers go in before connect(): neonize sends the subscription list to Go then."""
        handlers: dict[Any, _Handler] = {
            MessageEv: self._on_message_event,
            ConnectedEv: self._on_connected,
            DisconnectedEv: self._on_disconnected,
            LoggedOutEv: self._on_logged_out,
            StreamReplacedEv: self._on_stream_replaced,
            PairStatusEv: self._on_pair_status,
        }
        for event_type, handler in handlers.items():
            client.event(event_type)(self._guard(event_type.__name__, handler))
        client.event.qr(self._guard("QR", self._on_qr))

    def _guard(self, name: str, handler: _Handler) -> Callable[[Any, Any], Awaitable[None]]:
        """neonize drops exceptions from async handlers without a trace; log them instead."""

        async def guarded(_client: Any, payload: Any) -> None:
            try:
                await handler(payload)
            except Exception:
                self._log.exception("whatsapp_event_handler_failed", event_type=name)

        return guarded

    # ------------------------------------------------------------- connect loop

    def _should_keep_trying(self) -> bool:
        return not self._stopping and self._gave_up is None

    async def _supervise(self) -> None:
        """Connect, wait for the session to end, and reconnect with exponential back-off."""
        delay_s = self._reconnect_initial_s
        while self._should_keep_trying():
            error = await self._run_session()
            if not self._should_keep_trying():
                return
            if self._attempt_connected:
                delay_s = self._reconnect_initial_s
            if self._qr_expired:
                self._log.info("whatsapp_new_qr_soon", retry_in_s=self._reconnect_initial_s)
                await self._sleep(self._reconnect_initial_s)
                continue
            if error is not None:
                self._log.warning("whatsapp_unreachable", error=error, attempt=self._attempt, retry_in_s=delay_s)
            else:
                self._log.warning("whatsapp_session_ended", attempt=self._attempt, retry_in_s=delay_s)
            await self._sleep(delay_s)
            delay_s = min(delay_s * 2, self._reconnect_max_s)

    async def _run_session(self) -> str | None:
        """One connect; returns when that session ends: None if it ended quietly, else the error."""
        self._begin_attempt()
        _reset_stale_event_loop(asyncio.get_running_loop())
        self._log.info("whatsapp_connecting", attempt=self._attempt)
        self._in_session = self._go_session_open = True
        try:
            session = await self._client.connect()
            if session is not None:
                await session  # runs until stop(), a fatal error or our QR restart
        except NeonizeError as exc:
            return redact_numbers(str(exc)) or type(exc).__name__
        except Exception as exc:
            self._log.exception("whatsapp_connect_crashed", attempt=self._attempt)
            return f"{type(exc).__name__}: {redact_numbers(str(exc))}"
        finally:
            self._in_session = False
            self._connected.clear()
            self._cancel_qr_watchdog()
        return None

    def _begin_attempt(self, *, count: bool = True) -> None:
        self._attempt += count
        self._attempt_connected = False
        self._linked = False
        self._qr_seen = False
        self._qr_expired = False

    async def _end_session(self) -> None:
        """Close the Go session so the connect task returns and the loop can decide what next."""
        self._connected.clear()
        self._go_session_open = False
        try:
            await self._client.stop()
        except Exception:
            self._log.exception("whatsapp_stop_failed")

    # ---------------------------------------------------------- lifecycle events

    async def _on_connected(self, _ev: Any) -> None:
        if not self._should_keep_trying():
            return
        self._attempt_connected = True
        self._linked = True
        self._cancel_qr_watchdog()
        self._connected.set()
        self._log.info("whatsapp_connected", attempt=self._attempt)

    async def _on_disconnected(self, _ev: Any) -> None:
        self._connected.clear()
        if self._should_keep_trying():
            self._log.warning("whatsapp_disconnected", hint="the WhatsApp library reconnects by itself")

    async def _on_logged_out(self, ev: Any) -> None:
        await self._give_up(
            "logged_out", reason=int(getattr(ev, "Reason", 0)),
            action="This device was unlinked from WhatsApp. Stop PromptPipe, delete the WhatsApp "
            "session database, start again and link the phone anew.",
        )

    async def _on_stream_replaced(self, _ev: Any) -> None:
        await self._give_up(
            "stream_replaced",
            action="Another program is using this WhatsApp session. Stop the other instance, "
            "then restart this one; never run two processes on one session database.",
        )

    async def _give_up(self, state: str, **details: Any) -> None:
        """Logged out / replaced: reconnecting cannot help, so stop and tell the operator what to do."""
        self._gave_up = state
        self._log.error(f"whatsapp_{state}", **details)
        await self._end_session()

    async def _on_pair_status(self, ev: Any) -> None:
        if ev.Status == PairStatusEv.SUCCESS:
            self._linked = True
            self._cancel_qr_watchdog()
            self._log.info("whatsapp_linked", account=mask_phone(ev.ID.User), platform=ev.Platform)
        else:
            self._log.error("whatsapp_link_failed", error=redact_numbers(ev.Error))

    async def _on_qr(self, data: bytes) -> None:
        if self._linked or not self._should_keep_trying():
            return
        first = not self._qr_seen
        self._qr_seen = True
        if first:
            self._qr_watchdog = asyncio.create_task(self._expire_qr(self._attempt), name="whatsapp-qr-timeout")
        if self._pair_phone is None:
            _print_qr(data)
        elif first:
            await self._show_pair_code(data)

    async def _show_pair_code(self, qr_data: bytes) -> None:
        assert self._pair_phone is not None
        try:
            code = await self._client.PairPhone(self._pair_phone, True)
        except Exception as exc:
            self._log.error("whatsapp_pair_code_failed", error=redact_numbers(str(exc)), fallback="qr")
            _print_qr(qr_data)
            return
        self._log.info("whatsapp_pair_code_shown", phone=mask_phone(self._pair_phone))
        _print_pair_code(self._pair_phone, code)

    async def _expire_qr(self, attempt: int) -> None:
        """Unscanned codes run out and leave neonize idle and logged out; start a fresh login."""
        try:
            await self._sleep(self._qr_timeout_s)
            if attempt != self._attempt or self._linked or not self._should_keep_trying():
                return
            self._qr_expired = True
            self._log.warning("whatsapp_qr_expired", waited_s=self._qr_timeout_s)
            await self._end_session()
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("whatsapp_qr_timeout_failed")

    def _cancel_qr_watchdog(self) -> None:
        task, self._qr_watchdog = self._qr_watchdog, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    # ------------------------------------------------------------------- inbound

    async def _on_message_event(self, ev: Any) -> None:
        if self._on_message is None or self._stopping or not is_direct_message(ev):
            return
        message_id = ev.Info.ID
        poll_vote = None
        if ev.Message.HasField("pollUpdateMessage"):
            poll_vote = await self._decrypt_vote(ev)
            if poll_vote is None:
                return
        resolved_phone = await self._lookup_phone(ev) if needs_phone_lookup(ev) else None
        msg = to_inbound(ev, resolved_phone=resolved_phone, poll_vote=poll_vote)
        if msg is None:
            self._log.debug("whatsapp_message_skipped", message_id=message_id)
            return
        self._log.info(
            "whatsapp_message_received", message_id=message_id, kind="poll_vote" if msg.poll_vote else "text",
            sender=mask_phone(msg.sender_phone) or mask_lid(msg.sender_lid),
        )
        try:
            await self._on_message(msg)
        except Exception:
            self._log.exception("whatsapp_inbound_handler_failed", message_id=message_id)

    async def _decrypt_vote(self, ev: Any) -> Any:
        try:
            decrypted = await self._client.decrypt_poll_vote(ev)
        except Exception as exc:
            error = redact_numbers(str(exc))
            self._log.warning("whatsapp_poll_vote_unreadable", message_id=ev.Info.ID, error=error)
            return None
        poll_id = ev.Message.pollUpdateMessage.pollCreationMessageKey.ID
        return poll_vote_from_decrypted(poll_id, decrypted)

    async def _lookup_phone(self, ev: Any) -> str | None:
        """Ask the local LID→phone map; only while connected (the call aborts the process if the
        Go client does not exist)."""
        if not (self.connected and self._should_keep_trying()):
            return None
        try:
            jid = await self._client.get_pn_from_lid(JIDToNonAD(sender_jid(ev)))
        except Exception as exc:
            self._log.warning("whatsapp_lid_lookup_failed", message_id=ev.Info.ID, error=redact_numbers(str(exc)))
            return None
        return jid.User or None

    # ------------------------------------------------------------------ outbound

    def _require_connected(self) -> Any:
        if not self.connected or self._client is None:
            raise NotConnected("WhatsApp is not connected yet")
        return self._client

    async def send_text(self, to: Recipient, text: str) -> SentMessage:
        client = self._require_connected()
        jid = build_jid(*jid_for(to))
        body = sanitize_outgoing_text(text)
        return await self._send(to, "text", lambda: client.send_message(jid, body))

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str]) -> SentMessage:
        if not 2 <= len(options) <= 12:
            raise ValueError("a WhatsApp poll needs between 2 and 12 options")
        client = self._require_connected()
        jid = build_jid(*jid_for(to))

        async def build_and_send() -> Any:
            poll = await client.build_poll_vote_creation(question, list(options), VoteType.SINGLE)
            return await client.send_message(jid, poll)

        return await self._send(to, "poll", build_and_send)

    async def _send(self, to: Recipient, kind: str, call: Callable[[], Awaitable[Any]]) -> SentMessage:
        """Run one send under the timeout and turn neonize errors into ours."""
        recipient = mask_phone(to.phone)
        try:
            resp = await asyncio.wait_for(call(), timeout=self._send_timeout_s)
        except asyncio.TimeoutError:
            self._log.warning("whatsapp_send_timed_out", to=recipient, kind=kind, timeout_s=self._send_timeout_s)
            message = f"WhatsApp send did not finish within {self._send_timeout_s:g} s"
            raise SendFailed(message, retryable=True) from None
        except NeonizeError as exc:
            error = classify_send_error(exc)
            self._log.warning(
                "whatsapp_send_failed", to=recipient, kind=kind, retryable=getattr(error, "retryable", True),
                error=str(error),
            )
            raise error from exc
        sent = sent_message_from(resp)
        self._log.info("whatsapp_sent", to=recipient, kind=kind, message_id=sent.message_id)
        return sent

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        """Show or clear "typing…"; best effort, never raises."""
        if not self.connected or self._client is None:
            return
        state = ChatPresence.CHAT_PRESENCE_COMPOSING if typing else ChatPresence.CHAT_PRESENCE_PAUSED
        try:
            jid = build_jid(*jid_for(to))
            await asyncio.wait_for(
                self._client.send_chat_presence(jid, state, ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT),
                timeout=TYPING_TIMEOUT_S,
            )
        except Exception as exc:
            self._log.debug("whatsapp_typing_failed", to=mask_phone(to.phone), error=redact_numbers(str(exc)))
