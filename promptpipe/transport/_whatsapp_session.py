"""Connection lifecycle of the WhatsApp transport: connect loop, login by QR or pairing code, give-up.

:class:`WhatsAppSession` keeps one neonize client connected on behalf of
:class:`promptpipe.transport.whatsapp.WhatsAppTransport`, which registers the handlers from
:meth:`WhatsAppSession.lifecycle_handlers` and :meth:`WhatsAppSession.on_qr` on the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import segno
from neonize.aioze import events as _neonize_events
from neonize.aioze.events import ConnectedEv, DisconnectedEv, LoggedOutEv, PairStatusEv, StreamReplacedEv
from neonize.exc import NeonizeError

from promptpipe.logging import mask_phone
from promptpipe.transport._neonize_mapping import redact_numbers

__all__ = ["EventHandler", "QR_TIMEOUT_S", "WhatsAppSession"]

QR_TIMEOUT_S = 170.0  # whatsmeow closes the login socket after ~160 s of unscanned codes
STOP_GRACE_S = 5.0

EventHandler = Callable[[Any], Awaitable[None]]


def _reset_stale_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    """neonize remembers the first loop that connected, process-wide; forget a dead or other one
    so events reach the loop we run on now."""
    current = _neonize_events.event_global_loop
    if current is not None and (current is not loop or current.is_closed()):
        _neonize_events.event_global_loop = None


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


class WhatsAppSession:
    """Keeps one neonize client connected: retries with back-off, shows the login QR or pairing
    code, restarts an unscanned login, and gives up for good when logged out or replaced."""

    def __init__(
        self,
        *,
        pair_phone: str | None,
        logger: Any,
        reconnect_initial_s: float,
        reconnect_max_s: float,
        sleep: Callable[[float], Awaitable[Any]],
        qr_timeout_s: float,
    ) -> None:
        self._pair_phone = pair_phone  # digits only, or None to show a QR code
        self._log = logger
        self._reconnect_initial_s = reconnect_initial_s
        self._reconnect_max_s = reconnect_max_s
        self._sleep = sleep
        self._qr_timeout_s = qr_timeout_s

        self._client: Any = None
        self._connected = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._qr_watchdog: asyncio.Task[None] | None = None
        self._go_session_open = False  # connect() called and client.stop() not yet
        self._in_session = False  # the loop is waiting on a live session, not sleeping
        self._stopping = False
        self._gave_up: str | None = None  # why we stopped trying (logged out, replaced)
        self._attempt = 0
        self._begin_attempt(count=False)

    # ------------------------------------------------------------------- state

    @property
    def connected(self) -> bool:
        """True between a ConnectedEv and the next disconnect/stop (neonize's own flag never resets)."""
        return self._connected.is_set()

    @property
    def gave_up_reason(self) -> str | None:
        """``"logged_out"`` or ``"stream_replaced"`` once reconnecting stopped for good."""
        return self._gave_up

    @property
    def attempts(self) -> int:
        return self._attempt

    @property
    def started(self) -> bool:
        return self._supervisor is not None

    @property
    def stopping(self) -> bool:
        return self._stopping

    def should_keep_trying(self) -> bool:
        return not self._stopping and self._gave_up is None

    async def wait_connected(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the connection; True if connected."""
        try:
            await asyncio.wait_for(self._connected.wait(), timeout=timeout_s)
        except asyncio.TimeoutError:
            return False
        return True

    def lifecycle_handlers(self) -> dict[Any, EventHandler]:
        """Handlers for neonize's connection events, keyed by event type; :meth:`on_qr` goes separately."""
        return {
            ConnectedEv: self._on_connected,
            DisconnectedEv: self._on_disconnected,
            LoggedOutEv: self._on_logged_out,
            StreamReplacedEv: self._on_stream_replaced,
            PairStatusEv: self._on_pair_status,
        }

    # ------------------------------------------------------------- start / stop

    def start(self, client: Any) -> None:
        """Connect ``client`` in a background task; its handlers must already be registered."""
        self._client = client
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

    # ------------------------------------------------------------- connect loop

    async def _supervise(self) -> None:
        """Connect, wait for the session to end, and reconnect with exponential back-off."""
        delay_s = self._reconnect_initial_s
        while self.should_keep_trying():
            error = await self._run_session()
            if not self.should_keep_trying():
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
        if not self.should_keep_trying():
            return
        self._attempt_connected = True
        self._linked = True
        self._cancel_qr_watchdog()
        self._connected.set()
        self._log.info("whatsapp_connected", attempt=self._attempt)

    async def _on_disconnected(self, _ev: Any) -> None:
        self._connected.clear()
        if self.should_keep_trying():
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

    # ------------------------------------------------------------------ login

    async def on_qr(self, data: bytes) -> None:
        """Handler for neonize's QR event: print the code, or request a pairing code once."""
        if self._linked or not self.should_keep_trying():
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
            if attempt != self._attempt or self._linked or not self.should_keep_trying():
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
