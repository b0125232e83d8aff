"""Authentication: a bearer token for the API; for the dashboard a token once, then a session cookie (token id, expiry
and nonce, HMAC-signed with a key kept in the database; the token is looked up on every request, so revoking it ends its
sessions at once). A form's CSRF token derives from the nonce."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from promptpipe.domain.access import Role, allows
from promptpipe.errors import StorageError
from promptpipe.logging import get_logger
from promptpipe.research.tokens import Caller
from promptpipe.study.store.seed import secret_value
from promptpipe.web.context import WebContext
from promptpipe.web.errors import ApiError
from promptpipe.web.identity import Expired, caller_by_id, identify, note_use

__all__ = ["CALLER_SCOPE_KEY", "SESSION_COOKIE", "Admin", "Context", "Researcher", "SessionData", "SignInRequired",
           "Viewer", "api_caller", "client_address", "context", "csrf_token", "load_session_key", "new_session_cookie",
           "read_session", "require", "session_caller"]

log = get_logger("promptpipe.web")

SESSION_COOKIE = "pp_session"
SESSION_KEY_NAME = "dashboard_session_key"


def context(request: Request) -> WebContext:
    ctx = request.app.state.ctx
    assert isinstance(ctx, WebContext)
    return ctx


async def _context(request: Request) -> WebContext:
    """:func:`context` as a dependency: FastAPI runs a plain function's in a worker thread, a hop per request."""
    return context(request)


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _refuse_if_blocked(ctx: WebContext, address: str) -> None:
    wait = ctx.failures.blocked_for(address)
    if wait > 0:
        raise ApiError(429, f"too many failed attempts from this address; try again in {int(wait) + 1} s",
                       headers={"Retry-After": str(int(wait) + 1)})


async def _noted(ctx: WebContext, caller: Caller, address: str) -> Caller:
    """``caller`` from ``address``, their token's use noted (a failure to note it fails nothing)."""
    try:
        await note_use(ctx.db, caller, ctx.clock.now(), ctx.uses_noted)
    except StorageError as exc:
        log.warning("token_use_not_noted", token=caller.name, error=str(exc))
    return replace(caller, address=address)


async def check_secret(ctx: WebContext, address: str, secret: str) -> Caller | None:
    """The caller of ``secret``; failures (expired too: 401 saying so) count against ``address`` (429 past limit)."""
    if not await ctx.failures.begin(address):  # counted until settled: concurrent guesses see it
        _refuse_if_blocked(ctx, address)
    found: Caller | Expired | None = None
    try:
        found = await identify(ctx.reader, secret, ctx.clock.now())
    finally:
        ctx.failures.end(address, failed=not isinstance(found, Caller))
    if isinstance(found, Expired):
        log.warning("api_auth_expired", client=address, token=found.name)
        raise ApiError(401, found.message, headers={"WWW-Authenticate": "Bearer"})
    if found is None:
        log.warning("api_auth_failed", client=address)
        return None
    return await _noted(ctx, found, address)


CALLER_SCOPE_KEY = "promptpipe.caller"
"""Where :mod:`promptpipe.web.api_gate` keeps the caller it already checked."""


async def api_caller(request: Request) -> Caller:
    """The bearer token's caller; 401 for a missing, unknown or revoked token (an expired one is told so)."""
    checked = request.scope.get(CALLER_SCOPE_KEY)
    if isinstance(checked, Caller):
        return checked
    ctx = context(request)
    scheme, _, secret = request.headers.get("authorization", "").partition(" ")
    caller = await check_secret(ctx, client_address(request), secret.strip()) if scheme.lower() == "bearer" else None
    if caller is None:
        if scheme.lower() != "bearer":
            _refuse_if_blocked(ctx, client_address(request))
            ctx.failures.record(client_address(request))
        raise ApiError(401, "a valid bearer token is required", headers={"WWW-Authenticate": "Bearer"})
    return caller


def require(role: Role) -> Callable[[Request], Awaitable[Caller]]:
    """A dependency: the API caller, who must have at least ``role`` (else 403)."""

    async def dependency(request: Request) -> Caller:
        caller = await api_caller(request)
        if not allows(caller.role, role):
            raise ApiError(403, f"this needs the {role} role; your token has {caller.role}")
        return caller

    return dependency


Viewer = Annotated[Caller, Depends(require(Role.VIEWER))]
"""A route's caller, who has at least the viewer role (403 otherwise); Researcher and Admin likewise."""
Researcher = Annotated[Caller, Depends(require(Role.RESEARCHER))]
Admin = Annotated[Caller, Depends(require(Role.ADMIN))]
Context = Annotated[WebContext, Depends(_context)]

# ------------------------------------------------------------------------------------ sessions

def load_session_key(session: Session) -> bytes:
    """The dashboard's signing key, made once per database (all services on it share it)."""
    return bytes.fromhex(secret_value(session, SESSION_KEY_NAME))


@dataclass(frozen=True)
class SessionData:
    token_id: int
    expires: int
    nonce: str


def _sign(key: bytes, payload: bytes) -> str:
    return base64.urlsafe_b64encode(hmac.new(key, payload, hashlib.sha256).digest()).decode().rstrip("=")


def new_session_cookie(ctx: WebContext, caller: Caller, now: datetime) -> str:
    expires = int((now + ctx.settings.web_session_lifetime).timestamp())
    payload = json.dumps({"t": caller.token_id, "e": expires, "n": secrets.token_urlsafe(16)},
                         separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(payload).decode().rstrip("=") + "." + _sign(ctx.session_key, payload)


def read_session(ctx: WebContext, cookie: str | None, now: datetime) -> SessionData | None:
    """The session in a cookie, if its signature holds and it has not expired."""
    if not cookie or "." not in cookie or len(cookie) > 400:
        return None
    body, _, signature = cookie.partition(".")
    try:
        payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        data = json.loads(payload)
        session = SessionData(int(data["t"]), int(data["e"]), str(data["n"]))
    except (ValueError, KeyError, TypeError):
        return None
    if not hmac.compare_digest(signature, _sign(ctx.session_key, payload)):
        return None
    return session if session.expires > now.timestamp() else None


def csrf_token(ctx: WebContext, nonce: str) -> str:
    return _sign(ctx.session_key, b"csrf|" + nonce.encode())


class SignInRequired(Exception):
    """The dashboard needs a (new) sign-in: answered with a redirect to the sign-in page."""


async def session_caller(request: Request) -> tuple[Caller, SessionData]:
    """The signed-in dashboard user (and their session), or :class:`SignInRequired`."""
    ctx = context(request)
    session = read_session(ctx, request.cookies.get(SESSION_COOKIE), ctx.clock.now())
    if session is None:
        raise SignInRequired()
    caller = await caller_by_id(ctx.reader, session.token_id, ctx.clock.now())
    if caller is None:
        raise SignInRequired()
    return await _noted(ctx, caller, client_address(request)), session
