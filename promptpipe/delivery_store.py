"""Queries on ``prompt_delivery``: one row per daily prompt sent, and what became of it.

Each function takes an open session, so its writes commit with the turn that caused them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.models import Message, PromptDelivery
from promptpipe.outcomes import DeliveryFact, counters


_INSERT_DELIVERY = insert(PromptDelivery.__table__)  # type: ignore[attr-defined]


def record_delivery(
    session: Session, *, participant_id: str, inbox_id: int, schedule_id: str | None, local_date: str,
    prompt_text: str, prompt_message_id: int | None, poll_message_id: int | None, now: datetime,
) -> None:
    """The delivery row of a daily prompt, written in the commit of the prompt event (which runs
    once: a repeat of the event finds its inbox row done)."""
    session.connection().execute(_INSERT_DELIVERY, {
        "participant_id": participant_id, "inbox_id": inbox_id, "schedule_id": schedule_id, "local_date": local_date,
        "prompt_text": prompt_text, "prompt_message_id": prompt_message_id, "poll_message_id": poll_message_id,
        "sent_at": now, "vote": None, "voted_at": None, "vote_changes": 0, "replied_at": None, "reminder_at": None,
    })


def delivery_facts(session: Session, participant_id: str) -> list[DeliveryFact]:
    """Every delivery of the participant, oldest first, as the counters need them."""
    rows = session.connection().execute(
        select(PromptDelivery.local_date, PromptDelivery.vote)
        .where(PromptDelivery.participant_id == participant_id).order_by(PromptDelivery.id)  # type: ignore[arg-type]
    ).all()
    return [DeliveryFact(local_date=day, vote=vote) for day, vote in rows]


def with_counters(session: Session, participant_id: str, profile: dict[str, Any]) -> dict[str, Any]:
    """The profile with its counters recomputed from the delivery rows."""
    return {**profile, "counters": counters(delivery_facts(session, participant_id))}


@dataclass(frozen=True)
class VoteTarget:
    """The delivery a "did you do it?" vote is about."""

    delivery_id: int
    local_date: str
    vote: str | None
    is_latest: bool
    """Whether it is the participant's newest delivery (only that one's poll counts)."""


def vote_targets(session: Session, participant_id: str, poll_ids: list[int]) -> dict[int, VoteTarget]:
    """The deliveries some votes are about, by their poll's transcript id (polls without a
    delivery are left out)."""
    if not poll_ids:
        return {}
    connection = session.connection()
    latest = connection.execute(
        select(func.max(PromptDelivery.id)).where(PromptDelivery.participant_id == participant_id)
    ).scalar_one()
    rows = connection.execute(
        select(PromptDelivery.poll_message_id, PromptDelivery.id, PromptDelivery.local_date, PromptDelivery.vote)
        .where(PromptDelivery.participant_id == participant_id,
               PromptDelivery.poll_message_id.in_(poll_ids))  # type: ignore[union-attr]
    ).all()
    return {poll_id: VoteTarget(delivery_id=delivery_id, local_date=day, vote=vote, is_latest=delivery_id == latest)
            for poll_id, delivery_id, day, vote in rows}


def set_vote(session: Session, delivery_id: int, vote: str | None, now: datetime, *, changed: bool) -> None:
    values: dict[str, Any] = {"vote": vote, "voted_at": now}
    if changed:
        values["vote_changes"] = PromptDelivery.vote_changes + 1
    session.connection().execute(update(PromptDelivery).where(PromptDelivery.id == delivery_id).values(**values))


def mark_reminder_sent(session: Session, prompt_inbox_id: int, now: datetime) -> None:
    session.connection().execute(update(PromptDelivery).where(
        PromptDelivery.inbox_id == prompt_inbox_id, PromptDelivery.reminder_at.is_(None)  # type: ignore[union-attr]
    ).values(reminder_at=now))


def mark_first_reply(session: Session, participant_id: str, now: datetime) -> None:
    """A written message: the newest delivery has had its first reply (if it had none yet)."""
    latest = (select(func.max(PromptDelivery.id)).where(PromptDelivery.participant_id == participant_id)
              .scalar_subquery())
    session.connection().execute(update(PromptDelivery).where(
        PromptDelivery.id == latest, PromptDelivery.replied_at.is_(None)  # type: ignore[union-attr]
    ).values(replied_at=now))


def annotate_message(session: Session, message_id: int, **fields: Any) -> None:
    """Add keys to a transcript message's payload (e.g. how a vote was handled)."""
    payload = session.connection().execute(select(Message.payload).where(Message.id == message_id)).scalar_one_or_none()
    if payload is None:
        return
    session.connection().execute(update(Message).where(Message.id == message_id).values(payload={**payload, **fields}))
