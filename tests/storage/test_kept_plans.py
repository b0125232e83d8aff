"""PostgreSQL: a young study's tables grow from a few rows to thousands in its first morning's burst, far faster than
autovacuum analyses them again, and the plans PostgreSQL keeps for a statement run over and over (psycopg prepares it
after five runs; PL/pgSQL keeps its triggers' plans) were made for the tables as they were. Two such plans read a
whole table on every prompt: the check that a message's key was not queued before (the outbox) and the trigger that
finds the deliveries of a message sent (``prompt_delivery``); a 10,000-prompt burst read ~150 M rows so. A prompt
queued, recorded and sent now reads those tables by index, whatever plan is kept and however much they grew."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import psycopg
import pytest
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session

from promptpipe.storage.deliveries import record_delivery
from promptpipe.storage.outbox_rows import record_sends
from promptpipe.storage.participants import NewParticipant, create_participant
from promptpipe.storage.transcript import ToSend, queue_messages
from promptpipe.storage.urls import sync_url
from tests.conftest import POSTGRES_ENV
from tests.databases import PostgresDatabases

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
GROWN = 3_000
"""Rows each table gains after the plans were made (a burst's first seconds)."""
TABLES = ("outbox", "message", "prompt_delivery")


@pytest.fixture
def database_url(postgres_databases: PostgresDatabases | None) -> Iterator[str]:
    """A new copy of the template: its tables were never vacuumed nor analysed, as a young study's are. (A copy emptied
    after another test may have been vacuumed empty since, and PostgreSQL takes such a table for one that stays empty:
    even its own foreign-key checks then keep plans that read the whole table. See the note in benchmarks/README.)"""
    if postgres_databases is None:
        pytest.skip(f"PostgreSQL run skipped: set {POSTGRES_ENV}=postgresql://user@host:5432/db to include it")
    url, drop = postgres_databases.copy(fresh=True)
    yield url
    drop()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = create_engine(sync_url(database_url), pool_size=1, max_overflow=0)
    # One plan kept for each statement, as PostgreSQL chose mid-burst (it may also plan each run afresh while the
    # tables are small, which hides what a kept plan does)
    event.listen(engine, "connect", lambda dbapi_connection, record: dbapi_connection.execute(
        "SET plan_cache_mode = force_generic_plan"))
    yield engine
    engine.dispose()


def admin(database_url: str) -> psycopg.Connection:
    return psycopg.connect(sync_url(database_url).replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def scanned(session: Session) -> dict[str, int]:
    """Rows of each table this connection read by sequential scans and has not yet reported to the server."""
    return {name: int(read) for name, read in session.execute(text(
        "SELECT relname, seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = ANY(:tables)"),
        {"tables": list(TABLES)})}


def prompt(engine: Engine, participant_id: str, n: int) -> dict[str, int]:
    """A daily prompt and its two polls queued, its delivery recorded and its send recorded, in one transaction (the
    deliveries' counts applied at once rather than at commit, so that they are measured too); the rows of each table
    read by sequential scans meanwhile."""
    with Session(engine) as session, session.begin():
        session.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
        before = scanned(session)
        ids = queue_messages(session, participant_id, [ToSend(f"{kind}:{n}", "Stretch") for kind in (
            "prompt", "poll", "intensity")], NOW)
        message_id = ids[f"prompt:{n}"]
        assert message_id is not None
        record_delivery(session, participant_id=participant_id, inbox_id=n, schedule_id=None, local_date="2026-03-02",
                        prompt_text="Time to stretch", prompt_message_id=message_id, poll_message_id=None, now=NOW)
        # its own text each time: never prepared, so planned for the table as it is
        outbox_id = session.execute(text(f"SELECT id FROM outbox WHERE key = 'prompt:{n}'")).scalar_one()
        record_sends(session, [(outbox_id, message_id, {"status": "sent", "sent_at": NOW, "wa_message_id": f"wa-{n}"},
                                {})])
        return {name: read - before.get(name, 0) for name, read in scanned(session).items()}


def test_a_prompt_reads_the_grown_tables_by_index_with_the_plans_kept_from_when_they_were_small(
    engine: Engine, database_url: str
) -> None:
    with Session(engine) as session, session.begin():
        participant_id = create_participant(session, NewParticipant(
            phone="+14165550150", name="P", timezone="America/Toronto", background="", reason="test"), NOW).id
    with admin(database_url) as conn:  # a young study's tables, never analysed, and autovacuum stays away
        for table in TABLES:
            conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
        never_counted = conn.execute("SELECT relname FROM pg_class WHERE relname = ANY(%s) AND reltuples < 0",
                                     [list(TABLES)]).fetchall()
        assert sorted(name for name, in never_counted) == sorted(TABLES)
    for n in range(1, 16):  # psycopg prepares each statement, PostgreSQL makes the plan it keeps
        prompt(engine, participant_id, n)

    with admin(database_url) as conn:  # the burst's first seconds
        conn.execute(
            "WITH m AS (INSERT INTO message (participant_id, direction, role, kind, text, payload, status, created_at, "
            "receipts_expected) SELECT %(p)s, 'out', 'assistant', 'text', 'x', '{}', 'sent', now(), false "
            "FROM generate_series(1, %(n)s) RETURNING id), "
            "o AS (INSERT INTO outbox (key, participant_id, message_id, status, attempts, available_at, created_at) "
            "SELECT 'grown:' || id, %(p)s, id, 'sent', 1, now(), now() FROM m) "
            "INSERT INTO prompt_delivery (participant_id, inbox_id, local_date, prompt_text, prompt_message_id, "
            "sent_at, vote_changes) SELECT %(p)s, 100000 + id, '2026-03-01', 'x', id, now(), 0 FROM m",
            {"p": participant_id, "n": GROWN})

    assert prompt(engine, participant_id, 16) == dict.fromkeys(TABLES, 0)
