"""Queries on ``number_lease``: which ``serve`` process holds each WhatsApp number (or role) now.

A lease is held while ``expires_at > now``; anyone may take it once expired or released. ``token`` grows with each new
holder, so a write guarded by :func:`held_by` changes nothing once the lease has moved on: a process that comes back
after losing it sends nothing. Presence leases (:func:`presence_name`) count who is alive, carry no fencing and are
deleted once expired. Times are the caller's clock: the processes' clocks must agree within a small part of the ttl.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import ColumnElement, Text, and_, bindparam, case, delete, exists, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from promptpipe.storage.alarm_notices import CHANNEL
from promptpipe.storage.models import NumberLease, table_of
from promptpipe.storage.prepared import Prepared

__all__ = ["PRESENCE", "RELEASED", "LeaseRow", "acquire", "every_lease", "forget_absent", "held_by", "holders",
           "presence_name", "release", "renew", "request_move", "still_held"]

_LEASE = table_of(NumberLease)
PRESENCE = "@live:"
"""The name prefix of a process's presence lease (numbers' names cannot start with ``@``)."""
RELEASED = ""
"""The holder of a released lease: nobody."""
_LONG_AGO = datetime(1970, 1, 1, tzinfo=timezone.utc)


def presence_name(group: str, holder: str) -> str:
    """The presence lease of ``holder`` among the processes that want the leases of ``group``."""
    return f"{PRESENCE}{group}:{holder}"


@dataclass(frozen=True)
class LeaseRow:
    name: str
    holder: str
    token: int
    expires_at: datetime
    heartbeat_at: datetime
    acquired_at: datetime
    service: str = ""
    """The holder's service (the last holder's, once released)."""
    preferred: str = ""
    move_to: str = ""

    def live(self, now: datetime) -> bool:
        """Held by someone at ``now`` (not expired, not released)."""
        return self.holder != RELEASED and self.expires_at > now

    @property
    def is_presence(self) -> bool:
        return self.name.startswith(PRESENCE)

    @property
    def released(self) -> bool:
        return self.holder == RELEASED


_COLUMNS = (_LEASE.c.name, _LEASE.c.holder, _LEASE.c.token, _LEASE.c.expires_at, _LEASE.c.heartbeat_at,
            _LEASE.c.acquired_at, _LEASE.c.service, _LEASE.c.preferred, _LEASE.c.move_to)


def acquire(session: Session, names: Iterable[str], holder: str, now: datetime, ttl: timedelta, *, service: str = "",
            preferred: Mapping[str, str] | None = None) -> dict[str, int]:
    """Take each lease in ``names`` that is free, expired or released (renewing ours) in one statement; returns those
    taken with their tokens. One that changes holder gets the next token, ``service``, its ``preferred`` service (where
    given) and no request to move any more. A lease someone else holds is left alone and missing from the answer."""
    wanted = sorted(set(names))  # one order for every process: concurrent upserts never deadlock
    if not wanted:
        return {}
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    preferred = preferred or {}
    rows = insert(_LEASE).values([
        {"name": name, "holder": holder, "token": 1, "expires_at": now + ttl, "heartbeat_at": now, "acquired_at": now,
         "service": service, "preferred": preferred.get(name, ""), "move_to": ""}
        for name in wanted
    ])
    new = rows.excluded
    same_holder = _LEASE.c.holder == new.holder
    keep_preferred = same_holder | (new.preferred == "")
    stmt = rows.on_conflict_do_update(
        index_elements=[_LEASE.c.name],
        set_={
            "holder": new.holder,
            "token": case((same_holder, _LEASE.c.token), else_=_LEASE.c.token + 1),
            "expires_at": new.expires_at,
            "heartbeat_at": new.heartbeat_at,
            "acquired_at": case((same_holder, _LEASE.c.acquired_at), else_=new.acquired_at),
            "service": new.service,
            "preferred": case((keep_preferred, _LEASE.c.preferred), else_=new.preferred),
            "move_to": case((same_holder, _LEASE.c.move_to), else_=new.move_to),
        },
        where=or_(_LEASE.c.expires_at <= now, _LEASE.c.holder == RELEASED, same_holder),
    ).returning(_LEASE.c.name, _LEASE.c.token)
    return {name: int(token) for name, token in session.connection().execute(stmt)}


def renew(session: Session, held: Mapping[str, int], holder: str, now: datetime,
          ttl: timedelta) -> dict[str, int]:
    """Extend the leases in ``held`` (name → token) still ours with that token; returns those (lost ones: missing)."""
    if not held:
        return {}
    ours = or_(*(and_(_LEASE.c.name == name, _LEASE.c.token == token) for name, token in sorted(held.items())))
    stmt = (update(_LEASE).where(_LEASE.c.holder == holder, ours)
            .values(expires_at=now + ttl, heartbeat_at=now)
            .returning(_LEASE.c.name, _LEASE.c.token))
    return {name: int(token) for name, token in session.connection().execute(stmt)}


def release(session: Session, names: Iterable[str], holder: str) -> list[str]:
    """Give up the leases in ``names`` that ``holder`` holds; returns those released. Number leases keep their row
    and token (the next holder's token follows it); a presence lease is deleted."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    connection = session.connection()
    mine = (_LEASE.c.name.in_(wanted)) & (_LEASE.c.holder == holder)
    gone = list(connection.execute(delete(_LEASE).where(mine, _LEASE.c.name.startswith(PRESENCE, autoescape=True))
                                   .returning(_LEASE.c.name)).scalars())
    freed = connection.execute(update(_LEASE).where(mine).values(holder=RELEASED, expires_at=_LONG_AGO)
                               .returning(_LEASE.c.name)).scalars()
    return sorted([*gone, *freed])


def holders(session: Session) -> list[LeaseRow]:
    """Every lease that has a holder (live or expired; released ones are left out), by name."""
    return [LeaseRow(*row) for row in session.connection().execute(
        select(*_COLUMNS).where(_LEASE.c.holder != RELEASED).order_by(_LEASE.c.name))]


def every_lease(session: Session) -> list[LeaseRow]:
    """Every lease, released ones too (their last service and preferred one are still known), by name."""
    return [LeaseRow(*row) for row in session.connection().execute(select(*_COLUMNS).order_by(_LEASE.c.name))]


def request_move(session: Session, name: str, service: str) -> None:
    """Ask for the lease ``name`` to move to ``service``: its holder gives it back at its next round (if ``service``
    is up), and only ``service`` takes it then. A lease nobody ever held gets its row, free."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    row = insert(_LEASE).values(name=name, holder=RELEASED, token=0, expires_at=_LONG_AGO, heartbeat_at=_LONG_AGO,
                                acquired_at=_LONG_AGO, move_to=service)
    session.connection().execute(row.on_conflict_do_update(index_elements=[_LEASE.c.name],
                                                           set_={"move_to": row.excluded.move_to}))


def forget_absent(session: Session, now: datetime) -> int:
    """Delete the presence leases that have expired (processes gone); returns how many."""
    done = session.connection().execute(
        delete(_LEASE).where(_LEASE.c.name.startswith(PRESENCE, autoescape=True), _LEASE.c.expires_at <= now))
    return int(done.rowcount or 0)


def held_by(name: ColumnElement[Any] | str, holder: str, token: ColumnElement[Any] | int,
            now: datetime) -> ColumnElement[bool]:
    """A condition for another statement's WHERE: the lease ``name`` (a column or a value) is held at ``now`` by
    ``holder`` with ``token``, so a write guarded by it does nothing once the lease has expired or moved."""
    return exists().where(_LEASE.c.name == name, _LEASE.c.holder == holder, _LEASE.c.token == token,
                          _LEASE.c.expires_at > now)


_HELD = select(_LEASE.c.name).where(_LEASE.c.name == bindparam("name"), _LEASE.c.holder == bindparam("holder"),
                                    _LEASE.c.token == bindparam("token"), _LEASE.c.expires_at > bindparam("now"))
_STILL_HELD = {"sqlite": Prepared(_HELD), "postgresql": Prepared(_HELD.with_for_update(read=True))}
"""Built once: every commit of a service among several runs it (through SQLAlchemy's execution, a fifth of a
commit's CPU on PostgreSQL)."""


_HELD_NOTIFYING = Prepared(_HELD.add_columns(func.pg_notify(bindparam("channel", type_=Text),
                                                             bindparam("ids", type_=Text))).with_for_update(read=True))
"""PostgreSQL: the same check telling the alarm clock's service of changed schedules or timers in the same statement
(one round trip fewer per commit; only a held lease's row calls it, and a commit without the lease rolls back)."""


def still_held(session: Session, name: str, holder: str, token: int, now: datetime,
               alarms: Sequence[str] = ()) -> bool:
    """Whether ``holder`` still holds ``name`` with ``token`` at ``now``, with a share lock on PostgreSQL: nobody can
    take the lease over until the caller's transaction ends, so a commit that checked this first is the holder's.
    ``alarms``: participants whose schedules or timers the transaction changed, told to the alarm clock's service (as
    :func:`~promptpipe.storage.alarm_notices.notify_alarms`; PostgreSQL only), delivered if and only if it commits."""
    connection = session.connection()
    values = {"name": name, "holder": holder, "token": token, "now": now}
    if alarms:
        return bool(_HELD_NOTIFYING.rows(connection, {**values, "channel": CHANNEL, "ids": ",".join(alarms)}))
    return bool(_STILL_HELD[connection.dialect.name].rows(connection, values))
