"""The database, SQLite (WAL, default) or PostgreSQL (by URL): :meth:`Database.run` runs each transaction on a thread.

Not the async ORM: it measured ~2 ms per small transaction against ~0.15 ms (benchmarks/README.md). SQLite has one
connection on one thread, so transactions queue instead of fighting over the file lock; a burst runs up to 32 waiting
transactions in one SQLite transaction, a savepoint each, so one that fails is rolled back alone.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.orm.session import JoinTransactionMode
from sqlmodel import SQLModel

from promptpipe.domain.text import mask_credentials
from promptpipe.errors import ConfigError
from promptpipe.storage import access_tables, models, prompt_tables, queue_tables, schema  # noqa: F401  (tables)
from promptpipe.storage.commit_hooks import Ending, join_board
from promptpipe.storage.consent_board import ConsentBoard
from promptpipe.storage.db_errors import first_line, our_error
from promptpipe.storage.files import create_private_file
from promptpipe.storage.models import table_of
from promptpipe.storage.pool_ping import ping_when_idle
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.sqlite_engine import create_sqlite_engine, query_only
from promptpipe.storage.urls import sqlite_file, sync_url
from promptpipe.storage.work_queue import Outcome, WorkQueue
from promptpipe.study.store import tables as study_tables  # noqa: F401  (registers the tables)

IN_CHUNK = 500
"""Values per ``IN (…)`` list or multi-row insert: well inside SQLite's and PostgreSQL's limits."""
POSTGRES_THREADS = 8
T = TypeVar("T")


class Database:
    """Owns the engine and the database thread(s)."""

    def __init__(self, url: str, *, echo: bool = False, readers: int = 0) -> None:
        """``readers``: read-only, with that many threads (the API's reads; on SQLite never waiting for writes)."""
        self.url = url
        self.dialect = url.split("://", 1)[0].split("+", 1)[0]
        self.read_only = readers > 0
        # Statement parameters are study data: never part of an error message or a log line.
        threads = readers or (1 if self.is_sqlite else POSTGRES_THREADS)
        try:
            if self.is_sqlite:
                self.engine: Engine = create_sqlite_engine(url, echo=echo, pool_reset_on_return=None,
                                                           pool_size=threads, own_transactions=not self.read_only,
                                                           max_overflow=0 if self.read_only else 2)
                if self.read_only:
                    event.listen(self.engine, "connect", query_only)
            else:
                self.engine = create_engine(sync_url(url), echo=echo, pool_reset_on_return=None, hide_parameters=True,
                                            pool_size=threads, max_overflow=2)
                ping_when_idle(self.engine)
                if self.read_only:
                    self.engine = self.engine.execution_options(postgresql_readonly=True)
        except (ArgumentError, ValueError) as exc:
            raise ConfigError(f"DATABASE_URL: {mask_credentials(first_line(exc))}") from None
        self._sqlite_writer = self.is_sqlite and not self.read_only
        self.write_together = self._sqlite_writer
        """SQLite's writer: transactions waiting side by side commit together (off: one by one)."""
        self.consent_board = ConsentBoard()
        """The consent holds this process's transactions wrote (see :mod:`.consent_board`)."""
        self._kept = _KeptConnection(self.engine) if self._sqlite_writer else None
        self._executor = WorkQueue(threads, "db", together=(
            functools.partial(_together_on_one_connection, self._kept, self.consent_board)
            if self._kept is not None else None))
        self._insert_ignore: dict[tuple[str, tuple[str, ...], tuple[str, ...] | None], Prepared] = {}
        self.upgraded: schema.UpgradeDone | None = None
        """Set when :meth:`connect` upgraded the database (what, and the copy it took)."""

    @property
    def waiting(self) -> int:
        """Transactions handed to the database thread(s) and not yet started."""
        return self._executor.waiting

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    async def run(self, fn: Callable[[Session], T], *, urgent: bool = False) -> T:
        """Run ``fn(session)`` in one transaction on the database thread, which completes even if the caller is
        cancelled once it has started. ``urgent``: ahead of the normal work waiting (see :mod:`.work_queue`)."""
        return await asyncio.wrap_future(self.submit(fn, urgent=urgent))

    def submit(self, fn: Callable[[Session], T], *, urgent: bool = False) -> Future[T]:
        """:meth:`run` for code on another thread (the alarm thread): a future to wait on."""
        if self.write_together:
            return self._executor.submit_together(fn, urgent=urgent)
        if urgent:
            return self._executor.submit_urgent(self._transaction, fn)
        return self._executor.submit(self._transaction, fn)

    def _transaction(self, fn: Callable[[Session], T]) -> T:
        try:
            if not self.read_only:
                return _on_one_connection(self.engine, fn, self.consent_board)
            with Ending() as ending, Session(self.engine, expire_on_commit=False) as session, session.begin():
                try:
                    return fn(join_board(session, self.consent_board))
                finally:
                    ending.take(session)
        except (SQLAlchemyError, UnicodeError) as exc:
            raise our_error(exc) from None

    async def connect(self, *, upgrade: bool = False) -> schema.SchemaState:
        """Open the database as :mod:`.schema` says (``upgrade``: upgrade an older one); one clear line if unusable."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._prepare_schema, upgrade)

    @property
    def sqlite_path(self) -> Path | None:
        return sqlite_file(self.url)

    def _prepare_schema(self, upgrade: bool) -> schema.SchemaState:
        try:
            path = self.sqlite_path
            if path is not None and not self.read_only:
                path.parent.mkdir(parents=True, exist_ok=True)
                create_private_file(path)  # SQLite gives its -wal and -shm files the same mode
            if self.read_only:
                with self.engine.connect() as conn:
                    state = schema.read_state(conn)
                schema.refuse_unless_current(state)
                return state
            with self.engine.begin() as conn:
                if not self.is_sqlite:  # concurrent first starts: one creator, the others wait
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": schema.SCHEMA_LOCK_KEY})
                state = schema.read_state(conn)
                if not (upgrade and state.behind):
                    return schema.prepare(conn)
        except (schema.SchemaBehind, schema.SchemaAhead):
            raise
        except (SQLAlchemyError, OSError) as exc:
            raise ConfigError(
                f"DATABASE_URL: cannot open the database ({mask_credentials(first_line(exc))}); check the URL, "
                "that the server is running and that the user may create tables."
            ) from None
        self.upgraded = done = schema.upgrade(self.url)
        return schema.SchemaState(done.after, done.after, empty=False, known=True)

    async def checkpoint(self) -> str:
        """SQLite: move the write-ahead log into the database file and empty it, so overwritten texts do not stay
        readable in the log ("ok", or why not completely). PostgreSQL: nothing to do here ("not needed")."""
        if not self.is_sqlite:
            return "not needed"
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._checkpoint)

    def _checkpoint(self) -> str:
        if self._kept is not None:  # on the writer's thread, between its transactions: none is open
            driver = self._kept.get().connection.driver_connection
            assert driver is not None
            busy, pages, moved = driver.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        else:
            raw = self.engine.raw_connection()  # autocommit (isolation_level None): no transaction open
            try:
                busy, pages, moved = raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                raw.close()
        return "ok" if not busy and pages == moved else (
            f"partial: another connection is reading ({moved} of {pages} pages moved)")

    async def close(self) -> None:
        """Wait for transactions already handed to the database thread, then close."""
        await asyncio.get_running_loop().run_in_executor(None, self._executor.shutdown, True)
        if self._kept is not None:
            self._kept.close()  # the writer's thread has ended: nobody else uses it
        self.engine.dispose()

    def insert_ignore(self, model: type[SQLModel], conflict_on: tuple[str, ...],
                      returning: tuple[str, ...] | None = None) -> Prepared:
        """``INSERT … ON CONFLICT DO NOTHING RETURNING`` the primary key (or ``returning``; ``()``: none), built once.
        Run with ``many`` (in any order): a row whose key exists is skipped and returns nothing."""
        key = (model.__name__, conflict_on, returning)
        if key not in self._insert_ignore:
            insert = pg_insert if self.dialect == "postgresql" else sqlite_insert
            table = table_of(model)
            stmt = insert(table).on_conflict_do_nothing(index_elements=list(conflict_on))
            columns = returning if returning is not None else (next(iter(table.primary_key.columns.keys())),)
            statement = stmt.returning(*(table.c[name] for name in columns)) if columns else stmt
            self._insert_ignore[key] = Prepared(statement)
        return self._insert_ignore[key]

    @staticmethod
    def chunks(values: Sequence[T], size: int = IN_CHUNK) -> Iterator[Sequence[T]]:
        """Slices small enough for one ``IN (…)`` list or one multi-row statement."""
        for start in range(0, len(values), size):
            yield values[start:start + size]


class _JoinedSession(Session):
    """A session in a transaction its caller began on ``connection``: it hands that connection over without
    transaction state of its own; the ORM (an ``add``, a ``get``) still works, joined to the same transaction."""

    def __init__(self, connection: Connection, join_transaction_mode: JoinTransactionMode = "conditional_savepoint",
                 ) -> None:
        super().__init__(bind=connection, join_transaction_mode=join_transaction_mode, expire_on_commit=False)
        self._joined = connection

    def connection(self, bind_arguments: Any = None, execution_options: Any = None) -> Connection:
        if bind_arguments is None and execution_options is None and self._transaction is None:
            return self._joined
        return super().connection(bind_arguments, execution_options)


def _on_one_connection(engine: Engine | _KeptConnection, fn: Callable[[Session], T],
                       board: ConsentBoard | None = None) -> T:
    """A writer's transaction, with a session joined to it: the session's own begin and commit cost twice the
    transaction itself on SQLite (~50 µs of ~120), and a fifth of a PostgreSQL database thread's time in a burst."""
    with Ending() as ending, _writer_transaction(engine) as connection:
        session = join_board(_JoinedSession(connection), board)
        try:
            result = fn(session)
            session.flush()
            return result
        finally:
            ending.take(session)
            session.close()


def _together_on_one_connection(engine: _KeptConnection, board: ConsentBoard | None,
                                fns: Sequence[Callable[[Session], Any]]) -> list[Outcome]:
    """SQLite's writer: ``fns`` in one transaction, each in a savepoint (one alone: none). One that raises is rolled
    back to its savepoint and gets its error; if the transaction itself fails, every one of them gets that error."""
    if len(fns) == 1:
        try:
            return [Outcome(_on_one_connection(engine, fns[0], board))]
        except Exception as exc:
            return [Outcome(error=our_error(exc))]
    try:
        with Ending() as ending, _writer_transaction(engine) as connection:
            return [_in_savepoint(connection, fn, board, ending) for fn in fns]
    except Exception as exc:
        raise our_error(exc) from None


class _KeptConnection:
    """SQLite's writer connection, kept checked out from one transaction to the next on its one thread (taking it from
    the pool and giving it back was a fifth of an empty transaction's cost); one that broke is replaced. Its pool lets
    a second connection open beside it (a command line's or the web's look at the database from another thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._connection: Connection | None = None

    def get(self) -> Connection:
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            if connection is not None:
                connection.close()
            connection = self._connection = self.engine.connect()
        return connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


@contextmanager
def _writer_transaction(engine: Engine | _KeptConnection) -> Iterator[Connection]:
    """A transaction (SQLite: ``BEGIN IMMEDIATE``) committed when the block ends; whatever fails, the block or the
    commit itself (a reference SQLite checks only then), the connection goes back with no transaction open."""
    with nullcontext(engine.get()) if isinstance(engine, _KeptConnection) else engine.connect() as connection:
        transaction = connection.begin()
        try:
            yield connection
            transaction.commit()
        finally:
            if transaction.is_active:
                transaction.rollback()
            driver = None if connection.invalidated else connection.connection.driver_connection
            # SQLite: a refused COMMIT leaves the transaction open (psycopg ends it with the error).
            if driver is not None and getattr(driver, "in_transaction", False):
                driver.rollback()
            # A refused COMMIT leaves SQLAlchemy's transaction on the connection, inactive: the kept one must lose it.
            if isinstance(engine, _KeptConnection) and connection.get_transaction() is transaction:
                transaction.rollback()


def _in_savepoint(connection: Connection, fn: Callable[[Session], Any], board: ConsentBoard | None,
                  ending: Ending) -> Outcome:
    """``fn`` in a savepoint; its end-of-transaction listeners go to ``ending``, or hear at once it rolled back."""
    savepoint = connection.begin_nested()
    # Joined to the savepoint: a flush that fails rolls back to it, not the whole run.
    session = join_board(_JoinedSession(connection, join_transaction_mode="rollback_only"), board)
    own = Ending()
    try:
        value = fn(session)
        session.flush()
    except Exception as exc:
        own.take(session)
        session.close()
        if savepoint.is_active:
            savepoint.rollback()
        own.ended(committed=False)
        return Outcome(error=our_error(exc))
    own.take(session)
    session.close()
    savepoint.commit()
    ending.add(own)
    return Outcome(value)
