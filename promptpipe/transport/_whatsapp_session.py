"""Connection lifecycle of the WhatsApp transport: connect loop, login by QR or pairing code, give-up.
:class:`WhatsAppSession` keeps one neonize client connected; the transport registers its handlers on the client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from neonize.aioze import events
from neonize.exc import NeonizeError
from neonize.utils.enum import Presence

from promptpipe.domain.backoff import Backoff
from promptpipe.transport._neonize_mapping import redact_numbers
from promptpipe.transport._whatsapp_login import QrLogin
from promptpipe.transport._whatsapp_refusals import RefusalHandlers
from promptpipe.transport._whatsapp_support import CallsInFlight, ban_lifted_at, reach_whatsapp, reset_stale_event_loop
from promptpipe.transport.connection_state import ConnectionState, ExitRequest

__all__ = ["QR_TIMEOUT_S", "STOP_GRACE_S", "EventHandler", "SessionTiming", "WhatsAppSession", "ban_lifted_at",
           "reach_whatsapp"]

QR_TIMEOUT_S = 170.0  # whatsmeow closes the login socket after ~160 s of unscanned codes
STOP_GRACE_S = 5.0
PRESENCE_TIMEOUT_S = 10.0
PRESENCE_RETRY_S = (15.0, 30.0, 60.0, 120.0, 240.0)
"""Waits before presence is tried again (right after linking, the account's name is not there yet)."""
GO_CONNECTS_PER_PROCESS = 1
"""Never two clients on one session store in one process (whatsmeow reconnects a live session by itself)."""
SESSION_ENDED_LINE = ("The WhatsApp library's session ended; starting afresh so that no second client "
                      "ever runs on the same session.")


EventHandler = Callable[[Any], Awaitable[None]]


@dataclass(frozen=True)
class SessionTiming:
    """How long the WhatsApp transport waits, and how often it connects (tests shorten them)."""

    reconnect_initial_s: float = 2.0
    reconnect_max_s: float = 60.0
    qr_timeout_s: float = QR_TIMEOUT_S
    send_timeout_s: float = 90.0  # whatsmeow gives up on its own after ~75 s
    stop_grace_s: float = STOP_GRACE_S
    go_connects_per_process: int = GO_CONNECTS_PER_PROCESS


class WhatsAppSession(RefusalHandlers):
    """Keeps one neonize client connected: back-off, login, and giving up for good when logged out or replaced."""

    def __init__(self, *, pair_phone: str | None, logger: Any, timing: SessionTiming,
                 sleep: Callable[[float], Awaitable[Any]], pair_code: Callable[[Any, str], Awaitable[str]],
                 probe: Callable[[], Awaitable[str | None]] | None = None,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
                 on_state: Callable[[ConnectionState], None] | None = None, number: str | None = None) -> None:
        self._log = logger
        self._timing = timing
        self._sleep = sleep
        self.login = QrLogin(self, pair_phone=pair_phone, pair_code=pair_code, qr_timeout_s=timing.qr_timeout_s,
                             sleep=sleep, log=logger, number=number)
        self._probe = probe or reach_whatsapp
        self._now = now
        self.on_state = on_state
        self.state = ConnectionState("stopped", now())
        self.exit_request: ExitRequest | None = None
        self.exit_requested = asyncio.Event()
        self._ban_until: datetime | None = None
        self._calls = CallsInFlight()
        self._go_connects = 0
        self._ever_connected = False

        self._client: Any = None
        self._connected = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None
        self._presence_retry: asyncio.Task[None] | None = None
        self._go_session_open = False  # connect() called and client.stop() not yet
        self._in_session = False  # the loop is waiting on a live session, not sleeping
        self.stopping = False
        self.go_stopped = False
        """The Go client's stop returned: until then whatsmeow may hand over messages it acknowledged (taken in)."""
        self.gave_up_reason: str | None = None
        self._attempt = 0
        self._begin_attempt(count=False)

    # ------------------------------------------------------------------- state

    @property
    def connected(self) -> bool:
        """True between a ConnectedEv and the next disconnect/stop (neonize's own flag never resets)."""
        return self._connected.is_set()

    @property
    def started(self) -> bool:
        return self._supervisor is not None

    def should_keep_trying(self) -> bool:
        return not self.stopping and self.gave_up_reason is None

    async def wait_connected(self, timeout_s: float) -> bool:
        try:
            await asyncio.wait_for(self._connected.wait(), timeout=timeout_s)
        except TimeoutError:
            return False
        return True

    def lifecycle_handlers(self) -> dict[Any, EventHandler]:
        return {
            events.ConnectedEv: self._on_connected,
            events.DisconnectedEv: self._on_disconnected,
            events.LoggedOutEv: self._on_logged_out,
            events.StreamReplacedEv: self._on_stream_replaced,
            events.PairStatusEv: self.login.on_pair_status,
            events.TemporaryBanEv: self._on_temporary_ban,
            events.ClientOutdatedEv: self._on_client_outdated,
            events.ConnectFailureEv: self._on_connect_failure,
            events.KeepAliveTimeoutEv: self._on_keepalive_lost,
            events.KeepAliveRestoredEv: self._on_keepalive_restored,
        }

    def _set_state(self, name: str, *, detail: str = "", until: datetime | None = None,
                   keep_since: bool = False) -> None:
        self.state, changed = self.state.moved_to(name, self._now(), detail=detail, until=until, keep_since=keep_since)
        if not changed:
            return
        since = self.state.since
        self._log.info("whatsapp_state", state=name, since=since.isoformat(timespec="seconds"),
                       **({"until": until.isoformat(timespec="seconds")} if until else {}),
                       **({"detail": detail} if detail else {}))
        if self.on_state is not None:
            try:
                self.on_state(self.state)
            except Exception:
                self._log.exception("whatsapp_state_callback_failed")

    def _request_exit(self, request: ExitRequest) -> None:
        if self.exit_request is None:
            self.exit_request = request
            self.exit_requested.set()

    @contextlib.asynccontextmanager
    async def using_client(self) -> AsyncIterator[bool]:
        """Around a call that needs the Go client alive: False when it is gone or going; :meth:`stop` waits for it."""
        if not self.connected or not self.should_keep_trying():
            yield False
            return
        with self._calls.track():
            yield True

    # ------------------------------------------------------------- start / stop

    def start(self, client: Any) -> None:
        self._client = client
        self._supervisor = asyncio.create_task(self._supervise(), name="whatsapp-connect")

    async def stop(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        self.login.cancel_watchdog()
        if self._presence_retry is not None:
            self._presence_retry.cancel()
        if self._calls.count:  # a look-up still running would crash the process if the client went now
            await self._calls.wait(self._timing.stop_grace_s)
        if self._go_session_open:
            await self._end_session()
        self.go_stopped = True
        self._connected.clear()
        supervisor = self._supervisor
        if supervisor is not None and not supervisor.done():
            if self._in_session:  # the stopped session lets the loop end by itself
                await asyncio.wait({supervisor}, timeout=self._timing.stop_grace_s)
            if not supervisor.done():  # waiting out a back-off, or the session did not end
                supervisor.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await supervisor
        if self.state.name not in ("logged_out", "replaced", "outdated"):
            self._set_state("stopped")
        self._log.info("whatsapp_stopped", attempts=self._attempt)

    # ------------------------------------------------------------- connect loop

    async def _supervise(self) -> None:
        backoff, failures = Backoff(self._timing.reconnect_initial_s, self._timing.reconnect_max_s), 0
        while self.should_keep_trying():
            error = await self._run_session()
            if not self.should_keep_trying():
                return
            failures = 1 if self._attempt_connected else failures + 1
            delay_s = backoff.delay_s(failures)
            if self._ban_until is not None:
                wait_s = max((self._ban_until - self._now()).total_seconds(), 0.0) + self._timing.reconnect_initial_s
                self._ban_until = None
                self._log.info("whatsapp_waiting_out_ban", retry_in_s=round(wait_s))
                await self._sleep(wait_s)
                continue
            if error is not None:
                self._set_state("unreachable", detail=error, keep_since=True)
                self._log.warning("whatsapp_unreachable", error=error, attempt=self._attempt, retry_in_s=delay_s)
            else:
                self._set_state("unreachable", detail=self._failure or "the session ended", keep_since=True)
                self._log.warning("whatsapp_session_ended", attempt=self._attempt, retry_in_s=delay_s)
            await self._sleep(delay_s)

    async def _run_session(self) -> str | None:
        """One connect; returns when that session ends: None if it ended quietly, else the error."""
        self._begin_attempt()
        reset_stale_event_loop(asyncio.get_running_loop())
        self._log.info("whatsapp_connecting", attempt=self._attempt)
        if self.state.name not in ("unreachable",):
            self._set_state("connecting")
        problem = await self._probe()
        if problem is not None:  # no Go connect while WhatsApp cannot be reached: each failed one leaks a handle
            return problem
        if self._go_connects >= self._timing.go_connects_per_process:
            return self._start_afresh(f"{self._go_connects} connects in this process")
        self._in_session = self._go_session_open = True
        self._go_connects += 1
        error: str | None = None
        try:
            session = await self._client.connect()
            if session is not None:
                await session  # runs until stop(), a fatal error or our QR restart
        except NeonizeError as exc:
            error = redact_numbers(str(exc)) or type(exc).__name__
        except Exception as exc:
            self._log.exception("whatsapp_connect_crashed", attempt=self._attempt)
            error = f"{type(exc).__name__}: {redact_numbers(str(exc))}"
        finally:
            self._in_session = False
            self._connected.clear()
            self.login.cancel_watchdog()
        if error is not None and not self.stopping:
            # The Go side failed on its own: its client may still be acking messages nobody receives.
            await self._end_session()
            return self._start_afresh(error)
        return None

    def _start_afresh(self, why: str) -> str:
        self.gave_up_reason = "restart"
        self._set_state("restarting", detail=why)
        self._log.warning("whatsapp_starting_afresh", reason=why, go_connects=self._go_connects)
        self._request_exit(ExitRequest(SESSION_ENDED_LINE, restart=True, kind="reconnect",
                                       connected=self._ever_connected))
        return why

    def _begin_attempt(self, *, count: bool = True) -> None:
        self._attempt += count
        self._attempt_connected = False
        self._failure = ""

    async def _end_session(self) -> None:
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
        self._attempt_connected = self._ever_connected = True
        self.login.linked()
        self._connected.set()
        self._log.info("whatsapp_connected", attempt=self._attempt)
        self._set_state("connected")
        await self._announce_presence()

    async def _announce_presence(self) -> None:
        """Others see no name until we send "available"; right after linking it is refused until the push name
        syncs, so it is retried."""
        if not await self._send_presence() and (self._presence_retry is None or self._presence_retry.done()):
            self._presence_retry = asyncio.create_task(self._retry_presence(), name="whatsapp-presence")

    async def _send_presence(self) -> bool:
        try:
            await asyncio.wait_for(self._client.send_presence(Presence.AVAILABLE), timeout=PRESENCE_TIMEOUT_S)
        except Exception as exc:
            self._log.warning("whatsapp_presence_failed", error=redact_numbers(str(exc)) or type(exc).__name__)
            return False
        return True

    async def _retry_presence(self) -> None:
        for delay_s in PRESENCE_RETRY_S:
            await self._sleep(delay_s)
            if not self.connected or not self.should_keep_trying():
                return
            if await self._send_presence():
                self._log.info("whatsapp_presence_sent", after_retry_s=delay_s)
                return

    async def _on_disconnected(self, _ev: Any) -> None:
        self._connected.clear()
        if self.should_keep_trying():
            self._log.warning("whatsapp_disconnected", hint="the WhatsApp library reconnects by itself")
            self._set_state("unreachable", detail="connection lost; reconnecting", keep_since=True)

    async def _on_keepalive_lost(self, _ev: Any) -> None:
        """Sends wait (not connected, retried) instead of timing out into a dead socket."""
        if self._connected.is_set() and self.should_keep_trying():
            self._connected.clear()
            self._set_state("unreachable", detail="keepalive lost; waiting for it to come back", keep_since=True)

    async def _on_keepalive_restored(self, _ev: Any) -> None:
        if not self._connected.is_set() and self.should_keep_trying() and self._attempt_connected:
            self._connected.set()
            self._set_state("connected")

    # -- what the login asks of the session (see LoginHost)

    @property
    def attempt(self) -> int:
        return self._attempt

    @property
    def client(self) -> Any:
        return self._client

    def login_waiting(self) -> None:
        self._set_state("waiting_for_scan")

    def login_expired(self, request: ExitRequest) -> None:
        self.gave_up_reason = "qr_expired"
        self._request_exit(request)
