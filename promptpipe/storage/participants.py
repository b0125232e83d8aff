"""Queries on ``participant`` and ``lid_mapping``: who someone is, found by phone or WhatsApp LID. Status and time zone
change only through :mod:`promptpipe.storage.conversations`."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import bindparam, exists, func, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentKind, ConsentRecord, ConsentSource
from promptpipe.domain.numbers import ONE_NUMBER, NumberPlan, assign_number
from promptpipe.domain.states import Stage, Status
from promptpipe.domain.timers import CANCELLED_BY_REPLY
from promptpipe.domain.transition_log import Actor, TransitionKind
from promptpipe.storage.consent import record_consent
from promptpipe.storage.db import Database
from promptpipe.storage.models import Conversation, LidMapping, Participant, Transition, table_of
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, Timer, TimerStatus
from promptpipe.storage.suppression import suppressed_since
from promptpipe.study.rules.protocol import OPEN_STUDY, Study
from promptpipe.study.store.allocation import allocate

__all__ = ["ConsentFacts", "NewParticipant", "SenderRef", "consent_facts", "create_participant", "new_participant_id",
           "number_of", "participant_by_id", "participant_by_phone", "participant_id_of", "phone_for_lid",
           "remember_lid", "sender_by_lid", "sender_by_phone", "set_details", "set_participant_lid",
           "statuses_and_zones"]

_PARTICIPANT = table_of(Participant)
_INBOX, _TIMER, _DELIVERY = table_of(InboxItem), table_of(Timer), table_of(PromptDelivery)
_NEWER = _DELIVERY.alias("newer")
_SENDER_FACTS = (
    select(func.count()).select_from(_INBOX)
    .where(_INBOX.c.participant_id == _PARTICIPANT.c.id, _INBOX.c.status == InboxStatus.PENDING).scalar_subquery(),
    exists().where(_TIMER.c.participant_id == _PARTICIPANT.c.id, _TIMER.c.status == TimerStatus.PENDING,
                   _TIMER.c.kind.in_(CANCELLED_BY_REPLY)),
    exists().where(_DELIVERY.c.id == select(func.max(_NEWER.c.id)).where(
        _NEWER.c.participant_id == _PARTICIPANT.c.id).scalar_subquery(), _DELIVERY.c.replied_at.is_(None)),
)
"""What storing a message from them will have to do, read with who they are (see :class:`SenderRef`)."""
_SENDER_BY_PHONE = Prepared(select(_PARTICIPANT.c.id, _PARTICIPANT.c.lid, *_SENDER_FACTS).where(
    _PARTICIPANT.c.phone == bindparam("phone")))
_SENDER_BY_LID = Prepared(select(_PARTICIPANT.c.id, _PARTICIPANT.c.lid, *_SENDER_FACTS).where(
    _PARTICIPANT.c.lid == bindparam("lid")).limit(1))


@dataclass(frozen=True)
class SenderRef:
    """Who wrote (id and known LID) and, read in the same statement, what their message will have to do (None: not
    known, so do it): a message costs only the writes that change something."""

    id: str
    lid: str | None
    pending_inputs: int | None = None
    """Inbox rows of theirs waiting before this one."""
    timers_to_cancel: bool | None = None
    """A timer a reply makes moot is pending (a reminder, a feedback check-in)."""
    newest_prompt_unanswered: bool | None = None
    """Their newest daily prompt has no reply yet."""


def sender_by_phone(session: Session, phone: str) -> SenderRef | None:
    rows = _SENDER_BY_PHONE.rows(session.connection(), {"phone": phone})  # every message: run straight
    return SenderRef(*rows[0]) if rows else None


def sender_by_lid(session: Session, lid: str) -> SenderRef | None:
    rows = _SENDER_BY_LID.rows(session.connection(), {"lid": lid})
    return SenderRef(*rows[0]) if rows else None


def set_participant_lid(session: Session, participant_id: str, lid: str, now: datetime) -> None:
    session.connection().execute(
        update(_PARTICIPANT).where(_PARTICIPANT.c.id == participant_id).values(lid=lid, updated_at=now))


_NUMBER_OF = Prepared(select(_PARTICIPANT.c.number).where(_PARTICIPANT.c.id == bindparam("pid")))
"""Built once: a service among several reads it before each of a lane's batches."""


def number_of(session: Session, participant_id: str) -> str | None:
    """The number a participant was given (None: the default one, or no such participant)."""
    return cast("str | None", _NUMBER_OF.one_value(session.connection(), {"pid": participant_id}))


def new_participant_id() -> str:
    return "p_" + secrets.token_hex(8)


def participant_by_phone(session: Session, phone: str) -> Participant | None:
    return session.execute(select(Participant).where(_PARTICIPANT.c.phone == phone)).scalar_one_or_none()


def participant_by_id(session: Session, participant_id: str) -> Participant | None:
    return session.get(Participant, participant_id)


def participant_id_of(session: Session, key: str, *, by_id: bool) -> str | None:
    """The id of the participant with this id or phone (None: nobody), without loading their row."""
    column = _PARTICIPANT.c.id if by_id else _PARTICIPANT.c.phone
    found = session.connection().execute(select(_PARTICIPANT.c.id).where(column == key)).scalar_one_or_none()
    return None if found is None else str(found)


def phone_for_lid(session: Session, lid: str) -> str | None:
    table = table_of(LidMapping)
    return session.connection().execute(select(table.c.phone).where(table.c.lid == lid)).scalar_one_or_none()


def remember_lid(session: Session, lid: str, phone: str, now: datetime) -> None:
    row = session.get(LidMapping, lid)
    if row is None:
        session.add(LidMapping(lid=lid, phone=phone, updated_at=now))
    elif row.phone != phone:
        row.phone, row.updated_at = phone, now


