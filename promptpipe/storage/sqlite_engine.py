"""SQLite connections as we set them up: WAL, a busy wait, foreign keys, zeroed free pages, and (for the writer)
``BEGIN IMMEDIATE`` and savepoints straight on the driver's connection."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError

from promptpipe.storage.urls import sync_url

__all__ = ["SQLITE_BUSY_TIMEOUT_MS", "create_sqlite_engine", "query_only"]

SQLITE_BUSY_TIMEOUT_MS = 15_000


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
