"""The decision points a withdrawal took away, as rows of the ``decisions`` export: without them the days from
withdrawal to the last study day would read like days nobody reached yet. One row per point the schedules in force at
withdrawal would have had (one per day without a schedule), unavailable with reason ``withdrawn``; export only."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentKind
from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.localtime import DailySpec, to_instant, zone_or_utc
from promptpipe.domain.states import Status
from promptpipe.storage.db import Database
from promptpipe.storage.missed_decisions import in_force_at
from promptpipe.storage.models import ConsentEvent, Participant, table_of
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.study.rules.decision_rule import NOT_DRAWN
from promptpipe.study.rules.protocol import Unavailable
from promptpipe.study.store.protocol import ProtocolVersion, protocol_history, study_in_force
from promptpipe.study.store.tables import Decision

__all__ = ["WithdrawnPoint", "with_withdrawn_days", "withdrawn_day_counts", "withdrawn_points"]

_P, _LEDGER = table_of(Participant), table_of(ConsentEvent)
_SCHEDULE, _DECISION = table_of(Schedule), table_of(Decision)
_ENDS = (ConsentKind.WITHDRAWN, ConsentKind.ERASED)


@dataclass(frozen=True)
class WithdrawnPoint:
    """A decision point after the withdrawal (``schedule_id`` and ``scheduled_for`` None: only the day is known)."""

    participant_id: str
    schedule_id: str | None
    study_day: int
    local_date: str
    scheduled_for: datetime | None
    timezone: str
    arm: str | None
    protocol_hash: str | None
    withdrawn_at: datetime | None
    """The consent ledger's withdrawn event, as the export's ``withdrawn_at_utc`` (erased only: the erasure's)."""
    erased_at: datetime | None


@dataclass(frozen=True)
class _Person:
    id: str
    timezone: str
    arm: str | None
    day_one: date
    extra_days: int
    erased_at: datetime | None


@dataclass(frozen=True)
class _Ended:
    at: datetime
    """The earliest withdrawal or erasure: nothing was decided after it."""
    withdrawn_at: datetime


def withdrawn_points(session: Session, first: str | None = None,
                     last: str | None = None) -> dict[str, list[WithdrawnPoint]]:
    """The derived points of withdrawn participants (ids ``first`` … ``last``, or all), in time order."""
    people = _withdrawn_people(session, first, last)
    if not people:
        return {}
    history = protocol_history(session)
    study = study_in_force(history)[0]
    length = study.length_days if study is not None else None
    if length is None:
        return {}
    ids = sorted(people)
    ended = _ended(session, ids, people)
    schedules = _schedules(session, ids)
    recorded = _recorded(session, ids)
    points = {pid: _points(people[pid], ended[pid], length, schedules.get(pid, []), recorded.get(pid, set()), history)
              for pid in ids if pid in ended}
    return {pid: found for pid, found in points.items() if found}


def withdrawn_day_counts(session: Session) -> dict[str, int]:
    """How many derived points each withdrawn participant has (for splitting the export in batches)."""
    return {pid: len(points) for pid, points in withdrawn_points(session).items()}


def with_withdrawn_days(session: Session, columns: Sequence[str], rows: list[Any], first: str,
                        last: str) -> list[Any]:
    """The decisions query's rows (tuples of ``columns``), each withdrawn participant's derived points after their own
    (``decision_index`` numbers them on)."""
    derived = withdrawn_points(session, first, last)
    if not derived:
        return rows
    row_type = namedtuple("_DerivedRow", columns)  # type: ignore[misc]  # read like the query's rows
    pid_at = columns.index("participant_id")
    by_participant: dict[str, list[Any]] = {}
    for row in rows:
        by_participant.setdefault(row[pid_at], []).append(row)
    merged: list[Any] = []
    for pid in sorted(by_participant.keys() | derived.keys()):
        own = by_participant.get(pid, [])
        merged += own
        merged += [_row(row_type, point) for point in derived.get(pid, [])]
    return merged


def _row(row_type: Any, point: WithdrawnPoint) -> Any:
    return row_type(**(dict.fromkeys(row_type._fields) | vars(point) | {
        "available": False, "unavailable_reason": Unavailable.WITHDRAWN, "action": NOT_DRAWN, "seed_ref": ""}))


# ---------------------------------------------------------------- reading

def _withdrawn_people(session: Session, first: str | None, last: str | None) -> dict[str, _Person]:
    query = select(_P.c.id, _P.c.timezone, _P.c.arm, _P.c.day_one, _P.c.extra_days, _P.c.erased_at).where(
        _P.c.status == Status.WITHDRAWN, _P.c.day_one.is_not(None))
    if first is not None:
        query = query.where(_P.c.id >= first)
    if last is not None:
        query = query.where(_P.c.id <= last)
    return {pid: _Person(pid, tz, arm, date.fromisoformat(day_one), int(extra or 0), erased)
            for pid, tz, arm, day_one, extra, erased in session.connection().execute(query)}


def _ended(session: Session, ids: Sequence[str], people: dict[str, _Person]) -> dict[str, _Ended]:
    events: dict[str, list[tuple[str, datetime]]] = {}
    for chunk in Database.chunks(ids):
        for pid, event, at in session.connection().execute(
                select(_LEDGER.c.participant_id, _LEDGER.c.event, _LEDGER.c.created_at)
                .where(_LEDGER.c.participant_id.in_(chunk), _LEDGER.c.event.in_(_ENDS))):
            events.setdefault(pid, []).append((event, at))
    ended = {}
    for pid in ids:
        times = [at for _, at in events.get(pid, [])] + [t for t in (people[pid].erased_at,) if t is not None]
        if times:
            withdrawn = [at for event, at in events.get(pid, []) if event == ConsentKind.WITHDRAWN]
            ended[pid] = _Ended(min(times), max(withdrawn) if withdrawn else min(times))
    return ended


def _schedules(session: Session, ids: Sequence[str]) -> dict[str, list[tuple[ScheduleEntry, datetime]]]:
    s = _SCHEDULE
    found: dict[str, list[tuple[ScheduleEntry, datetime]]] = {}
    for chunk in Database.chunks(ids):
        for row in session.connection().execute(
                select(s.c.participant_id, s.c.id, s.c.kind, s.c.habit_time, s.c.window_start, s.c.window_end,
                       s.c.prep_minutes, s.c.active, s.c.created_at, s.c.updated_at)
                .where(s.c.participant_id.in_(chunk)).order_by(s.c.created_at, s.c.id)):
            entry = ScheduleEntry(row.id, row.kind, row.habit_time, row.window_start, row.window_end,
                                  row.prep_minutes, bool(row.active), row.created_at)
            found.setdefault(row.participant_id, []).append((entry, row.updated_at))
    return found


def _recorded(session: Session, ids: Sequence[str]) -> dict[str, set[tuple[str | None, str]]]:
    """(schedule, local date) of every decision row."""
    found: dict[str, set[tuple[str | None, str]]] = {}
    for chunk in Database.chunks(ids):
        for pid, schedule_id, local_date in session.connection().execute(
                select(_DECISION.c.participant_id, _DECISION.c.schedule_id, _DECISION.c.local_date)
                .where(_DECISION.c.participant_id.in_(chunk))):
            found.setdefault(pid, set()).add((schedule_id, local_date))
    return found


# ---------------------------------------------------------------- deriving

def _in_force(schedules: Sequence[tuple[ScheduleEntry, datetime]], at: datetime) -> list[tuple[str, DailySpec]]:
    """The schedules that ran at ``at`` (made before it, not deleted before it)."""
    running = []
    for entry, updated_at in schedules:
        if entry.created_at is not None and entry.created_at <= at and (entry.active or updated_at >= at):
            try:
                running.append((entry.id, entry.spec()))
            except ValueError:  # a malformed row: its times cannot be known
                continue
    return running


def _points(person: _Person, ended: _Ended, length: int, schedules: Sequence[tuple[ScheduleEntry, datetime]],
            recorded: set[tuple[str | None, str]], history: Sequence[ProtocolVersion]) -> list[WithdrawnPoint]:
    zone = zone_or_utc(person.timezone)
    last_day = person.day_one + timedelta(days=length + person.extra_days - 1)
    withdrawn_on = ended.at.astimezone(zone).date()
    running = _in_force(schedules, ended.at)
    dated = {local_date for _, local_date in recorded}
    points = []
    day = max(person.day_one, withdrawn_on)
    while day <= last_day:
        due: list[tuple[str | None, datetime | None]]
        if running:
            fires = [(sid, spec.fire_at(day, zone)) for sid, spec in running]
            due = [(sid, when) for sid, when in fires if when > ended.at and (sid, day.isoformat()) not in recorded]
        else:  # no schedule to say when: the day itself, unless it has a decision already
            due = [] if day == withdrawn_on and day.isoformat() in dated else [(None, None)]
        for sid, when in sorted(due, key=lambda pair: (pair[1] is None, pair[1] or ended.at)):
            version = in_force_at(history, when or to_instant(day, time(0, 0), zone))
            points.append(WithdrawnPoint(
                person.id, sid, (day - person.day_one).days + 1, day.isoformat(), when, zone.key, person.arm,
                (version.hash or None) if version is not None else None, ended.withdrawn_at, person.erased_at))
        day += timedelta(days=1)
    return points
