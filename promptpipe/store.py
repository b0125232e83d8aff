"""Queries shared by the flow, the lanes, the outbox and the admin script.

Every function takes an open session (one transaction) so callers decide what commits together.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from promptpipe.db import Database
from promptpipe.errors import StorageError
from promptpipe.models import (
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
    Transition,
)
from promptpipe.state import HistoryEntry, ParticipantInfo, PendingTransition, TurnState

HIDDEN_FROM_MODEL = ("apology",)
"""Transcript kinds the model does not see in its history."""


class VersionConflict(StorageError):
    """Someone else changed the conversation during the turn; the turn runs again."""


def new_participant_id() -> str:
    return "p_" + secrets.token_hex(8)


async def participant_by_phone(session: AsyncSession, phone: str) -> Participant | None:
    return (await session.exec(select(Participant).where(Participant.phone == phone))).first()


async def participant_by_lid(session: AsyncSession, lid: str) -> Participant | None:
    return (await session.exec(select(Participant).where(Participant.lid == lid))).first()


async def phone_for_lid(session: AsyncSession, lid: str) -> str | None:
    row = await session.get(LidMapping, lid)
    return row.phone if row else None


async def remember_lid(session: AsyncSession, lid: str, phone: str, now: datetime) -> None:
    row = await session.get(LidMapping, lid)
    if row is None:
        session.add(LidMapping(lid=lid, phone=phone, updated_at=now))
    elif row.phone != phone:
        row.phone, row.updated_at = phone, now
        session.add(row)


async def create_participant(
    session: AsyncSession, *, phone: str, name: str, timezone: str, background: str, now: datetime, reason: str
) -> Participant:
    participant = Participant(
        id=new_participant_id(), phone=phone, name=name, timezone=timezone, status=ACTIVE,
        background=background, enrolled_at=now, updated_at=now,
    )
    session.add(participant)
    await session.flush()
    session.add(Conversation(participant_id=participant.id, sub_state=INTAKE, profile={}, tone={}, updated_at=now))
    session.add(Transition(participant_id=participant.id, kind="status", name="enrolled", from_value=None,
                           to_value=ACTIVE, reason=reason, created_at=now))
    await session.flush()
    return participant


async def enqueue_inbox(
    db: Database, session: AsyncSession, *, key: str, participant_id: str, kind: str, now: datetime,
    payload: dict[str, Any] | None = None, message_id: int | None = None,
) -> int | None:
    """Write an inbox row; returns its id, or None when the key was already there (a duplicate)."""
    stmt = db.insert_ignore(
        InboxItem,
        {"key": key, "participant_id": participant_id, "kind": kind, "payload": payload or {},
         "message_id": message_id, "status": PENDING, "attempts": 0, "available_at": now, "created_at": now},
        ["key"],
    )
    return (await session.exec(stmt)).scalar_one_or_none()  # type: ignore[call-overload]


async def add_inbound_message(
    session: AsyncSession, *, participant_id: str, text: str, now: datetime, wa_message_id: str | None,
    payload: dict[str, Any] | None = None,
) -> Message:
    message = Message(participant_id=participant_id, direction="in", role="user", kind="text", text=text,
                      payload=payload or {}, wa_message_id=wa_message_id, status="received", created_at=now)
    session.add(message)
    await session.flush()
    return message


async def queue_outgoing(
    session: AsyncSession, *, participant_id: str, key: str, text: str, now: datetime, kind: str = "text",
    payload: dict[str, Any] | None = None,
) -> Message | None:
    """A transcript row plus its outbox row; None when a message with this key was queued before."""
    existing = (await session.exec(select(OutboxItem.id).where(OutboxItem.key == key))).first()
    if existing is not None:
        return None
    message = Message(participant_id=participant_id, direction="out", role="assistant", kind=kind, text=text,
                      payload=payload or {}, status="queued", created_at=now)
    session.add(message)
    await session.flush()
    assert message.id is not None
    session.add(OutboxItem(key=key, participant_id=participant_id, message_id=message.id, status=PENDING,
                           available_at=now, created_at=now))
    await session.flush()
    return message


async def load_turn_state(session: AsyncSession, participant_id: str) -> TurnState:
    participant = await session.get(Participant, participant_id)
    conversation = await session.get(Conversation, participant_id)
    if participant is None or conversation is None:
        raise StorageError(f"participant {participant_id} has no conversation row")
    info = ParticipantInfo(
        id=participant.id, phone=participant.phone, name=participant.name, timezone=participant.timezone,
        status=participant.status, background=participant.background, lid=participant.lid,
    )
    return TurnState(participant=info, sub_state=conversation.sub_state, profile=dict(conversation.profile),
                     version=conversation.version)


async def save_turn_state(session: AsyncSession, state: TurnState, now: datetime) -> None:
    """Write the working copy back if nobody else changed it meanwhile."""
    result = await session.exec(  # type: ignore[call-overload]
        update(Conversation)
        .where(col(Conversation.participant_id) == state.participant.id, col(Conversation.version) == state.version)
        .values(sub_state=state.sub_state, profile=state.profile, version=state.version + 1, updated_at=now)
    )
    if result.rowcount != 1:
        raise VersionConflict(f"conversation of {state.participant.id} changed during the turn")
    state.version += 1
    for change in state.transitions:
        session.add(_transition_row(state.participant.id, change, now))
    state.transitions.clear()


def _transition_row(participant_id: str, change: PendingTransition, now: datetime) -> Transition:
    return Transition(participant_id=participant_id, kind=change.kind, name=change.name,
                      from_value=change.from_value, to_value=change.to_value, reason=change.reason, created_at=now)


async def history_before(session: AsyncSession, participant_id: str, before_id: int | None, limit: int) -> list[HistoryEntry]:
    """The last ``limit`` transcript messages older than ``before_id`` (oldest first)."""
    if limit <= 0:
        return []
    query = select(Message).where(Message.participant_id == participant_id,
                                  col(Message.kind).not_in(HIDDEN_FROM_MODEL))
    if before_id is not None:
        query = query.where(col(Message.id) < before_id)
    rows = (await session.exec(query.order_by(col(Message.id).desc()).limit(limit))).all()
    return [HistoryEntry(role=row.role, text=row.text) for row in reversed(rows)]


async def pending_inbox(session: AsyncSession, participant_id: str, limit: int = 50) -> list[InboxItem]:
    query = (select(InboxItem).where(InboxItem.participant_id == participant_id, InboxItem.status == PENDING)
             .order_by(col(InboxItem.id)).limit(limit))
    return list((await session.exec(query)).all())


async def participants_with_due_inbox(session: AsyncSession, now: datetime, limit: int) -> list[str]:
    query = (select(InboxItem.participant_id).where(InboxItem.status == PENDING, col(InboxItem.available_at) <= now)
             .group_by(col(InboxItem.participant_id)).order_by(func.min(InboxItem.id)).limit(limit))
    return list((await session.exec(query)).all())


async def mark_inbox_done(session: AsyncSession, items: list[InboxItem], now: datetime) -> None:
    ids = [item.id for item in items]
    await session.exec(update(InboxItem).where(col(InboxItem.id).in_(ids))  # type: ignore[call-overload]
                       .values(status=DONE, processed_at=now, last_error=None))
    message_ids = [item.message_id for item in items if item.message_id is not None]
    if message_ids:
        await session.exec(update(Message).where(col(Message.id).in_(message_ids))  # type: ignore[call-overload]
                           .values(status="answered"))
