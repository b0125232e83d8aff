"""Aggregates researchers watch a study by; every query is bounded by a day range or a page of participants."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from promptpipe.domain.states import Vote
from promptpipe.storage.models import Conversation, Message, Participant, Receipt, table_of
from promptpipe.storage.prompt_tables import PromptDayCounts, PromptDelivery
from promptpipe.storage.receipts import receipt_columns

__all__ = ["DayCounts", "HeatmapDelivery", "day_counts", "deliveries_for_heatmap", "participant_counts",
           "participant_deliveries", "prompt_counts"]

_P = table_of(Participant)
_C = table_of(Conversation)
_M = table_of(Message)
_D = table_of(PromptDelivery)
_R = table_of(Receipt)
_COUNTS = table_of(PromptDayCounts)


def participant_counts(session: Session) -> list[tuple[str, str, str | None, int]]:
    """(status, stage, arm, participants) for every combination that occurs."""
    rows = session.execute(select(_P.c.status, _C.c.sub_state, _P.c.arm, func.count())
                           .select_from(_P.join(_C, _C.c.participant_id == _P.c.id))
                           .group_by(_P.c.status, _C.c.sub_state, _P.c.arm)).all()
    return [(status, stage, arm, int(count)) for status, stage, arm, count in rows]


@dataclass(frozen=True)
class DayCounts:
    local_date: str
    arm: str | None
    sent: int
    delivered: int
    read: int
    answered: int
    done: int


def prompt_counts(session: Session, *, first_day: str | None = None, last_day: str | None = None,
                  sent_since: datetime | None = None, by_day: bool = True) -> list[DayCounts]:
    """Daily prompts per participant-local day (or all together) and arm: sent, delivered, read, answered, done."""
    def total(condition: Any) -> Any:
        return func.sum(case((condition, 1), else_=0))

    # one index seek per prompt message: NULL without a receipt, 0 delivered only, 1 read (or played)
    receipt = (select(func.max(case((_R.c.kind != "delivered", 1), else_=0)))
               .where(_R.c.wa_message_id == _M.c.wa_message_id).scalar_subquery())
    rows = (select(_D.c.local_date, _D.c.participant_id, _D.c.vote, _D.c.replied_at, receipt.label("receipt"))
            .select_from(_D.outerjoin(_M, _M.c.id == _D.c.prompt_message_id)))
    if first_day is not None:
        rows = rows.where(_D.c.local_date >= first_day)
    if last_day is not None:
        rows = rows.where(_D.c.local_date <= last_day)
    if sent_since is not None:
        rows = rows.where(_D.c.sent_at >= sent_since)
    d = rows.offset(0).subquery()  # OFFSET keeps SQLite from inlining it (the seek would run twice)
    day = d.c.local_date if by_day else func.min(d.c.local_date)
    query = (select(day, _P.c.arm, func.count(), total(d.c.receipt.is_not(None)), total(d.c.receipt == 1),
                    total(or_(d.c.vote.is_not(None), d.c.replied_at.is_not(None))), total(d.c.vote == Vote.DONE))
             .select_from(d.join(_P, _P.c.id == d.c.participant_id)))
    query = query.group_by(d.c.local_date, _P.c.arm) if by_day else query.group_by(_P.c.arm)
    order = [d.c.local_date, _P.c.arm] if by_day else [_P.c.arm]
    return [DayCounts(str(row[0]), row[1], *(int(value or 0) for value in row[2:]))
            for row in session.execute(query.order_by(*order))]


def day_counts(session: Session, *, first_day: str, last_day: str) -> list[DayCounts]:
    """What :func:`prompt_counts` finds by day, from the rollup the database keeps (a day and arm's shards summed)."""
    c = _COUNTS.c
    rows = session.execute(
        select(c.local_date, c.arm, *(func.sum(count) for count in (c.sent, c.delivered, c.read, c.answered, c.done)))
        .where(c.local_date >= first_day, c.local_date <= last_day).group_by(c.local_date, c.arm)
        .having(func.sum(c.sent) > 0).order_by(c.local_date, c.arm)).all()
    return [DayCounts(day, arm or None, *(int(count) for count in counts)) for day, arm, *counts in rows]


@dataclass(frozen=True)
class HeatmapDelivery:
    participant_id: str
    local_date: str
    vote: str | None
    replied_at: datetime | None
    reminder_at: datetime | None
    sent_at: datetime
    receipts_expected: bool
    delivered_at: datetime | None


def deliveries_for_heatmap(session: Session, participant_ids: Sequence[str]) -> list[HeatmapDelivery]:
    if not participant_ids:
        return []
    delivered = receipt_columns(lambda r: r.c.wa_message_id == _M.c.wa_message_id)[0]
    rows = session.execute(
        select(_D.c.participant_id, _D.c.local_date, _D.c.vote, _D.c.replied_at, _D.c.reminder_at, _D.c.sent_at,
               _M.c.receipts_expected, delivered)
        .select_from(_D.outerjoin(_M, and_(_M.c.id == _D.c.prompt_message_id)))
        .where(_D.c.participant_id.in_(list(participant_ids))).order_by(_D.c.participant_id, _D.c.id)).all()
    return [HeatmapDelivery(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]), row[7]) for row in rows]


@dataclass(frozen=True)
class SentPrompt:
    local_date: str
    sent_at: datetime
    vote: str | None
    vote_source: str | None
    replied_at: datetime | None
    reminder_at: datetime | None
    prompt_text: str | None
    receipts_expected: bool
    delivered_at: datetime | None
    read_at: datetime | None


def participant_deliveries(session: Session, participant_id: str) -> list[SentPrompt]:
    """One participant's daily prompts, oldest first, with their receipts."""
    delivered, read, _ = receipt_columns(lambda r: r.c.wa_message_id == _M.c.wa_message_id)
    rows = session.execute(
        select(_D.c.local_date, _D.c.sent_at, _D.c.vote, _D.c.vote_source, _D.c.replied_at, _D.c.reminder_at,
               _D.c.prompt_text, _M.c.receipts_expected, delivered, read)
        .select_from(_D.outerjoin(_M, _M.c.id == _D.c.prompt_message_id))
        .where(_D.c.participant_id == participant_id).order_by(_D.c.id)).all()
    return [SentPrompt(*row[:7], bool(row[7]), row[8], row[9]) for row in rows]
