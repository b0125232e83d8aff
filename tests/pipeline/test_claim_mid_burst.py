"""A claim in the morning burst reads each candidate's own few unsent rows, whatever PostgreSQL's
statistics say. They were gathered on a quiet day (almost every outbox row sent), and the burst's
thousands of unsent rows came in seconds: the claim written with NOT EXISTS was planned from those
statistics into a join that read every unsent row for each candidate, so one claim of 200 rows
read 27 million rows and ran 162 s at 3,000 participants (`bench_several_services`' polls came
minutes late). Counted in rows the claim's plan really read, not in time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from promptpipe.domain.states import Status
from promptpipe.storage.models import Message, Participant, table_of
from promptpipe.storage.outbox_rows import CLAIM_BATCH, claim_statement
from promptpipe.storage.queue_tables import OutboxItem, OutboxStatus
from promptpipe.storage.urls import sync_url

PEOPLE = 300
HISTORY = 10
"""Sent messages per participant before the burst (the quiet day the statistics come from)."""
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _messages(first_id: int, count: int, status: str, each: int = 1) -> list[dict[str, Any]]:
    """``each`` messages in a row to one participant, then the next participant's."""
    return [{"id": first_id + i, "participant_id": f"p{i // each % PEOPLE:04d}", "direction": "out",
             "role": "assistant", "kind": "text", "text": "a prompt", "payload": {}, "status": status,
             "created_at": NOW} for i in range(count)]


def _outbox(messages: list[dict[str, Any]], status: str, available_at: datetime) -> list[dict[str, Any]]:
    return [{"key": f"m{m['id']}", "participant_id": m["participant_id"], "message_id": m["id"], "status": status,
             "attempts": 0, "available_at": available_at, "created_at": NOW} for m in messages]


def _rows_read(plan: dict[str, Any], table: str) -> float:
    """Rows the plan's scans of ``table`` returned, over all their loops."""
    own = plan["Actual Rows"] * plan["Actual Loops"] if plan.get("Relation Name") == table else 0
    return own + sum(_rows_read(child, table) for child in plan.get("Plans", []))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_claim_mid_burst_reads_each_candidate_s_own_rows_whatever_the_statistics_say(database_url: str) -> None:
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(table_of(Participant)), [
                {"id": f"p{i:04d}", "phone": f"+1416555{i:04d}", "name": "Someone", "timezone": "America/Toronto",
                 "status": Status.ACTIVE, "background": "", "enrolled_at": NOW, "updated_at": NOW}
                for i in range(PEOPLE)])
            sent = _messages(1, HISTORY * PEOPLE, "sent")
            conn.execute(sa.insert(table_of(Message)), sent)
            conn.execute(sa.insert(table_of(OutboxItem)), _outbox(sent, OutboxStatus.SENT, NOW - timedelta(days=1)))
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("ANALYZE"))
        burst = _messages(HISTORY * PEOPLE + 1, 2 * PEOPLE, "pending", each=2)  # a prompt and its poll each
        with engine.begin() as conn:
            conn.execute(sa.insert(table_of(Message)), burst)
            conn.execute(sa.insert(table_of(OutboxItem)), _outbox(burst, OutboxStatus.PENDING, NOW))
        claim = claim_statement(skip_locked=True).statement.compile(dialect=engine.dialect)
        params = {**{k: v for k, v in claim.params.items() if v is not None}, "now": NOW, "limit": CLAIM_BATCH}
        with engine.connect() as conn:
            conn.exec_driver_sql("SET plan_cache_mode = force_custom_plan")
            plan = conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {claim}", params).scalar_one()[0]["Plan"]
            claimed = conn.execute(sa.text(
                "SELECT participant_id, count(*) FROM outbox WHERE status = 'sending' GROUP BY participant_id")).all()
            conn.rollback()
        # each participant's prompt, not yet its poll
        assert len(claimed) == CLAIM_BATCH and {count for _, count in claimed} == {1}
        unsent = 2 * PEOPLE
        assert _rows_read(plan, "outbox") <= 4 * unsent, plan
    finally:
        engine.dispose()
