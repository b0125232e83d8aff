"""Who calls the API or dashboard: a bearer token or a session's, checked every request (a use noted to the minute)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from promptpipe.domain.access import hash_token
from promptpipe.research.tokens import Caller
from promptpipe.storage.access import TokenState, mark_used, token_by_hash, token_by_id
from promptpipe.storage.db import Database

__all__ = ["USE_NOTED_EVERY", "Expired", "caller_by_id", "identify", "note_use"]

USE_NOTED_EVERY = timedelta(minutes=1)
"""A token's last use is written at most this often (a request is a read; this keeps it one)."""


@dataclass(frozen=True)
class Expired:
    """A right secret whose token has expired: refused like a revoked one, but saying why."""

    name: str
    expired_at: datetime

    @property
    def message(self) -> str:
        return (f"the token {self.name!r} expired at {self.expired_at:%Y-%m-%d %H:%M} UTC; "
                "ask an admin for a new one")


def _caller(token: TokenState | None, now: datetime) -> Caller | Expired | None:
    if token is None or token.revoked_at is not None:
        return None
    if token.expires_at is not None and token.expires_at <= now:
        return Expired(token.name, token.expires_at)
    return Caller(token.id, token.name, token.role, token.last_used_at)


async def identify(db: Database, secret: str, now: datetime) -> Caller | Expired | None:
    """The caller of ``secret``; :class:`Expired` past its expiry; None for an unknown or revoked token."""
    if not secret or len(secret) > 200:
        return None
    return _caller(await db.run(lambda session: token_by_hash(session, hash_token(secret))), now)


async def caller_by_id(db: Database, token_id: int, now: datetime) -> Caller | None:
    """The caller of a signed-in dashboard session, unless their token was revoked or expired since."""
    found = _caller(await db.run(lambda session: token_by_id(session, token_id)), now)
    return found if isinstance(found, Caller) else None


async def note_use(db: Database, caller: Caller, now: datetime, noted: dict[int, datetime] | None = None) -> None:
    """Note the token's use (a write only when the last noted one is older than :data:`USE_NOTED_EVERY`). ``noted``:
    this process's notes by token id, so that the requests arriving while one is written do not each write too (they
    all read the old time; during a burst each write waits for the service's writer, and takes its lock from it)."""
    notes = {} if noted is None else noted
    last = max((at for at in (caller.last_used_at, notes.get(caller.token_id)) if at is not None), default=None)
    if last is not None and now - last < USE_NOTED_EVERY:
        return
    notes[caller.token_id] = now
    try:
        await db.run(lambda session: mark_used(session, caller.token_id, now=now, step=USE_NOTED_EVERY))
    except BaseException:
        if last is None:
            notes.pop(caller.token_id, None)
        else:
            notes[caller.token_id] = last
        raise
