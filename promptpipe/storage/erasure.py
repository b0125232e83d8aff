"""Erasing one participant's personal data, table by table (what stays and why: :mod:`promptpipe.research.erasure`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.profile import Profile
from promptpipe.questionnaires.store.writes import erase_typed_answers
from promptpipe.storage.access_tables import AuditEntry
from promptpipe.storage.models import (
    ConsentEvent,
    Conversation,
    Flag,
    LidMapping,
    Message,
    Participant,
    Transition,
    table_of,
)
from promptpipe.storage.outbox_consent import cancel_queued
from promptpipe.storage.prompt_tables import PromptDelivery, Schedule
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus, Timer, TimerStatus
from promptpipe.storage.receipts import forget_receipts
from promptpipe.storage.service_status import LAST_MODEL_ERROR, ModelError, read_statuses, save_status
from promptpipe.storage.suppression import suppress

_CONVERSATION = table_of(Conversation)
_INBOX = table_of(InboxItem)
_LIDS = table_of(LidMapping)
_MESSAGE = table_of(Message)
_OUTBOX = table_of(OutboxItem)
_PARTICIPANT = table_of(Participant)
_SCHEDULE = table_of(Schedule)
_TIMER = table_of(Timer)

__all__ = ["KEPT_AUDIT_KEYS", "KEPT_PAYLOAD_KEYS", "erase_identity", "erase_texts", "stop_everything",
           "tombstone_phone"]

ERASED_INPUT = "closed: the participant's data was erased"
"""Why an input still waiting was closed (its message is not answered: see storage/mirrors.py)."""
ERASED_OUTPUT = "cancelled: the participant's data was erased"

KEPT_AUDIT_KEYS = ("changed", "fields", "status", "timezone", "inbox_id", "chars", "arm", "flag_id")
"""What stays of an audit entry's detail: the kind of change, never a researcher's free text (it may name them)."""

KEPT_PAYLOAD_KEYS = ("purpose", "handled_as", "options", "selected", "known_poll", "manual")
"""What stays of a message's payload: which poll, our options and the one chosen, how a vote was handled; never text."""


def tombstone_phone(participant_id: str) -> str:
    """What takes the place of the phone (the column is unique): cannot be mistaken for a number."""
    return f"erased:{participant_id}"


def erase_texts(session: Session, pid: str, now: datetime) -> int:
    """Every text of theirs, and every payload that may quote them."""
    rows = session.execute(select(_MESSAGE.c.id, _MESSAGE.c.payload, _MESSAGE.c.wa_message_id)
                           .where(_MESSAGE.c.participant_id == pid)).all()
    forget_receipts(session, [wa_id for _, _, wa_id in rows])
    for message_id, payload, _ in rows:
        kept = {key: value for key, value in (payload or {}).items() if key in KEPT_PAYLOAD_KEYS}
        session.execute(update(Message).where(_MESSAGE.c.id == message_id).values(
            text="", payload=kept, wa_message_id=None))
    conversation = session.get(Conversation, pid)
    if conversation is not None:
        profile = Profile.from_json(conversation.profile).erased().to_json()
        session.execute(update(Conversation).where(_CONVERSATION.c.participant_id == pid).values(
            profile=profile, summary="", version=_CONVERSATION.c.version + 1, updated_at=now))
    for model, values in (
        (PromptDelivery, {"prompt_text": ""}),
        (ConsentEvent, {"words": ""}),
        (Flag, {"trigger": "", "resolution_note": ""}),
        (Transition, {"reason": ""}),
        (Timer, {"payload": {}, "reason": ""}),
        (InboxItem, {"payload": {}, "last_error": None}),
        (OutboxItem, {"last_error": None}),
    ):
        table = table_of(model)
        session.execute(update(table).where(table.c.participant_id == pid).values(**values))
    erase_typed_answers(session, pid)
    _erase_audit_details(session, pid)
    _strip_model_error(session, now)
    return len(rows)


def _erase_audit_details(session: Session, pid: str) -> None:
    audit = table_of(AuditEntry)
    for entry_id, detail in session.execute(select(audit.c.id, audit.c.detail).where(audit.c.participant_id == pid)):
        kept = {key: value for key, value in (detail or {}).items() if key in KEPT_AUDIT_KEYS}
        if kept != detail:
            session.execute(update(audit).where(audit.c.id == entry_id).values(detail=kept))


def _strip_model_error(session: Session, now: datetime) -> None:
    """The last model error (a provider's message may quote anyone's words) keeps only its time and kind."""
    status = read_statuses(session).get(LAST_MODEL_ERROR)
    if status is not None and set(status.value) - {"at", "type"}:
        value: ModelError = {"at": status.value.get("at"), "type": status.value.get("type"),
                 "error": f"{status.value.get('type', 'error')} (its text was removed by an erasure)"}
        save_status(session, LAST_MODEL_ERROR, value, now)


def stop_everything(session: Session, pid: str, now: datetime) -> tuple[int, int]:
    """Nothing pending is processed or sent any more; schedules and timers end."""
    conn = session.connection()
    closed = conn.execute(update(_INBOX).where(_INBOX.c.participant_id == pid, _INBOX.c.status == InboxStatus.PENDING)
                          .values(status=InboxStatus.DONE, processed_at=now, last_error=ERASED_INPUT)).rowcount
    waiting = cancel_queued(session, select(_OUTBOX.c.message_id).where(  # never sent: cancelled
        _OUTBOX.c.participant_id == pid, _OUTBOX.c.status == OutboxStatus.PENDING), ERASED_OUTPUT)
    in_flight = conn.execute(update(_OUTBOX).where(_OUTBOX.c.participant_id == pid,
                                                   _OUTBOX.c.status == OutboxStatus.SENDING)
                             .values(status=OutboxStatus.FAILED, last_error="erased")).rowcount
    session.execute(update(Schedule).where(_SCHEDULE.c.participant_id == pid).values(active=False, updated_at=now))
    session.execute(update(Timer).where(_TIMER.c.participant_id == pid, _TIMER.c.status == TimerStatus.PENDING)
                    .values(status=TimerStatus.CANCELLED, settled_at=now))
    return int(closed or 0), waiting + int(in_flight or 0)


def erase_identity(session: Session, person: Participant, now: datetime, by: str) -> None:
    """The participant row becomes a tombstone (the caller's ``erased_by_researcher`` withdrew them and logged it)."""
    if person.opted_out:  # the person behind the number said STOP: that outlives the erasure
        suppress(session, person.phone, since=person.own_consent_at or person.updated_at, now=now)
    session.execute(delete(LidMapping).where(or_(
        _LIDS.c.phone == person.phone, _LIDS.c.lid == (person.lid or ""))))
    session.execute(update(Participant).where(_PARTICIPANT.c.id == person.id).values(
        phone=tombstone_phone(person.id), name="", background="", lid=None, opted_out=False,
        researcher_paused=False, paused_by=None, erased_at=now, erased_by=by, updated_at=now))
