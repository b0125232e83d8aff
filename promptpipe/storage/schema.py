"""The database's schema and its versions (Alembic, revisions in :mod:`promptpipe.storage.migrations`).

An empty database gets the current schema at once (the models' tables, stamped with the newest revision: a test checks
that equals running every revision). One made by an older release is upgraded only on purpose (``promptpipe db
upgrade``, or ``serve`` with DB_AUTO_UPGRADE), else refused (:class:`SchemaBehind`); one a newer release upgraded is
refused (:class:`SchemaAhead`). An upgrade runs every revision in one transaction; a SQLite file is copied first
(SQLite's backup API) and put back if anything fails. APScheduler's job table is its own.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlmodel import SQLModel

from promptpipe.errors import ConfigError
from promptpipe.storage import mirrors, rollup
from promptpipe.storage.db_errors import first_line
from promptpipe.storage.urls import sqlite_file, sync_url

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

__all__ = ["HEAD", "MIGRATIONS", "MigrationFailed", "Revision", "SchemaAhead", "SchemaBehind", "SchemaState",
           "UpgradeDone", "alembic_head", "head", "history", "include_object", "prepare", "read_state", "upgrade"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "alembic_version"
NOT_OURS = ("apscheduler_jobs", VERSION_TABLE)
UPGRADE_COMMAND = "promptpipe db upgrade"
HEAD = "0021_deliveries_found_by_index"
"""The newest revision, written here so that a service whose database is at it never imports Alembic (~8 MB of its
memory); Alembic is loaded to upgrade, or to tell an older or newer revision. A test checks it is Alembic's head."""


class SchemaBehind(ConfigError):
    """The database was made by an older release; it must be upgraded first."""


class SchemaAhead(ConfigError):
    """The database was upgraded by a newer release than this one."""


class MigrationFailed(ConfigError):
    """A revision failed; the database was left (or put back) as it was."""


@dataclass(frozen=True)
class SchemaState:
    current: str | None
    """The revision recorded in the database (None: none recorded)."""
    head: str
    """The newest revision this code knows."""
    empty: bool
    """No table of ours at all (a new database)."""
    known: bool
    """Whether ``current`` is a revision this code knows."""

    @property
    def at_head(self) -> bool:
        return self.current == self.head

    @property
    def behind(self) -> bool:
        return not self.empty and not self.at_head and (self.current is None or self.known)

    @property
    def ahead(self) -> bool:
        return self.current is not None and not self.known

    def describe(self) -> str:
        if self.empty:
            return "empty (the current schema is made at the first start)"
        if self.at_head:
            return f"{self.current} (the newest this release knows)"
        if self.ahead:
            return f"{self.current}, made by a newer release (this one knows up to {self.head})"
        made = self.current or "a release before versioned migrations"
        return f"{made}, behind this release's {self.head}: run `{UPGRADE_COMMAND}`"


@dataclass(frozen=True)
class Revision:
    id: str
    down: str | None
    doc: str


@dataclass(frozen=True)
class UpgradeDone:
    before: str | None
    after: str
    applied: tuple[str, ...]
    copy: Path | None
    """The copy of the SQLite file taken first (kept: it is the way back)."""


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """What a comparison of the models with a database looks at: our tables only, not APScheduler's or Alembic's."""
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return getattr(table, "name", name) not in NOT_OURS


def _config(connection: Connection | None = None, on_version_apply: Callable[..., None] | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    config.attributes["on_version_apply"] = on_version_apply
    return config


@functools.cache
def _script() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config())


def head() -> str:
    """The newest revision this code knows."""
    return HEAD


def alembic_head() -> str | None:
    """The newest revision as Alembic reads it from the revision files (what :data:`HEAD` must say)."""
    return _script().get_current_head()


def history() -> list[Revision]:
    """Every revision, oldest first."""
    return [Revision(s.revision, s.down_revision if isinstance(s.down_revision, str) else None,
                     (s.doc or "").strip().splitlines()[0] if s.doc else "")
            for s in reversed(list(_script().walk_revisions()))]


def read_state(conn: Connection) -> SchemaState:
    tables = set(inspect(conn).get_table_names())
    current = (conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar() if VERSION_TABLE in tables
               else None)
    ours = {table.name for table in SQLModel.metadata.sorted_tables}
    known = current in (None, HEAD) or current in {revision.id for revision in history()}
    return SchemaState(current, HEAD, empty=not (tables & ours), known=known)


