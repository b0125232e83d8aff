"""No transaction's COMMIT moves SQLite's write-ahead log into the database file: a thread of its own does, beside the
writer (a turn whose COMMIT crossed SQLite's 1,000 pages waited ~2 ms for it, one message in ~26). What is committed
is in the log either way: nothing is lost, and the erasure's full checkpoint still empties the log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.orm import Session

from promptpipe.storage.db import Database

ROWS = 300
TEXT = "x" * 20_000  # five pages a row: ~1,500 pages of log in all, past SQLite's automatic checkpoint at 1,000


def _write(session: Session, n: int) -> None:
    session.connection().exec_driver_sql("INSERT INTO note_for_test (n, body) VALUES (?, ?)", (n, TEXT))


async def test_commits_never_checkpoint_and_nothing_committed_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "promptpipe.db"
    db = Database(f"sqlite:///{path}")
    await db.connect()
    await db.run(lambda session: session.connection().exec_driver_sql(
        "CREATE TABLE note_for_test (n INTEGER PRIMARY KEY, body TEXT)"))
    assert await db.checkpoint() == "ok"
    size_before = path.stat().st_size
    checkpointer = db._checkpointer
    assert checkpointer is not None
    with checkpointer.lock:  # the background checkpoint waits: whatever moves the log now is a COMMIT's doing
        for n in range(ROWS):
            await db.run(lambda session, n=n: _write(session, n))
        assert path.stat().st_size == size_before  # no COMMIT copied the log into the file
        assert Path(f"{path}-wal").stat().st_size > 1_000 * 4096
    assert await db.checkpoint() == "ok"  # the erasure's: the log moved, and emptied
    assert Path(f"{path}-wal").stat().st_size == 0
    await db.close()

    with sqlite3.connect(path) as again:
        assert again.execute("SELECT count(*), min(length(body)) FROM note_for_test").fetchone() == (ROWS, len(TEXT))
