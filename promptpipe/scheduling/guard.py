"""One guard for the whole service: only one ``serve`` per state directory and per database (two would answer and
prompt twice; APScheduler 3.x must never share a job store). A lock file in the state directory, and one next to a
SQLite database or a PostgreSQL advisory lock on its own connection.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine, text

from promptpipe.errors import ConfigError
from promptpipe.storage.db import Database
from promptpipe.storage.files import create_private_file
from promptpipe.storage.state_dir import LOCK_NAME

__all__ = ["ServiceGuard", "service_holds"]

PG_LOCK_KEY = 0x50505F4A  # "PP_J"
DATABASE_LOCK_SUFFIX = ".alarms.lock"

_SECOND_SERVICE = (
    "another PromptPipe service is already running on this DATABASE_URL; two services would send "
    "every scheduled prompt twice. Stop the other one first (or run every service with SEVERAL_SERVICES=on)."
)
_ALONE_RUNS = (
    "a PromptPipe service running alone (SEVERAL_SERVICES off) holds this DATABASE_URL; services share a "
    "database only when every one of them has SEVERAL_SERVICES=on. Stop it first."
)


class ServiceGuard:
    def __init__(self, db: Database, engine: Engine, state_dir: Path | None, *, shared_database: bool = False) -> None:
        """``engine``: the job store's (holding the PostgreSQL lock); ``state_dir``: None for no lock file;
        ``shared_database``: one of several services, which share the lock and keep one running alone out."""
        self.db, self.engine, self.state_dir = db, engine, state_dir
        self.shared = shared_database
        self._files: list[IO[str]] = []
        self._connection: Any = None

    def hold_state_dir(self) -> None:
        """Before anything opens the WhatsApp session or the database."""
        if self.state_dir is None:
            return
        path = self.state_dir / LOCK_NAME
        if (handle := _locked(path)) is None:
            holder = path.read_text(errors="replace").strip() or "another process"
            raise ConfigError(
                f"another PromptPipe service ({holder}) is already running with PROMPTPIPE_STATE_DIR="
                f"{str(self.state_dir)!r}; stop it first (two services would answer every message twice).")
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._files.append(handle)

    def hold_database(self) -> None:
        """Once the database is reachable (its own errors say what is wrong with the URL)."""
        if self.db.is_sqlite:
            path = self.db.sqlite_path
            if path is None:  # in memory: nothing else can share it
                return
            if (handle := _locked(Path(f"{path}{DATABASE_LOCK_SUFFIX}"))) is None:
                raise ConfigError(_SECOND_SERVICE)
            self._files.append(handle)
            return
        conn = self.engine.connect()
        take = "pg_try_advisory_lock_shared" if self.shared else "pg_try_advisory_lock"
        if not conn.execute(text(f"SELECT {take}(:key)"), {"key": PG_LOCK_KEY}).scalar():
            conn.close()
            raise ConfigError(_ALONE_RUNS if self.shared else _SECOND_SERVICE)
        conn.commit()
        self._connection = conn

    def release(self) -> None:
        files, self._files = self._files, []
        for handle in files:
            with contextlib.suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        conn, self._connection = self._connection, None
        if conn is not None:
            with contextlib.suppress(Exception):  # the connection would go back to the pool holding the lock
                unlock = "pg_advisory_unlock_shared" if self.shared else "pg_advisory_unlock"
                conn.execute(text(f"SELECT {unlock}(:key)"), {"key": PG_LOCK_KEY})
                conn.commit()
                conn.invalidate()
                conn.close()


def service_holds(db: Database, engine: Engine) -> bool:
    """Whether a service holds this database's lock right now; looked at without keeping the lock."""
    guard = ServiceGuard(db, engine, None)
    try:
        guard.hold_database()
    except ConfigError:
        return True
    guard.release()
    return False


def _locked(path: Path) -> IO[str] | None:
    """The file, open and exclusively locked for the life of the service; None if another holds it."""
    create_private_file(path)
    handle = open(path, "a+")  # noqa: SIM115  (held for the life of the service)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle
