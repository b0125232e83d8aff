"""SQLite's writer runs transactions that wait next to each other in one commit (a burst pays one
commit for many turns). What each caller sees must not change: its own result or error, its own
writes kept or rolled back alone, and no answer before its writes are committed."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from promptpipe.errors import DuplicateKey, StorageError
from promptpipe.storage.db import Database
from promptpipe.storage.models import Conversation, Participant
from promptpipe.storage.work_queue import TOGETHER_MAX
from tests.databases import SqliteTemplate

NOW = datetime(2026, 11, 27, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
async def sqlite_db(tmp_path: Path, sqlite_template: SqliteTemplate) -> AsyncIterator[Database]:
    database = Database(sqlite_template.copy_to(tmp_path))
    await database.connect()
    yield database
    await database.close()


def _phone(n: int) -> str:
    return f"+1416555{100 + n:04d}"


def _enrol(n: int) -> Callable[[Session], str]:
    def write(session: Session) -> str:
        session.add(Participant(id=f"p{n}", phone=_phone(n), enrolled_at=NOW, updated_at=NOW))
        session.flush()
        return f"p{n}"
    return write


def _behind_a_busy_thread(db: Database, fns: list[Callable[[Session], Any]],
                          on_done: Callable[[Future[Any]], None] | None = None) -> list[Future[Any]]:
    """Queue ``fns`` while the database thread is held by another transaction, so they wait next
    to each other; then let the thread go on."""
    started, gate = threading.Event(), threading.Event()
    blocker = db.submit(lambda _session: started.set() or gate.wait(5))
    assert started.wait(5)
    futures = [db.submit(fn) for fn in fns]
    if on_done is not None:
        for future in futures:
            future.add_done_callback(on_done)
    gate.set()
    blocker.result(timeout=5)
    return futures


def _stored(db: Database) -> list[str]:
    path = db.sqlite_path
    assert path is not None
    with sqlite3.connect(path) as conn:  # a connection of its own: sees committed rows only
        return sorted(row[0] for row in conn.execute("SELECT id FROM participant"))


async def test_transactions_waiting_together_each_get_their_own_result_and_a_failed_one_is_undone_alone(
    sqlite_db: Database,
) -> None:
    def fails_halfway(session: Session) -> None:
        session.add(Participant(id="half", phone=_phone(50), enrolled_at=NOW, updated_at=NOW))
        session.flush()
        raise RuntimeError("the turn's own error")

    def duplicate_phone(session: Session) -> None:
        session.add(Participant(id="twin", phone=_phone(1), enrolled_at=NOW, updated_at=NOW))
        session.flush()

    futures = _behind_a_busy_thread(sqlite_db, [_enrol(1), fails_halfway, _enrol(2), duplicate_phone, _enrol(3)])

    assert [futures[i].result(timeout=5) for i in (0, 2, 4)] == ["p1", "p2", "p3"]
    with pytest.raises(RuntimeError, match="the turn's own error"):
        futures[1].result(timeout=5)
    with pytest.raises(DuplicateKey):
        futures[3].result(timeout=5)
    assert _stored(sqlite_db) == ["p1", "p2", "p3"]


async def test_no_caller_hears_back_before_its_writes_are_committed(sqlite_db: Database) -> None:
    seen: dict[str, list[str]] = {}
    all_told = threading.Event()

    def look_when_told(future: Future[Any]) -> None:  # runs the moment the answer is set
        seen[future.result()] = _stored(sqlite_db)
        if len(seen) == 5:
            all_told.set()

    _behind_a_busy_thread(sqlite_db, [_enrol(n) for n in range(1, 6)], on_done=look_when_told)
    assert all_told.wait(5)
    assert all(participant in rows for participant, rows in seen.items())


def _breaks_the_commit(session: Session) -> None:
    # A reference checked only at COMMIT, to a participant who does not exist.
    session.execute(text("PRAGMA defer_foreign_keys=ON"))
    session.add(Conversation(participant_id="ghost", updated_at=NOW))


async def test_a_transaction_whose_commit_fails_leaves_the_connection_usable(sqlite_db: Database) -> None:
    with pytest.raises(StorageError, match="FOREIGN KEY"):
        await sqlite_db.run(_breaks_the_commit)
    assert await sqlite_db.run(_enrol(1)) == "p1"
    assert _stored(sqlite_db) == ["p1"]


async def test_when_the_commit_itself_fails_every_caller_hears_it_and_nothing_is_written(
    sqlite_db: Database,
) -> None:
    futures = _behind_a_busy_thread(sqlite_db, [_enrol(1), _breaks_the_commit, _enrol(2)])

    for future in futures:
        with pytest.raises(StorageError, match="FOREIGN KEY"):
            future.result(timeout=5)
    assert _stored(sqlite_db) == []
    assert await sqlite_db.run(_enrol(3)) == "p3"  # the thread and its connection go on
    assert _stored(sqlite_db) == ["p3"]


async def test_a_long_queue_is_committed_in_runs_of_bounded_length(sqlite_db: Database) -> None:
    commits: list[int] = []
    path = sqlite_db.sqlite_path
    assert path is not None
    count = TOGETHER_MAX * 2 + 5

    def enrol_and_count(n: int) -> Callable[[Session], str]:
        def write(session: Session) -> str:
            with sqlite3.connect(path) as conn:
                commits.append(conn.execute("SELECT count(*) FROM participant").fetchone()[0])
            return _enrol(n)(session)
        return write

    futures = _behind_a_busy_thread(sqlite_db, [enrol_and_count(n) for n in range(count)])
    assert sorted(future.result(timeout=10) for future in futures) == sorted(f"p{n}" for n in range(count))
    # What another connection saw committed as each one ran: whole runs, never more than the bound.
    assert sorted(set(commits)) == [0, TOGETHER_MAX, 2 * TOGETHER_MAX]
    assert len(_stored(sqlite_db)) == count


async def test_another_thread_reads_beside_the_writer_between_its_transactions(sqlite_db: Database) -> None:
    """The writer keeps its connection from one transaction to the next; a command line's or the web's look at the
    database from another thread opens one beside it and sees what was committed, without waiting for the writer."""
    assert await sqlite_db.run(_enrol(1)) == "p1"

    def count_from_another_thread() -> int:
        with sqlite_db.engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM participant")).scalar_one())

    # pool_timeout is 30 s: a pool with no room beside the kept connection would fail this 5 s wait
    assert await asyncio.wait_for(asyncio.to_thread(count_from_another_thread), 5) == 1
    assert await sqlite_db.run(_enrol(2)) == "p2"
    assert await sqlite_db.checkpoint() == "ok"
    assert _stored(sqlite_db) == ["p1", "p2"]
