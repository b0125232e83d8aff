"""SQLite connections as we set them up: WAL, a busy wait, foreign keys, zeroed free pages, and (for the writer)
``BEGIN IMMEDIATE`` and savepoints straight on the driver's connection, with the log checkpointed beside it."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError

from promptpipe.logging import get_logger
from promptpipe.storage.urls import sync_url

__all__ = ["SQLITE_BUSY_TIMEOUT_MS", "Checkpointer", "create_sqlite_engine", "query_only"]

SQLITE_BUSY_TIMEOUT_MS = 15_000
WRITER_AUTOCHECKPOINT_PAGES = 8_000
"""The writer's own checkpoint (SQLite's automatic one, in the COMMIT that crosses it): only should the
:class:`Checkpointer` fall behind (~32 MB of log; SQLite's default is 1,000 pages)."""
CHECKPOINT_EVERY = 16
"""Writer transactions between two background checkpoints (a message's turn is three, ~40 pages of log)."""
log = get_logger("promptpipe.storage")


def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
    """Every SQLite connection of ours (the service's and the job store's) is set up alike."""
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    _ensure_wal(cur)
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    # An erased participant's texts cannot be read back from free pages.
    cur.execute("PRAGMA secure_delete=ON")
    cur.close()


WAL_SWITCH_TRIES = 50


def _ensure_wal(cur: Any) -> None:
    """Switch a new database file to WAL: the switch needs the file to itself, and SQLite answers "locked" at once
    (no busy wait) when another connection opens it then (concurrent first starts): look first, retry briefly."""
    for attempt in range(WAL_SWITCH_TRIES):
        try:
            if str(cur.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_SWITCH_TRIES - 1:
                raise
            time.sleep(0.01 * (attempt + 1))


def query_only(dbapi_conn: Any, _: Any) -> None:
    """A reader's connection refuses every write (WAL lets it read beside the service's writer)."""
    dbapi_conn.execute("PRAGMA query_only=ON")


def _on_the_driver(conn: Connection, statement: str) -> None:
    """A statement without parameters straight on the driver's connection, its error raised as SQLAlchemy's would be."""
    try:
        conn.connection.driver_connection.execute(statement)  # type: ignore[union-attr]
    except sqlite3.Error as exc:
        raise DBAPIError.instance(statement, (), exc, sqlite3.Error, hide_parameters=True) from exc


def create_sqlite_engine(url: str, *, pool_size: int = 1, max_overflow: int = 0, own_transactions: bool = True,
                         **kwargs: Any) -> Engine:
    """An engine on a SQLite file with our set-up. ``own_transactions``: every transaction starts ``BEGIN IMMEDIATE``
    (a read-then-write is atomic against other processes too); the job store leaves them to its library."""
    engine = create_engine(sync_url(url), pool_size=pool_size, max_overflow=max_overflow, hide_parameters=True,
                           connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
                           **kwargs)
    event.listen(engine, "connect", _sqlite_pragmas)
    if own_transactions:
        event.listen(engine, "connect", _no_implicit_begin)
        # Straight on the driver: through SQLAlchemy it cost a tenth of a burst's transaction overhead.
        event.listen(engine, "begin", lambda conn: _on_the_driver(conn, "BEGIN IMMEDIATE"))
        _savepoints_on_the_driver(engine.dialect)
    return engine


def _savepoints_on_the_driver(dialect: Any) -> None:
    """Savepoints straight on the driver, as ``BEGIN`` is (transactions committed together take one each); SQLAlchemy
    still keeps track of them: it calls these three."""
    def run(sql: str) -> Callable[[Connection, str], None]:
        return lambda connection, name: _on_the_driver(connection, sql.format(name=name))

    dialect.do_savepoint = run('SAVEPOINT "{name}"')
    dialect.do_rollback_to_savepoint = run('ROLLBACK TO SAVEPOINT "{name}"')
    dialect.do_release_savepoint = run('RELEASE SAVEPOINT "{name}"')


def _no_implicit_begin(dbapi_conn: Any, _: Any) -> None:
    dbapi_conn.isolation_level = None  # we issue BEGIN ourselves


def writer_autocheckpoint(dbapi_conn: Any, _: Any) -> None:
    """The writer's connections leave checkpoints to the :class:`Checkpointer` (see WRITER_AUTOCHECKPOINT_PAGES)."""
    dbapi_conn.execute(f"PRAGMA wal_autocheckpoint={WRITER_AUTOCHECKPOINT_PAGES}")


class Checkpointer:
    """Moves the write-ahead log into the database file on a thread and a connection of its own, so no transaction's
    COMMIT does: SQLite's automatic checkpoint ran inside the COMMIT that crossed 1,000 pages of log (a message's turn
    in ~26), ~2 ms with its two fsyncs. PASSIVE: it neither waits for nor blocks the writer or a reader. What is
    committed is in the log (synchronous=NORMAL, as before); a checkpoint only copies it, so a crash loses nothing."""

    def __init__(self, path: Path) -> None:
        self.lock = threading.Lock()
        """Held while a checkpoint runs (the erasure's full one waits for a background one to end)."""
        self._path = path
        self._due = threading.Event()
        self._stopping = False
        self._since = 0
        self.done = 0
        """Background checkpoints run (for tests)."""
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """A writer's transaction has ended (its thread only): every CHECKPOINT_EVERY, the thread checkpoints."""
        self._since += 1
        if self._since >= CHECKPOINT_EVERY:
            self._since = 0
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="db_checkpoint", daemon=True)
                self._thread.start()
            self._due.set()

    def close(self) -> None:
        """Stop the thread (after a checkpoint under way); the writer's own close checkpoints what is left."""
        self._stopping = True
        self._due.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            while True:
                self._due.wait()
                self._due.clear()
                if self._stopping:
                    return
                with self.lock:
                    try:
                        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    except sqlite3.Error as exc:  # the writer's own checkpoint takes over past its threshold
                        log.warning("checkpoint_failed", error=str(exc)[:200])
                self.done += 1
        finally:
            connection.close()
