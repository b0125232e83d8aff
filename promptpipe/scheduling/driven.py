"""The APScheduler pieces the alarm clock drives on its alarm thread, so the job store's blocking calls never touch
the event loop, and reading our clock, so tests decide when time has passed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from apscheduler.executors.base import BaseExecutor
from apscheduler.job import Job
from apscheduler.schedulers.base import STATE_PAUSED, BaseScheduler
from apscheduler.util import ref_to_obj

from promptpipe.clock import Clock
from promptpipe.logging import get_logger
from promptpipe.scheduling.jobstore import DeferredWriteJobStore, JobState

__all__ = ["AlarmExecutor", "DrivenScheduler"]

log = get_logger("promptpipe.scheduling")


class DrivenScheduler(BaseScheduler):  # type: ignore[misc]  # APScheduler 3 ships no type information
    """APScheduler with no thread of its own. :meth:`process_due` replaces ``_process_jobs``, whose bookkeeping (for
    job events nobody hears, overlaps a synchronous job never has) was half of a 10,000-job alarm pass (issue 26)."""

    def __init__(self, on_wakeup: Callable[[], None], clock: Clock, **options: Any) -> None:
        self._on_wakeup = on_wakeup
        self._clock = clock
        super().__init__(**options)

    def shutdown(self, wait: bool = True) -> None:
        super().shutdown(wait)

    def wakeup(self) -> None:
        """APScheduler calls this when a job is added or changed: the driver looks again."""
        self._on_wakeup()

    def process_due(self, after_firing: Callable[[], None] = lambda: None,
                    taken: Callable[[str, bytes], bool] | None = None) -> float | None:
        """Run every due job once; returns seconds until the next one (None: no jobs). All fire, then ``after_firing``
        (alarms into the inbox), and only then are next run times stored: half a pass's work, none an alarm needs. Jobs
        are read as their stored states (:meth:`DeferredWriteJobStore.due_states`), never made ``Job`` objects.
        ``taken``: see ``due_states`` (the caller fires and moves what it takes)."""
        if self.state == STATE_PAUSED:
            return None
        now = self._clock.now().astimezone(self.timezone)
        wakeups: list[datetime] = []
        with self._jobstores_lock:
            fired: list[tuple[DeferredWriteJobStore, JobState, datetime | None]] = []
            for alias, store in self._jobstores.items():
                assert isinstance(store, DeferredWriteJobStore), "every job store of ours defers its writes"
                try:
                    due = store.due_states(now, taken)
                except Exception as exc:  # the store is unreachable: look again after the retry interval
                    log.warning("alarm_jobs_unreadable", store=alias, error=str(exc)[:300])
                    wakeups.append(now + timedelta(seconds=self.jobstore_retry_interval))
                    continue
                fired += [(store, state, self._fire(state, now)) for state in due]
            after_firing()
            for store, state, next_run in fired:
                if next_run is None:
                    store.remove_job(state["id"])
                else:
                    store.move_state(state, next_run)
            wakeups += [at for store in self._jobstores.values() if (at := store.get_next_run_time()) is not None]
        return max((min(wakeups) - self._clock.now()).total_seconds(), 0.0) if wakeups else None

    def _fire(self, state: JobState, now: datetime) -> datetime | None:
        """Fire the job for its run times up to ``now`` (coalesced: the last); returns its next run time."""
        run_times = []
        next_run: datetime | None = state["next_run_time"]
        while next_run is not None and next_run <= now:
            run_times.append(next_run)
            next_run = state["trigger"].get_next_fire_time(next_run, now)
        executor = self._lookup_executor(state["executor"])
        assert isinstance(executor, AlarmExecutor), "every job of ours runs on the AlarmExecutor"
        executor.fire(state, run_times[-1:] if state["coalesce"] else run_times)
        return next_run


class AlarmExecutor(BaseExecutor):  # type: ignore[misc]  # APScheduler 3 ships no type information
    """Runs a job at once in the calling thread, telling it when it was due and whether it missed its grace by *our*
    clock (APScheduler's executors use the wall clock)."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def fire(self, state: JobState, run_times: list[datetime]) -> None:
        """``state``: the job's (see :func:`.jobstore.job_state`). A job that fails is logged and the pass goes on (its
        next run time is still stored)."""
        try:
            func, grace = _function(state["func"]), state["misfire_grace_time"]
            for run_time in run_times:
                missed = grace is not None and self.clock.now() - run_time > timedelta(seconds=grace)
                func(*state["args"], scheduled_for=run_time.astimezone(timezone.utc), missed=missed, **state["kwargs"])
        except Exception as exc:
            log.error("alarm_job_failed", job_id=state["id"], error=f"{type(exc).__name__}: {str(exc)[:300]}")

    def _do_submit_job(self, job: Job, run_times: list[datetime]) -> None:
        """APScheduler's entry (unused by :meth:`DrivenScheduler.process_due`), which the base class requires."""
        self.fire(job.__getstate__(), run_times)
        self._run_job_success(job.id, [])


@functools.cache
def _function(ref: str) -> Callable[..., Any]:
    """A job's function from its textual reference, looked up once."""
    return cast(Callable[..., Any], ref_to_obj(ref))
