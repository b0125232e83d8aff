"""Queries on ``flag``: safety concerns, the researchers' resolution of them, and each one's webhook alert."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.safety import FlagSource, FlagStatus, NewFlag, Severity
from promptpipe.domain.text import clean_for_storage
from promptpipe.errors import Conflict, NotFound
from promptpipe.storage.models import Flag, Message, Participant, table_of

_FLAG = table_of(Flag)
_PARTICIPANT = table_of(Participant)
_MESSAGE = table_of(Message)
_INSERT = insert(_FLAG).returning(_FLAG.c.id)


class AlertStatus(StrEnum):
    """Whether a flag's webhook alert is still to go (``none``: alerts are off)."""

    PENDING = "pending"
    SENT = "sent"
    NONE = "none"


def add_flags(session: Session, participant_id: str, flags: list[NewFlag], now: datetime, *, alert: bool) -> list[int]:
    """Write the flags; ``alert`` marks them for the webhook. Returns their ids."""
    return [int(session.connection().execute(_INSERT, {
        "participant_id": participant_id, "source": flag.source, "severity": flag.severity,
        "trigger": clean_for_storage(flag.trigger), "message_id": flag.message_id, "status": FlagStatus.OPEN,
        "resolved_at": None, "resolved_by": None, "resolution_note": "",
        "alert_status": AlertStatus.PENDING if alert else AlertStatus.NONE, "alert_attempts": 0, "alerted_at": None,
        "created_at": now,
    }).scalar_one()) for flag in flags]


@dataclass(frozen=True)
class FlagEntry:
    """A safety flag with the participant it is about."""

    id: int
    participant_id: str
    phone: str
    name: str
    timezone: str
    at: str
    source: FlagSource
    severity: Severity
    trigger: str
    status: FlagStatus
    alert: AlertStatus
    resolved_at: str | None
    resolved_by: str | None
    note: str | None


def list_flags(session: Session, *, include_resolved: bool = False) -> list[FlagEntry]:
    query = _ENTRIES.order_by(_FLAG.c.id)
    if not include_resolved:
        query = query.where(_FLAG.c.status == FlagStatus.OPEN)
    return [_entry(*row) for row in session.execute(query).all()]


def resolve_flag(session: Session, flag_id: int, *, note: str, by: str, now: datetime) -> Flag:
    flag = session.get(Flag, flag_id)
    if flag is None:
        raise NotFound(f"there is no flag {flag_id}; `promptpipe-admin flags` lists the open ones")
    if flag.status == FlagStatus.RESOLVED:
        raise Conflict(f"flag {flag_id} was resolved already by {flag.resolved_by or 'someone'} "
                         f"at {flag.resolved_at.isoformat() if flag.resolved_at else '?'}")
    session.execute(update(Flag).where(_FLAG.c.id == flag_id).values(
        status=FlagStatus.RESOLVED, resolved_at=now, resolved_by=clean_for_storage(by),
        resolution_note=clean_for_storage(note)))
    session.refresh(flag)
    return flag


@dataclass(frozen=True)
class PendingAlert:
    flag_id: int
    participant_id: str
    severity: str
    source: str
    created_at: datetime
    attempts: int


def pending_alerts(session: Session, limit: int = 50) -> list[PendingAlert]:
    rows = session.connection().execute(
        select(_FLAG.c.id, _FLAG.c.participant_id, _FLAG.c.severity, _FLAG.c.source, _FLAG.c.created_at,
               _FLAG.c.alert_attempts)
        .where(_FLAG.c.alert_status == AlertStatus.PENDING).order_by(_FLAG.c.id).limit(limit)
    ).all()
    return [PendingAlert(*row) for row in rows]


def record_alert(session: Session, flag_id: int, *, sent: bool, now: datetime) -> None:
    values: dict[str, object] = {"alert_attempts": _FLAG.c.alert_attempts + 1}
    if sent:
        values.update(alert_status=AlertStatus.SENT, alerted_at=now)
    session.connection().execute(update(_FLAG).where(_FLAG.c.id == flag_id).values(**values))


