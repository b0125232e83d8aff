"""API tokens (the secret shown once), who made a request (:class:`Caller`), and the audit log of every write."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from promptpipe.clock import Clock
from promptpipe.domain.access import TOKEN_NAME, Role, hash_token, new_token
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.domain.setting_values import parse_duration
from promptpipe.errors import AdminError, ConfigError
from promptpipe.research._common import researcher_name, validate_text
from promptpipe.research.views import iso
from promptpipe.storage import access
from promptpipe.storage.access_tables import ApiToken, AuditEntry
from promptpipe.storage.db import Database

__all__ = ["EXPIRES_HELP", "MAX_AUDIT_PAGE", "AuditPage", "AuditView", "Caller", "TokenView", "audit", "audit_cli",
           "audit_filters", "audit_page", "create_token", "expiry", "revoke", "tokens"]

MAX_AUDIT_PAGE = 500
EXPIRES_HELP = ("when it stops working: a time from now (12h, 30d) or a date (YYYY-MM-DD: through that day in "
                "RESEARCHER_TIMEZONE); leave out for never")


@dataclass(frozen=True)
class Caller:
    """Who is calling the API or using the dashboard: a valid, unrevoked, unexpired token."""

    token_id: int
    name: str
    role: str
    last_used_at: datetime | None = None
    address: str | None = None
    """Where the request came from (set by the web layer; kept in the audit log)."""


@dataclass(frozen=True)
class TokenView:
    """A token as listed: never its secret nor its hash."""

    name: str
    role: Role
    created_at: str | None
    created_by: str
    revoked_at: str | None
    revoked_by: str | None
    expires_at: str | None = None
    last_used_at: str | None = None


def expiry(raw: str, now: datetime, zone: ZoneInfo, option: str = "--expires") -> datetime | None:
    """``30d``, ``12h``, ``1d12h`` from now, a date (through that day in ``zone``) or an ISO time; empty: never."""
    text = raw.strip()
    if not text:
        return None
    at: datetime | None = None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            at = datetime.combine(date.fromisoformat(text) + timedelta(days=1), time(), zone)
        except ValueError:
            raise AdminError(f"{option}: {text!r} is not a date; write it as YYYY-MM-DD") from None
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ].+", text):
        try:
            at = datetime.fromisoformat(text)
        except ValueError:
            at = None
        if at is None or at.tzinfo is None:
            raise AdminError(f"{option}: {text!r} needs its offset, e.g. 2026-12-31T18:00+01:00") from None
    elif not text.isdigit():
        try:
            at = now + parse_duration(option, text)
        except ConfigError:
            at = None
    if at is None:
        raise AdminError(f"{option}: {text!r} is neither a time from now (like 12h or 30d) nor a date (YYYY-MM-DD)")
    if at <= now:
        raise AdminError(f"{option}: {text!r} is not in the future")
    return at.astimezone(timezone.utc)


async def create_token(db: Database, clock: Clock, *, name: str, role: str, by: str = "",
                       expires_at: datetime | None = None) -> tuple[str, TokenView]:
    """A new token: the secret (to show once) and its row."""
    name = validate_text("--name", name, 64, required=True)
    if not TOKEN_NAME.fullmatch(name):
        raise AdminError(f"--name: {name!r} may hold only letters, digits and . _ @ - (at most 64)")
    if role not in tuple(Role):
        raise AdminError(f"--role: {role!r} is not one of {', '.join(Role)}")
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    secret, now = new_token(), clock.now()
    if expires_at is not None and expires_at <= now:
        raise AdminError("--expires: the expiry is not in the future")
    row = await db.run(lambda session: _row(access.add_token(
        session, name=name, role=role, token_hash=hash_token(secret), by=by, now=now, expires_at=expires_at)))
    return secret, row


async def tokens(db: Database) -> list[TokenView]:
    return await db.run(lambda session: [_row(token) for token in access.list_tokens(session)])


async def revoke(db: Database, clock: Clock, *, name: str, by: str = "") -> str:
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()
    row = await db.run(lambda session: _row(access.revoke_token(session, name, by=by, now=now)))
    return f"token {name!r} ({row.role}) is revoked; requests with it fail from now on"


async def audit(db: Database, clock: Clock, caller: Caller, action: str, *, participant_id: str | None = None,
                detail: Mapping[str, object] | None = None, via: str = "api") -> None:
    """Record a write made with ``caller``'s token (never a participant's words)."""
    now = clock.now()
    await db.run(lambda session: access.add_audit(session, actor=caller.name, role=caller.role, action=action,
                                                  participant_id=participant_id, detail=dict(detail or {}), via=via,
                                                  now=now, address=caller.address))


async def audit_cli(db: Database, clock: Clock, action: str, *, by: str = "", detail: Mapping[str, object]) -> None:
    """Record a token change made with the admin script (whoever can run it can do what an admin can)."""
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()
    await db.run(lambda session: access.add_audit(session, actor=by, role=Role.ADMIN, action=action,
                                                  participant_id=None, detail=dict(detail), via="cli", now=now))


@dataclass(frozen=True)
class AuditView:
    """One audit entry as the team reads it (``detail`` never holds a participant's words or phone)."""

    id: int
    at: str
    actor: str
    role: str
    action: str
    via: str
    participant_id: str | None
    address: str | None
    detail: Mapping[str, object]
    """Open by nature: what each action records differs (never a participant's words or phone)."""


@dataclass(frozen=True)
class AuditPage:
    entries: list[AuditView]
    total: int
    """Every entry the filter matches."""


async def audit_page(db: Database, *, actor: str | None = None, action: str | None = None,
                     participant_id: str | None = None, limit: int = 50, offset: int = 0) -> AuditPage:
    """The newest entries first, filtered by who (a token's name, or the user of the admin script), what and to whom."""
    if not 1 <= limit <= MAX_AUDIT_PAGE or offset < 0:
        raise AdminError(f"limit: 1 to {MAX_AUDIT_PAGE}; offset: 0 or more")
    keys = {"actor": actor or None, "action": action or None, "participant_id": participant_id or None}
    if any("\x00" in value for value in keys.values() if value):
        return AuditPage([], 0)  # nothing holds a NUL (and PostgreSQL cannot compare one)

    def read(session: Any) -> AuditPage:
        rows = access.audit_entries(session, **keys, limit=limit, offset=offset)
        return AuditPage([_entry(row) for row in rows], access.audit_count(session, **keys))

    return await db.run(read)


async def audit_filters(db: Database) -> tuple[list[str], list[str]]:
    """Who may be filtered by (every token, and everyone the log names) and what (every action the log holds)."""
    return await db.run(lambda session: (sorted({*(token.name for token in access.list_tokens(session)),
                                                 *access.audit_actors(session)}), access.audit_actions(session)))


def _entry(row: AuditEntry) -> AuditView:
    return AuditView(id=row.id or 0, at=row.created_at.isoformat(), actor=row.actor, role=row.role, action=row.action,
                     via=row.via, participant_id=row.participant_id, address=row.address, detail=dict(row.detail))


def _row(token: ApiToken) -> TokenView:
    return TokenView(name=token.name, role=Role(token.role), created_at=iso(token.created_at),
                     created_by=token.created_by, revoked_at=iso(token.revoked_at), revoked_by=token.revoked_by,
                     expires_at=iso(token.expires_at), last_used_at=iso(token.last_used_at))
