"""The database: SQLite (WAL, default) or PostgreSQL (by URL), used from asyncio.

Each transaction is a plain synchronous function ``fn(session)`` that :meth:`Database.run` executes
on a dedicated database thread: one hop per transaction, and the event loop never waits on disk
or network. (The async ORM stack measured ~2 ms per small transaction on our 2-core machine
against ~0.15 ms for this; see benchmarks/README.md.)

SQLite: one connection on one thread, so the process's transactions queue instead of fighting
over the file lock; every transaction starts with ``BEGIN IMMEDIATE`` so a read-then-write is
atomic even against another process (the admin script), and ``busy_timeout`` makes that other
process wait, not fail. PostgreSQL: a small pool of threads and connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from sqlmodel import SQLModel

from promptpipe import models  # noqa: F401  (registers the tables)
from promptpipe.errors import ConfigError, StorageError

SQLITE_BUSY_TIMEOUT_MS = 15_000
POSTGRES_THREADS = 8
T = TypeVar("T")


def sync_url(url: str) -> str:
    """The driver for a plain sqlite:// or postgresql:// URL (psycopg 3 for PostgreSQL)."""
    scheme, rest = url.split("://", 1)
    base = scheme.split("+", 1)[0]
    if base == "sqlite":
        return f"sqlite://{rest}"
    if base == "postgresql":
        return f"postgresql+psycopg://{rest}"
    raise ValueError(f"unsupported database URL scheme {scheme!r}")


def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
    dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _sqlite_begin(conn: Any) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """Owns the engine and the database thread(s)."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.dialect = url.split("://", 1)[0].split("+", 1)[0]
        kwargs: dict[str, Any] = {"echo": echo, "pool_reset_on_return": None}
        if self.is_sqlite:
            kwargs.update(pool_size=1, max_overflow=0, connect_args={"check_same_thread": False})
            threads = 1
        else:
            kwargs.update(pool_size=POSTGRES_THREADS, max_overflow=2, pool_pre_ping=True)
            threads = POSTGRES_THREADS
        self.engine: Engine = create_engine(sync_url(url), **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="db")
        self.transactions = 0
        self._insert_ignore: dict[tuple[str, tuple[str, ...]], Any] = {}

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    async def run(self, fn: Callable[[Session], T]) -> T:
        """Run ``fn(session)`` in one transaction on the database thread: commit on success,
        roll back on error. The transaction completes even if the caller is cancelled."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._transaction, fn)

    def submit(self, fn: Callable[[Session], T]) -> Future[T]:
        """:meth:`run` for code on another thread (the alarm thread): a future to wait on."""
        return self._executor.submit(self._transaction, fn)

    def _transaction(self, fn: Callable[[Session], T]) -> T:
        self.transactions += 1
        try:
            with Session(self.engine, expire_on_commit=False) as session, session.begin():
                return fn(session)
        except SQLAlchemyError as exc:
            raise StorageError(f"database error: {_first_line(exc)}") from exc

    async def connect(self) -> None:
        """Create missing tables and columns; fail with one clear line if the URL is unusable."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._create_schema)

    def _create_schema(self) -> None:
        if self.is_sqlite:
            path = self.url.split(":///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.engine.begin() as conn:
                SQLModel.metadata.create_all(conn)
                _add_missing_columns(conn)
        except (SQLAlchemyError, OSError) as exc:
            raise ConfigError(
                f"DATABASE_URL: cannot open the database ({_first_line(exc)}); check the URL, "
                "that the server is running and that the user may create tables."
            ) from None

    async def close(self) -> None:
        """Wait for transactions already handed to the database thread, then close."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self._executor.shutdown, True)
        self.engine.dispose()

    def insert_ignore(self, model: type[SQLModel], conflict_on: tuple[str, ...]) -> Any:
        """``INSERT … ON CONFLICT DO NOTHING RETURNING id`` (built once; execute it with the row's
        values as parameters): returns no row when the key exists."""
        key = (model.__name__, conflict_on)
        if key not in self._insert_ignore:
            insert = pg_insert if self.dialect == "postgresql" else sqlite_insert
            table = model.__table__  # type: ignore[attr-defined]
            stmt = insert(table).on_conflict_do_nothing(index_elements=list(conflict_on))
            self._insert_ignore[key] = stmt.returning(table.c[list(table.primary_key.columns.keys())[0]])
        return self._insert_ignore[key]

    def insert_ignore_many(self, model: type[SQLModel], conflict_on: tuple[str, ...]) -> Any:
        """``INSERT … ON CONFLICT DO NOTHING`` without RETURNING, for executemany (many rows)."""
        key = (model.__name__ + "/many", conflict_on)
        if key not in self._insert_ignore:
            insert = pg_insert if self.dialect == "postgresql" else sqlite_insert
            table = model.__table__  # type: ignore[attr-defined]
            self._insert_ignore[key] = insert(table).on_conflict_do_nothing(index_elements=list(conflict_on))
        return self._insert_ignore[key]

    async def execute_raw(self, sql: str) -> None:
        await self.run(lambda session: session.execute(text(sql)))


def _add_missing_columns(conn: Any) -> None:
    """The additive half of an upgrade: columns a newer version added are created on start."""
    inspector = inspect(conn)
    for table in SQLModel.metadata.sorted_tables:
        existing = {col["name"] for col in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in existing:
                continue
            col_type = column.type.compile(dialect=conn.dialect)
            default = ""
            if column.default is not None and getattr(column.default, "is_scalar", False):
                value = column.default.arg
                default = f" DEFAULT {value!r}" if isinstance(value, str) else f" DEFAULT {value}"
            # Added columns stay nullable: existing rows have no value for them.
            conn.execute(text(f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {col_type}{default}'))


def _first_line(exc: BaseException) -> str:
    cause = getattr(exc, "orig", None) or exc
    return (str(cause).strip().splitlines() or [type(cause).__name__])[0][:300]
