"""The decision points: one ``decision`` row per daily prompt event."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert
from sqlalchemy.orm import Session

from promptpipe.storage.models import table_of
from promptpipe.storage.prepared import Prepared
from promptpipe.study.store.tables import Decision

__all__ = ["INSERT_DECISION", "DecisionValues", "record_decision"]

_DECISION = table_of(Decision)
INSERT_DECISION = Prepared(insert(_DECISION))
"""Run with ``vars(DecisionValues)``; a daily prompt's commit on PostgreSQL nests it in its delivery's statement."""


@dataclass(frozen=True)
class DecisionValues:
    """A ``decision`` row to write (columns: tables.Decision), plain: its ORM model cost more to build than the row."""

    participant_id: str
    inbox_id: int
    local_date: str
    decided_at: datetime
    local_time: str
    timezone: str
    available: bool
    action: str
    schedule_id: str | None = None
    arm: str | None = None
    study_day: int | None = None
    scheduled_for: datetime | None = None
    unavailable_reason: str | None = None
    probability: float | None = None
    draw: float | None = None
    seed_ref: str = ""
    prompt_message_id: int | None = None
    prompt_style: str | None = None
    model: str | None = None
    system_prompt_hash: str | None = None
    protocol_hash: str | None = None
    not_sent_reason: str | None = None


def record_decision(session: Session, decision: DecisionValues) -> None:
    """One decision point, with a statement built once (every daily prompt writes one)."""
    INSERT_DECISION.rows(session.connection(), vars(decision))