@dataclass(frozen=True)
class NewParticipant:
    """Who is enrolled, and how: ``reason`` goes to the log and consent record; ``study`` allocates the arm (by
    ``strata``), ``numbers`` gives the WhatsApp number unless ``number`` names one."""

    phone: str
    name: str
    timezone: str
    background: str
    reason: str
    source: ConsentSource = ConsentSource.RESEARCHER
    actor: str = ""
    study: Study = OPEN_STUDY
    strata: Mapping[str, str] | None = None
    numbers: NumberPlan = ONE_NUMBER
    number: str | None = None


def create_participant(session: Session, new: NewParticipant, now: datetime) -> Participant:
    """The participant with their arm, WhatsApp number, conversation (in INTAKE), ``enrolled`` log row and consent
    record. ValueError when the number cannot be given (an unknown name, a rule that names none of the numbers)."""
    strata, numbers, source = dict(new.strata or {}), new.numbers, new.source
    counts = number_counts(session, numbers) if numbers.several and new.number is None else {}  # before they count
    participant = Participant(
        id=new_participant_id(), phone=new.phone, name=new.name, timezone=new.timezone, status=Status.ACTIVE,
        background=new.background, enrolled_at=now, updated_at=now, strata=strata,
    )
    session.add(participant)
    session.flush()
    participant.arm = allocate(session, new.study, participant.id, strata, now,
                               strict=source == ConsentSource.RESEARCHER)
    if numbers.several or new.number is not None:
        participant.number = assign_number(numbers, arm=participant.arm, strata=strata, counts=counts, asked=new.number)
    session.add(Conversation(participant_id=participant.id, sub_state=Stage.INTAKE, profile={}, tone={},
                             updated_at=now))
    session.add(Transition(participant_id=participant.id, kind=TransitionKind.STATUS, name="enrolled", from_value=None,
                           actor=Actor.RESEARCHER if source == ConsentSource.RESEARCHER else Actor.SERVER,
                           to_value=Status.ACTIVE, reason=new.reason, created_at=now))
    session.flush()
    enrolled = ConsentRecord(ConsentKind.ENROLLED, ConsentSource(source), new.reason, new.actor)
    record_consent(session, participant.id, [enrolled], now)
    if (suppressed := suppressed_since(session, new.phone)) is not None:
        _opted_out_before(session, participant, suppressed, now)
    return participant


OPTED_OUT_BEFORE = ("this number's owner sent STOP before their data was erased (on {erased:%Y-%m-%d}): enrolled "
                    "as opted out, nothing is sent until they write START themselves")


def _opted_out_before(session: Session, participant: Participant, suppressed: tuple[datetime, datetime],
                      now: datetime) -> None:
    """A number on the suppression list starts opted out: their own STOP still holds."""
    opted_out_at, erased_at = suppressed
    words = OPTED_OUT_BEFORE.format(erased=erased_at)
    participant.opted_out, participant.status, participant.paused_by = True, Status.PAUSED, "participant"
    participant.own_consent_at = opted_out_at
    session.add(Transition(participant_id=participant.id, kind=TransitionKind.STATUS, name="opted_out",
                           from_value=Status.ACTIVE, actor=Actor.SERVER, to_value=Status.PAUSED, reason=words,
                           created_at=now))
    session.flush()
    record_consent(session, participant.id, [ConsentRecord(ConsentKind.OPTED_OUT, ConsentSource.SERVER, words)], now)


def number_counts(session: Session, numbers: NumberPlan) -> dict[str, int]:
    """Participants still in the study (not withdrawn, completed or erased) per number."""
    rows = session.execute(select(_PARTICIPANT.c.number, func.count()).where(
        _PARTICIPANT.c.status.not_in((Status.WITHDRAWN, Status.COMPLETED)), _PARTICIPANT.c.erased_at.is_(None))
        .group_by(_PARTICIPANT.c.number)).all()
    counts: dict[str, int] = {}
    for name, count in rows:
        counts[numbers.of(name)] = counts.get(numbers.of(name), 0) + int(count)
    return counts


def statuses_and_zones(db: Database, session: Session, ids: set[str]) -> dict[str, tuple[str, str]]:
    """Status and time zone by participant id (one query per chunk of ids)."""
    query = select(_PARTICIPANT.c.id, _PARTICIPANT.c.status, _PARTICIPANT.c.timezone)
    return {pid: (status, zone) for chunk in db.chunks(sorted(ids))
            for pid, status, zone in session.connection().execute(query.where(_PARTICIPANT.c.id.in_(chunk)))}


def set_details(session: Session, participant_id: str, *, name: str | None = None, background: str | None = None,
                now: datetime) -> bool:
    """A researcher's change of name or background (None: unchanged); False: no such participant, or erased."""
    values = {key: value for key, value in (("name", name), ("background", background)) if value is not None}
    result = session.connection().execute(update(_PARTICIPANT).where(
        _PARTICIPANT.c.id == participant_id, _PARTICIPANT.c.erased_at.is_(None)).values(updated_at=now, **values))
    return bool(result.rowcount)


@dataclass(frozen=True)
class ConsentFacts:
    """What decides whether the research team may write to a participant."""

    status: str
    opted_out: bool
    erased: bool


def consent_facts(db: Database, session: Session, ids: Sequence[str]) -> dict[str, ConsentFacts]:
    """Status, own opt-out and erasure by participant id (one query per chunk of ids)."""
    p = _PARTICIPANT.c
    query = select(p.id, p.status, p.opted_out, p.erased_at)
    return {pid: ConsentFacts(status, bool(opted_out), erased_at is not None) for chunk in db.chunks(list(ids))
            for pid, status, opted_out, erased_at in session.connection().execute(query.where(p.id.in_(chunk)))}
