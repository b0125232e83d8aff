"""PostgreSQL: a pooled connection is pinged before use only when it sat idle for a while.

SQLAlchemy's ``pool_pre_ping`` sends a ``SELECT 1`` at every checkout: a round trip before each transaction, a twentieth
of a database thread's time in a burst (benchmarks/README.md, issue 50). A connection checked in moments ago is the one
least likely to be dead; one the server dropped while in use fails its transaction, and SQLAlchemy then replaces every
connection the pool holds, as after any disconnect."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

__all__ = ["IDLE_BEFORE_PING_S", "ping_when_idle"]

IDLE_BEFORE_PING_S = 1.0
_CHECKED_IN = "promptpipe_checked_in"


def ping_when_idle(engine: Engine, idle_s: float = IDLE_BEFORE_PING_S,
                   monotonic: Callable[[], float] = time.monotonic) -> None:
    """Ping a connection at checkout when it was checked in ``idle_s`` or longer ago (or never): a dead one is replaced
    by a new connection (the pool's retry on :class:`DisconnectionError`) before the transaction uses it."""

    def checked_in(dbapi_connection: object, record: ConnectionPoolEntry) -> None:
        record.info[_CHECKED_IN] = monotonic()

    def checking_out(dbapi_connection: object, record: ConnectionPoolEntry, proxy: PoolProxiedConnection) -> None:
        since = record.info.get(_CHECKED_IN)
        if since is not None and monotonic() - since < idle_s:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)  # type: ignore[arg-type]
        except Exception as exc:
            raise DisconnectionError(f"the pooled connection did not answer: {type(exc).__name__}") from exc

    event.listen(engine, "checkin", checked_in)
    event.listen(engine, "checkout", checking_out)
