"""Connection lifecycle of the WhatsApp transport: connect loop, login by QR or pairing code, give-up.

:class:`WhatsAppSession` keeps one neonize client connected on behalf of
:class:`promptpipe.transport.whatsapp.WhatsAppTransport`, which registers the handlers from
:meth:`WhatsAppSession.lifecycle_handlers` and :meth:`WhatsAppSession.on_qr` on the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import segno
from neonize.aioze import events as _neonize_events
from neonize.aioze.events import (
    ClientOutdatedEv,
    ConnectedEv,
    ConnectFailureEv,
    DisconnectedEv,
    LoggedOutEv,
    PairStatusEv,
    StreamReplacedEv,
    TemporaryBanEv,
)
from neonize.exc import NeonizeError
from neonize.utils.enum import Presence

from promptpipe.domain.backoff import Backoff
from promptpipe.logging import mask_phone
from promptpipe.transport._neonize_mapping import redact_numbers
from promptpipe.transport.connection_state import ConnectionState, ExitRequest

__all__ = ["QR_TIMEOUT_S", "STOP_GRACE_S", "EventHandler", "WhatsAppSession", "ban_lifted_at", "reach_whatsapp"]

QR_TIMEOUT_S = 170.0  # whatsmeow closes the login socket after ~160 s of unscanned codes
STOP_GRACE_S = 5.0
PRESENCE_TIMEOUT_S = 10.0
QR_EXPIRED_LINE = "The QR code expired; showing a new one."

# ConnectFailureEv reasons (neonize's ConnectFailure.ConnectFailureReason). Logged out, banned and
# outdated come with their own events too; 503 is retried by whatsmeow itself.
_FAILURE_REASONS = {1: "generic", 2: "logged_out", 3: "temp_banned", 4: "main_device_gone", 5: "unknown_logout",
                    6: "client_outdated", 7: "bad_user_agent", 8: "internal_server_error", 9: "experimental",
                    10: "service_unavailable"}
_HANDLED_ELSEWHERE = {"logged_out", "temp_banned", "main_device_gone", "unknown_logout", "client_outdated"}
_BAN_REASONS = {1: "sent to too many people", 2: "blocked by too many users", 3: "created too many groups",
                4: "sent the same message too often", 5: "broadcast list misuse"}
OUTDATED_MESSAGE = ("WhatsApp refuses this client as outdated. Upgrade the WhatsApp library "
                    "(.venv/bin/pip install --upgrade neonize) and start PromptPipe again.")

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


WHATSAPP_HOST, WHATSAPP_PORT = "web.whatsapp.com", 443
PROBE_TIMEOUT_S = 10.0


async def reach_whatsapp(host: str = WHATSAPP_HOST, port: int = WHATSAPP_PORT) -> str | None:
    """None when a TCP connection to WhatsApp's web endpoint opens, else why not.

    neonize 0.5.2 leaves one open handle on the session database behind every connect that fails
    (measured: 16 → 116 open descriptors over 100 failures offline), so while the network is
    down the service asks the network first and calls the library only once it answers."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=PROBE_TIMEOUT_S)
    except TimeoutError:
        return f"no answer from {host}:{port} within {PROBE_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"cannot reach {host}:{port}: {exc.strerror or exc}"
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return None


