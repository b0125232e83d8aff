"""The database: async engine and sessions for SQLite (WAL, default) or PostgreSQL (by URL).

SQLite notes. One connection serves the whole process: asyncio tasks queue for it instead of
fighting over the file lock, and no transaction is held across an ``await`` of anything slow.
Every transaction starts with ``BEGIN IMMEDIATE`` so a read-then-write is atomic even against
another process (the admin script); ``busy_timeout`` makes that other process wait, not fail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, inspect, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from promptpipe import models  # noqa: F401  (registers the tables)
from promptpipe.errors import ConfigError, StorageError

SQLITE_BUSY_TIMEOUT_MS = 15_000


def async_url(url: str) -> str:
    """Pick the async driver for a plain sqlite:// or postgresql:// URL."""
    scheme, rest = url.split("://", 1)
    base = scheme.split("+", 1)[0]
    if base == "sqlite":
        return f"sqlite+aiosqlite://{rest}"
    if base == "postgresql":
        return f"postgresql+asyncpg://{rest}"
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
    """Owns the engine. ``session()`` gives a transaction that commits on success."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.dialect = url.split("://", 1)[0].split("+", 1)[0]
        kwargs: dict[str, Any] = {"echo": echo}
        if self.dialect == "sqlite":
            kwargs.update(pool_size=1, max_overflow=0, pool_timeout=120)
        else:
            kwargs.update(pool_size=10, max_overflow=10, pool_pre_ping=True)
        self.engine: AsyncEngine = create_async_engine(async_url(url), **kwargs)
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
            event.listen(self.engine.sync_engine, "begin", _sqlite_begin)
        self._sessions = async_sessionmaker(self.engine, class_=AsyncSession, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    async def connect(self) -> None:
        """Create missing tables and columns; fail with one clear line if the URL is unusable."""
        if self.is_sqlite:
            path = self.url.split(":///", 1)[-1]
            if path and path != ":memory:":
                from pathlib import Path

                Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            async with self.engine.begin() as conn:
                await conn.run_sync(SQLModel.metadata.create_all)
                await conn.run_sync(_add_missing_columns)
        except (SQLAlchemyError, OSError) as exc:
            raise ConfigError(
                f"DATABASE_URL: cannot open the database ({_first_line(exc)}); check the URL, "
                "that the server is running and that the user may create tables."
            ) from None

    async def close(self) -> None:
        await self.engine.dispose()

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """One short transaction: commit on success, roll back on error."""
        async with self._sessions() as session:
            try:
                async with session.begin():
                    yield session
            except SQLAlchemyError as exc:
                raise StorageError(f"database error: {_first_line(exc)}") from exc

    def insert_ignore(self, model: type[SQLModel], values: dict[str, Any], conflict_on: list[str]) -> Any:
        """``INSERT … ON CONFLICT DO NOTHING RETURNING id``: returns no row when the key exists."""
        insert = pg_insert if self.dialect == "postgresql" else sqlite_insert
        table = model.__table__  # type: ignore[attr-defined]
        stmt = insert(table).values(**values).on_conflict_do_nothing(index_elements=conflict_on)
        return stmt.returning(table.c[list(table.primary_key.columns.keys())[0]])

    async def execute_raw(self, sql: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(text(sql))


def _add_missing_columns(sync_conn: Any) -> None:
    """The additive half of an upgrade: columns a newer version added are created on start."""
    inspector = inspect(sync_conn)
    for table in SQLModel.metadata.sorted_tables:
        existing = {col["name"] for col in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in existing:
                continue
            col_type = column.type.compile(dialect=sync_conn.dialect)
            default = ""
            if column.default is not None and getattr(column.default, "is_scalar", False):
                value = column.default.arg
                default = f" DEFAULT {value!r}" if isinstance(value, str) else f" DEFAULT {value}"
            # Added columns stay nullable: existing rows have no value for them.
            sync_conn.execute(text(f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {col_type}{default}'))


def _first_line(exc: BaseException) -> str:
    cause = getattr(exc, "orig", None) or exc
    return (str(cause).strip().splitlines() or [type(cause).__name__])[0][:300]
