"""The alarm pass of the driven scheduler: due jobs fire by *our* clock (not the wall clock), once
each however late (coalesced, marked missed past the grace), a one-off timer's job is gone after it
fired, a daily job is stored with its next day, and one job that fails leaves the others' alarms
and its own next day alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from apscheduler.triggers.date import DateTrigger
from structlog.testing import capture_logs

from promptpipe.clock import ManualClock
from promptpipe.domain.localtime import FIXED, DailySpec, parse_hhmm
from promptpipe.scheduling import jobs
from promptpipe.scheduling.driven import AlarmExecutor, DrivenScheduler
from promptpipe.scheduling.jobs import Alarm
from promptpipe.scheduling.jobstore import DeferredWriteJobStore, job_engine
from promptpipe.scheduling.trigger import DailyPromptTrigger
from promptpipe.storage.db import Database

WALL_CLOCK_YEAR = 2031
"""Far from the wall clock: a pass that read the wall clock would find nothing due."""
PROMPT_AT = datetime(WALL_CLOCK_YEAR, 3, 3, 7, 50, tzinfo=timezone.utc)  # habit 08:00 UTC, 10 min before
GRACE_S = 600
DAILY_8AM = DailySpec(kind=FIXED, habit_time=parse_hhmm("08:00"), prep_minutes=10, seed="s")


@pytest.fixture
def fired() -> Iterator[list[Alarm]]:
    alarms: list[Alarm] = []
    jobs.install(alarms.append)
    yield alarms
    jobs.install(None)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(PROMPT_AT - timedelta(hours=1))


@pytest.fixture
def scheduler(db: Database, clock: ManualClock) -> Iterator[DrivenScheduler]:
    engine = job_engine(db)
    driven = DrivenScheduler(lambda: None, clock, jobstores={"default": DeferredWriteJobStore(engine)},
                             executors={"default": AlarmExecutor(clock)}, timezone=timezone.utc)
    driven.start(paused=False)
    yield driven
    driven.shutdown(wait=False)
    engine.dispose()


def add_daily(scheduler: DrivenScheduler, participant: str, first_run: datetime = PROMPT_AT) -> None:
    scheduler.add_job(jobs.DAILY_PROMPT_REF, trigger=DailyPromptTrigger(DAILY_8AM, "UTC"), id=f"daily:{participant}:s",
                      kwargs={"participant_id": participant, "schedule_id": "s"}, misfire_grace_time=GRACE_S,
                      coalesce=True, max_instances=1, next_run_time=first_run)


async def test_jobs_come_due_by_the_services_clock_not_the_wall_clock(
    scheduler: DrivenScheduler, clock: ManualClock, fired: list[Alarm],
) -> None:
    add_daily(scheduler, "p1")
    assert scheduler.process_due() == pytest.approx(3600)  # seconds to the prompt, by our clock
    assert fired == []
    clock.set(PROMPT_AT)
    scheduler.process_due()
    assert [(a.participant_id, a.scheduled_for, a.missed) for a in fired] == [("p1", PROMPT_AT, False)]
    assert scheduler.get_job("daily:p1:s").next_run_time == PROMPT_AT + timedelta(days=1)
    scheduler.process_due()
    assert len(fired) == 1  # stored with its next day: not again the same morning


async def test_a_job_three_days_late_fires_once_for_its_latest_time_marked_missed(
    scheduler: DrivenScheduler, clock: ManualClock, fired: list[Alarm],
) -> None:
    add_daily(scheduler, "p1")
    clock.set(PROMPT_AT + timedelta(days=2, hours=1))
    scheduler.process_due()
    assert [(a.scheduled_for, a.missed) for a in fired] == [(PROMPT_AT + timedelta(days=2), True)]
    assert scheduler.get_job("daily:p1:s").next_run_time == PROMPT_AT + timedelta(days=3)


async def test_a_timers_job_is_gone_once_it_fired(
    scheduler: DrivenScheduler, clock: ManualClock, fired: list[Alarm],
) -> None:
    scheduler.add_job(jobs.TIMER_REF, trigger=DateTrigger(run_date=PROMPT_AT, timezone=timezone.utc),
                      id="reminder:p1", kwargs={"participant_id": "p1", "timer_id": 7},
                      misfire_grace_time=GRACE_S, coalesce=True, max_instances=1, next_run_time=PROMPT_AT)
    clock.set(PROMPT_AT + timedelta(seconds=GRACE_S))  # late, but inside the grace
    assert scheduler.process_due() is None  # no job left
    assert [(a.kind, a.ref, a.missed) for a in fired] == [(jobs.TIMER, "7", False)]
    assert scheduler.get_job("reminder:p1") is None


async def test_a_failing_job_is_logged_and_the_others_still_fire(
    scheduler: DrivenScheduler, clock: ManualClock, fired: list[Alarm],
) -> None:
    def sink(alarm: Alarm) -> None:
        if alarm.participant_id == "p2":
            raise RuntimeError("the database is gone")
        fired.append(alarm)

    jobs.install(sink)
    for participant in ("p1", "p2", "p3"):
        add_daily(scheduler, participant)
    clock.set(PROMPT_AT)
    with capture_logs() as logs:
        scheduler.process_due()
    assert sorted(a.participant_id for a in fired) == ["p1", "p3"]
    errors = [(e["event"], e["job_id"]) for e in logs if e["log_level"] == "error"]
    assert errors == [("alarm_job_failed", "daily:p2:s")]
    assert scheduler.get_job("daily:p2:s").next_run_time == PROMPT_AT + timedelta(days=1)