def prepare(conn: Connection) -> SchemaState:
    """In an open transaction: make the current schema in an empty database; refuse one behind or ahead."""
    state = read_state(conn)
    if state.empty:
        SQLModel.metadata.create_all(conn)
        rollup.create_triggers(conn)
        mirrors.create_triggers(conn)
        conn.execute(text(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version_num VARCHAR(32) NOT NULL, "
                          f"CONSTRAINT {VERSION_TABLE}_pkc PRIMARY KEY (version_num))"))
        conn.execute(text(f"DELETE FROM {VERSION_TABLE}"))
        conn.execute(text(f"INSERT INTO {VERSION_TABLE} (version_num) VALUES (:head)"), {"head": state.head})
        return SchemaState(state.head, state.head, empty=False, known=True)
    refuse_unless_current(state)
    return state


def refuse_unless_current(state: SchemaState) -> None:
    if state.ahead:
        raise SchemaAhead(
            f"the database was upgraded by a newer PromptPipe release (schema {state.current}; this release knows up "
            f"to {state.head}): run that release, or restore the copy taken before its upgrade.")
    if state.behind:
        made = f"schema {state.current}" if state.current else "before versioned migrations"
        raise SchemaBehind(
            f"the database was made by an older PromptPipe release ({made}; this release needs {state.head}): "
            f"run `{UPGRADE_COMMAND}` once (a SQLite file is copied first), or start serve with "
            "DB_AUTO_UPGRADE=on.")


def upgrade(url: str, *, target: str = "head", now: datetime | None = None) -> UpgradeDone:
    """Bring the database at ``url`` to ``target``. Blocking: call it from a thread, with no service running on it."""
    from alembic import command

    path = sqlite_file(url)
    engine = _upgrade_engine(sync_url(url), sqlite=path is not None)
    try:
        with engine.connect() as conn:
            before = read_state(conn)
        if before.ahead:
            refuse_unless_current(before)
        copy = _copy_sqlite(path, before.current, now) if path is not None and path.exists() and not before.empty \
            else None
        applied: list[str] = []
        path_taken = _path(before.current, target)
        try:
            with engine.begin() as conn:
                if engine.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
                command.upgrade(_config(conn, lambda **kw: applied.append(kw["step"].up_revision_id)), target)
        except Exception as exc:
            failed = path_taken[len(applied)] if len(applied) < len(path_taken) else target
            if copy is not None and path is not None:
                engine.dispose()
                _backup(copy, path)
            kept = "the copy was put back" if copy is not None else "nothing of it was kept"
            raise MigrationFailed(f"revision {failed} failed ({first_line(exc)}); the database is as it was before "
                                  f"the upgrade ({kept}).") from exc
        with engine.connect() as conn:
            after = read_state(conn)
    finally:
        engine.dispose()
    return UpgradeDone(before.current, after.current or "", tuple(applied), copy)


SCHEMA_LOCK_KEY = 0x50505343  # "PPSC": one maker or upgrader of the schema at a time on PostgreSQL


def _path(current: str | None, target: str) -> list[str]:
    """The revisions an upgrade from ``current`` to ``target`` applies, in order."""
    return [s.revision for s in reversed(list(_script().iterate_revisions(target, current or "base")))]


def _upgrade_engine(url: str, *, sqlite: bool) -> Engine:
    if not sqlite:
        return create_engine(url, hide_parameters=True)
    engine = create_engine(url, hide_parameters=True, connect_args={"timeout": 15})

    @event.listens_for(engine, "connect")
    def _setup(dbapi_conn: Any, _: Any) -> None:
        dbapi_conn.isolation_level = None  # we say BEGIN: SQLite's DDL then rolls back with the rest
        dbapi_conn.execute("PRAGMA foreign_keys=OFF")  # a batch change copies tables; references stay as they are

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _copy_sqlite(path: Path, current: str | None, now: datetime | None) -> Path:
    """A consistent copy of the file beside it, private like the original."""
    from promptpipe.storage.files import create_private_file

    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    copy = path.with_name(f"{path.name}.before-upgrade-{current or 'unversioned'}-{stamp}")
    create_private_file(copy)
    _backup(path, copy)
    return copy


def _backup(source_path: Path, target_path: Path) -> None:
    """``target_path`` becomes a consistent copy of ``source_path`` (SQLite's backup API)."""
    with sqlite3.connect(source_path) as source, sqlite3.connect(target_path) as target:
        source.backup(target)
    source.close()
    target.close()
