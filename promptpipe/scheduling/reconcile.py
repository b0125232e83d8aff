"""What the job store should hold, from our tables (the decisions, apart from doing them): one job per active schedule
of an active or paused participant and one per pending timer; what to add, replace and remove, and which daily prompts
came due while the service was down.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from apscheduler.job import Job
from apscheduler.triggers.date import DateTrigger

from promptpipe.domain import keys
from promptpipe.domain.conversation import PendingTimer
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.states import ALARMED, Status
from promptpipe.domain.timers import RUNS_AFTER_COMPLETION, RUNS_WHILE_PAUSED, TimerKind
from promptpipe.scheduling import jobs
from promptpipe.scheduling.jobs import DAILY, Alarm
from promptpipe.scheduling.trigger import DailyPromptTrigger
from promptpipe.storage.schedules import AlarmPlan

__all__ = ["JobChanges", "ReconcileReport", "SyncReport", "WantedJob", "candidate_job_ids", "changes_for",
           "overdue_daily_alarms", "timer_job", "wanted_jobs"]


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


@dataclass
class JobChanges:
    remove: list[str] = field(default_factory=list)
    """Job ids to remove (including those replaced)."""
    add: list[WantedJob] = field(default_factory=list)
    report: SyncReport = field(default_factory=SyncReport)


def wanted_jobs(plan: AlarmPlan, now: datetime) -> list[WantedJob]:
    """The jobs one participant should have: none once withdrawn, once completed only the exit questionnaires' timer;
    while paused, the daily alarms (still decision points, recorded unavailable) and the timers a pause leaves on."""
    if plan.status not in ALARMED:
        return [timer_job(plan.participant_id, timer) for timer in plan.timers
                if plan.status == Status.COMPLETED and timer.kind in RUNS_AFTER_COMPLETION]
    zone = zone_or_utc(plan.timezone)
    wanted = []
    for entry in plan.schedules:
        spec = entry.spec()
        wanted.append(WantedJob(
            keys.daily_job(plan.participant_id, entry.id), jobs.DAILY_PROMPT_REF,
            {"participant_id": plan.participant_id, "schedule_id": entry.id},
            DailyPromptTrigger(spec, zone.key), spec.next_fire(now, zone, inclusive=True)[1],
        ))
    timers = [t for t in plan.timers if plan.status == Status.ACTIVE or t.kind in RUNS_WHILE_PAUSED]
    return wanted + [timer_job(plan.participant_id, timer) for timer in timers]


def timer_job(participant_id: str, timer: PendingTimer) -> WantedJob:
    return WantedJob(
        keys.timer_job(participant_id, timer.kind), jobs.TIMER_REF,
        {"participant_id": participant_id, "timer_id": timer.id},
        DateTrigger(run_date=timer.due_at, timezone=timezone.utc), timer.due_at,
    )


def candidate_job_ids(plans: dict[str, AlarmPlan], participant_ids: list[str]) -> list[str]:
    """Every job these participants could have (a deleted schedule may still have one to remove)."""
    ids = [keys.timer_job(pid, kind) for pid in participant_ids for kind in TimerKind]
    return ids + [keys.daily_job(pid, sid) for pid, plan in plans.items() for sid in plan.all_schedule_ids]


def changes_for(plans: dict[str, AlarmPlan], existing: dict[str, Job | None], now: datetime,
                grace_s: int) -> JobChanges:
    """What to remove and add so that ``existing`` (the stored jobs that matter) matches the plans."""
    wanted = {job.id: job for plan in plans.values() for job in wanted_jobs(plan, now)}
    changes = JobChanges(remove=sorted(existing.keys() - wanted.keys()))
    changes.report.removed = len(changes.remove)
    for job_id, want in wanted.items():
        have = existing.get(job_id)
        if have is not None and _matches(have, want, grace_s):
            changes.report.kept += 1
            continue
        if job_id in existing:
            changes.remove.append(job_id)
            changes.report.replaced += 1
        else:
            changes.report.added += 1
        changes.add.append(want)
    return changes


def _matches(job: Job, want: WantedJob, grace_s: int) -> bool:
    if job.func_ref != want.func or job.kwargs != want.kwargs or job.misfire_grace_time != grace_s:
        return False
    if isinstance(want.trigger, DateTrigger):
        return isinstance(job.trigger, DateTrigger) and job.trigger.run_date == want.trigger.run_date
    return bool(job.trigger == want.trigger)


MAX_CATCH_UP = 62
"""The most occurrences of one schedule delivered after an outage (two months of days)."""


def overdue_daily_alarms(plans: dict[str, AlarmPlan], now: datetime, grace: timedelta,
                         decided: Mapping[str, datetime] | None = None) -> list[Alarm]:
    """Every occurrence of each active schedule since its latest decision point (``decided``; none: the latest only), at
    most :data:`MAX_CATCH_UP`: delivery skips those in the inbox and records the later ones missed, a row a day."""
    alarms: list[Alarm] = []
    for plan in plans.values():
        if plan.status not in ALARMED:
            continue
        zone = zone_or_utc(plan.timezone)
        for entry in plan.schedules:
            spec = entry.spec()
            times = [spec.last_fire(now, zone)[1]]
            since = (decided or {}).get(entry.id)
            while since is not None and len(times) < MAX_CATCH_UP:
                _, earlier = spec.last_fire(times[-1] - timedelta(seconds=1), zone)
                if earlier <= since:
                    break
                times.append(earlier)
            for when in reversed(times):
                if entry.created_at is not None and when < entry.created_at:
                    continue  # the schedule did not exist yet
                alarms.append(Alarm(DAILY, plan.participant_id, entry.id, when, now - when > grace))
    return alarms
