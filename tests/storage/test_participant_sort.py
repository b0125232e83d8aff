"""The participant list sorted by adherence (``sort=answered`` in the API, the participant list
and the adherence heatmap): the share of a participant's daily prompts answered (a vote or a
reply), lowest or highest first, those sent none last either way, ties by id."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from sqlalchemy.orm import Session

from promptpipe.domain.participant_filter import ParticipantFilter, ParticipantSort
from promptpipe.storage.db import Database
from promptpipe.storage.models import Conversation, Participant
from promptpipe.storage.participant_list import participant_page
from promptpipe.storage.prompt_tables import PromptDelivery

T0 = datetime(2026, 3, 2, 13, 0, tzinfo=timezone.utc)
OUTCOMES: dict[str, list[dict[str, Any]]] = {
    "p-half": [{"vote": "done", "voted_at": T0}, {}],
    "p-all": [{"replied_at": T0}, {"vote": "not_this_time", "voted_at": T0}],
    "p-none-sent": [],
    "p-zero": [{}],
    "p-also-half": [{}, {"replied_at": T0}],
}


async def test_sorting_by_the_share_of_prompts_answered(db: Database) -> None:
    def write(session: Any) -> None:
        session.add_all([Participant(id=pid, phone=f"+14165550{150 + number}", name=pid, timezone="UTC",
                                     enrolled_at=T0, updated_at=T0) for number, pid in enumerate(OUTCOMES)])
        session.flush()
        session.add_all([Conversation(participant_id=pid, updated_at=T0) for pid in OUTCOMES])
        session.add_all([PromptDelivery(participant_id=pid, inbox_id=100 * number + day, schedule_id="s1",
                                        local_date=f"2026-03-0{day + 2}", prompt_text="Walk", sent_at=T0, **outcome)
                         for number, (pid, days) in enumerate(OUTCOMES.items()) for day, outcome in enumerate(days)])

    await db.run(write)

    async def order(key: str) -> list[str]:
        rows = await db.run(lambda session: participant_page(session, ParticipantFilter(), ParticipantSort.parse(key),
                                                             limit=50, offset=0, now=T0))
        return [row.id for row in rows]

    assert await order("answered") == ["p-zero", "p-also-half", "p-half", "p-all", "p-none-sent"]
    assert await order("-answered") == ["p-all", "p-also-half", "p-half", "p-zero", "p-none-sent"]


async def test_the_answered_share_is_read_from_an_index_alone(db: Database, database_url: str) -> None:
    """Sorting 10,000 participants by it reads every participant's prompts: from the index
    (participant_id, id, vote, replied_at) that takes ~50 ms on SQLite, from the table ~110 ms."""
    if not database_url.startswith("sqlite"):
        pytest.skip("reads SQLite's plan; PostgreSQL plans by its statistics")

    found = await db.run(lambda session: _plan(session, "-answered", "avg("))
    assert "USING COVERING INDEX ix_prompt_delivery_participant_answers" in found, found


async def test_a_page_in_enrollment_order_is_read_off_an_index_not_a_sort_of_everyone(db: Database,
                                                                                     database_url: str) -> None:
    """The list's default order (the API's and the dashboard's first page): without an index on
    (enrolled_at, id), every request sorted all 10,000 participants to show 50 (~3.4 of a
    request's ~14 ms of server time)."""
    if not database_url.startswith("sqlite"):
        pytest.skip("reads SQLite's plan; PostgreSQL plans by its statistics")

    found = await db.run(lambda session: _plan(session, "enrolled", "ORDER BY"))
    assert "ix_participant_enrolled" in found and "TEMP B-TREE" not in found, found


def _plan(session: Session, sort: str, marker: str) -> str:
    """SQLite's plan of the first statement a page in this order runs that holds ``marker``."""
    raw = session.connection().connection.dbapi_connection
    statements: list[str] = []
    raw.set_trace_callback(statements.append)  # type: ignore[union-attr]
    try:
        participant_page(session, ParticipantFilter(), ParticipantSort.parse(sort), limit=50, offset=0, now=T0)
    finally:
        raw.set_trace_callback(None)  # type: ignore[union-attr]
    chosen = next(statement for statement in statements if marker in statement)
    return " | ".join(row[-1] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {chosen}"))
