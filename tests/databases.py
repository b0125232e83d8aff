"""Each test's own database, made quickly: the schema is made once per test process (an xdist
worker, or the whole run without xdist) in a template, and every test gets a copy of it.

Making the schema (what :meth:`Database.connect` does to an empty database: every table, index
and the Alembic stamp) costs ~0.1 s on SQLite and ~0.35 s on PostgreSQL, for every test that
touches a database (about two thousand). A copy costs ~1 ms on SQLite (a file copy) and
0.03-0.3 s on PostgreSQL (``CREATE DATABASE … TEMPLATE``, against ~0.3 s for an empty one). The
template is made by that same :meth:`Database.connect`, so a test starts on exactly the database a
new service would have made for itself.

Tests of the schema's versions and upgrades need a database with nothing in it (they load what
an older release left, or make the schema themselves): they ask for ``empty_database_url``
(tests/upgrades/conftest.py makes it the ``database_url`` of everything under tests/upgrades/).

Names are unique per run and per worker (random suffixes), so parallel workers, and another run
beside this one, never share a database. A PostgreSQL copy is not dropped when its test is done but
emptied in the background and handed to a later test of the same worker: a copy and its drop
cost the server ~0.22 s of CPU (the catalogues are copied block by block), against ~0.01 s to
delete the rows, restart the sequences and drop what the test added (the job store's table). That
was a seventh of the whole suite's CPU on this 2-core machine. A copy whose schema no longer
matches the template's (a test changed it), or that cannot be emptied, is dropped instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import secrets
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from sqlalchemy import text

from promptpipe.storage.db import Database
from promptpipe.storage.files import create_private_file

__all__ = ["PostgresDatabases", "SqliteTemplate", "execute_raw", "worker_name"]

T = TypeVar("T")
SQLITE_NAME = "promptpipe.db"


def worker_name() -> str:
    """The xdist worker this process is ("gw0", …), or "main" without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _in_own_thread(fn: Callable[[], T]) -> T:
    """``fn()`` in a thread of its own (an event loop may already run in this one)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="make-template") as pool:
        return pool.submit(fn).result()


async def _make_schema(url: str) -> None:
    database = Database(url)
    try:
        await database.connect()
    finally:
        await database.close()


class SqliteTemplate:
    """One SQLite file with the current schema; each test gets a private copy of it."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._path: Path | None = None
        self._lock = threading.Lock()

    def _template(self) -> Path:
        with self._lock:
            if self._path is None:
                path = self._directory / SQLITE_NAME
                _in_own_thread(lambda: asyncio.run(_make_schema(f"sqlite:///{path}")))
                # Closed: the write-ahead log was checkpointed into the file and removed.
                assert not Path(f"{path}-wal").exists(), "the template's write-ahead log was not folded in"
                self._path = path
            return self._path

    def copy_to(self, directory: Path) -> str:
        """A copy of the template as ``directory/promptpipe.db`` (0600, as the service makes it)."""
        target = directory / SQLITE_NAME
        create_private_file(target)
        shutil.copyfile(self._template(), target)
        return f"sqlite:///{target}"

    @staticmethod
    def empty(directory: Path) -> str:
        """Where a test's empty SQLite database goes (the file is made by whoever opens it first)."""
        return f"sqlite:///{directory / SQLITE_NAME}"


