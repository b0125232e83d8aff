"""The job store's deferred writes: a pass's writes are committed together, one statement per
kind of write, leaving the table as the writes made in their order would."""

from __future__ import annotations

import pickle
from datetime import datetime, timedelta, timezone

from apscheduler.job import Job
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from sqlalchemy import event

from promptpipe.domain.localtime import FIXED, DailySpec, parse_hhmm
from promptpipe.scheduling import jobs
from promptpipe.scheduling.jobstore import DeferredWriteJobStore, job_engine, job_state
from promptpipe.scheduling.trigger import DailyPromptTrigger
from promptpipe.storage.db import Database

AT = datetime(2026, 1, 5, 13, tzinfo=timezone.utc)


async def test_a_passes_job_writes_go_one_statement_per_kind_and_end_as_their_order_would(db: Database) -> None:
    """10,000 due prompts each update their job and arm two timers' jobs: one statement per job
    kept the alarm thread busy for seconds in the middle of the burst. A timer re-armed is a
    remove and an add of its job, interleaved with the others': still one statement per kind (the
    pair is one upsert: a job removed and added again is replaced, not deleted and inserted)."""
    engine = job_engine(db)
    store, scheduler = DeferredWriteJobStore(engine), BackgroundScheduler(timezone=timezone.utc)
    store.start(scheduler, "default")
    ran: list[str] = []
    event.listen(engine, "after_cursor_execute", lambda _c, _cur, statement, *_: ran.append(
        "UPSERT" if "ON CONFLICT" in statement else statement.split()[0]))

    def job(n: int, at: datetime) -> Job:
        return Job(scheduler, id=f"timer:{n}", func="math:floor", args=(1,), kwargs={}, trigger=DateTrigger(at),
                   executor="default", name=f"timer {n}", misfire_grace_time=60, coalesce=True, max_instances=1,
                   next_run_time=at)

    store.begin_deferred()
    for n in range(30):
        store.add_job(job(n, AT))
    for n in range(30):
        store.update_job(job(n, AT + timedelta(hours=1)))
    for n in range(10):
        store.remove_job(f"timer:{n}")
    store.add_job(job(0, AT + timedelta(hours=2)))  # removed, then armed again: the order matters
    assert store.commit_deferred() == 71
    assert ran == ["DELETE", "INSERT", "UPSERT"]
    kept = {stored.id: stored.next_run_time for stored in store.get_all_jobs()}
    assert sorted(kept) == sorted(f"timer:{n}" for n in [0, *range(10, 30)])
    assert kept["timer:0"] == AT + timedelta(hours=2) and kept["timer:15"] == AT + timedelta(hours=1)

    ran.clear()
    store.begin_deferred()
    for n in range(5, 25):  # re-armed, one after the other: five of them were not armed before
        store.remove_job(f"timer:{n}")
        store.add_job(job(n, AT + timedelta(hours=3)))
    store.update_job(job(0, AT + timedelta(hours=4)))
    store.remove_job("timer:29")
    assert store.commit_deferred() == 42
    assert ran == ["DELETE", "UPSERT", "UPDATE"]
    kept = {stored.id: stored.next_run_time for stored in store.get_all_jobs()}
    assert sorted(kept) == sorted(f"timer:{n}" for n in [0, *range(5, 29)])
    assert kept["timer:7"] == kept["timer:20"] == AT + timedelta(hours=3)
    assert kept["timer:0"] == AT + timedelta(hours=4) and kept["timer:27"] == AT + timedelta(hours=1)


def test_a_job_built_as_its_state_is_the_job_apschedulers_add_job_makes() -> None:
    """The alarm clock queues its jobs' pickled states directly (a burst arms 20,000 timer jobs): what it
    stores must be what APScheduler's own ``add_job`` would have stored, for both kinds of job."""
    scheduler = BackgroundScheduler(timezone=timezone.utc)  # not started: add_job only builds the job
    daily = DailyPromptTrigger(DailySpec(kind=FIXED, habit_time=parse_hhmm("08:30"), prep_minutes=10), "Europe/Berlin")
    for func, kwargs, trigger in (
        (jobs.TIMER_REF, {"participant_id": "p1", "timer_id": 7}, DateTrigger(AT, timezone=timezone.utc)),
        (jobs.DAILY_PROMPT_REF, {"participant_id": "p1", "schedule_id": "s1"}, daily),
    ):
        job = scheduler.add_job(func, trigger=trigger, id="job:p1", kwargs=kwargs, misfire_grace_time=3600,
                                coalesce=True, max_instances=1, next_run_time=AT, replace_existing=False)
        state = job_state("job:p1", func, kwargs, trigger, AT, 3600)
        assert state == job.__getstate__()
        assert pickle.loads(pickle.dumps(state)).keys() == job.__getstate__().keys()
