"""The pilot's alarms from its own tables: what the service's alarm clock would hold for the participant, and when.
The service's alarm clock reads the wall clock and reports to the process's one service, so a pilot fires its own."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.timers import TimerKind
from promptpipe.questionnaires.rules.definition import InstanceStatus
from promptpipe.scheduling import jobs
from promptpipe.scheduling.jobs import DAILY, TIMER, Alarm
from promptpipe.scheduling.reconcile import wanted_jobs
from promptpipe.storage.models import table_of
from promptpipe.storage.schedules import AlarmPlan
from promptpipe.study.rules.protocol import SELF_REPORT_ID
from promptpipe.study.store.tables import QuestionnaireInstance

__all__ = ["REMINDER_KINDS", "Due", "due_alarms", "next_self_report"]

REMINDER_KINDS = (TimerKind.REMINDER, TimerKind.INTAKE_REMINDER)
_INSTANCE = table_of(QuestionnaireInstance)


@dataclass(frozen=True)
class Due:
    alarm: Alarm
    kind: str

    @property
    def at(self) -> datetime:
        return self.alarm.scheduled_for


def due_alarms(plan: AlarmPlan | None, fired: Mapping[str, datetime], since: datetime, now: datetime) -> list[Due]:
    """Every alarm the service would hold for them, earliest first: a daily schedule after the one that last fired
    here (``fired``, by schedule), else after ``since`` (the pilot's start)."""
    if plan is None:
        return []
    zone = zone_or_utc(plan.timezone)
    entries = {entry.id: entry for entry in plan.schedules}
    kinds = {timer.id: timer.kind for timer in plan.timers}
    found = []
    for want in wanted_jobs(plan, now):
        if want.func == jobs.TIMER_REF:
            timer_id = int(want.kwargs["timer_id"])
            found.append(Due(Alarm(TIMER, plan.participant_id, str(timer_id), want.first_run, False), kinds[timer_id]))
            continue
        entry = entries[str(want.kwargs["schedule_id"])]
        after = max(fired.get(entry.id, since), entry.created_at or since)
        _, when = entry.spec().next_fire(after, zone)
        found.append(Due(Alarm(DAILY, plan.participant_id, entry.id, when, False), DAILY))
    return sorted(found, key=lambda due: due.at)


def next_self_report(session: Session, participant_id: str) -> datetime | None:
    return session.execute(select(_INSTANCE.c.scheduled_at).where(
        _INSTANCE.c.participant_id == participant_id, _INSTANCE.c.questionnaire_id == SELF_REPORT_ID,
        _INSTANCE.c.status == InstanceStatus.SCHEDULED).order_by(_INSTANCE.c.scheduled_at).limit(1)).scalar()
