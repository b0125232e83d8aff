"""Reads for one participant's study day, each through an index and bounded, and who holds pauses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.questionnaires.store.reads import INSTANCE_COLUMNS, InstanceRow, instances_with_answers
from promptpipe.storage.models import Message, Participant, table_of
from promptpipe.study.store.tables import Decision, QuestionnaireInstance

__all__ = ["DayDecision", "DayMessage", "day_decisions", "day_messages", "day_questionnaires", "pause_holders"]

_P = table_of(Participant)
_M = table_of(Message)
_DECISION = table_of(Decision)
_INSTANCE = table_of(QuestionnaireInstance)
MAX_DAY_ROWS = 50
"""Decisions or questionnaires of one day beyond this are not shown (a day has a handful)."""


@dataclass(frozen=True)
class DayDecision:
    decided_at: datetime
    study_day: int | None
    arm: str | None
    available: bool
    unavailable_reason: str | None
    probability: float | None
    action: str
    prompt_style: str | None
    not_sent_reason: str | None


@dataclass(frozen=True)
class DayMessage:
    id: int
    at: datetime
    direction: str
    kind: str
    status: str
    text: str


def day_decisions(session: Session, participant_id: str, local_date: str) -> list[DayDecision]:
    d = _DECISION.c
    rows = session.execute(
        select(*(d[spec.name] for spec in fields(DayDecision)))
        .where(d.participant_id == participant_id, d.local_date == local_date)
        .order_by(d.id).limit(MAX_DAY_ROWS)).all()
    return [DayDecision(**row._asdict()) for row in rows]


def day_messages(session: Session, participant_id: str, start: datetime, end: datetime, *,
                 limit: int) -> tuple[list[DayMessage], bool]:
    """The first ``limit`` of their messages from ``start`` to before ``end``, and whether there were more."""
    m = _M.c
    rows = session.execute(
        select(m.id, m.created_at.label("at"), m.direction, m.kind, m.status, m.text)
        .where(m.participant_id == participant_id, m.created_at >= start, m.created_at < end)
        .order_by(m.created_at, m.id).limit(limit + 1)).all()
    return [DayMessage(**row._asdict()) for row in rows[:limit]], len(rows) > limit


def day_questionnaires(session: Session, participant_id: str, local_date: str) -> list[InstanceRow]:
    """The questionnaires planned for the participant's day, in the order they were due, with their items."""
    i = _INSTANCE.c
    return instances_with_answers(session, select(*(i[name] for name in INSTANCE_COLUMNS))
                                  .where(i.participant_id == participant_id, i.local_date == local_date)
                                  .order_by(i.scheduled_at, i.id).limit(MAX_DAY_ROWS))


def pause_holders(session: Session, participant_ids: Sequence[str]) -> dict[str, str]:
    """Who holds the pause of each paused participant among ``participant_ids``."""
    if not participant_ids:
        return {}
    rows = session.execute(select(_P.c.id, _P.c.paused_by)
                           .where(_P.c.id.in_(list(participant_ids)), _P.c.paused_by.is_not(None))).all()
    return {row.id: row.paused_by for row in rows}
