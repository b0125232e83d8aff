"""Revision 0019 gives the daily prompts' rollup a row per shard of a day and arm (on PostgreSQL each
connection adds to its own): an upgrade keeps the counts an earlier release's database had, the
statistics still count every prompt written afterwards from any connection, and a downgrade sums
the shards back into one row per day and arm that the earlier triggers go on counting into."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from typing import Any

import sqlalchemy as sa

from promptpipe.storage import rollup, schema
from promptpipe.storage.urls import sync_url
from tests.upgrades.releases import downgrade, load_release

RELEASE = "release-f8fa7e2"
"""A release that sent a daily prompt (its delivery is row 1)."""
BEFORE = "0018_lease_moves"
_SUMS = ("SELECT local_date, arm, sum(sent), sum(delivered), sum(read), sum(answered), sum(done) "
         "FROM prompt_day_counts GROUP BY local_date, arm ORDER BY local_date, arm")


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(sync_url(url), poolclass=sa.NullPool)


def _query(url: str, statement: str) -> list[tuple[Any, ...]]:
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.exec_driver_sql(statement)]
    finally:
        engine.dispose()


def _deliver(conn: sa.Connection, inbox_id: int, vote: str | None) -> None:
    """Another prompt of the day and participant of the release's first, as the service writes one."""
    conn.execute(sa.text(
        "INSERT INTO prompt_delivery (participant_id, inbox_id, local_date, prompt_text, sent_at, vote, vote_changes) "
        "SELECT participant_id, :inbox, local_date, 'Time to stretch', sent_at, :vote, 0 FROM prompt_delivery "
        "WHERE id = 1"), {"inbox": inbox_id, "vote": vote})


def _deliver_from_connections(url: str, votes: list[str | None], first_inbox: int) -> None:
    """One prompt per vote, each committed from a connection of its own shard (PostgreSQL; SQLite: one)."""
    engine = _engine(url)
    postgresql = engine.dialect.name == "postgresql"
    try:
        with ExitStack() as stack:
            shards: dict[int, sa.Connection] = {}
            while len(shards) < (len(votes) if postgresql else 1):
                conn = stack.enter_context(engine.connect())
                pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() if postgresql else 0
                shards.setdefault(pid % rollup.SHARDS, conn)
                conn.commit()
            connections = list(shards.values())
            for n, vote in enumerate(votes):
                conn = connections[n % len(connections)]
                _deliver(conn, first_inbox + n, vote)
                conn.commit()
    finally:
        engine.dispose()


def _plus(counts: list[tuple[Any, ...]], *added: int) -> list[tuple[Any, ...]]:
    [(day, arm, *before)] = counts
    return [(day, arm, *(int(value) + more for value, more in zip(before, added, strict=True)))]


async def test_the_counts_survive_the_shards_coming_and_going(database_url: str) -> None:
    load_release(database_url, RELEASE)
    await asyncio.to_thread(schema.upgrade, database_url, target=BEFORE)
    before = _query(database_url, _SUMS)
    assert before and before[0][2] == 1

    await asyncio.to_thread(schema.upgrade, database_url)
    assert _query(database_url, _SUMS) == before
    _deliver_from_connections(database_url, ["done", None], 9000)
    counted = _plus(before, 2, 0, 0, 1, 1)
    assert _query(database_url, _SUMS) == counted

    await asyncio.to_thread(downgrade, database_url, BEFORE)
    assert _query(database_url, "SELECT local_date, arm, sent, delivered, read, answered, done "
                                "FROM prompt_day_counts ORDER BY local_date, arm") == counted  # one row each
    _deliver_from_connections(database_url, ["not_this_time"], 9010)
    assert _query(database_url, _SUMS) == _plus(counted, 1, 0, 0, 1, 0)  # the earlier triggers count on

    await asyncio.to_thread(schema.upgrade, database_url)
    _deliver_from_connections(database_url, [None, None], 9020)
    assert _query(database_url, _SUMS) == _plus(counted, 3, 0, 0, 1, 0)
