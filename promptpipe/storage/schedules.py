"""Queries on ``schedule`` and ``timer``: a participant's daily-prompt schedules and timers, and their alarms."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.conversation import PendingTimer, ScheduleEntry, TimerChange, TimerOp
from promptpipe.storage.db import Database
from promptpipe.storage.models import Participant, table_of
from promptpipe.storage.prepared import Prepared, Row, bound, insert_row, run_sql
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.storage.queue_tables import Timer, TimerStatus

__all__ = ["SCHEDULE_ENTRY_COLUMNS", "AlarmPlan", "DailyAlarmFacts", "FactsRow", "alarm_plans", "apply_timer_ops",
           "cancel_timers", "daily_alarm_facts", "daily_alarm_rows", "facts_of", "load_schedules", "new_schedule_id",
           "save_schedules", "settle_timers", "timers_by_id"]

_PARTICIPANT = table_of(Participant)
_SCHEDULE = table_of(Schedule)
_TIMER = table_of(Timer)
_INSERT_TIMERS = Prepared(insert(_TIMER).returning(_TIMER.c.id, _TIMER.c.kind))
SCHEDULE_ENTRY_COLUMNS = (_SCHEDULE.c.id, _SCHEDULE.c.kind, _SCHEDULE.c.habit_time, _SCHEDULE.c.window_start,
                          _SCHEDULE.c.window_end, _SCHEDULE.c.prep_minutes, _SCHEDULE.c.active, _SCHEDULE.c.created_at)
"""A :class:`ScheduleEntry`'s fields, in order."""
_ACTIVE_SCHEDULES = (
    select(*SCHEDULE_ENTRY_COLUMNS)
    .where(_SCHEDULE.c.participant_id == bindparam("pid"), _SCHEDULE.c.active.is_(True))
    .order_by(_SCHEDULE.c.created_at, _SCHEDULE.c.id)
)
_DAILY_ALARM_FACTS = Prepared(
    select(*SCHEDULE_ENTRY_COLUMNS, _SCHEDULE.c.participant_id, _PARTICIPANT.c.status, _PARTICIPANT.c.timezone,
           _PARTICIPANT.c.arm)
    .join(_PARTICIPANT, _PARTICIPANT.c.id == _SCHEDULE.c.participant_id)
    .where(_SCHEDULE.c.id.in_(bindparam("ids", expanding=True)))
)


@dataclass(frozen=True)
class DailyAlarmFacts:
    """What turning a daily alarm into an inbox row needs: its schedule now, its participant's status, zone and arm."""

    schedule: ScheduleEntry
    participant_id: str
    status: str
    timezone: str
    arm: str | None


def daily_alarm_facts(db: Database, session: Session, schedule_ids: set[str]) -> dict[str, DailyAlarmFacts]:
    """By schedule id, for the schedules that still exist (one statement per chunk of ids)."""
    return {schedule_id: facts_of(row) for schedule_id, row in daily_alarm_rows(db, session, schedule_ids).items()}


FactsRow = tuple[object, ...]
""":class:`DailyAlarmFacts` as read, before it is made one (two reads compare equal when the facts are the same)."""


def daily_alarm_rows(db: Database, session: Session, schedule_ids: set[str]) -> dict[str, FactsRow]:
    """:func:`daily_alarm_facts` as read: a check that they are unchanged needs no objects made."""
    return {row[0]: row for chunk in db.chunks(sorted(schedule_ids))
            for row in _DAILY_ALARM_FACTS.rows(session.connection(), {"ids": list(chunk)})}


def facts_of(row: FactsRow) -> DailyAlarmFacts:
    return DailyAlarmFacts(ScheduleEntry(*row[:-4]), *row[-4:])  # type: ignore[arg-type]


def new_schedule_id() -> str:
    return "s_" + secrets.token_hex(4)


def load_schedules(session: Session, participant_id: str) -> list[ScheduleEntry]:
    rows = session.connection().execute(_ACTIVE_SCHEDULES, {"pid": participant_id}).all()
    return [ScheduleEntry(*row) for row in rows]


