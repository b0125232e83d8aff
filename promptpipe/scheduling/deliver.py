"""Alarms into the inbox: one transaction per batch of alarms, each keyed so a repeat is a no-op.

A daily alarm becomes a ``daily_prompt`` row keyed ``prompt:{participant}:{schedule}:{local day}``;
a timer alarm settles its ``timer`` row (pending → fired, compare-and-set) and becomes a
``timer`` row keyed ``timer:{id}``. An alarm that came too late is recorded as *missed* (a
daily prompt as an inbox row with status missed, so it can never run later; a timer as a missed
timer) and logged. Alarms for participants who are not active, schedules that were deleted or
changed, and timers that were cancelled are dropped here, whatever the job store still held.

Statements are few and set-based (a burst of 10,000 alarms is ten of these batches).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.storage.db import Database
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.logging import get_logger
from promptpipe.storage.models import ACTIVE, CANCELLED, FIRED, MISSED, PENDING, InboxItem, Participant, Schedule, Timer
from promptpipe.scheduling.jobs import DAILY, Alarm
from promptpipe.domain.conversation import ScheduleEntry

log = get_logger("promptpipe.scheduling")

CHUNK = 500
T = TypeVar("T")


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
    people = _participants(session, {a.participant_id for a in alarms})
    rows: list[dict[str, Any]] = []
    daily = [a for a in alarms if a.kind == DAILY]
    if daily:
        rows += _daily_rows(session, daily, people, now, result)
    timers = [a for a in alarms if a.kind != DAILY]
    if timers:
        rows += _timer_rows(session, timers, people, now, result)
    if rows:
        new = _new_rows(session, rows)
        result.repeats += len(rows) - len(new)
        if new:
            session.connection().execute(db.insert_ignore_many(InboxItem, ("key",)), new)
        for row in new:
            if row["status"] == MISSED:
                result.missed += 1
                payload = row["payload"]
                log.warning("daily_prompt_missed", participant_id=row["participant_id"],
                            schedule_id=payload["schedule_id"], local_date=payload["local_date"],
                            due_at=payload["due_at"],
                            late_s=round((now - datetime.fromisoformat(payload["due_at"])).total_seconds()))
            else:
                result.queued.append(row["participant_id"])
    return result


def _inbox_row(key: str, participant_id: str, kind: str, payload: dict[str, Any], now: datetime,
               status: str = PENDING) -> dict[str, Any]:
    return {"key": key, "participant_id": participant_id, "kind": kind, "payload": payload, "message_id": None,
            "status": status, "attempts": 0, "available_at": now, "created_at": now, "processed_at": None,
            "last_error": None}


def _daily_rows(
    session: Session, alarms: list[Alarm], people: dict[str, tuple[str, str]], now: datetime, result: Delivered
) -> list[dict[str, Any]]:
    schedules = _schedules(session, {a.ref for a in alarms})
    rows = []
    for alarm in alarms:
        pid, schedule = alarm.participant_id, schedules.get(alarm.ref)
        person = people.get(pid)
        if schedule is None or not schedule.active or schedule.participant_id != pid or person is None:
            result.dropped += 1
            log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why="schedule deleted")
            continue
        status, zone_name = person
        if status != ACTIVE:
            result.dropped += 1
            log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why=f"participant {status}")
            continue
        entry = ScheduleEntry(schedule.id, schedule.kind, schedule.habit_time, schedule.window_start,
                              schedule.window_end, schedule.prep_minutes, schedule.active, schedule.created_at)
        day = entry.spec().day_of_fire(alarm.scheduled_for, zone_or_utc(zone_name))
        if day is None:  # the schedule or the zone changed after this alarm was set
            result.dropped += 1
            log.info("daily_alarm_dropped", participant_id=pid, schedule_id=alarm.ref, why="schedule changed",
                     scheduled_for=alarm.scheduled_for.isoformat())
            continue
        payload = {"schedule_id": schedule.id, "local_date": day.isoformat(), "due_at": alarm.scheduled_for.isoformat()}
        rows.append(_inbox_row(keys.daily_prompt(pid, schedule.id, day), pid, "daily_prompt", payload, now,
                               MISSED if alarm.missed else PENDING))
    return rows


def _timer_rows(
    session: Session, alarms: list[Alarm], people: dict[str, tuple[str, str]], now: datetime, result: Delivered
) -> list[dict[str, Any]]:
    """Settle the timers (pending → fired or missed, in one compare-and-set statement per group);
    only those that were still pending count."""
    by_outcome: dict[str, list[int]] = {FIRED: [], MISSED: [], CANCELLED: []}
    for alarm in alarms:
        person = people.get(alarm.participant_id)
        outcome = CANCELLED if person is None or person[0] != ACTIVE else MISSED if alarm.missed else FIRED
        by_outcome[outcome].append(int(alarm.ref))
    settled: dict[int, str] = {}
    for outcome, ids in by_outcome.items():
        for chunk in _chunks(ids):
            done = session.connection().execute(
                update(Timer).where(Timer.id.in_(chunk), Timer.status == PENDING)  # type: ignore[union-attr]
                .values(status=outcome, settled_at=now,
                        **({"reason": "participant not active when it came due"} if outcome == CANCELLED else {}))
                .returning(Timer.id)
            ).scalars().all()
            settled.update({timer_id: outcome for timer_id in done})
    result.repeats += len(alarms) - len(settled)
    result.dropped += sum(1 for outcome in settled.values() if outcome == CANCELLED)
    fired = [timer_id for timer_id, outcome in settled.items() if outcome == FIRED]
    missed = [timer_id for timer_id, outcome in settled.items() if outcome == MISSED]
    for timer in _timers(session, missed):
        result.missed += 1
        log.warning("timer_missed", participant_id=timer.participant_id, timer_id=timer.id, kind=timer.kind,
                    due_at=timer.due_at.isoformat(), late_s=round((now - timer.due_at).total_seconds()))
    return [
        _inbox_row(keys.timer(timer.id or 0), timer.participant_id, "timer",
                   {**timer.payload, "timer_id": timer.id, "timer_kind": timer.kind, "due_at": timer.due_at.isoformat()},
                   now)
        for timer in _timers(session, fired)
    ]


def _chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """Slices small enough for one ``IN (…)`` list."""
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]


def _new_rows(session: Session, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose key is not in the inbox yet (and not twice in this batch)."""
    present: set[str] = set()
    for chunk in _chunks([row["key"] for row in rows]):
        present.update(session.connection().execute(select(InboxItem.key).where(InboxItem.key.in_(chunk))).scalars())  # type: ignore[attr-defined]
    new = []
    for row in rows:
        if row["key"] not in present:
            present.add(row["key"])
            new.append(row)
    return new


def _participants(session: Session, ids: set[str]) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for chunk in _chunks(sorted(ids)):
        rows = session.connection().execute(
            select(Participant.id, Participant.status, Participant.timezone)
            .where(Participant.id.in_(chunk))  # type: ignore[attr-defined]
        ).all()
        found.update({pid: (status, zone) for pid, status, zone in rows})
    return found


def _schedules(session: Session, ids: set[str]) -> dict[str, Schedule]:
    found: dict[str, Schedule] = {}
    for chunk in _chunks(sorted(ids)):
        query = select(Schedule).where(Schedule.id.in_(chunk))  # type: ignore[attr-defined]
        found.update({row.id: row for row in session.execute(query).scalars()})
    return found


def _timers(session: Session, ids: list[int]) -> list[Timer]:
    found: list[Timer] = []
    for chunk in _chunks(ids):
        query = select(Timer).where(Timer.id.in_(chunk)).order_by(Timer.id)  # type: ignore[union-attr]
        found += list(session.execute(query).scalars())
    return found
