"""Daily prompts prepared before they are due: which jobs come due soon, the alarm each will ring, its next run and
the bytes the job store will hold then, worked out off the hot instant (see :meth:`.driver.AlarmClock.prepare`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone

from promptpipe.scheduling import jobs
from promptpipe.scheduling.deliver import PreparedPrompt
from promptpipe.scheduling.jobs import Alarm
from promptpipe.scheduling.jobstore import DeferredWriteJobStore

__all__ = ["PREPARE_AHEAD_S", "Ready", "Soon", "digest", "jobs_to_prepare", "ready_jobs"]

PREPARE_AHEAD_S = 3.0
"""How long before a daily prompt is due its row is prepared (preparing 10,000 takes about a second)."""

Moved = tuple[float | None, bytes | None]
"""A job's next run time and stored bytes once it fired (None, None: it ends)."""


def digest(blob: bytes) -> bytes:
    """What a prepared job remembers of its stored bytes (10,000 of them were 6 MB until due)."""
    return hashlib.blake2b(blob, digest_size=16).digest()


@dataclass(frozen=True, slots=True)
class Soon:
    """A daily job due soon: its stored bytes now (:func:`digest`), its next run and stored state after it fires, its
    alarm."""

    job_id: str
    blob: bytes
    next_run: datetime | None
    moved: Moved
    alarm: Alarm


@dataclass(frozen=True, slots=True)
class Ready:
    """A daily job prepared before due: the stored bytes it was prepared from (:func:`digest`), its row, and its next
    stored state."""

    blob: bytes
    run_time: datetime
    next_run: datetime | None
    moved: Moved
    prompt: PreparedPrompt


def jobs_to_prepare(store: DeferredWriteJobStore, now: datetime, until: datetime) -> list[Soon]:
    """The daily jobs due after ``now`` and by ``until`` (on the alarm thread)."""
    found = []
    for job_id, blob, state in store.states_due_by(now, until):
        run_time, kwargs = state["next_run_time"], state["kwargs"]
        if state["func"] != jobs.DAILY_PROMPT_REF or run_time is None or state["args"]:
            continue
        next_run = state["trigger"].get_next_fire_time(run_time, run_time)
        alarm = Alarm(jobs.DAILY, str(kwargs["participant_id"]), str(kwargs["schedule_id"]),
                      run_time.astimezone(timezone.utc), missed=False)
        found.append(Soon(job_id, digest(blob), next_run, store.pickled_move(state, next_run), alarm))
    return found


def ready_jobs(found: list[Soon], prompts: list[PreparedPrompt]) -> dict[str, Ready]:
    """By job id, the jobs whose row was prepared (one that would be dropped has none: the pass handles it)."""
    by_alarm = {p.alarm: p for p in prompts}
    return {soon.job_id: Ready(soon.blob, soon.alarm.scheduled_for, soon.next_run, soon.moved, prompt)
            for soon in found if (prompt := by_alarm.get(soon.alarm)) is not None}
