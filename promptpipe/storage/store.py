"""Queries shared by the flow, the lanes, the outbox and the admin script.

Every function takes an open session (one transaction, run on the database thread by
:meth:`promptpipe.storage.db.Database.run`) so callers decide what commits together.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.storage.consent import ConsentRecord, record_consent
from promptpipe.storage.db import Database
from promptpipe.errors import StorageError
from promptpipe.storage.models import (
    ACTIVE,
    DONE,
    INTAKE,
    PENDING,
    Conversation,
    InboxItem,
    LidMapping,
    Message,
    OutboxItem,
    Participant,
    ToneEvent,
    Transition,
)
from promptpipe.storage.schedules import apply_timer_ops, load_pending_timers, load_schedules, save_schedules
from promptpipe.domain.conversation import HistoryEntry, ParticipantInfo, PendingTransition, TurnState
from promptpipe.domain.text import clean_for_storage
from promptpipe.domain.tone import ToneUpdate

HIDDEN_FROM_MODEL = ("apology",)
"""Transcript kinds the model does not see in its history."""

WA_ID = "wa_message_id"
"""Inbox payload key: the transport's id of the inbound message (for read receipts)."""


@dataclass
class InboxRow:
    """An inbox row as the lanes and the flow use it (a plain value, not an ORM object)."""

    id: int
    participant_id: str
    kind: str
    payload: dict[str, Any]
    message_id: int | None
    attempts: int
    available_at: datetime
    status: str = PENDING
    last_error: str | None = None

    @property
    def wa_message_id(self) -> str | None:
        """The WhatsApp id of the participant's message behind this row, if it came from WhatsApp."""
        value = self.payload.get(WA_ID) if isinstance(self.payload, dict) else None
        return value if isinstance(value, str) else None


_INBOX = InboxItem.__table__  # type: ignore[attr-defined]
_MESSAGE = Message.__table__  # type: ignore[attr-defined]
_OUTBOX = OutboxItem.__table__  # type: ignore[attr-defined]
_PENDING_INBOX = (
    select(_INBOX.c.id, _INBOX.c.participant_id, _INBOX.c.kind, _INBOX.c.payload, _INBOX.c.message_id,
           _INBOX.c.attempts, _INBOX.c.available_at, _INBOX.c.status, _INBOX.c.last_error)
    .where(_INBOX.c.participant_id == bindparam("pid"), _INBOX.c.status == PENDING)
    .order_by(_INBOX.c.id).limit(bindparam("limit"))
)
_INSERT_MESSAGE = insert(_MESSAGE).returning(_MESSAGE.c.id)
_INSERT_OUTBOX = insert(_OUTBOX)
_OUTBOX_KEY = select(_OUTBOX.c.id).where(_OUTBOX.c.key == bindparam("key"))


_PARTICIPANT = Participant.__table__  # type: ignore[attr-defined]
_CONVERSATION = Conversation.__table__  # type: ignore[attr-defined]
_SENDER_BY_PHONE = select(_PARTICIPANT.c.id, _PARTICIPANT.c.lid).where(_PARTICIPANT.c.phone == bindparam("phone"))
_SENDER_BY_LID = select(_PARTICIPANT.c.id, _PARTICIPANT.c.lid).where(_PARTICIPANT.c.lid == bindparam("lid")).limit(1)
_TURN_STATE = (
    select(_PARTICIPANT.c.id, _PARTICIPANT.c.phone, _PARTICIPANT.c.name, _PARTICIPANT.c.timezone,
           _PARTICIPANT.c.status, _PARTICIPANT.c.background, _PARTICIPANT.c.lid, _PARTICIPANT.c.paused_by,
           _PARTICIPANT.c.opted_out, _PARTICIPANT.c.researcher_paused, _CONVERSATION.c.sub_state, _CONVERSATION.c.profile, _CONVERSATION.c.version, _CONVERSATION.c.tone,
           _CONVERSATION.c.summary, _CONVERSATION.c.summary_through, _CONVERSATION.c.turns_since_summary)
    .join(_CONVERSATION, _CONVERSATION.c.participant_id == _PARTICIPANT.c.id)
    .where(_PARTICIPANT.c.id == bindparam("pid"))
)


