"""API tokens: created (the secret shown once), listed and revoked by name, and checked on every
request; and the audit log that records every write made with one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from promptpipe.clock import Clock
from promptpipe.domain.access import ROLES, TOKEN_NAME, Role, hash_token, new_token
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.errors import AdminError
from promptpipe.research._common import researcher_name, validate_text
from promptpipe.storage.access import add_audit, add_token, list_tokens, revoke_token, token_by_hash, token_by_id
from promptpipe.storage.access_tables import ApiToken
from promptpipe.storage.db import Database

__all__ = ["Caller", "TokenView", "audit", "authenticate", "caller_by_id", "create_token", "revoke", "tokens"]


@dataclass(frozen=True)
class Caller:
    """Who is calling the API or using the dashboard: a valid, unrevoked token."""

    token_id: int
    name: str
    role: str


@dataclass(frozen=True)
class TokenView:
    """A token as listed: never its secret nor its hash."""

    name: str
    role: Role
    created_at: str | None
    created_by: str
    revoked_at: str | None
    revoked_by: str | None


async def create_token(db: Database, clock: Clock, *, name: str, role: str, by: str = "") -> tuple[str, TokenView]:
    """A new token: the secret (to show once) and its row."""
    name = validate_text("--name", name, 64, required=True)
    if not TOKEN_NAME.fullmatch(name):
        raise AdminError(f"--name: {name!r} may hold only letters, digits and . _ @ - (at most 64)")
    if role not in ROLES:
        raise AdminError(f"--role: {role!r} is not one of {', '.join(ROLES)}")
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    secret, now = new_token(), clock.now()
    row = await db.run(lambda session: _row(add_token(session, name=name, role=role, token_hash=hash_token(secret),
                                                      by=by, now=now)))
    return secret, row


async def tokens(db: Database) -> list[TokenView]:
    return await db.run(lambda session: [_row(token) for token in list_tokens(session)])


async def revoke(db: Database, clock: Clock, *, name: str, by: str = "") -> str:
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()
    row = await db.run(lambda session: _row(revoke_token(session, name, by=by, now=now)))
    return f"token {name!r} ({row.role}) is revoked; requests with it fail from now on"


async def authenticate(db: Database, secret: str) -> Caller | None:
    """The caller this secret belongs to, or None (unknown or revoked)."""
    if not secret or len(secret) > 200:
        return None
    token = await db.run(lambda session: token_by_hash(session, hash_token(secret)))
    if token is None or token.revoked_at is not None or token.id is None:
        return None
    return Caller(token.id, token.name, token.role)


async def caller_by_id(db: Database, token_id: int) -> Caller | None:
    """The caller of a signed-in dashboard session, unless their token was revoked since."""
    token = await db.run(lambda session: token_by_id(session, token_id))
    if token is None or token.revoked_at is not None or token.id is None:
        return None
    return Caller(token.id, token.name, token.role)


async def audit(db: Database, clock: Clock, caller: Caller, action: str, *, participant_id: str | None = None,
                detail: dict[str, Any] | None = None, via: str = "api") -> None:
    """Record a write made with ``caller``'s token (never a participant's words)."""
    now = clock.now()
    await db.run(lambda session: add_audit(session, actor=caller.name, role=caller.role, action=action,
                                           participant_id=participant_id, detail=detail or {}, via=via, now=now))


def _row(token: ApiToken) -> TokenView:
    def when(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return TokenView(name=token.name, role=Role(token.role), created_at=when(token.created_at),
                     created_by=token.created_by, revoked_at=when(token.revoked_at), revoked_by=token.revoked_by)
