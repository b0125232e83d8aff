"""The alarm clock: APScheduler jobs in the SQL job store, kept in line with our tables.

Our ``schedule`` and ``timer`` tables say what must happen; the job store holds one job per
active schedule (``daily:{participant}:{schedule}``) and per pending timer (``{kind}:{participant}``)
so the service wakes at the right moment. Every job-store call runs on one dedicated alarm thread,
never on the event loop. A processing pass turns due jobs into alarms, writes them to the inbox
(keyed: a repeat is a no-op), and only then commits the job store's own updates.

:meth:`AlarmClock.sync` makes a participant's jobs match our tables after anything changed
(a schedule, a timer, a pause, a time zone); :meth:`AlarmClock.reconcile` does it for everyone
at start and catches up prompts that came due while the service was down.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

from apscheduler.job import Job
from apscheduler.triggers.date import DateTrigger
from sqlalchemy import Engine, create_engine, text

from promptpipe.clock import Clock
from promptpipe.storage.db import Database, create_sqlite_engine, sync_url
from promptpipe.errors import ConfigError
from promptpipe.storage.files import create_private_file
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.logging import get_logger
from promptpipe.domain.states import ACTIVE
from promptpipe.domain.timers import TIMER_KINDS, NudgePolicy, daily_job_id, timer_job_id
from promptpipe.storage.schedules import AlarmPlan, alarm_plans
from promptpipe.scheduling import jobs
from promptpipe.scheduling.apscheduler_parts import AlarmExecutor, DeferredWriteJobStore, DrivenScheduler
from promptpipe.scheduling.deliver import Delivered, deliver_alarms
from promptpipe.scheduling.jobs import DAILY, Alarm
from promptpipe.scheduling.trigger import DailyPromptTrigger
from promptpipe.domain.conversation import PendingTimer, TimerChange

log = get_logger("promptpipe.scheduling")

T = TypeVar("T")
MAX_IDLE_S = 30.0
"""The driver looks at the job store at least this often, whatever it expects."""
DELIVER_CHUNK = 500
TIMER_BATCH_DELAY_S = 1.0
"""Timer changes wait up to this long to be applied together (a timer is due minutes or hours
later; during a prompt burst many small job-store commits slowed every turn)."""
TIMER_BATCH = 2000


@dataclass(frozen=True)
class WantedJob:
    """A job as our tables say it should be."""

    id: str
    func: str
    kwargs: dict[str, Any]
    trigger: Any
    first_run: datetime


@dataclass
class SyncReport:
    added: int = 0
    replaced: int = 0
    removed: int = 0
    kept: int = 0


@dataclass
class ReconcileReport(SyncReport):
    caught_up: int = 0
    missed: int = 0


def job_engine(db: Database) -> Engine:
    """The job store's own engine on the same database; its calls run on the alarm thread.

    (Sharing the service's single SQLite connection instead was measured slower in the
    10,000-prompt burst: 67.6 s against 59.2 s to the last prompt, because the alarm thread's
    batches then hold the one connection the turns need.)"""
    if db.is_sqlite:
        return create_sqlite_engine(db.url, own_transactions=False)
    return create_engine(sync_url(db.url), pool_size=2, max_overflow=1, pool_pre_ping=True, hide_parameters=True)


class JobStoreLock:
    """One scheduler per job store (APScheduler 3.x must never share one): a PostgreSQL advisory
    lock held on its own connection, or a lock file next to the SQLite database."""

    PG_KEY = 0x50505F4A  # "PP_J"

    def __init__(self, db: Database, engine: Engine) -> None:
        self.db, self.engine = db, engine
        self._held: Any = None

    def acquire(self) -> None:
        if self.db.is_sqlite:
            path = self.db.url.split(":///", 1)[-1]
            if not path or path == ":memory:":
                return
            create_private_file(Path(f"{path}.alarms.lock"))
            handle = open(f"{path}.alarms.lock", "a+")  # noqa: SIM115  (held for the life of the service)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                raise ConfigError(_TWO_SCHEDULERS) from None
            self._held = handle
            return
        conn = self.engine.connect()
        if not conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": self.PG_KEY}).scalar():
            conn.close()
            raise ConfigError(_TWO_SCHEDULERS)
        conn.commit()
        self._held = conn

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        with contextlib.suppress(Exception):
            if self.db.is_sqlite:
                fcntl.flock(held, fcntl.LOCK_UN)
            else:  # the connection would go back to the pool still holding the lock
                held.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": self.PG_KEY})
                held.commit()
                held.invalidate()
            held.close()


_TWO_SCHEDULERS = (
    "another PromptPipe service is already running on this DATABASE_URL; two services would send "
    "every scheduled prompt twice. Stop the other one first."
)


class AlarmClock:
    def __init__(
        self, db: Database, clock: Clock, policy: NudgePolicy, *, on_queued: Callable[[list[str]], None],
    ) -> None:
        self.db, self.clock, self.policy = db, clock, policy
        self._on_queued = on_queued
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="alarms")
        self._engine = job_engine(db)
        self._lock = JobStoreLock(db, self._engine)
        self.store = DeferredWriteJobStore(self._engine)
        self.scheduler = DrivenScheduler(
            self._wakeup,
            jobstores={"default": self.store},
            executors={"default": AlarmExecutor(clock)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": self.grace_s},
            timezone=timezone.utc,
        )
        self._fired: list[Alarm] = []
        self._deliveries: list[Future[Delivered]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kick: asyncio.Event | None = None
        self._started = False
        self._quiet = False
        self._sync_wanted: set[str] = set()
        self._timer_changes: list[TimerChange] = []
        self._timer_changes_since = 0.0
        self.delivered = 0
        self.missed = 0

    def __repr__(self) -> str:
        return f"<AlarmClock delivered={self.delivered} missed={self.missed}>"

    @property
    def grace_s(self) -> int:
        return max(1, int(self.policy.misfire_grace.total_seconds()))

    # -- life cycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the job store (creating its table). Jobs are processed by :meth:`drive` or
        :meth:`run_due`, never by APScheduler on its own."""
        self._loop = asyncio.get_running_loop()
        self._kick = asyncio.Event()
        await self._call(self._lock.acquire)
        jobs.install(self._on_alarm)
        await self._call(self.scheduler.start)
        self._started = True

    async def stop(self) -> None:
        if self._started:
            with contextlib.suppress(Exception):
                await self._call(self.scheduler.shutdown, False)
            self._started = False
        jobs.install(None)
        with contextlib.suppress(Exception):
            await self._call(self._lock.release)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.shutdown, True)
        self._engine.dispose()

    async def drive(self) -> None:
        """Run due jobs whenever one is due (the service's alarm loop)."""
        assert self._kick is not None
        while True:
            self._kick.clear()  # before the pass: a request made during it wakes the next wait
            try:
                await self.sync_requested(wait_for_more=True)
                wait = await self.run_due()
            except Exception as exc:
                log.error("alarm_pass_failed", error=str(exc)[:300])
                wait = 5.0
            timeout = MAX_IDLE_S if wait is None else min(max(wait, 0.0), MAX_IDLE_S)
            changes_due = self._timer_changes_wait()
            if changes_due is not None:
                timeout = min(timeout, changes_due)
            if timeout > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._kick.wait(), timeout)

    async def run_due(self) -> float | None:
        """One pass: fire every due job into the inbox. Returns seconds until the next job."""
        return await self._call(self._process_pass)

    # -- keeping jobs in line with our tables -----------------------------------------------------
    def request_sync(self, participant_ids: Iterable[str]) -> None:
        """Ask for :meth:`sync` of these participants soon (batched; never makes a turn wait)."""
        self._sync_wanted.update(participant_ids)
        if self._kick is not None:
            self._kick.set()

    def request_timer_changes(self, changes: list[TimerChange]) -> None:
        """Arm or disarm these timers soon (batched). Changes are applied in the order given."""
        first = not self._timer_changes
        if first:
            self._timer_changes_since = time.monotonic()
        self._timer_changes.extend(changes)
        # Wake the loop on the first change (so it sleeps at most the batching delay, not until
        # its next alarm) and when a batch is full.
        if self._kick is not None and (first or len(self._timer_changes) >= TIMER_BATCH):
            self._kick.set()

    def _timer_changes_wait(self) -> float | None:
        """Seconds until the queued timer changes should be applied (None: none queued)."""
        if not self._timer_changes:
            return None
        return max(0.0, self._timer_changes_since + TIMER_BATCH_DELAY_S - time.monotonic())

    async def sync_requested(self, batch: int = 500, *, wait_for_more: bool = False) -> int:
        """Apply what :meth:`request_sync` and :meth:`request_timer_changes` asked for; returns
        how many participants and timers were handled. ``wait_for_more`` leaves a young, small
        batch of timer changes for a later call (the alarm loop's batching)."""
        done = 0
        while self._sync_wanted or self._timer_changes:
            hold = wait_for_more and len(self._timer_changes) < TIMER_BATCH and self._timer_changes_wait()
            if hold and not self._sync_wanted:
                break
            wanted, self._sync_wanted = sorted(self._sync_wanted), set()
            synced = set(wanted)
            if hold:  # a full sync reads the latest state of its participants: their queued changes are moot
                changes, self._timer_changes = [], [c for c in self._timer_changes if c.participant_id not in synced]
            else:
                changes, self._timer_changes = self._timer_changes, []
            for start in range(0, len(wanted), batch):
                ids = wanted[start:start + batch]
                try:
                    await self.sync(ids)
                except Exception as exc:  # the reconciler repairs it at the next start at the latest
                    log.error("alarm_sync_failed", participants=len(ids), error=str(exc)[:300])
            # A full sync already read the latest state of its participants; for the others the
            # last change per timer kind is the one that counts.
            latest = {(c.participant_id, c.kind): c for c in changes if c.participant_id not in synced}
            if latest:
                try:
                    await self._call(self._apply_timer_changes, list(latest.values()))
                except Exception as exc:
                    log.error("alarm_timer_changes_failed", timers=len(latest), error=str(exc)[:300])
            done += len(wanted) + len(latest)
        return done

    async def sync(self, participant_ids: Iterable[str]) -> SyncReport:
        """Make these participants' jobs match our tables (after a turn or an admin change)."""
        ids = sorted(set(participant_ids))
        if not ids:
            return SyncReport()
        plans = await self.db.run(lambda session: alarm_plans(session, ids))
        return await self._call(self._apply_plans, plans, ids)

    async def reconcile(self) -> ReconcileReport:
        """At start: every job our tables need is created (or corrected), every job they do not
        need is removed, and the latest occurrence of each daily prompt that was due while the
        service was down is delivered if still inside the grace window (else recorded missed)."""
        plans = await self.db.run(lambda session: alarm_plans(session, None))
        sync = await self._call(self._apply_plans, plans, None)
        report = ReconcileReport(**vars(sync))
        alarms = self._overdue_daily_alarms(plans)
        if alarms:
            delivered = await self.db.run(lambda session: deliver_alarms(self.db, session, alarms, self.clock.now()))
            report.caught_up, report.missed = len(delivered.queued), delivered.missed
            self._account(delivered)
            if delivered.queued:
                self._on_queued(delivered.queued)
        log.info("alarms_reconciled", **vars(report))
        return report

    def wanted_jobs(self, plan: AlarmPlan) -> list[WantedJob]:
        """The jobs one participant should have (none unless they are active)."""
        if plan.status != ACTIVE:
            return []
        now, zone = self.clock.now(), zone_or_utc(plan.timezone)
        wanted = []
        for entry in plan.schedules:
            spec = entry.spec()
            wanted.append(WantedJob(
                daily_job_id(plan.participant_id, entry.id), jobs.DAILY_PROMPT_REF,
                {"participant_id": plan.participant_id, "schedule_id": entry.id},
                DailyPromptTrigger(spec, zone.key), spec.next_fire(now, zone, inclusive=True)[1],
            ))
        wanted += [self._timer_job(plan.participant_id, timer) for timer in plan.timers]
        return wanted

    # -- on the alarm thread ----------------------------------------------------------------------
    def _process_pass(self) -> float | None:
        """Due jobs → alarms → inbox rows, handed to the database thread in chunks while the
        pass goes on; the job store's own updates are committed only once every chunk is in."""
        self._deliveries = []
        try:
            with self._job_batch():
                self.scheduler.process_due()
                self._flush_alarms()
                for future in self._deliveries:
                    future.result()
        finally:
            self._fired.clear()
            self._deliveries = []
        next_run = self.store.get_next_run_time()
        if next_run is None:
            return None
        return max((next_run - self.clock.now()).total_seconds(), 0.0)

    def _on_alarm(self, alarm: Alarm) -> None:
        """Called by a job (on the alarm thread, inside a pass)."""
        self._fired.append(alarm)
        if len(self._fired) >= DELIVER_CHUNK:
            self._flush_alarms()

    def _flush_alarms(self) -> None:
        chunk, self._fired = self._fired, []
        if not chunk:
            return
        future = self.db.submit(lambda session: deliver_alarms(self.db, session, chunk, self.clock.now()))
        future.add_done_callback(self._delivered)
        self._deliveries.append(future)

    def _delivered(self, future: Future[Delivered]) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # the pass raises it
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._after_delivery, future.result())

    def _after_delivery(self, delivered: Delivered) -> None:
        """On the loop: count, and wake the lanes of the participants with a new inbox row."""
        self._account(delivered)
        if delivered.queued:
            self._on_queued(delivered.queued)

    def _apply_plans(self, plans: dict[str, AlarmPlan], participant_ids: list[str] | None) -> SyncReport:
        report = SyncReport()
        wanted: dict[str, WantedJob] = {}
        for plan in plans.values():
            wanted.update({job.id: job for job in self.wanted_jobs(plan)})
        existing: dict[str, Job | None]
        if participant_ids is None:
            existing = {job.id: job for job in self.store.get_all_jobs()}
        else:
            candidates = [timer_job_id(pid, kind) for pid in participant_ids for kind in TIMER_KINDS]
            candidates += [daily_job_id(pid, sid) for pid, plan in plans.items() for sid in plan.all_schedule_ids]
            existing = self.store.jobs_by_ids(candidates)
        with self._job_batch():
            for job_id in existing.keys() - wanted.keys():
                self.scheduler.remove_job(job_id)
                report.removed += 1
            for job_id, want in wanted.items():
                have = existing.get(job_id)
                if have is not None and self._matches(have, want):
                    report.kept += 1
                    continue
                if job_id in existing:
                    self.scheduler.remove_job(job_id)
                    report.replaced += 1
                else:
                    report.added += 1
                self._add(want)
        if report.added or report.replaced or report.removed:
            self._wakeup()
        return report

    def _apply_timer_changes(self, changes: list[TimerChange]) -> None:
        with self._job_batch():
            for change in changes:
                self.scheduler.remove_job(timer_job_id(change.participant_id, change.kind))  # deferred: no error if none
                if change.timer is not None:
                    self._add(self._timer_job(change.participant_id, change.timer))
        self._wakeup()

    @contextlib.contextmanager
    def _job_batch(self) -> Iterator[None]:
        """Job-store writes inside are committed together at the end (or not at all), with one
        wakeup after instead of one per job."""
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
        """Add a job the way every job of ours is added: explicit grace, coalesced, one at a time,
        never replacing (callers remove first when a job must change)."""
        self.scheduler.add_job(want.func, trigger=want.trigger, id=want.id, kwargs=want.kwargs,
                               misfire_grace_time=self.grace_s, coalesce=True, max_instances=1,
                               next_run_time=want.first_run, replace_existing=False)

    def _timer_job(self, participant_id: str, timer: PendingTimer) -> WantedJob:
        return WantedJob(
            timer_job_id(participant_id, timer.kind), jobs.TIMER_REF,
            {"participant_id": participant_id, "timer_id": timer.id},
            DateTrigger(run_date=timer.due_at, timezone=timezone.utc), timer.due_at,
        )

    def _matches(self, job: Job, want: WantedJob) -> bool:
        if job.func_ref != want.func or job.kwargs != want.kwargs or job.misfire_grace_time != self.grace_s:
            return False
        if isinstance(want.trigger, DateTrigger):
            return isinstance(job.trigger, DateTrigger) and job.trigger.run_date == want.trigger.run_date
        return bool(job.trigger == want.trigger)

    def _wakeup(self) -> None:
        if self._quiet:  # inside a batch: one wakeup at its end instead of one per job
            return
        loop, kick = self._loop, self._kick
        if loop is not None and kick is not None and not loop.is_closed():
            loop.call_soon_threadsafe(kick.set)

    # -- helpers ----------------------------------------------------------------------------------
    def _overdue_daily_alarms(self, plans: dict[str, AlarmPlan]) -> list[Alarm]:
        """The latest occurrence of every active schedule (delivery skips those already in the
        inbox, and records as missed those later than the grace window)."""
        now = self.clock.now()
        alarms: list[Alarm] = []
        for plan in plans.values():
            if plan.status != ACTIVE:
                continue
            zone = zone_or_utc(plan.timezone)
            for entry in plan.schedules:
                day, when = entry.spec().last_fire(now, zone)
                if entry.created_at is not None and when < entry.created_at:
                    continue  # the schedule did not exist yet
                late = now - when > timedelta(seconds=self.grace_s)
                alarms.append(Alarm(DAILY, plan.participant_id, entry.id, when, late))
        return alarms

    def _account(self, delivered: Delivered) -> None:
        self.delivered += len(delivered.queued)
        self.missed += delivered.missed

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, fn, *args)
