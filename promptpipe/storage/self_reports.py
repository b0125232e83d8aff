"""The end-of-day self-reports: the question of each local day and its answer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from promptpipe.storage.models import table_of
from promptpipe.storage.study_tables import SelfReportRow

__all__ = ["SelfReportAsk", "record_answer", "record_question", "self_report_asks"]

_REPORT = table_of(SelfReportRow)


@dataclass(frozen=True)
class SelfReportAsk:
    local_date: str
    asked_at: datetime
    answer: str | None


def record_question(session: Session, participant_id: str, local_date: str, poll_message_id: int | None,
                    now: datetime) -> None:
    """The day's question went out (a day asks once: a repeat is ignored)."""
    conn = session.connection()
    stmt: Any = pg_insert(_REPORT) if conn.dialect.name == "postgresql" else sqlite_insert(_REPORT)
    conn.execute(stmt.values(participant_id=participant_id, local_date=local_date, poll_message_id=poll_message_id,
                             asked_at=now).on_conflict_do_nothing(index_elements=["participant_id", "local_date"]))


def self_report_asks(session: Session, participant_id: str, poll_ids: list[int]) -> dict[int, SelfReportAsk]:
    """The self-report questions among these polls (by transcript id)."""
    if not poll_ids:
        return {}
    rows = session.connection().execute(
        select(_REPORT.c.poll_message_id, _REPORT.c.local_date, _REPORT.c.asked_at, _REPORT.c.answer)
        .where(_REPORT.c.participant_id == participant_id, _REPORT.c.poll_message_id.in_(poll_ids))).all()
    return {poll_id: SelfReportAsk(day, asked_at, answer) for poll_id, day, asked_at, answer in rows}


def record_answer(session: Session, poll_message_id: int, answer: str | None, now: datetime) -> None:
    """The participant's answer (None: they took it back)."""
    session.connection().execute(update(_REPORT).where(_REPORT.c.poll_message_id == poll_message_id).values(
        answer=answer, answered_at=now if answer is not None else None))
