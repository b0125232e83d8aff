"""Several linked phones behind one Transport: a :class:`WhatsAppTransport` per number (``whatsapp:<name>``).
neonize 0.5.2 must never connect a session twice in a process, so a number that comes back asks for a fresh one."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime, timezone

import structlog

from promptpipe.errors import NotConnected
from promptpipe.transport.base import InboundHandler, InboundMessage, ReceiptHandler, Recipient, SentMessage
from promptpipe.transport.connection_state import ConnectionState, ExitRequest, StateListener
from promptpipe.transport.whatsapp import WhatsAppTransport, use_executor_for_sessions

__all__ = ["LinkedNumbersTransport"]

log = structlog.get_logger("promptpipe.transport.linked_numbers")

NOT_LINKED = "not linked: its QR codes expired unscanned; restart the service to show new ones"


class LinkedNumbersTransport:
    """The deployment's linked phones, each its own neonize session."""

    name = "whatsapp"
    resend_is_safe = False
    reaches_people = True
    sends_receipts = True

    def __init__(self, numbers: Sequence[str], make: Callable[[str], WhatsAppTransport], *,
                 on_demand: bool = False, capture_output: Callable[[], Callable[[], None]] | None = None) -> None:
        """``on_demand``: connect only the numbers :meth:`serve_numbers` names (several services).
        ``capture_output``: log the Go library's output (once for all numbers); returns what undoes it."""
        if not numbers:
            raise ValueError("a deployment has at least one number")
        self._numbers, self._default = tuple(numbers), numbers[0]
        self._make, self._on_demand = make, on_demand
        self._capture_output = capture_output
        self._restore_output: Callable[[], None] | None = None
        self._running: dict[str, WhatsAppTransport] = {}
        self._served_before: set[str] = set()
        self._stops: set[asyncio.Task[None]] = set()
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._wanted: frozenset[str] = frozenset() if on_demand else frozenset(self._numbers)
        self._on_message: InboundHandler | None = None
        self._on_receipt: ReceiptHandler | None = None
        self._listener: StateListener | None = None
        self._started = self._stopping = False
        self.exit_request: ExitRequest | None = None
        self.exit_requested = asyncio.Event()

    def __repr__(self) -> str:
        states = {name: child.connection_state.name for name, child in self._running.items()}
        return f"<LinkedNumbersTransport {states}>"

    @property
    def serving(self) -> frozenset[str]:
        """The numbers whose session runs in this process now."""
        return frozenset(self._running)

    def connected_for(self, number: str | None) -> bool:
        child = self._running.get(number or self._default)
        return child is not None and child.connected

    def on_state_change(self, callback: StateListener) -> None:
        self._listener = callback

    # ------------------------------------------------------------------ lifecycle

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        if self._started:
            raise RuntimeError("LinkedNumbersTransport.start() can only be called once")
        self._started = True
        self._on_message, self._on_receipt = on_message, on_receipt
        use_executor_for_sessions(len(self._numbers))
        if self._capture_output is not None:
            self._restore_output = self._capture_output()
        for name in self._numbers:
            if name in self._wanted:
                await self._start_number(name)

    async def serve_numbers(self, held: Collection[str]) -> None:
        """Serve exactly ``held`` from now on; stopping runs in the background, so a lease round never waits."""
        wanted = frozenset(held) & frozenset(self._numbers)
        self._wanted = wanted
        if not self._started or self._stopping:
            return
        for name in sorted(set(self._running) - wanted):
            self._stop_number(name)
        for name in sorted(wanted - set(self._running)):
            if name in self._served_before:
                self._ask_for_fresh_process(name)
                return
            await self._start_number(name)

    async def stop(self) -> None:
        self._stopping = True
        for name in list(self._running):
            self._stop_number(name, report=True)
        await asyncio.gather(*self._stops, return_exceptions=True)
        restore, self._restore_output = self._restore_output, None
        if restore is not None:
            restore()

    async def _start_number(self, name: str) -> None:
        child = self._make(name)
        child.on_state_change(functools.partial(self._state_of, name, child))
        self._running[name] = child
        self._served_before.add(name)
        log.info("whatsapp_number_started", number=name)
        await child.start(self._inbound_of(name), self._on_receipt)
        self._watch_exit(name, child)

    def _stop_number(self, name: str, *, report: bool = False) -> None:
        """``report`` False: the number is served elsewhere now, so its state while it stops is not ours to record."""
        child = self._running.pop(name)
        watcher = self._watchers.pop(name, None)
        if watcher is not None:
            watcher.cancel()
        if not report:
            child.on_state_change(lambda state: None)
        log.info("whatsapp_number_stopped", number=name, served_elsewhere=not report)
        task = asyncio.get_running_loop().create_task(child.stop(), name=f"whatsapp-stop-{name}")
        self._stops.add(task)
        task.add_done_callback(self._stops.discard)

    def _watch_exit(self, name: str, child: WhatsAppTransport) -> None:
        """A number's request for a fresh process is the service's, except for new QR codes while another number is
        connected (restarting would cut the working ones off): it is left unlinked until the team restarts."""
        async def relay() -> None:
            await child.exit_requested.wait()
            request = child.exit_request
            if self._running.get(name) is not child or request is None:
                return
            if request.kind == "qr" and any(other.connected for other in self._running.values()):
                log.warning("whatsapp_number_not_linked", number=name,
                            hint="restart the service when the phone is at hand to show new QR codes")
                if self._listener is not None:
                    self._listener(ConnectionState("logged_out", datetime.now(timezone.utc), detail=NOT_LINKED), name)
                return
            self._request_exit(replace(request, message=f"WhatsApp number {name!r}: {request.message}"))

        self._watchers[name] = asyncio.get_running_loop().create_task(relay(), name=f"whatsapp-exit-{name}")

    def _ask_for_fresh_process(self, name: str) -> None:
        log.warning("whatsapp_number_back", number=name, action="starting afresh")
        self._request_exit(ExitRequest(
            f"The WhatsApp number {name!r} came back to this service, which served it before: starting afresh "
            "so that its session runs in a fresh process.", restart=True, kind="reconnect", connected=True))

    def _request_exit(self, request: ExitRequest) -> None:
        if self.exit_request is None:
            self.exit_request = request
        self.exit_requested.set()

    def _state_of(self, name: str, child: WhatsAppTransport, state: ConnectionState) -> None:
        if self._listener is not None and self._running.get(name) is child:
            self._listener(state, name)

    def _inbound_of(self, name: str) -> InboundHandler:
        async def inbound(message: InboundMessage) -> None:
            assert self._on_message is not None
            await self._on_message(replace(message, number=name))

        return inbound

    # ------------------------------------------------------------------ outbound

    def _child_for(self, to: Recipient) -> WhatsAppTransport:
        name = to.number or self._default
        child = self._running.get(name)
        if child is None:
            raise NotConnected(f"the WhatsApp number {name!r} is not served by this service")
        return child

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        return await self._child_for(to).send_text(to, text, ref=ref, kind=kind)

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        return await self._child_for(to).send_poll(to, question, options, ref=ref, multiple=multiple, kind=kind)

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        with contextlib.suppress(NotConnected):
            await self._child_for(to).set_typing(to, typing)

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        with contextlib.suppress(NotConnected):
            await self._child_for(to).mark_read(to, message_ids)
