"""Alarms into the inbox: one transaction per batch of alarms, each keyed so a repeat is a no-op.

A daily alarm becomes a ``daily_prompt`` row keyed ``prompt:{participant}:{schedule}:{local day}``;
a timer alarm settles its ``timer`` row (pending → fired, compare-and-set) and becomes a
``timer`` row keyed ``timer:{id}``. An alarm that came too late is recorded as *missed* (a
daily prompt as an inbox row with status missed, so it can never run later; a timer as a missed
timer) and logged. Alarms for participants who are not active, schedules that were deleted or
changed, and timers that were cancelled are dropped here, whatever the job store still held.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe import keys
from promptpipe.db import Database
from promptpipe.localtime import zone_or_utc
from promptpipe.logging import get_logger
from promptpipe.models import ACTIVE, CANCELLED, FIRED, MISSED, PENDING, Participant, Schedule
from promptpipe.schedule_store import settle_timer
from promptpipe.scheduling.jobs import DAILY, Alarm
from promptpipe.state import ScheduleEntry
from promptpipe.store import enqueue_inbox

log = get_logger("promptpipe.scheduling")

CHUNK = 500


@dataclass
class Delivered:
    """What a batch of alarms did."""

    queued: list[str] = field(default_factory=list)
    """Participants with a new inbox row (their lanes are woken)."""
    missed: int = 0
    dropped: int = 0
    repeats: int = 0


def deliver_alarms(db: Database, session: Session, alarms: Sequence[Alarm], now: datetime) -> Delivered:
    result = Delivered()
    daily = [a for a in alarms if a.kind == DAILY]
    timers = [a for a in alarms if a.kind != DAILY]
    people = _participants(session, {a.participant_id for a in alarms})
    schedules = _schedules(session, {a.ref for a in daily})
    for alarm in daily:
        _deliver_daily(db, session, alarm, schedules.get(alarm.ref), people.get(alarm.participant_id), now, result)
    for alarm in timers:
        _deliver_timer(db, session, alarm, people.get(alarm.participant_id), now, result)
    return result


def _participants(session: Session, ids: set[str]) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start:start + CHUNK]
        rows = session.connection().execute(
            select(Participant.id, Participant.status, Participant.timezone).where(Participant.id.in_(chunk))  # type: ignore[attr-defined]
        ).all()
        found.update({pid: (status, zone) for pid, status, zone in rows})
    return found


def _schedules(session: Session, ids: set[str]) -> dict[str, Schedule]:
    found: dict[str, Schedule] = {}
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        chunk = ordered[start:start + CHUNK]
        found.update({row.id: row for row in session.execute(select(Schedule).where(Schedule.id.in_(chunk))).scalars()})  # type: ignore[attr-defined]
    return found


def _deliver_daily(
    db: Database, session: Session, alarm: Alarm, schedule: Schedule | None, person: tuple[str, str] | None,
    now: datetime, result: Delivered,
) -> None:
    pid = alarm.participant_id
    if schedule is None or not schedule.active or schedule.participant_id != pid or person is None:
        result.dropped += 1
        log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why="schedule deleted")
        return
    status, zone_name = person
    if status != ACTIVE:
        result.dropped += 1
        log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why=f"participant {status}")
        return
    entry = ScheduleEntry(schedule.id, schedule.kind, schedule.habit_time, schedule.window_start,
                          schedule.window_end, schedule.prep_minutes, schedule.active, schedule.created_at)
    zone = zone_or_utc(zone_name)
    day = entry.spec().day_of_fire(alarm.scheduled_for, zone)
    if day is None:  # the schedule or the zone changed after this alarm was set
        result.dropped += 1
        log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why="schedule changed",
                 scheduled_for=alarm.scheduled_for.isoformat())
        return
    payload = {"schedule_id": schedule.id, "local_date": day.isoformat(), "due_at": alarm.scheduled_for.isoformat()}
    inbox_id = enqueue_inbox(db, session, key=keys.daily_prompt(pid, schedule.id, day), participant_id=pid,
                             kind="daily_prompt", now=now, payload=payload, status=MISSED if alarm.missed else PENDING)
    if inbox_id is None:
        result.repeats += 1
        return
    if alarm.missed:
        result.missed += 1
        log.warning("daily_prompt_missed", participant_id=pid, schedule_id=schedule.id, local_date=day.isoformat(),
                    due_at=alarm.scheduled_for.isoformat(), late_s=round((now - alarm.scheduled_for).total_seconds()))
        return
    result.queued.append(pid)


def _deliver_timer(
    db: Database, session: Session, alarm: Alarm, person: tuple[str, str] | None, now: datetime, result: Delivered
) -> None:
    pid = alarm.participant_id
    active = person is not None and person[0] == ACTIVE
    timer = settle_timer(session, int(alarm.ref), MISSED if alarm.missed or not active else FIRED, now)
    if timer is None:
        result.repeats += 1
        return
    if not active:
        timer.status, timer.reason = CANCELLED, "participant not active when it came due"
        result.dropped += 1
        return
    if alarm.missed:
        result.missed += 1
        log.warning("timer_missed", participant_id=pid, timer_id=timer.id, kind=timer.kind,
                    due_at=timer.due_at.isoformat(), late_s=round((now - timer.due_at).total_seconds()))
        return
    payload = {**timer.payload, "timer_id": timer.id, "timer_kind": timer.kind, "due_at": timer.due_at.isoformat()}
    enqueue_inbox(db, session, key=keys.timer(timer.id or 0), participant_id=pid, kind="timer", now=now, payload=payload)
    result.queued.append(pid)