def ban_lifted_at(expire: int, now: datetime) -> datetime:
    """When a temporary ban ends. ``Expire`` is how long it lasts in whole seconds: whatsmeow keeps
    the server's seconds as a ``time.Duration`` and goneonize encodes ``int64(Expire.Seconds())``."""
    return now + timedelta(seconds=max(expire, 0))


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
        pair_code: Callable[[Any, str], Awaitable[str]],
        probe: Callable[[], Awaitable[str | None]] | None = None,
        stop_grace_s: float = STOP_GRACE_S,
        now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
        on_state: Callable[[ConnectionState], None] | None = None,
    ) -> None:
        self._pair_phone = pair_phone  # digits only, or None to show a QR code
        self._log = logger
        self._reconnect_initial_s = reconnect_initial_s
        self._reconnect_max_s = reconnect_max_s
        self._sleep = sleep
        self._qr_timeout_s = qr_timeout_s
        self._pair_code = pair_code
        self._probe = probe or reach_whatsapp
        self._stop_grace_s = stop_grace_s
        self._now = now
        self.on_state = on_state
        self.state = ConnectionState("stopped", now())
        self.exit_request: ExitRequest | None = None
        self.exit_requested = asyncio.Event()
        """Set when this process cannot go on (see :class:`ExitRequest`)."""
        self._ban_until: datetime | None = None
        self._in_flight = 0  # calls into the Go client that must finish before it is stopped
        self._calls_done = asyncio.Event()
        self._calls_done.set()

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
        except TimeoutError:
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
            TemporaryBanEv: self._on_temporary_ban,
            ClientOutdatedEv: self._on_client_outdated,
            ConnectFailureEv: self._on_connect_failure,
        }

    def _set_state(self, name: str, *, detail: str = "", until: datetime | None = None,
                   keep_since: bool = False) -> None:
        """Record and log a change of connection state (a repeat of the same state only updates
        its detail; ``keep_since`` keeps the start of a run of failures)."""
        current = self.state
        if current.name == name and current.until == until and (keep_since or current.detail == detail):
            if current.detail != detail:
                self.state = ConnectionState(name, current.since, until, detail)
            return
        since = current.since if keep_since and current.name == name else self._now()
        self.state = ConnectionState(name, since, until, detail)
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
        """Around a call that needs the Go client alive (some abort the whole process without it):
        yields False when the client is gone or going, and :meth:`stop` waits for calls in flight."""
        if not self.connected or not self.should_keep_trying():
            yield False
            return
        self._in_flight += 1
        self._calls_done.clear()
        try:
            yield True
        finally:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._calls_done.set()

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
        if self._in_flight:  # a look-up still running would crash the process if the client went now
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._calls_done.wait(), timeout=self._stop_grace_s)
        if self._go_session_open:
            await self._end_session()
        self._connected.clear()
        supervisor = self._supervisor
        if supervisor is not None and not supervisor.done():
            if self._in_session:  # the stopped session lets the loop end by itself
                await asyncio.wait({supervisor}, timeout=self._stop_grace_s)
            if not supervisor.done():  # waiting out a back-off, or the session did not end
                supervisor.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await supervisor
        if self.state.name not in ("logged_out", "replaced", "outdated"):
            self._set_state("stopped")
        self._log.info("whatsapp_stopped", attempts=self._attempt)

    # ------------------------------------------------------------- connect loop

    async def _supervise(self) -> None:
        """Connect, wait for the session to end, and reconnect with exponential back-off."""
        backoff, failures = Backoff(self._reconnect_initial_s, self._reconnect_max_s), 0
        while self.should_keep_trying():
            error = await self._run_session()
            if not self.should_keep_trying():
                return
            failures = 1 if self._attempt_connected else failures + 1
            delay_s = backoff.delay_s(failures)
            if self._ban_until is not None:
                wait_s = max((self._ban_until - self._now()).total_seconds(), 0.0) + self._reconnect_initial_s
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
        _reset_stale_event_loop(asyncio.get_running_loop())
        self._log.info("whatsapp_connecting", attempt=self._attempt)
        if self.state.name not in ("unreachable",):
            self._set_state("connecting")
        problem = await self._probe()
        if problem is not None:  # no Go connect while WhatsApp cannot be reached: each failed one leaks a handle
            return problem
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
        self._pair_failed = False
        self._failure = ""

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
        self._set_state("connected")
        await self._announce_presence()

    async def _announce_presence(self) -> None:
        """whatsmeow asks clients to send "available" once connected, or others see no name."""
        try:
            await asyncio.wait_for(self._client.send_presence(Presence.AVAILABLE), timeout=PRESENCE_TIMEOUT_S)
        except Exception as exc:
            self._log.warning("whatsapp_presence_failed", error=redact_numbers(str(exc)) or type(exc).__name__)

    async def _on_disconnected(self, _ev: Any) -> None:
        self._connected.clear()
        if self.should_keep_trying():
            self._log.warning("whatsapp_disconnected", hint="the WhatsApp library reconnects by itself")
            self._set_state("unreachable", detail="connection lost; reconnecting", keep_since=True)

    async def _on_logged_out(self, ev: Any) -> None:
        self._set_state("logged_out")
        await self._give_up(
            "logged_out", reason=int(getattr(ev, "Reason", 0)),
            action="This device was unlinked from WhatsApp. Stop PromptPipe, delete the WhatsApp "
            "session database, start again and link the phone anew.",
        )

    async def _on_stream_replaced(self, _ev: Any) -> None:
        self._set_state("replaced")
        await self._give_up(
            "stream_replaced",
            action="Another program is using this WhatsApp session. Stop the other instance, "
            "then restart this one; never run two processes on one session database.",
        )

    async def _on_temporary_ban(self, ev: Any) -> None:
        """Wait the ban out, then connect again; nothing is sent meanwhile (sends wait in the outbox)."""
        until = ban_lifted_at(int(getattr(ev, "Expire", 0)), self._now())
        reason = _BAN_REASONS.get(int(getattr(ev, "Code", 0)), f"code {int(getattr(ev, 'Code', 0))}")
        self._ban_until = until
        self._set_state("banned", until=until, detail=reason)
        self._log.error("whatsapp_temporarily_banned", reason=reason, until=until.isoformat(timespec="seconds"),
                        action="PromptPipe waits until the ban ends and then reconnects; messages wait in the outbox.")
        await self._end_session()

    async def _on_client_outdated(self, _ev: Any) -> None:
        self._set_state("outdated")
        self._request_exit(ExitRequest(OUTDATED_MESSAGE))
        await self._give_up("client_outdated", action=OUTDATED_MESSAGE)

    async def _on_connect_failure(self, ev: Any) -> None:
        """A refusal whatsmeow does not retry by itself (503 it does; logout, ban and outdated have
        their own events): log why, close the session and let the back-off connect again."""
        reason = _FAILURE_REASONS.get(int(getattr(ev, "Reason", 0)), f"reason {int(getattr(ev, 'Reason', 0))}")
        message = redact_numbers(str(getattr(ev, "Message", "")))
        if reason in _HANDLED_ELSEWHERE:
            return
        if reason == "service_unavailable":
            self._log.warning("whatsapp_connect_refused", reason=reason, message=message,
                              hint="WhatsApp is busy; the library retries by itself")
            return
        self._failure = f"connect refused: {reason}" + (f" ({message})" if message else "")
        self._log.warning("whatsapp_connect_refused", reason=reason, message=message)
        await self._end_session()

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
            self._pair_failed = True  # from now on every new QR code is printed as a way in
            self._log.error("whatsapp_link_failed", error=redact_numbers(ev.Error),
                            hint="scan one of the QR codes printed from now on, or restart to get a new pairing code")

    # ------------------------------------------------------------------ login

    async def on_qr(self, data: bytes) -> None:
        """Handler for neonize's QR event: print the code, or request a pairing code once."""
        if self._linked or not self.should_keep_trying():
            return
        first = not self._qr_seen
        self._qr_seen = True
        if first:
            self._set_state("waiting_for_scan")
            self._qr_watchdog = asyncio.create_task(self._expire_qr(self._attempt), name="whatsapp-qr-timeout")
        if self._pair_phone is not None and first:
            await self._show_pair_code(data)
        elif self._pair_phone is None or self._pair_failed:
            _print_qr(data)

    async def _show_pair_code(self, qr_data: bytes) -> None:
        assert self._pair_phone is not None
        try:
            code = await self._pair_code(self._client, self._pair_phone)
        except Exception as exc:
            self._pair_failed = True
            self._log.error("whatsapp_pair_code_failed", error=redact_numbers(str(exc)), fallback="qr")
            _print_qr(qr_data)
            return
        self._log.info("whatsapp_pair_code_shown", phone=mask_phone(self._pair_phone))
        _print_pair_code(self._pair_phone, code)

    async def _expire_qr(self, attempt: int) -> None:
        """Unscanned codes ran out. neonize 0.5.2 then waits inside its Go library for a login
        that can no longer come, and nothing (not even stop) ends that wait, so a new QR code needs
        a fresh process: ask for one."""
        try:
            await self._sleep(self._qr_timeout_s)
            if attempt != self._attempt or self._linked or not self.should_keep_trying():
                return
            self._log.warning("whatsapp_qr_expired", waited_s=self._qr_timeout_s, action="restarting for a new QR code")
            print(QR_EXPIRED_LINE, flush=True)
            self._gave_up = "qr_expired"
            self._request_exit(ExitRequest(QR_EXPIRED_LINE, restart=True))
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("whatsapp_qr_timeout_failed")

    def _cancel_qr_watchdog(self) -> None:
        task, self._qr_watchdog = self._qr_watchdog, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