class PostgresDatabases:
    """Databases on one PostgreSQL server: a template with the current schema (made on first
    use), copies of it, and empty ones; :meth:`close` drops them all."""

    def __init__(self, base_url: str) -> None:
        self._admin_dsn = base_url.replace("postgresql+psycopg://", "postgresql://")
        self._head = base_url.rpartition("/")[0]
        self._run = f"{worker_name()}_{secrets.token_hex(4)}"
        self._template: str | None = None
        self._template_schema: str | None = None
        self._lock = threading.Lock()
        self._to_drop: queue.SimpleQueue[tuple[str, bool] | None] = queue.SimpleQueue()
        self._emptied: queue.SimpleQueue[str] = queue.SimpleQueue()
        """Copies emptied after their test, ready for the next."""
        self._drop_errors: list[Exception] = []
        # A daemon thread: the tests of the service's exit count the non-daemon threads left behind.
        self._dropper = threading.Thread(target=self._drop_each, name="drop-databases", daemon=True)
        self._dropper.start()

    def _execute(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self._admin_dsn, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]

    def _url(self, name: str) -> str:
        return f"{self._head}/{name}"

    def _template_name(self) -> str:
        with self._lock:
            if self._template is None:
                name = f"pp_template_{self._run}"
                self._execute(f'CREATE DATABASE "{name}"')
                _in_own_thread(lambda: asyncio.run(_make_schema(self._url(name))))
                self._template_schema = self._schema_of(name)  # (no session may stay on a template)
                self._template = name
            return self._template

    def copy(self, *, fresh: bool = False) -> tuple[str, Callable[[], None]]:
        """A database with the current schema and no rows (a copy of the template, or an emptied
        one), and what hands it back when the test is done. ``fresh``: always a new copy, whose
        tables were never vacuumed nor analysed (an emptied one's may have been, and PostgreSQL
        plans for a table vacuumed empty otherwise than for a new one); it is dropped afterwards."""
        template = self._template_name()
        name = None
        if not fresh:
            with contextlib.suppress(queue.Empty):
                name = self._emptied.get_nowait()
        if name is None:
            name = self._create(f'TEMPLATE "{template}"')
        return self._url(name), lambda: self._to_drop.put((name, not fresh))

    def empty(self) -> tuple[str, Callable[[], None]]:
        """A new database with nothing of ours in it, and its drop."""
        name = self._create("")
        return self._url(name), lambda: self._to_drop.put((name, False))

    def _create(self, template: str) -> str:
        name = f"pp_test_{self._run}_{secrets.token_hex(4)}"
        # A commit does not wait for the server's disk: a test database never outlives a server
        # crash, and a killed service (the drills) loses nothing this way (the server keeps it).
        self._execute(f'CREATE DATABASE "{name}" {template}'.rstrip(),
                      f'ALTER DATABASE "{name}" SET synchronous_commit = off')
        return name

    def _drop(self, name: str) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _schema_of(self, name: str) -> str:
        """The database's tables, columns, indexes, sequences, functions and triggers, as text."""
        import psycopg

        with psycopg.connect(self._url(name).replace("postgresql+psycopg://", "postgresql://")) as conn:
            row = conn.execute(_SCHEMA_OF).fetchone()
        assert row is not None
        return str(row[0])

    def _empty_for_reuse(self, name: str) -> bool:
        """Delete every row the test left (not the Alembic stamp), restart the sequences and drop
        the tables the template has not; False if that failed or the schema is not the template's."""
        import psycopg

        try:
            self._execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")
            with psycopg.connect(self._url(name).replace("postgresql+psycopg://", "postgresql://")) as conn:
                conn.execute("SET lock_timeout = '5s'")
                # No triggers (foreign keys, the rollups' own) while every table is emptied.
                conn.execute("SET session_replication_role = replica")
                for statement in [row[0] for row in conn.execute(_EMPTYING)]:
                    conn.execute(statement)  # type: ignore[arg-type]
            return self._schema_of(name) == self._template_schema
        except psycopg.Error:
            return False

    def _drop_each(self) -> None:
        while (item := self._to_drop.get()) is not None:
            name, reusable = item
            try:
                if reusable and self._empty_for_reuse(name):
                    self._emptied.put(name)
                else:
                    self._drop(name)
            except Exception as exc:  # reported by close()
                self._drop_errors.append(exc)

    def close(self) -> None:
        """Finish the drops under way, drop the emptied copies and the template; raise the first
        drop that failed."""
        self._to_drop.put(None)
        self._dropper.join()
        while True:
            try:
                self._drop(self._emptied.get_nowait())
            except queue.Empty:
                break
            except Exception as exc:
                self._drop_errors.append(exc)
        if self._template is not None:
            self._drop(self._template)
        if self._drop_errors:
            raise self._drop_errors[0]


_SCHEMA_OF = """
SELECT string_agg(item, E'\n' ORDER BY item) FROM (
  SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
         || coalesce(column_default, '') AS item
    FROM information_schema.columns WHERE table_schema = 'public'
  UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT 'relation ' || c.relkind::text || ' ' || c.relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
  UNION ALL SELECT 'function ' || p.proname || ' ' || md5(p.prosrc)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
  UNION ALL SELECT 'trigger ' || tgname || ' ' || tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
    WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT 'stamp ' || version_num FROM alembic_version
) AS everything
"""
"""What must be as in the template for a copy to be used again."""
_EMPTYING = """
SELECT 'DROP TABLE IF EXISTS ' || quote_ident(tablename) || ' CASCADE' FROM pg_tables
 WHERE schemaname = 'public' AND tablename = 'apscheduler_jobs'
UNION ALL SELECT 'DELETE FROM ' || quote_ident(tablename) FROM pg_tables
 WHERE schemaname = 'public' AND tablename NOT IN ('alembic_version', 'apscheduler_jobs')
UNION ALL SELECT 'SELECT setval(' || quote_literal(quote_ident(sequencename)) || ', 1, false)' FROM pg_sequences
 WHERE schemaname = 'public'
"""
"""The statements that empty a used copy: the job store's table (made by the service, not in the
template) dropped, every other table's rows deleted but the Alembic stamp, the sequences restarted."""


async def execute_raw(db: Database, sql: str) -> None:
    """Run one SQL statement in a transaction of its own (a test breaking or changing the schema)."""
    await db.run(lambda session: session.execute(text(sql)))
