"""Erasing a participant's personal data (``promptpipe-admin erase --phone P``).

One transaction overwrites everything that identifies the participant or quotes them: phone,
name, background, WhatsApp ids, message texts and their payloads, profile texts and summary,
prompt texts, consent words, flag triggers and notes, audit-log reasons, timer payloads, inbox
payloads and errors, and the LID mapping. Nothing pending for them is processed or sent any more,
their schedules and timers end, and the service is asked to remove their alarms. What stays is a
pseudonymous tombstone: the participant id, when and by whom it was erased, their status, and the
non-identifying counts (counters, delivery dates and votes, message kinds and times), so the
study's numbers still add up. On SQLite the write-ahead log is then checkpointed, so the old texts
are not left readable in it (the database runs with ``secure_delete``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from promptpipe.research.admin import _ask_for_alarm_sync, researcher_name, validate_phone, validate_text
from promptpipe.clock import Clock
from promptpipe.domain.consent import ConsentRecord
from promptpipe.storage.consent import record_consent
from promptpipe.storage.db import Database
from promptpipe.errors import AdminError
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.logging import get_logger
from promptpipe.storage.models import CANCELLED, DONE, FAILED, PENDING, SENDING, ConsentEvent, Conversation, Flag, InboxItem, LidMapping, Message, OutboxItem, Participant, PromptDelivery, Schedule, Timer, Transition
from promptpipe.domain.states import WITHDRAWN
from promptpipe.storage.receipts import forget_receipts
from promptpipe.storage.participants import participant_by_phone

log = get_logger("promptpipe.research.erasure")

KEPT_PROFILE_KEYS = ("counters", "intensity")
"""What stays of the profile: counts and a level, nothing the participant said."""
KEPT_PAYLOAD_KEYS = ("purpose", "handled_as", "options", "selected", "known_poll", "manual")
"""What stays of a message's payload: which poll it was, our own poll options and the option
chosen (``Done`` / ``Not this time``), how a vote was handled; never free text."""


def tombstone_phone(participant_id: str) -> str:
    """What takes the place of the phone (the column is unique): cannot be mistaken for a number."""
    return f"erased:{participant_id}"


@dataclass(frozen=True)
class ErasurePlan:
    """What an erasure will touch, shown to the researcher before they confirm."""

    participant_id: str
    phone: str
    name: str
    status: str
    messages: int
    deliveries: int
    flags: int


@dataclass(frozen=True)
class ErasureDone:
    participant_id: str
    messages: int
    pending_inputs_closed: int
    unsent_messages_dropped: int
    checkpoint: str


async def plan(db: Database, *, phone: str) -> ErasurePlan:
    phone = validate_phone(phone)

    def read(session: Session) -> ErasurePlan:
        person = _enrolled(session, phone)

        def count(model: Any) -> int:
            return int(session.execute(select(func.count()).select_from(model)
                                       .where(model.participant_id == person.id)).scalar_one())

        return ErasurePlan(person.id, person.phone, person.name, person.status, count(Message), count(PromptDelivery),
                           count(Flag))

    return await db.run(read)


async def erase(db: Database, clock: Clock, *, phone: str, by: str = "") -> ErasureDone:
    """Erase the participant's personal data; see the module docstring for what stays."""
    phone = validate_phone(phone)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()

    def write(session: Session) -> tuple[str, int, int, int]:
        person = _enrolled(session, phone)
        messages = _erase_texts(session, person.id, now)
        closed, dropped = _stop_everything(session, person.id, now)
        _erase_identity(session, person, now, by)
        _ask_for_alarm_sync(db, session, person.id, now)
        return person.id, messages, closed, dropped

    participant_id, messages, closed, dropped = await db.run(write)
    checkpoint = await db.checkpoint()
    log.info("participant_erased", participant_id=participant_id, messages=messages, by_researcher=True)
    return ErasureDone(participant_id, messages, closed, dropped, checkpoint)


def _enrolled(session: Session, phone: str) -> Participant:
    person = participant_by_phone(session, phone)
    if person is None:
        raise AdminError(f"{phone} is not enrolled (after an erasure nothing links the number to anyone)")
    return person


def _erase_texts(session: Session, pid: str, now: datetime) -> int:
    """Every text of theirs, and every payload that may quote them."""
    rows = session.execute(select(Message.id, Message.payload, Message.wa_message_id)
                           .where(Message.participant_id == pid)).all()
    forget_receipts(session, [wa_id for _, _, wa_id in rows])
    for message_id, payload, _ in rows:
        kept = {key: value for key, value in (payload or {}).items() if key in KEPT_PAYLOAD_KEYS}
        session.execute(update(Message).where(Message.id == message_id).values(  # type: ignore[arg-type]
            text="", payload=kept, wa_message_id=None))
    conversation = session.get(Conversation, pid)
    if conversation is not None:
        profile = {key: conversation.profile[key] for key in KEPT_PROFILE_KEYS if key in conversation.profile}
        session.execute(update(Conversation).where(Conversation.participant_id == pid).values(  # type: ignore[arg-type]
            profile=profile, summary="", version=Conversation.version + 1, updated_at=now))
    for model, values in (
        (PromptDelivery, {"prompt_text": ""}),
        (ConsentEvent, {"words": ""}),
        (Flag, {"trigger": "", "resolution_note": ""}),
        (Transition, {"reason": ""}),
        (Timer, {"payload": {}, "reason": ""}),
        (InboxItem, {"payload": {}, "last_error": None}),
        (OutboxItem, {"last_error": None}),
    ):
        session.execute(update(model).where(model.participant_id == pid).values(**values))
    return len(rows)


def _stop_everything(session: Session, pid: str, now: datetime) -> tuple[int, int]:
    """Nothing pending is processed or sent any more; schedules and timers end."""
    closed = session.execute(update(InboxItem).where(InboxItem.participant_id == pid, InboxItem.status == PENDING)
                             .values(status=DONE, processed_at=now)).rowcount  # type: ignore[attr-defined]
    dropped = session.execute(update(OutboxItem).where(
        OutboxItem.participant_id == pid, OutboxItem.status.in_((PENDING, SENDING)))  # type: ignore[attr-defined]
        .values(status=FAILED, last_error="erased")).rowcount  # type: ignore[attr-defined]
    session.execute(update(Schedule).where(Schedule.participant_id == pid).values(active=False, updated_at=now))
    session.execute(update(Timer).where(Timer.participant_id == pid, Timer.status == PENDING)
                    .values(status=CANCELLED, settled_at=now))
    return int(closed or 0), int(dropped or 0)


def _erase_identity(session: Session, person: Participant, now: datetime, by: str) -> None:
    session.execute(delete(LidMapping).where(or_(
        LidMapping.phone == person.phone, LidMapping.lid == (person.lid or "")))  # type: ignore[arg-type]
    )
    session.execute(update(Participant).where(Participant.id == person.id).values(  # type: ignore[arg-type]
        phone=tombstone_phone(person.id), name="", background="", lid=None, status=WITHDRAWN, opted_out=False,
        researcher_paused=False, paused_by=None, erased_at=now, erased_by=by, updated_at=now))
    session.add(Transition(participant_id=person.id, kind="status", name="erased_by_researcher",
                           from_value=person.status, to_value=WITHDRAWN, reason="", created_at=now))
    record_consent(session, person.id, [ConsentRecord("erased", "researcher", "", by)], now)
