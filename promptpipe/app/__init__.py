"""Composition root: builds every part from settings and runs them in one asyncio loop."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from promptpipe.app.parts import Parts, build_parts
from promptpipe.clock import Clock
from promptpipe.config import Settings, TransportName
from promptpipe.domain.backoff import Backoff
from promptpipe.errors import StorageError
from promptpipe.llm import LLM
from promptpipe.logging import get_logger
from promptpipe.pipeline.sharing import Sharing
from promptpipe.scheduling.alarm_role import AlarmRole
from promptpipe.scheduling.guard import ServiceGuard
from promptpipe.storage.alarm_notices import notify_alarms
from promptpipe.storage.db import Database
from promptpipe.storage.live import go_live, record_deployment
from promptpipe.storage.outbox_rows import settle_uncertain
from promptpipe.storage.receipts import record_receipt
from promptpipe.storage.schema import SchemaBehind
from promptpipe.storage.service_status import save_status, state_row_name
from promptpipe.storage.session_schemas import make_schemas
from promptpipe.storage.state_dir import StateDirWatch, ensure_state_dir
from promptpipe.study.store.protocol import Adoption, adopt_protocol
from promptpipe.transport import DeliveryReceipt, Transport
from promptpipe.transport.base import SETTLING_KINDS
from promptpipe.transport.connection_state import ConnectionState, ExitRequest
from promptpipe.transport.session_stores import session_schema

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

log = get_logger("promptpipe.app")

STOP_GRACE_S = 10.0  # how long stop() lets the outbox finish the sends it has started
SPOOL_RETRY = Backoff(first_s=1.0, max_s=60.0)
WATCH_INTERVAL_S = 2.0  # how often the state directory is checked to be the one the service started with


async def _quietly(*closes: Callable[[], Awaitable[object]] | None) -> None:
    """Each in turn: one that fails does not keep the others from closing."""
    for close in closes:
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


@dataclass
class App(Parts):
    """The service's parts (see :mod:`promptpipe.app.parts`) and their life cycle."""

    settings: Settings
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _outbox_kick: asyncio.Event = field(default_factory=asyncio.Event)
    guard: ServiceGuard | None = None
    _stopping: bool = False
    _watch: StateDirWatch | None = None
    fatal: asyncio.Event = field(default_factory=asyncio.Event)  # the service must stop by itself
    fatal_reason: str = ""
    restart: bool = False  # with ``fatal``: start again in a fresh process (a new QR code)
    restart_request: ExitRequest | None = None
    _status_writes: set[asyncio.Task[None]] = field(default_factory=set)
    sharing: Sharing | None = None  # several services on one database: what this one holds
    _taken_over: list[tuple[datetime, tuple[str, ...]]] = field(default_factory=list)
    """Numbers gained and when: their last holder's *sending* rows are settled a lease's time later."""
    alarm_role: AlarmRole | None = None
    _transport_started: bool = False

    @classmethod
    def build(cls, settings: Settings, *, transport: Transport | None = None, llm: LLM | None = None,
              clock: Clock | None = None, db: Database | None = None) -> App:
        app = cls(**vars(build_parts(settings, transport=transport, llm=llm, clock=clock, db=db)), settings=settings)
        app.outbox.wake_dispatcher = app._outbox_kick.set  # only for what a commit could not hand over itself
        if settings.several_services:
            app._share(Sharing(app.db, app.clock, settings.number_plan, ttl=settings.lease_ttl,
                               heartbeat=settings.lease_heartbeat, service=settings.service,
                               homes=dict(settings.preferred_services)))
        return app

    def _share(self, sharing: Sharing) -> None:
        """Serve only what this service holds a lease on: its numbers' participants, and the alarm clock role."""
        self.sharing = self.lanes.sharing = self.outbox.sharing = sharing
        self.alarm_role = AlarmRole(self.alarms, self.settings.database_url)
        self.flow.notify_alarms = notify_alarms
        self.flow.fence = sharing.fence
        sharing.on_numbers_gained = self._numbers_gained
        sharing.on_numbers_lost = self._numbers_lost
        sharing.on_alarms_gained = self.alarm_role.gain
        sharing.on_alarms_lost = self.alarm_role.lose

    async def _numbers_gained(self, names: frozenset[str]) -> None:
        """The numbers' work is taken at once; sends the previous holder left *sending* are settled only a lease's time
        later (it may still be finishing one: settled earlier, a send safe to repeat would go twice)."""
        if self._stopping:
            return
        self._taken_over.append((self.clock.now(), tuple(sorted(names))))
        self._outbox_kick.set()
        await self._serve_numbers()

    async def _numbers_lost(self, _: frozenset[str]) -> None:
        if not self._stopping:
            await self._serve_numbers()

    async def _serve_numbers(self) -> None:
        """Linked phones connect only those held here: two services on one session would push each other off."""
        serve = getattr(self.transport, "serve_numbers", None)
        if serve is not None and self.sharing is not None and self._transport_started:
            await serve(self.sharing.held())

    async def _settle_taken_over(self) -> None:
        now, wait = self.clock.now(), self.settings.lease_ttl
        due = [(at, names) for at, names in self._taken_over if at + wait <= now]
        self._taken_over = [item for item in self._taken_over if item not in due]
        for gained_at, names in due:
            await self.outbox.recover_interrupted((names, self.settings.number_plan.default), claimed_before=gained_at)

    async def start(self, *, background: bool = True, single_instance: bool = False,
                    allow_protocol_change: bool = False) -> None:
        """Open the database, check the protocol, settle interrupted sends, connect the transport, start the loops."""
        self.guard = ServiceGuard(self.db, self.alarms.engine,
                                  ensure_state_dir(self.settings.state_dir) if single_instance else None,
                                  shared_database=self.sharing is not None)
        self.guard.hold_state_dir()
        try:
            await self._open_database()
            await self._check_protocol(allow_protocol_change)
        except BaseException:  # refused (or unreachable): let go of everything taken so far
            self.guard.release()
            await _quietly(self.alarms.stop, self.db.close)
            raise
        if single_instance:
            self._watch = StateDirWatch.of(self.settings.state_dir, self.db.sqlite_path)
        await self._record_deployment()
        if self.sharing is None:
            await self.outbox.recover_interrupted()
            await self.alarms.start()
            await self.alarms.reconcile()
        else:  # what this service holds decides what it settles, and whether it runs the alarm clock
            await self.sharing.start(heartbeats=background)
        await self._drain_spool()
        if (watch_state := getattr(self.transport, "on_state_change", None)) is not None:
            watch_state(self._connection_state_changed)
        if self.sharing is not None and self.settings.transport == TransportName.WHATSAPP:
            numbers = self.settings.number_plan.numbers  # each linked number's session: a schema of this database
            await self.db.run(lambda session: make_schemas(session, [session_schema(name) for name in numbers]))
        await self.transport.start(self.inbox.ingest, self.record_receipt)
        self._transport_started = True
        await self._serve_numbers()
        self.lanes.serve_here()
        if background:
            loops = [("inbox-poller", self._poll_loop()), ("outbox-dispatcher", self._dispatch_loop()),
                     ("inbound-spool", self._spool_loop())]
            if self.sharing is None:  # with several services, the holder of the role drives it
                loops.append(("alarm-clock", self.alarms.drive()))
            if self.alerts is not None:
                loops.append(("safety-alerts", self.alerts.run(self.settings.poll_interval.total_seconds())))
            if self._watch is not None:
                loops.append(("state-dir-watch", self._watch_loop(WATCH_INTERVAL_S)))
            if (exit_requested := getattr(self.transport, "exit_requested", None)) is not None:
                loops.append(("transport-exit", self._transport_exit(exit_requested)))
            self._tasks = [asyncio.create_task(loop, name=name) for name, loop in loops]
        # Everything built so far lives as long as the process: keep it out of the collector's
        # full passes, which otherwise pause a turn for ~100 ms on this machine now and then.
        gc.collect()
        gc.freeze()
        log.info("service_started", transport=self.transport.name, database=self.db.dialect)

    async def _open_database(self) -> None:
        """Connect and take the database lock; an older schema is upgraded only with DB_AUTO_UPGRADE, under the lock."""
        assert self.guard is not None
        hold = functools.partial(asyncio.get_running_loop().run_in_executor, None, self.guard.hold_database)
        try:
            await self.db.connect()
        except SchemaBehind:
            if not self.settings.db_auto_upgrade:
                raise
            await hold()
            await self.db.connect(upgrade=True)
            if (done := self.db.upgraded) is not None:
                log.warning("database_upgraded", before=done.before or "unversioned", after=done.after,
                            revisions=list(done.applied), copy=str(done.copy) if done.copy else None)
            return
        await hold()

    async def _check_protocol(self, allow_change: bool) -> None:
        """The study file must be the protocol this database runs (a change only on purpose)."""
        study, now = self.settings.study, self.clock.now()
        outcome = await self.db.run(lambda session: adopt_protocol(session, study, allow_change=allow_change,
                                                                   now=now, by="promptpipe serve"))
        if outcome != Adoption.NONE:
            log.info("study_protocol", outcome=outcome, study=study.name or None, hash=study.hash[:12] or None)

    async def _record_deployment(self) -> None:
        """The database records what it is served over; once that reaches real people, for good (storage.live)."""
        name, now, reaches_people = self.transport.name, self.clock.now(), self.transport.reaches_people

        def write(session: Session) -> int:
            record_deployment(session, name, reaches_people, now)
            return go_live(session, name, now) if reaches_people else 0

        if closed := await self.db.run(write):
            log.warning("simulated_inputs_closed", inputs=closed, why="simulated on a pilot before the database "
                        "went live: a real person must not get their answer")

    async def stop(self) -> None:
        """Let the dispatcher finish what it is sending, then close. Turns waiting on the model are cancelled: nothing
        of them was written, so they run again after the next start."""
        self._stopping = self.outbox.stopping = True
        self.lanes.serve_here(False)
        self._outbox_kick.set()
        poller = [t for t in self._tasks if t.get_name() != "outbox-dispatcher"]
        for task in poller:
            task.cancel()
        await self.lanes.stop()
        dispatcher = [t for t in self._tasks if t not in poller]
        if dispatcher:
            _, still_running = await asyncio.wait(dispatcher, timeout=STOP_GRACE_S)
            for task in still_running:
                task.cancel()
        await self.outbox.settle_handed_over(STOP_GRACE_S)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        # with several services, this one's numbers (and alarm clock) go to another unless it is back within a lease
        await _quietly(self.transport.stop, self.sharing.stop if self.sharing is not None else None)
        if self._status_writes:  # the last connection state ("stopped") is recorded before closing
            await asyncio.wait(set(self._status_writes), timeout=STOP_GRACE_S)
        await _quietly(self.alarms.stop, getattr(self.llm, "close", None), self.alerts.close if self.alerts else None)
        await self.db.close()
        if self.guard is not None:
            self.guard.release()
        log.info("service_stopped", lanes=repr(self.lanes), inbox=repr(self.inbox), outbox=repr(self.outbox),
                 alarms=repr(self.alarms), turns=self.flow.turns, failures=self.flow.failures)

    async def record_receipt(self, receipt: DeliveryReceipt) -> None:
        """Store a receipt (settling a send left uncertain whose key it carries); one that cannot be stored is logged
        and dropped (it only refines the delivery report)."""
        if receipt.ref:
            arrived = SETTLING_KINDS.get(receipt.kind, True)
            settled = await self.db.run(lambda session: settle_uncertain(
                session, receipt.ref, receipt.message_ids[0], arrived=arrived, at=receipt.timestamp))
            if settled:
                log.info("send_settled", kind=receipt.kind, wa_message_id=receipt.message_ids[0])
        if receipt.kind in SETTLING_KINDS:
            return
        try:
            new = await self.db.run(lambda session: record_receipt(
                self.db, session, receipt.message_ids, receipt.kind, receipt.timestamp, self.clock.now()))
        except Exception as exc:
            log.warning("receipt_not_stored", kind=receipt.kind, ids=len(receipt.message_ids), error=str(exc))
            return
        log.debug("receipt_stored", kind=receipt.kind, ids=len(receipt.message_ids), new=new)

    async def run_until_idle(self, max_passes: int = 10_000) -> None:
        """Process everything that is due right now, then return (tests and tools, no sleeping)."""
        for _ in range(max_passes):
            batches = self.lanes.batches
            alarms = self.alarm_role is None or self.alarm_role.running
            synced = await self.alarms.sync_requested() if alarms else 0
            if alarms:
                await self.alarms.run_due()
            spooled = await self._drain_spool()
            await self.lanes.poll_once()
            await self.lanes.wait_idle()
            await self._settle_taken_over()
            sent = await self.outbox.settle_handed_over() + await self.outbox.dispatch_once()
            alerted = await self.alerts.send_pending() if self.alerts is not None else 0
            # a turn that committed during this pass may have asked for an alarm sync after the
            # pass took the requests (its commit can be seen, on PostgreSQL, before it asks)
            synced += await self.alarms.sync_requested() if alarms else 0
            ran = self.lanes.batches - batches
            # A lane woken for a row stuck behind a retry that is not due yet runs nothing: idle.
            if ran == 0 and sent == 0 and synced == 0 and spooled == 0 and alerted == 0 and self.lanes.running == 0:
                return
        raise RuntimeError(f"run_until_idle did not settle (last pass: synced={synced} ran={ran} sent={sent})")

    async def _drain_spool(self) -> int:
        """Store what the spool kept; 0 (and it stays spooled) while the database still fails."""
        try:
            return await self.inbox.drain_spool()
        except StorageError as exc:
            log.warning("inbound_spool_waiting", error=str(exc)[:200])
            return 0

    async def _spool_loop(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(SPOOL_RETRY.delay_s(failures))
            failures = 0 if not self.inbox.spool or await self._drain_spool() else failures + 1  # empty, or some stored

    def _connection_state_changed(self, state: ConnectionState, number: str | None = None) -> None:
        task = asyncio.get_running_loop().create_task(self._save_connection_state(state, number))
        self._status_writes.add(task)
        task.add_done_callback(self._status_writes.discard)

    async def _save_connection_state(self, state: ConnectionState, number: str | None = None) -> None:
        row = state_row_name(number)
        try:
            await self.db.run(lambda session: save_status(session, row, state.to_json(), self.clock.now()))
        except Exception as exc:  # only a report: the service goes on
            log.warning("connection_state_not_saved", state=state.name, number=number, error=str(exc)[:200])

    async def _transport_exit(self, requested: asyncio.Event) -> None:
        await requested.wait()
        request = getattr(self.transport, "exit_request", None)
        self.fatal_reason = getattr(request, "message", "") or "the transport stopped"
        self.restart = bool(getattr(request, "restart", False))
        self.restart_request = request if isinstance(request, ExitRequest) else None
        self.fatal.set()

    async def _watch_loop(self, interval_s: float) -> None:
        """Stop when the state directory is deleted or replaced: a second service could start beside this one."""
        assert self._watch is not None
        while True:
            await asyncio.sleep(interval_s)
            if problem := self._watch.problem():
                self.fatal_reason = problem
                log.error("state_directory_gone", problem=problem)
                self.fatal.set()
                return

    async def _poll_loop(self) -> None:
        while True:
            try:
                await self.lanes.poll_once()
            except Exception as exc:
                log.error("inbox_poll_failed", error=str(exc))
            await asyncio.sleep(self.settings.poll_interval.total_seconds())

    async def _dispatch_loop(self) -> None:
        while not self._stopping:
            try:
                await self._settle_taken_over()
                handled = await self.outbox.dispatch_once()
            except Exception as exc:
                log.error("outbox_dispatch_failed", error=str(exc))
                handled = 0
            if handled:
                continue
            self._outbox_kick.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._outbox_kick.wait(), self.settings.poll_interval.total_seconds())