@dataclass(frozen=True)
class SenderRef:
    """Who wrote: the participant's id and the LID we know for them."""

    id: str
    lid: str | None


def sender_by_phone(session: Session, phone: str) -> SenderRef | None:
    row = session.connection().execute(_SENDER_BY_PHONE, {"phone": phone}).first()
    return SenderRef(*row) if row else None


def sender_by_lid(session: Session, lid: str) -> SenderRef | None:
    row = session.connection().execute(_SENDER_BY_LID, {"lid": lid}).first()
    return SenderRef(*row) if row else None


def set_participant_lid(session: Session, participant_id: str, lid: str, now: datetime) -> None:
    session.connection().execute(update(Participant).where(Participant.id == participant_id).values(lid=lid, updated_at=now))


class VersionConflict(StorageError):
    """Someone else changed the conversation during the turn; the turn runs again."""


def new_participant_id() -> str:
    return "p_" + secrets.token_hex(8)


def participant_by_phone(session: Session, phone: str) -> Participant | None:
    return session.execute(select(Participant).where(Participant.phone == phone)).scalar_one_or_none()


def phone_for_lid(session: Session, lid: str) -> str | None:
    return session.connection().execute(select(LidMapping.phone).where(LidMapping.lid == lid)).scalar_one_or_none()


def remember_lid(session: Session, lid: str, phone: str, now: datetime) -> None:
    row = session.get(LidMapping, lid)
    if row is None:
        session.add(LidMapping(lid=lid, phone=phone, updated_at=now))
    elif row.phone != phone:
        row.phone, row.updated_at = phone, now


def create_participant(
    session: Session, *, phone: str, name: str, timezone: str, background: str, now: datetime, reason: str,
    source: str = "researcher", actor: str = "",
) -> Participant:
    participant = Participant(
        id=new_participant_id(), phone=phone, name=name, timezone=timezone, status=ACTIVE,
        background=background, enrolled_at=now, updated_at=now,
    )
    session.add(participant)
    session.flush()
    session.add(Conversation(participant_id=participant.id, sub_state=INTAKE, profile={}, tone={}, updated_at=now))
    session.add(Transition(participant_id=participant.id, kind="status", name="enrolled", from_value=None,
                           to_value=ACTIVE, reason=reason, created_at=now))
    session.flush()
    record_consent(session, participant.id, [ConsentRecord("enrolled", source, reason, actor)], now)
    return participant


def inbox_key_exists(session: Session, key: str) -> bool:
    return session.connection().execute(select(InboxItem.id).where(InboxItem.key == key)).first() is not None


def enqueue_inbox(
    db: Database, session: Session, *, key: str, participant_id: str, kind: str, now: datetime,
    payload: dict[str, Any] | None = None, message_id: int | None = None, status: str = PENDING,
) -> int | None:
    """Write an inbox row; returns its id, or None when the key was already there (a duplicate).
    ``status`` other than pending records an input that must not run (a missed prompt)."""
    values = {"key": key, "participant_id": participant_id, "kind": kind, "payload": payload or {},
              "message_id": message_id, "status": status, "attempts": 0, "available_at": now, "created_at": now,
              "processed_at": None, "last_error": None}
    return session.connection().execute(db.insert_ignore(InboxItem, ("key",)), values).scalar_one_or_none()


def add_inbound_message(
    session: Session, *, participant_id: str, text: str, now: datetime, wa_message_id: str | None,
    payload: dict[str, Any] | None = None, kind: str = "text",
) -> int:
    """The transcript row of an inbound message; returns its id. ``kind`` is ``text`` or what came
    without words (``voice``, ``image``…)."""
    return _insert_message(session, participant_id=participant_id, direction="in", role="user", kind=kind,
                           text=text, payload=payload or {}, wa_message_id=wa_message_id, status="received",
                           created_at=now)


