"""How the alarm clock's service hears of timer and schedule changes other services commit: a notification in the
same transaction (:func:`promptpipe.storage.alarm_notices.notify_alarms`), delivered if and only if the commit is. The
holder listens from before its takeover reconcile; a broken connection is reopened and followed by a reconcile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
import sqlalchemy as sa

from promptpipe.logging import get_logger
from promptpipe.storage.alarm_notices import CHANNEL

__all__ = ["AlarmNotices"]

log = get_logger("promptpipe.scheduling.alarm_notices")
RECONNECT_S = 1.0


class AlarmNotices:
    """A thread listening on :data:`CHANNEL`: ``heard`` gets each notice's ids, ``missed`` hears of a reconnection."""

    def __init__(self, database_url: str, heard: Callable[[list[str]], object], missed: Callable[[], object]) -> None:
        self._dsn = sa.make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self._heard, self._missed = heard, missed
        self._stopped = threading.Event()
        self._listening = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None
        self.heard = 0

    def start(self, timeout_s: float = 10.0) -> None:
        """Listen from now on (returns once the LISTEN is in force)."""
        self._thread = threading.Thread(target=self._run, name="alarm-notices", daemon=True)
        self._thread.start()
        if not self._listening.wait(timeout_s):
            log.warning("alarm_notices_not_listening", waited_s=timeout_s)

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        first = True
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    if not first:
                        self._missed()
                    first = False
                    while not self._stopped.is_set():
                        for notice in conn.notifies(timeout=0.5):
                            ids = [pid for pid in notice.payload.split(",") if pid]
                            self.heard += 1
                            if ids:
                                self._heard(ids)
            except Exception as exc:
                log.warning("alarm_notices_connection_lost", error=str(exc)[:200])
                self._stopped.wait(RECONNECT_S)