def save_schedules(session: Session, participant_id: str, entries: Iterable[ScheduleEntry], now: datetime) -> None:
    for entry in entries:
        if not entry.dirty:
            continue
        values: dict[str, object] = {
            "kind": entry.kind, "habit_time": entry.habit_time, "window_start": entry.window_start,
            "window_end": entry.window_end, "prep_minutes": entry.prep_minutes, "active": entry.active,
            "updated_at": now}
        if entry.created_at is None:
            entry.created_at = now
            session.connection().execute(insert(_SCHEDULE).values(id=entry.id, participant_id=participant_id,
                                                                  created_at=now, **values))
        else:
            session.connection().execute(update(Schedule).where(_SCHEDULE.c.id == entry.id).values(**values))
        entry.dirty = False


def apply_timer_ops(session: Session, participant_id: str, ops: Iterable[TimerOp], now: datetime) -> list[TimerChange]:
    """Write the ops; returns the resulting change per kind (for the alarm clock). Only the last op of each kind counts
    (an arm replaces the pending timer of its kind): one statement cancels what they replace, one inserts the arms."""
    last = {op.kind: op for op in ops}
    by_reason: dict[str, list[str]] = {}
    for op in last.values():
        by_reason.setdefault(op.reason or "replaced", []).append(op.kind)
    arms: list[dict[str, object]] = [{"participant_id": participant_id, "kind": op.kind, "due_at": op.due_at,
                                       "payload": op.payload,
                                       "status": TimerStatus.PENDING, "reason": op.reason, "created_at": now,
                                       "settled_at": None} for op in last.values() if op.action == "arm"]
    rows = _cancel_and_arm(session, participant_id, by_reason, arms, now)
    if rows is None:
        for reason, kinds in by_reason.items():
            cancel_timers(session, participant_id, kinds, now, reason=reason)
        rows = _INSERT_TIMERS.many(session.connection(), arms, any_order=True)  # no arms: no statement
    ids = {kind: timer_id for timer_id, kind in rows}
    changes = []
    for kind, op in last.items():
        timer = None
        if op.action == "arm":
            assert op.due_at is not None
            timer = PendingTimer(ids[kind], kind, op.due_at, op.payload)
        changes.append(TimerChange(participant_id, kind, timer))
    return changes


def _cancel_and_arm(session: Session, participant_id: str, by_reason: dict[str, list[str]],
                    arms: list[dict[str, object]], now: datetime) -> list[Row] | None:
    """PostgreSQL, one reason and at least one arm (a daily prompt's commit): the cancel and the arms in one statement,
    the cancel as a CTE (it sees only the rows there before: the arms stay pending). None: not done here."""
    connection = session.connection()
    if connection.dialect.name != "postgresql" or len(by_reason) != 1 or not arms:
        return None
    ((reason, kinds),) = by_reason.items()
    cancel = bound(_CANCEL_TIMER_KINDS, connection, {"pid": participant_id, "now": now, "why": reason,
                                                    "kinds": list(kinds)})
    rows = [row for arm in arms if (row := insert_row(_INSERT_TIMERS, connection, arm)) is not None]
    if cancel is None or len(rows) != len(arms) or any(row.columns != rows[0].columns for row in rows):
        return None
    sql = (f"WITH cancelled AS ({cancel[0]}) INSERT INTO timer ({', '.join(rows[0].columns)}) VALUES "
           + ", ".join([f"({', '.join(rows[0].placeholders)})"] * len(rows)) + " RETURNING timer.id, timer.kind")
    return run_sql(connection, sql, [*cancel[1], *(value for row in rows for value in row.values)])


_CANCEL_ALL = (update(_TIMER).where(_TIMER.c.participant_id == bindparam("pid"), _TIMER.c.status == TimerStatus.PENDING)
               .values(status=TimerStatus.CANCELLED, settled_at=bindparam("now"), reason=bindparam("why")))
_CANCEL_TIMERS = Prepared(_CANCEL_ALL)
_CANCEL_TIMER_KINDS = Prepared(_CANCEL_ALL.where(_TIMER.c.kind.in_(bindparam("kinds", expanding=True))))