def _insert_message(session: Session, **values: Any) -> int:
    values["text"] = clean_for_storage(values["text"])  # the last guard: any text, from anywhere
    values.setdefault("wa_message_id", None)
    values.setdefault("sent_at", None)
    return int(session.connection().execute(_INSERT_MESSAGE, values).scalar_one())


def queue_outgoing(
    session: Session, *, participant_id: str, key: str, text: str, now: datetime, kind: str = "text",
    payload: dict[str, Any] | None = None,
) -> int | None:
    """A transcript row plus its outbox row; returns the transcript id, or None when a message
    with this key was queued before."""
    if session.connection().execute(_OUTBOX_KEY, {"key": key}).first() is not None:
        return None
    message_id = _insert_message(session, participant_id=participant_id, direction="out", role="assistant",
                                 kind=kind, text=text, payload=payload or {}, status="queued", created_at=now)
    session.connection().execute(_INSERT_OUTBOX, {
        "key": key, "participant_id": participant_id, "message_id": message_id, "status": PENDING, "attempts": 0,
        "available_at": now, "created_at": now, "claimed_at": None, "sent_at": None, "wa_message_id": None,
        "last_error": None,
    })
    return message_id


def load_turn_state(session: Session, participant_id: str) -> TurnState:
    row = session.connection().execute(_TURN_STATE, {"pid": participant_id}).first()
    if row is None:
        raise StorageError(f"participant {participant_id} has no conversation row")
    (pid, phone, name, timezone, status, background, lid, paused_by, opted_out, researcher_paused, sub_state, profile,
     version, tone, summary, summary_through, turns_since_summary) = row
    info = ParticipantInfo(id=pid, phone=phone, name=name, timezone=timezone, status=status,
                           background=background, lid=lid, paused_by=paused_by, opted_out=bool(opted_out),
                           researcher_paused=bool(researcher_paused))
    return TurnState(participant=info, sub_state=sub_state, profile=dict(profile), version=version,
                     schedules=load_schedules(session, pid), pending_timers=load_pending_timers(session, pid),
                     tone=dict(tone or {}), summary=summary or "", summary_through=summary_through or 0,
                     turns_since_summary=turns_since_summary or 0)