MAX_LISTED = 100
"""The flags one list shows at once."""


@dataclass(frozen=True)
class FlagRecord:
    """What the ``flag`` row keeps of one flag's course: raised, alerted (failed attempts only counted), resolved."""

    entry: FlagEntry
    message_id: int | None
    alert_attempts: int
    alerted_at: str | None


@dataclass(frozen=True)
class AroundMessage:
    """A transcript message near a flag (``text`` is the participant's or our words)."""

    id: int
    at: str
    direction: str
    kind: str
    status: str
    text: str


_ENTRIES = (select(Flag, _PARTICIPANT.c.phone, _PARTICIPANT.c.name, _PARTICIPANT.c.timezone)
            .join(Participant, _PARTICIPANT.c.id == _FLAG.c.participant_id))


def _entry(flag: Flag, phone: str, name: str, timezone: str) -> FlagEntry:
    return FlagEntry(flag.id or 0, flag.participant_id, phone, name, timezone, flag.created_at.isoformat(),
                     FlagSource(flag.source), Severity(flag.severity), flag.trigger, FlagStatus(flag.status),
                     AlertStatus(flag.alert_status), flag.resolved_at.isoformat() if flag.resolved_at else None,
                     flag.resolved_by, flag.resolution_note)


def flags_by_status(session: Session, status: FlagStatus | None, *, limit: int = MAX_LISTED
                    ) -> tuple[list[FlagEntry], int]:
    """Up to ``limit`` flags of ``status`` (None: all) and how many there are: open ones oldest first, others newest."""
    query, count = _ENTRIES, select(func.count()).select_from(_FLAG)
    if status is not None:
        query, count = query.where(_FLAG.c.status == status), count.where(_FLAG.c.status == status)
    order = _FLAG.c.id if status == FlagStatus.OPEN else _FLAG.c.id.desc()
    rows = session.execute(query.order_by(order).limit(limit)).all()
    return [_entry(*row) for row in rows], int(session.execute(count).scalar_one())


def flag_record(session: Session, flag_id: int) -> FlagRecord | None:
    if (found := session.execute(_ENTRIES.where(_FLAG.c.id == flag_id)).first()) is None:
        return None
    flag = found[0]
    return FlagRecord(_entry(*found), flag.message_id, flag.alert_attempts,
                      flag.alerted_at.isoformat() if flag.alerted_at else None)


def messages_around(session: Session, record: FlagRecord, *, before: int, after: int) -> list[AroundMessage]:
    """The participant's transcript around the flag, oldest first: the message that raised it (a model's flag: the
    last one stored by then) with the ``before`` messages before it and the ``after`` after it. Two range reads."""
    pid = record.entry.participant_id
    anchor = record.message_id
    if anchor is None:
        raised = datetime.fromisoformat(record.entry.at)
        anchor = session.connection().execute(select(func.max(_MESSAGE.c.id)).where(
            _MESSAGE.c.participant_id == pid, _MESSAGE.c.created_at <= raised)).scalar_one() or 0
    columns = (_MESSAGE.c.id, _MESSAGE.c.created_at, _MESSAGE.c.direction, _MESSAGE.c.kind, _MESSAGE.c.status,
               _MESSAGE.c.text)
    conn = session.connection()
    earlier = conn.execute(select(*columns).where(_MESSAGE.c.participant_id == pid, _MESSAGE.c.id <= anchor)
                           .order_by(_MESSAGE.c.id.desc()).limit(before + 1)).all()
    later = conn.execute(select(*columns).where(_MESSAGE.c.participant_id == pid, _MESSAGE.c.id > anchor)
                         .order_by(_MESSAGE.c.id).limit(after)).all()
    return [AroundMessage(row.id, row.created_at.isoformat(), row.direction, row.kind, row.status, row.text)
            for row in [*reversed(earlier), *later]]