def cancel_timers(session: Session, participant_id: str, kinds: Iterable[str] | None, now: datetime, *,
                  reason: str) -> int:
    """Cancel pending timers of these kinds (all kinds when None); returns how many. Every message runs it."""
    values: dict[str, object] = {"pid": participant_id, "now": now, "why": reason}
    if kinds is None:
        return _CANCEL_TIMERS.changed(session.connection(), values)
    return _CANCEL_TIMER_KINDS.changed(session.connection(), {**values, "kinds": list(kinds)})


def settle_timers(db: Database, session: Session, by_outcome: dict[str, list[int]], now: datetime) -> dict[int, str]:
    """Move pending timers to the outcome they are listed under; only those still pending move (a compare-and-set: a
    second alarm for the same timer is a no-op). Returns the outcome by timer id."""
    settled: dict[int, str] = {}
    for outcome, ids in by_outcome.items():
        extra = {"reason": "participant not active when it came due"} if outcome == TimerStatus.CANCELLED else {}
        for chunk in db.chunks(ids):
            settled.update(dict.fromkeys(session.connection().execute(
                update(_TIMER).where(_TIMER.c.id.in_(chunk), _TIMER.c.status == TimerStatus.PENDING)
                .values(status=outcome, settled_at=now, **extra).returning(_TIMER.c.id)).scalars(), outcome))
    return settled


def timers_by_id(db: Database, session: Session, ids: list[int]) -> list[Timer]:
    return [timer for chunk in db.chunks(ids)
            for timer in session.execute(select(Timer).where(_TIMER.c.id.in_(chunk)).order_by(_TIMER.c.id)).scalars()]


@dataclass
class AlarmPlan:
    participant_id: str
    status: str
    timezone: str
    schedules: list[ScheduleEntry] = field(default_factory=list)
    timers: list[PendingTimer] = field(default_factory=list)
    all_schedule_ids: list[str] = field(default_factory=list)
    """Every schedule they ever had (a deleted one may still have a job to remove)."""


def alarm_plans(session: Session, participant_ids: list[str] | None = None) -> dict[str, AlarmPlan]:
    """Status, zone, active schedules and pending timers of these participants (None: all with either)."""
    conn = session.connection()
    schedule_query = select(_SCHEDULE.c.participant_id, *SCHEDULE_ENTRY_COLUMNS).where(_SCHEDULE.c.active.is_(True))
    timer_query = select(_TIMER.c.participant_id, _TIMER.c.id, _TIMER.c.kind, _TIMER.c.due_at,
                         _TIMER.c.payload).where(_TIMER.c.status == TimerStatus.PENDING)
    participant_query = select(_PARTICIPANT.c.id, _PARTICIPANT.c.status, _PARTICIPANT.c.timezone)
    every_schedule = select(_SCHEDULE.c.participant_id, _SCHEDULE.c.id)
    if participant_ids is not None:
        every_schedule = every_schedule.where(_SCHEDULE.c.participant_id.in_(participant_ids))
        schedule_query = schedule_query.where(_SCHEDULE.c.participant_id.in_(participant_ids))
        timer_query = timer_query.where(_TIMER.c.participant_id.in_(participant_ids))
        participant_query = participant_query.where(_PARTICIPANT.c.id.in_(participant_ids))
    schedules = conn.execute(schedule_query.order_by(_SCHEDULE.c.created_at)).all()
    timers = conn.execute(timer_query.order_by(_TIMER.c.id)).all()
    wanted = None if participant_ids is not None else {row[0] for row in schedules} | {row[0] for row in timers}
    plans: dict[str, AlarmPlan] = {}
    for pid, status, zone in conn.execute(participant_query).all():
        if wanted is None or pid in wanted:
            plans[pid] = AlarmPlan(pid, status, zone)
    for pid, *rest in schedules:
        if pid in plans:
            plans[pid].schedules.append(ScheduleEntry(*rest))
    if participant_ids is not None:
        for pid, schedule_id in conn.execute(every_schedule).all():
            if pid in plans:
                plans[pid].all_schedule_ids.append(schedule_id)
    for pid, timer_id, kind, due_at, payload in timers:
        if pid in plans:
            plans[pid].timers.append(PendingTimer(timer_id, kind, due_at, dict(payload)))
    return plans