def save_turn_state(session: Session, state: TurnState, now: datetime) -> None:
    """Write the working copy back if nobody else changed it meanwhile."""
    result = session.connection().execute(
        update(Conversation)
        .where(Conversation.participant_id == state.participant.id, Conversation.version == state.version)
        .values(sub_state=state.sub_state, profile=state.profile, tone=state.tone, summary=state.summary,
                summary_through=state.summary_through, turns_since_summary=state.turns_since_summary,
                version=state.version + 1, updated_at=now)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(f"conversation of {state.participant.id} changed during the turn")
    state.version += 1
    person = state.participant
    if (*state.status_facts, state.timezone) != (
        person.status, person.paused_by, person.opted_out, person.researcher_paused, person.timezone
    ):
        session.connection().execute(update(Participant).where(Participant.id == person.id).values(
            status=state.status, paused_by=state.paused_by, opted_out=state.opted_out,
            researcher_paused=state.researcher_paused, timezone=state.timezone, updated_at=now))
    record_consent(session, person.id, state.consent, now)
    state.consent.clear()
    save_schedules(session, state.participant.id, state.schedules, now)
    state.committed_timer_changes = apply_timer_ops(session, state.participant.id, state.timer_ops, now)
    state.timer_ops.clear()
    for change in state.transitions:
        session.add(_transition_row(state.participant.id, change, now))
    state.transitions.clear()
    for tone_update in state.tone_updates:
        session.add(_tone_event_row(state.participant.id, tone_update, now))
    state.tone_updates.clear()


def change_status_now(
    session: Session, participant_id: str, name: str, *, reason: str, now: datetime, actor: str = ""
) -> TurnState | None:
    """A researcher's status change, applied directly (it must show at once, service running or
    not). Bumps the conversation version so a turn that read the old status runs again. Returns
    the state after the change, or None when it changed nothing."""
    state = load_turn_state(session, participant_id)
    if not state.change_status(name, reason=reason, source="researcher", actor=actor, words=reason):
        return None
    save_turn_state(session, state, now)
    return state


def _transition_row(participant_id: str, change: PendingTransition, now: datetime) -> Transition:
    return Transition(participant_id=participant_id, kind=change.kind, name=change.name,
                      from_value=change.from_value, to_value=change.to_value, reason=change.reason, created_at=now)


def _tone_event_row(participant_id: str, update: ToneUpdate, now: datetime) -> ToneEvent:
    return ToneEvent(participant_id=participant_id, source=update.proposal.source, proposed=list(update.proposal.tags),
                     stripped=list(update.proposal.stripped), outcome=update.outcome,
                     active_before=list(update.before.active), active_after=list(update.after.active),
                     scores=dict(update.after.scores), created_at=now)


def history_before(
    session: Session, participant_id: str, before_id: int | None, limit: int, *, after_id: int = 0
) -> list[HistoryEntry]:
    """The last ``limit`` transcript messages older than ``before_id`` and newer than ``after_id``
    (what a summary already covers), oldest first."""
    if limit <= 0:
        return []
    query = select(Message.id, Message.role, Message.text).where(
        Message.participant_id == participant_id, Message.kind.not_in(HIDDEN_FROM_MODEL)  # type: ignore[attr-defined]
    )
    if before_id is not None:
        query = query.where(Message.id < before_id)  # type: ignore[operator]
    if after_id:
        query = query.where(Message.id > after_id)  # type: ignore[operator]
    rows = session.connection().execute(query.order_by(Message.id.desc()).limit(limit)).all()  # type: ignore[union-attr]
    return [HistoryEntry(role=role, text=text, id=row_id) for row_id, role, text in reversed(rows)]


def message_texts(session: Session, message_ids: list[int]) -> dict[int, str]:
    if not message_ids:
        return {}
    rows = session.connection().execute(select(Message.id, Message.text).where(Message.id.in_(message_ids))).all()  # type: ignore[union-attr]
    return {row_id: text for row_id, text in rows}


def pending_inbox(session: Session, participant_id: str, limit: int = 50) -> list[InboxRow]:
    rows = session.connection().execute(_PENDING_INBOX, {"pid": participant_id, "limit": limit}).all()
    return [InboxRow(*row) for row in rows]


def participants_with_due_inbox(session: Session, now: datetime, limit: int) -> list[str]:
    query = (select(InboxItem.participant_id).where(InboxItem.status == PENDING, InboxItem.available_at <= now)
             .group_by(InboxItem.participant_id).order_by(func.min(InboxItem.id)).limit(limit))
    return list(session.connection().execute(query).scalars().all())


ANSWERED, KEPT = "answered", "kept"
"""Transcript status of an inbound message once handled: answered, or kept without an answer
(the participant is paused or withdrawn, or wrote it just before or after STOP)."""


def mark_inbox_done(session: Session, items: list[InboxRow], now: datetime, *, message_status: str = ANSWERED) -> None:
    if not items:
        return
    ids = [item.id for item in items]
    session.connection().execute(update(InboxItem).where(InboxItem.id.in_(ids))  # type: ignore[union-attr]
                    .values(status=DONE, processed_at=now, last_error=None))
    message_ids = [item.message_id for item in items if item.message_id is not None]
    if message_ids:
        session.connection().execute(update(Message).where(Message.id.in_(message_ids)).values(status=message_status))  # type: ignore[union-attr]


def merge_inbox_payload(session: Session, item: InboxRow, **fields: Any) -> None:
    """Add keys to an inbox row's payload (e.g. that the safety screen flagged it)."""
    item.payload = {**item.payload, **fields}
    session.connection().execute(update(InboxItem).where(InboxItem.id == item.id).values(payload=item.payload))
