"""The alarm clock: a driven APScheduler (:mod:`.driven`) whose jobs become inbox rows. Every job-store call runs on
one alarm thread; a pass writes due jobs to the inbox (keyed: a repeat is a no-op) and only then commits the job store's
updates, and :meth:`AlarmClock.reconcile` catches up at start the prompts due while the service was down.

Daily prompts are prepared :data:`PREPARE_AHEAD_S` before they are due (:meth:`AlarmClock.prepare`: their rows and
their jobs' next states worked out, nothing written), so the pass at due only writes them: 10,000 prompts due in one
minute had their last row 0.8-0.9 s after due when all that work ran at due.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from apscheduler.job import Job

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.conversation import TimerChange
from promptpipe.domain.timers import NudgePolicy
from promptpipe.logging import get_logger
from promptpipe.scheduling import ahead, jobs, reconcile
from promptpipe.scheduling.ahead import PREPARE_AHEAD_S, Ready
from promptpipe.scheduling.deliver import (
    Delivered,
    PreparedPrompt,
    deliver_alarms,
    deliver_prepared,
    prepare_daily_rows,
)
from promptpipe.scheduling.driven import AlarmExecutor, DrivenScheduler
from promptpipe.scheduling.jobs import Alarm
from promptpipe.scheduling.jobstore import DeferredWriteJobStore, job_engine, job_state
from promptpipe.scheduling.reconcile import ReconcileReport, SyncReport, WantedJob
from promptpipe.scheduling.requests import ChangeRequests
from promptpipe.storage.db import Database
from promptpipe.storage.missed_decisions import latest_decision_points
from promptpipe.storage.schedules import AlarmPlan, alarm_plans
from promptpipe.study.rules.protocol import Study

__all__ = ["AlarmClock", "ReconcileReport"]

log = get_logger("promptpipe.scheduling")

T = TypeVar("T")
MAX_IDLE_S = 30.0
"""The driver looks at the job store at least this often, whatever it expects."""
DELIVER_CHUNK = 500
SYNC_BATCH = 500

class AlarmClock:
    def __init__(
        self, db: Database, clock: Clock, policy: NudgePolicy, *, on_queued: Callable[[list[str]], None],
        study: Study,
    ) -> None:
        self.db, self.clock, self.policy = db, clock, policy
        self.study = study
        """The protocol the service runs: a daily prompt missed while it was down is drawn under its seed."""
        self._on_queued = on_queued
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="alarms")
        self.engine = job_engine(db)
        self.store = DeferredWriteJobStore(self.engine)
        self.scheduler = DrivenScheduler(
            self._wakeup, clock,
            jobstores={"default": self.store},
            executors={"default": AlarmExecutor(clock)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": self.grace_s},
            timezone=timezone.utc,
        )
        self.requests = ChangeRequests(self._kick_loop)
        self._fired: list[Alarm] = []
        self._ready: dict[str, Ready] = {}
        """Daily jobs prepared before due, by job id (replaced by each :meth:`prepare`)."""
        self._ready_until: datetime | None = None
        self._taken: list[PreparedPrompt] = []
        self._next_run: datetime | None = None
        self._deliveries: list[Future[Delivered]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kick: asyncio.Event | None = None
        self._started = False
        self._quiet = False
        self.passive = False
        """Another service runs the alarm clock: requests are dropped here (it hears of them: alarm_notices)."""
        self.delivered = 0
        self.missed = 0

    def __repr__(self) -> str:
        return f"<AlarmClock delivered={self.delivered} missed={self.missed}>"

    @property
    def grace_s(self) -> int:
        return max(1, int(self.policy.misfire_grace.total_seconds()))

    # -- life cycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the job store (creating its table); jobs run only through :meth:`drive` or :meth:`run_due`."""
        self._loop = asyncio.get_running_loop()
        self._kick = asyncio.Event()
        self.passive = False
        jobs.install(self._on_alarm)
        await self._call(self.scheduler.start)
        self._started = True

    async def pause(self) -> None:
        """Stop processing jobs (another service takes over), ready to :meth:`start` again; requests are dropped."""
        self.passive = True
        await self._shut_down()

    async def stop(self) -> None:
        await self._shut_down()
        await asyncio.get_running_loop().run_in_executor(None, self._thread.shutdown, True)
        self.engine.dispose()

    async def _shut_down(self) -> None:
        self._ready, self._ready_until = {}, None
        if self._started:
            with contextlib.suppress(Exception):
                await self._call(self.scheduler.shutdown, False)
            self._started = False
        jobs.install(None)

    async def drive(self) -> None:
        """Run due jobs whenever one is due (the service's alarm loop)."""
        assert self._kick is not None
        while True:
            self._kick.clear()  # before the pass: a request made during it wakes the next wait
            try:
                await self.sync_requested(wait_for_more=True)
                wait = await self.run_due()
                wait = await self._prepare_or_wait(wait)
            except Exception as exc:
                log.error("alarm_pass_failed", error=str(exc)[:300])
                wait = 5.0
            timeout = MAX_IDLE_S if wait is None else min(max(wait, 0.0), MAX_IDLE_S)
            if (changes_due := self.requests.wait_s()) is not None:
                timeout = min(timeout, changes_due)
            if timeout > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._kick.wait(), timeout)

    async def run_due(self) -> float | None:
        """One pass: fire every due job into the inbox. Returns seconds until the next job."""
        return await self._call(self._process_pass)

    async def _prepare_or_wait(self, wait: float | None) -> float | None:
        """Seconds the loop may sleep: until the next job, or until it is time to prepare it (then prepared first)."""
        next_run = self._next_run
        if wait is None or next_run is None or wait <= 0 or (
                self._ready_until is not None and next_run <= self._ready_until):
            return wait
        if wait > PREPARE_AHEAD_S:
            return wait - PREPARE_AHEAD_S
        try:  # never past due: what is not prepared by then, the pass works out as before
            await asyncio.wait_for(self.prepare(), max(wait, 0.001))
        except Exception as exc:
            log.warning("alarm_prepare_failed", error=f"{type(exc).__name__}: {str(exc)[:300]}")
            self._ready_until = next_run
        return max((next_run - self.clock.now()).total_seconds(), 0.0)

    async def prepare(self) -> int:
        """Work out the inbox rows of the daily prompts due within :data:`PREPARE_AHEAD_S` and their jobs' next states,
        writing nothing: the pass at due writes each if its job, schedule and participant are still as they were
        (:func:`deliver_prepared`), else handles it as any alarm. Never early: a prepared row is written only by the
        pass that finds its job due. Returns how many were prepared."""
        now = self.clock.now()
        until = now + timedelta(seconds=PREPARE_AHEAD_S)
        found = await self._call(ahead.jobs_to_prepare, self.store, now, until)
        prompts: list[PreparedPrompt] = []
        if found:
            alarms = [soon.alarm for soon in found]
            prompts = await self.db.run(lambda session: prepare_daily_rows(self.db, session, alarms, study=self.study))
        self._ready = ahead.ready_jobs(found, prompts)
        self._ready_until = until
        return len(self._ready)

    # -- keeping jobs in line with our tables -----------------------------------------------------
    def request_sync(self, participant_ids: Iterable[str]) -> None:
        """Ask for :meth:`sync` of these participants soon (batched; never makes a turn wait)."""
        if not self.passive:
            self.requests.sync(participant_ids)

    def request_timer_changes(self, changes: list[TimerChange]) -> None:
        """Arm or disarm these timers soon (batched). Changes are applied in the order given."""
        if not self.passive:
            self.requests.timers(changes)

    async def sync_requested(self, *, wait_for_more: bool = False) -> int:
        """Apply what was requested; returns how many participants and timers were handled (see ``requests.take``)."""
        done = 0
        while (taken := self.requests.take(wait_for_more=wait_for_more)) is not None:
            for ids in Database.chunks(taken.participants, SYNC_BATCH):
                try:
                    await self.sync(ids)
                except Exception as exc:  # the reconciler repairs it at the next start at the latest
                    log.error("alarm_sync_failed", participants=len(ids), error=str(exc)[:300])
            if taken.timer_changes:
                try:
                    await self._call(self._apply_timer_changes, taken.timer_changes)
                except Exception as exc:
                    log.error("alarm_timer_changes_failed", timers=len(taken.timer_changes), error=str(exc)[:300])
            done += len(taken.participants) + len(taken.timer_changes)
        return done

    async def sync(self, participant_ids: Iterable[str]) -> SyncReport:
        """Make these participants' jobs match our tables (after a turn or an admin change)."""
        ids = sorted(set(participant_ids))
        if not ids:
            return SyncReport()
        plans = await self.db.run(lambda session: alarm_plans(session, ids))
        return await self._call(self._apply_plans, plans, ids)

    async def reconcile(self) -> ReconcileReport:
        """At start: make the jobs match our tables, and deliver the daily prompts due while the service was down."""
        plans, decided = await self.db.run(lambda session: (alarm_plans(session, None),
                                                            latest_decision_points(session)))
        report = ReconcileReport(**vars(await self._call(self._apply_plans, plans, None)))
        alarms = reconcile.overdue_daily_alarms(plans, self.clock.now(), timedelta(seconds=self.grace_s), decided)
        if alarms:
            delivered = await self.db.run(
                lambda session: deliver_alarms(self.db, session, alarms, self.clock.now(), study=self.study))
            report.caught_up, report.missed = len(delivered.queued), delivered.missed
            self._after_delivery(delivered)
        log.info("alarms_reconciled", **vars(report))
        return report

    # -- on the alarm thread ----------------------------------------------------------------------
    def _process_pass(self) -> float | None:
        """Due jobs → alarms → inbox rows, in chunks while the pass goes on; the job store's updates after them."""
        self._deliveries = []
        ready = self._ready
        try:
            with self._job_batch():
                self.scheduler.process_due(after_firing=self._deliver_the_rest,
                                           taken=functools.partial(self._take_ready, ready) if ready else None)
                self._deliver_the_rest()  # a pass that stopped short of firing anything
        finally:
            self._fired.clear()
            self._taken.clear()
            self._deliveries = []
            now = self.clock.now()
            self._ready = {job_id: r for job_id, r in ready.items() if r.run_time > now}  # the rest was due: used
        next_run: datetime | None = self.store.get_next_run_time()
        self._next_run = next_run
        return None if next_run is None else max((next_run - self.clock.now()).total_seconds(), 0.0)

    def _take_ready(self, ready: dict[str, Ready], job_id: str, blob: bytes) -> bool:
        """A due job the pass finds (on the alarm thread): if it was prepared from these very bytes and is not late
        beyond its grace, its prepared row is queued and its prepared next state stored; else the pass fires it."""
        found = ready.get(job_id)
        if found is None or found.blob != ahead.digest(blob):
            return False
        now = self.clock.now()
        if now - found.run_time > timedelta(seconds=self.grace_s) or (
                found.next_run is not None and found.next_run <= now):
            return False
        self._taken.append(found.prompt)  # all written by one transaction once read: one commit wakes their lanes
        self.store.move_pickled(job_id, found.moved)
        return True

    def _flush_taken(self) -> None:
        chunk, self._taken = self._taken, []
        if chunk:
            self._hand_over(
                lambda session: deliver_prepared(self.db, session, chunk, self.clock.now(), study=self.study))

    def _on_alarm(self, alarm: Alarm) -> None:
        """Called by a job (on the alarm thread, inside a pass)."""
        self._fired.append(alarm)
        if len(self._fired) >= DELIVER_CHUNK:
            self._flush_alarms()

    def _deliver_the_rest(self) -> None:
        """Hand over the last alarms and wait for every chunk (next run times only then: side by side, they slow it)."""
        self._flush_taken()
        self._flush_alarms()
        for future in self._deliveries:
            future.result()

    def _flush_alarms(self) -> None:
        chunk, self._fired = self._fired, []
        if chunk:
            self._hand_over(
                lambda session: deliver_alarms(self.db, session, chunk, self.clock.now(), study=self.study))

    def _hand_over(self, deliver: Callable[[Any], Delivered]) -> None:
        """A chunk's delivery to the database thread, ahead of the lanes' work; the pass waits for every one."""
        future = self.db.submit(deliver, urgent=True)
        future.add_done_callback(self._delivered)
        self._deliveries.append(future)

    def _delivered(self, future: Future[Delivered]) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # the pass raises it
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._after_delivery, future.result())

    def _after_delivery(self, delivered: Delivered) -> None:
        """On the loop: count, and wake the lanes of the participants with a new inbox row."""
        self.delivered += len(delivered.queued)
        self.missed += delivered.missed
        if delivered.queued:
            self._on_queued(delivered.queued)

    def _apply_plans(self, plans: dict[str, AlarmPlan], participant_ids: list[str] | None) -> SyncReport:
        existing: dict[str, Job | None] = (
            {job.id: job for job in self.store.get_all_jobs()} if participant_ids is None
            else self.store.jobs_by_ids(reconcile.candidate_job_ids(plans, participant_ids)))
        changes = reconcile.changes_for(plans, existing, self.clock.now(), self.grace_s)
        with self._job_batch():
            for job_id in changes.remove:
                self.store.remove_job(job_id)  # deferred: no error if there is none
            for want in changes.add:
                self._add(want)
        if changes.add or changes.remove:
            self._wakeup()
        return changes.report

    def _apply_timer_changes(self, changes: list[TimerChange]) -> None:
        with self._job_batch():
            for change in changes:
                self.store.remove_job(keys.timer_job(change.participant_id, change.kind))  # deferred: no error if none
                if change.timer is not None:
                    self._add(reconcile.timer_job(change.participant_id, change.timer))
        self._wakeup()

    @contextlib.contextmanager
    def _job_batch(self) -> Iterator[None]:
        """Job-store writes inside commit together at the end (or not at all), with one wakeup after."""
        self.store.begin_deferred()
        self._quiet = True
        try:
            yield
            self.store.commit_deferred()
        except BaseException:
            self.store.discard_deferred()
            raise
        finally:
            self._quiet = False

    def _add(self, want: WantedJob) -> None:
        """Add a job as every job of ours is (explicit grace, coalesced, one at a time), inside a :meth:`_job_batch`: a
        remove queued before it in the batch makes room, else the batch's commit fails on the id (never replacing)."""
        self.store.add_state(job_state(want.id, want.func, want.kwargs, want.trigger, want.first_run, self.grace_s))

    def _wakeup(self) -> None:
        if not self._quiet:  # inside a batch: one wakeup at its end instead of one per job
            self._kick_loop()

    def _kick_loop(self) -> None:
        loop, kick = self._loop, self._kick
        if loop is None or kick is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # no loop runs in this thread
            if asyncio.get_running_loop() is loop:
                kick.set()
                return
        loop.call_soon_threadsafe(kick.set)

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)
