"""Who calls the API or dashboard: a bearer token or a session's, checked every request (a use noted to the minute)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from promptpipe.domain.access import hash_token
from promptpipe.research.tokens import Caller
from promptpipe.storage.access import mark_used, token_by_hash, token_by_id
from promptpipe.storage.access_tables import ApiToken
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


def _caller(token: ApiToken | None, now: datetime) -> Caller | Expired | None:
    if token is None or token.revoked_at is not None or token.id is None:
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


async def note_use(db: Database, caller: Caller, now: datetime) -> None:
    """Note the token's use (a write only when the last noted one is older than :data:`USE_NOTED_EVERY`)."""
    if caller.last_used_at is None or now - caller.last_used_at >= USE_NOTED_EVERY:
        await db.run(lambda session: mark_used(session, caller.token_id, now=now, step=USE_NOTED_EVERY))
