"""``promptpipe db current | history | upgrade``: the database schema's version, and the upgrade
that brings a database made by an older release to this one's (see promptpipe.storage.schema)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from promptpipe.config import Settings
from promptpipe.domain.text import mask_credentials
from promptpipe.errors import ConfigError
from promptpipe.scheduling.guard import ServiceGuard
from promptpipe.storage import schema
from promptpipe.storage.db import Database
from promptpipe.storage.urls import sqlite_file

__all__ = ["db_command"]


async def db_command(settings: Settings, action: str) -> int:
    if action == "history":
        _history(await _state(settings))
    elif action == "current":
        state = await _state(settings)
        print(f"database: {mask_credentials(settings.database_url)}")
        print(f"schema: {state.describe() if state else 'no database there yet (serve makes one)'}")
    else:
        await _upgrade(settings)
    return 0


async def _state(settings: Settings) -> schema.SchemaState | None:
    path = sqlite_file(settings.database_url)
    if path is not None and not path.exists():
        return None
    db = Database(settings.database_url)
    try:
        return await asyncio.to_thread(_read, db)
    finally:
        await db.close()


def _read(db: Database) -> schema.SchemaState:
    try:
        with db.engine.connect() as conn:
            return schema.read_state(conn)
    except Exception as exc:
        raise ConfigError(f"DATABASE_URL: cannot open the database ({str(exc).splitlines()[0][:200]})") from None


def _history(state: schema.SchemaState | None) -> None:
    current = state.current if state else None
    for revision in schema.history():
        marks = [mark for mark, holds in (("current", revision.id == current), ("head", revision.id == schema.head()))
                 if holds]
        print(f"{revision.id}{' (' + ', '.join(marks) + ')' if marks else ''}: {revision.doc}")
    if state is not None and state.current is None and not state.empty:
        print("this database records no revision: it was made by a release before versioned migrations "
              f"(run `{schema.UPGRADE_COMMAND}`)")


async def _upgrade(settings: Settings) -> None:
    path = sqlite_file(settings.database_url)
    if path is not None and not path.exists():
        print(f"no database at {path} yet: nothing to upgrade (serve makes a new one with the current schema)")
        return
    db = Database(settings.database_url)
    guard = ServiceGuard(db, db.engine, None)
    try:
        await asyncio.to_thread(guard.hold_database)  # no service may run on it meanwhile
        state = await asyncio.to_thread(_read, db)
        if state.at_head:
            print(f"the database is at {state.head} already: nothing to do")
            return
        done = await asyncio.to_thread(schema.upgrade, settings.database_url)
    finally:
        guard.release()
        await db.close()
    print(f"upgraded the database from {done.before or 'a release before versioned migrations'} to {done.after} "
          f"({', '.join(done.applied) or 'no revision to apply'})")
    if done.copy is not None:
        print(f"a copy from before the upgrade is kept at {Path(done.copy)} (delete it once you are satisfied)")
