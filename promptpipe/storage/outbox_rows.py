"""Queries on ``outbox``: claiming due sends, settling sends a crash interrupted, and recording
what each send became (with its transcript row)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, exists, select, update
from sqlalchemy.orm import Session, aliased

from promptpipe.storage.models import PENDING, SENDING, UNCERTAIN, Message, OutboxItem, Participant, table_of

__all__ = ["CLAIM_BATCH", "Claimed", "claim_due", "claim_statement", "record_sends", "settle_interrupted"]

CLAIM_BATCH = 200
_OUTBOX = table_of(OutboxItem)
_MESSAGE = table_of(Message)
_PARTICIPANT = table_of(Participant)


@dataclass(frozen=True)
class Claimed:
    """An outbox row being sent, with what the transport needs."""

    id: int
    key: str
    participant_id: str
    message_id: int
    attempts: int
    kind: str
    text: str
    payload: dict[str, Any]
    phone: str
    lid: str | None


def claim_statement(*, skip_locked: bool) -> Any:
    """``UPDATE outbox SET status='sending' … WHERE id IN (due rows whose participant has no
    earlier unsent row) RETURNING id``; built once, run with the ``now`` parameter."""
    earlier = aliased(OutboxItem)
    blocked = exists().where(
        and_(earlier.participant_id == OutboxItem.participant_id, earlier.id < OutboxItem.id,
             earlier.status.in_((PENDING, SENDING)))  # type: ignore[attr-defined]
    )
    due = (
        select(OutboxItem.id)
        .where(OutboxItem.status == PENDING, OutboxItem.available_at <= bindparam("now"), ~blocked)
        .order_by(OutboxItem.id)
        .limit(CLAIM_BATCH)
    )
    if skip_locked:
        due = due.with_for_update(skip_locked=True)
    return (
        update(OutboxItem).where(OutboxItem.id.in_(due.scalar_subquery()))  # type: ignore[union-attr]
        .values(status=SENDING, claimed_at=bindparam("now"), attempts=OutboxItem.attempts + 1)
        .returning(OutboxItem.id)
    )


_CLAIMED_DETAILS = (
    select(OutboxItem.id, OutboxItem.key, OutboxItem.participant_id, OutboxItem.message_id, OutboxItem.attempts,
           Message.kind, Message.text, Message.payload, Participant.phone, Participant.lid)
    .join(Message, Message.id == OutboxItem.message_id)
    .join(Participant, Participant.id == OutboxItem.participant_id)
    .where(OutboxItem.id.in_(bindparam("ids", expanding=True)))  # type: ignore[union-attr]
    .order_by(OutboxItem.id)
)


def claim_due(session: Session, statement: Any, now: datetime) -> list[Claimed]:
    """Mark due rows *sending* (one statement, built by :func:`claim_statement`) and read what is
    needed to send them."""
    ids = list(session.connection().execute(statement, {"now": now}).scalars())
    if not ids:
        return []
    return [Claimed(*row) for row in session.connection().execute(_CLAIMED_DETAILS, {"ids": ids}).all()]


def settle_interrupted(session: Session, target: str) -> list[tuple[int, str]]:
    """Rows a crash left in *sending* become ``target`` (pending again, or uncertain with their
    transcript row); returns (outbox id, participant id) of each."""
    rows = session.connection().execute(
        select(_OUTBOX.c.id, _OUTBOX.c.participant_id, _OUTBOX.c.message_id).where(_OUTBOX.c.status == SENDING)).all()
    for outbox_id, _, message_id in rows:
        session.connection().execute(update(_OUTBOX).where(_OUTBOX.c.id == outbox_id).values(
            status=target, last_error="interrupted by a restart while sending"))
        if target == UNCERTAIN:
            session.connection().execute(update(_MESSAGE).where(_MESSAGE.c.id == message_id).values(status=UNCERTAIN))
    return [(outbox_id, participant_id) for outbox_id, participant_id, _ in rows]


def record_sends(session: Session, outcomes: Sequence[tuple[int, int, dict[str, object], dict[str, object]]]) -> None:
    """For each send: (outbox id, transcript id, outbox values, transcript values) in one transaction."""
    for outbox_id, message_id, values, message_values in outcomes:
        session.connection().execute(update(_OUTBOX).where(_OUTBOX.c.id == outbox_id).values(**values))
        if message_values:
            session.connection().execute(update(_MESSAGE).where(_MESSAGE.c.id == message_id).values(**message_values))
