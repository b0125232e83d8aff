"""The three APScheduler 3.x pieces we configure our own way.

* :class:`DrivenScheduler`: a scheduler with no thread or loop of its own. The service calls
  :meth:`DrivenScheduler.process_due` on its alarm thread, so the job store's blocking calls
  never run on the event loop, and tests decide when time has passed.
* :class:`AlarmExecutor`: runs a job's function at once, in the calling thread, applying the
  misfire grace with *our* clock and telling the function when it was due and whether it came
  too late. (APScheduler's own executors check grace against the wall clock.)
* :class:`DeferredWriteJobStore`: the SQLAlchemy job store, except that during a processing pass
  its writes are queued and committed together at the end, after the alarms are safely in our
  inbox. One transaction instead of one per job (a 10,000-job burst cost seconds of commits),
  and a crash before that commit makes the jobs fire again, which our keys turn into no-ops.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from apscheduler.events import EVENT_JOB_EXECUTED, EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.executors.base import BaseExecutor
from apscheduler.job import Job
from apscheduler.jobstores.base import ConflictingIdError, JobLookupError
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.util import datetime_to_utc_timestamp
from sqlalchemy import Engine, delete, insert, select, update

from promptpipe.clock import Clock
from promptpipe.domain.timers import JOB_TABLE


class DrivenScheduler(BaseScheduler):
    def __init__(self, on_wakeup: Callable[[], None], **options: Any) -> None:
        self._on_wakeup = on_wakeup
        super().__init__(**options)

    def shutdown(self, wait: bool = True) -> None:
        super().shutdown(wait)

    def wakeup(self) -> None:
        """APScheduler calls this when a job is added or changed: the driver looks again."""
        self._on_wakeup()

    def process_due(self) -> float | None:
        """Run every due job once; returns seconds until the next one (None: no jobs)."""
        return self._process_jobs()


class AlarmExecutor(BaseExecutor):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def _do_submit_job(self, job: Job, run_times: list[datetime]) -> None:
        events = []
        try:
            for run_time in run_times:
                late = self.clock.now() - run_time
                grace = job.misfire_grace_time
                missed = grace is not None and late > timedelta(seconds=grace)
                job.func(*job.args, scheduled_for=run_time.astimezone(timezone.utc), missed=missed, **job.kwargs)
                code = EVENT_JOB_MISSED if missed else EVENT_JOB_EXECUTED
                events.append(JobExecutionEvent(code, job.id, job._jobstore_alias, run_time))
        except BaseException:
            self._run_job_error(job.id, *sys.exc_info()[1:])
        else:
            self._run_job_success(job.id, events)


class DeferredWriteJobStore(SQLAlchemyJobStore):
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine=engine, tablename=JOB_TABLE)
        self._queued: list[tuple[str, str, float | None, bytes | None]] | None = None

    def shutdown(self) -> None:
        """The engine is the service's own (closed with the database), not the store's."""

    # -- deferral -------------------------------------------------------------------------------
    def begin_deferred(self) -> None:
        self._queued = []

    def commit_deferred(self) -> int:
        """Apply the queued writes in one transaction; returns how many there were."""
        queued, self._queued = self._queued or [], None
        if not queued:
            return 0
        table = self.jobs_t
        with self.engine.begin() as conn:
            for op, job_id, next_run, state in queued:
                if op == "add":
                    conn.execute(insert(table).values(id=job_id, next_run_time=next_run, job_state=state))
                elif op == "update":
                    conn.execute(update(table).where(table.c.id == job_id)
                                 .values(next_run_time=next_run, job_state=state))
                else:
                    conn.execute(delete(table).where(table.c.id == job_id))
        return len(queued)

    def discard_deferred(self) -> None:
        self._queued = None

    def _serialise(self, job: Job) -> tuple[float | None, bytes]:
        return datetime_to_utc_timestamp(job.next_run_time), pickle.dumps(job.__getstate__(), self.pickle_protocol)

    def add_job(self, job: Job) -> None:
        if self._queued is None:
            return super().add_job(job)
        next_run, state = self._serialise(job)
        self._queued.append(("add", job.id, next_run, state))

    def update_job(self, job: Job) -> None:
        if self._queued is None:
            return super().update_job(job)
        next_run, state = self._serialise(job)
        self._queued.append(("update", job.id, next_run, state))

    def remove_job(self, job_id: str) -> None:
        if self._queued is None:
            return super().remove_job(job_id)
        self._queued.append(("remove", job_id, None, None))

    # -- reads we need beyond APScheduler's API ---------------------------------------------------
    def jobs_by_ids(self, job_ids: list[str]) -> dict[str, Job]:
        """The stored jobs among these ids (one query per 500 ids)."""
        table, found = self.jobs_t, {}
        with self.engine.begin() as conn:
            for start in range(0, len(job_ids), 500):
                chunk = job_ids[start:start + 500]
                for job_id, state in conn.execute(select(table.c.id, table.c.job_state).where(table.c.id.in_(chunk))):
                    try:
                        found[job_id] = self._reconstitute_job(state)
                    except Exception:  # unreadable: report it as present-but-wrong so it is replaced
                        self._logger.warning("Stored job %s cannot be read; it will be re-created", job_id)
                        found[job_id] = None
        return found  # type: ignore[return-value]

    def all_ids(self) -> list[str]:
        with self.engine.begin() as conn:
            return list(conn.execute(select(self.jobs_t.c.id)).scalars())


__all__ = ["AlarmExecutor", "ConflictingIdError", "DeferredWriteJobStore", "DrivenScheduler", "JOB_TABLE",
           "JobLookupError"]
