"""Queries on ``api_token`` and ``audit_log`` (see :mod:`promptpipe.storage.access_tables`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from promptpipe.errors import Conflict, NotFound
from promptpipe.storage.access_tables import ApiToken, AuditEntry
from promptpipe.storage.models import table_of

__all__ = ["add_audit", "add_token", "audit_entries", "list_tokens", "revoke_token", "token_by_hash", "token_by_id"]

_TOKEN = table_of(ApiToken)
_AUDIT = table_of(AuditEntry)


def add_token(session: Session, *, name: str, role: str, token_hash: str, by: str, now: datetime) -> ApiToken:
    if session.execute(select(_TOKEN.c.id).where(_TOKEN.c.name == name)).first() is not None:
        raise Conflict(f"a token named {name!r} exists already; choose another name (or revoke that one first)")
    token = ApiToken(name=name, role=role, token_hash=token_hash, created_at=now, created_by=by)
    session.add(token)
    session.flush()
    return token


def token_by_hash(session: Session, token_hash: str) -> ApiToken | None:
    """The token with this hash, revoked or not."""
    return session.execute(select(ApiToken).where(_TOKEN.c.token_hash == token_hash)).scalar_one_or_none()


def token_by_id(session: Session, token_id: int) -> ApiToken | None:
    return session.get(ApiToken, token_id)


def list_tokens(session: Session) -> list[ApiToken]:
    return list(session.execute(select(ApiToken).order_by(_TOKEN.c.id)).scalars())


def revoke_token(session: Session, name: str, *, by: str, now: datetime) -> ApiToken:
    token = session.execute(select(ApiToken).where(_TOKEN.c.name == name)).scalar_one_or_none()
    if token is None:
        raise NotFound(f"there is no token named {name!r}; `promptpipe-admin token list` shows them")
    if token.revoked_at is None:
        session.execute(update(_TOKEN).where(_TOKEN.c.id == token.id).values(revoked_at=now, revoked_by=by))
        token.revoked_at, token.revoked_by = now, by
    return token


def add_audit(session: Session, *, actor: str, role: str, action: str, participant_id: str | None,
              detail: dict[str, Any], via: str, now: datetime) -> None:
    session.execute(insert(_AUDIT).values(actor=actor, role=role, action=action, participant_id=participant_id,
                                          detail=detail, via=via, created_at=now))


def audit_entries(session: Session, *, participant_id: str | None = None, limit: int = 100) -> list[AuditEntry]:
    """The newest entries first."""
    query = select(AuditEntry).order_by(_AUDIT.c.id.desc()).limit(limit)
    if participant_id is not None:
        query = query.where(_AUDIT.c.participant_id == participant_id)
    return list(session.execute(query).scalars())
