"""API and dashboard tokens (``/tokens``), for admins only: listed, made (the secret shown once) and revoked after a
confirmation (the last admin token only with the admin script), each audited (``via="dashboard"``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.access import TOKEN_NAME, Role, allows
from promptpipe.errors import AdminError
from promptpipe.research import tokens
from promptpipe.research.tokens import TokenView, audit
from promptpipe.web.errors import status_for
from promptpipe.web.pages._render import PageError, Visitor, allowing, attempt, form_visitor, render
from promptpipe.web.pages._times import TimeLabel

__all__ = ["router"]

router = APIRouter()


admin_page = allowing(lambda found: allows(found.caller.role, Role.ADMIN), "Tokens are managed by admins")


async def admin_form(found: Annotated[Visitor, Depends(form_visitor)]) -> Visitor:
    """A dependency for forms: an admin's, with its CSRF token (the same refusal as :data:`admin_page`)."""
    return await admin_page(found)


@dataclass(frozen=True)
class Row:
    name: str
    role: str
    created: TimeLabel | None
    created_by: str
    expires: TimeLabel | None
    expired: bool
    last_used: TimeLabel | None
    revoked: TimeLabel | None
    revoked_by: str
    yours: bool


def _row(found: Visitor, token: TokenView) -> Row:
    expires = datetime.fromisoformat(token.expires_at) if token.expires_at else None
    zone = found.zone.key  # the researcher's own: a token has no participant
    return Row(name=token.name, role=token.role, created=found.when(token.created_at, zone),
               created_by=token.created_by, expires=found.when(token.expires_at, zone),
               expired=expires is not None and expires <= found.now, last_used=found.when(token.last_used_at, zone),
               revoked=found.when(token.revoked_at, zone), revoked_by=token.revoked_by or "",
               yours=token.name == found.caller.name)


async def _page(request: Request, found: Visitor, *, status_code: int = 200, done: str = "", error: str = "",
                created: str = "", secret: str = "", form: dict[str, str] | None = None,
                confirm: Row | None = None) -> HTMLResponse:
    rows = [_row(found, token) for token in await attempt(tokens.tokens(found.ctx.reader))]
    response = render(request, "tokens.html", found, section="tokens", rows=rows, roles=tuple(Role), done=done,
                      error=error, created=created, secret=secret, confirm=confirm, expires_help=tokens.EXPIRES_HELP,
                      form=form or {"name": "", "role": "viewer", "expires": ""}, status_code=status_code)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/tokens", response_class=HTMLResponse)
async def token_list(request: Request, found: Annotated[Visitor, Depends(admin_page)],
                     revoked: str = "") -> HTMLResponse:
    done = f"Token {revoked} is revoked: requests and sessions with it fail from now on." \
        if TOKEN_NAME.fullmatch(revoked) else ""
    return await _page(request, found, done=done)


@router.post("/tokens", response_class=HTMLResponse)
async def create(request: Request, found: Annotated[Visitor, Depends(admin_form)], name: Annotated[str, Form()] = "",
                 role: Annotated[str, Form()] = "", expires: Annotated[str, Form()] = "") -> HTMLResponse:
    ctx, form = found.ctx, {"name": name.strip(), "role": role, "expires": expires.strip()}
    try:
        expires_at = tokens.expiry(form["expires"], found.now, found.zone, option="Expires")
        secret, row = await tokens.create_token(ctx.db, ctx.clock, name=form["name"], role=role,
                                                by=found.caller.name, expires_at=expires_at)
    except AdminError as exc:
        return await _page(request, found, status_code=status_for(exc)[0], form=form,
                           error=str(exc).replace("--name", "Name").replace("--role", "Role"))
    await audit(ctx.db, ctx.clock, found.caller, "token_create", via="dashboard",
                detail={"name": row.name, "role": row.role, "expires_at": row.expires_at})
    return await _page(request, found, status_code=201, created=row.name, secret=secret)


LAST_ADMIN = ("is the last admin token: without it nobody could manage tokens from the dashboard or the API. Make "
              "another admin token first, or revoke it with promptpipe-admin token revoke.")


def _last_admin(listed: list[TokenView], name: str, now: datetime) -> bool:
    """Whether ``name`` is the only admin token still in use (revoking it is left to the admin script)."""
    return [token.name for token in listed if token.role == Role.ADMIN and token.revoked_at is None
            and not (token.expires_at and datetime.fromisoformat(token.expires_at) <= now)] == [name]


def _named(name: str) -> str:
    if not TOKEN_NAME.fullmatch(name):
        raise PageError(404, "There is no token by that name; the tokens page lists them.")
    return name


@router.get("/tokens/{name}/revoke", response_class=HTMLResponse)
async def confirm_revoke(request: Request, name: str, found: Annotated[Visitor, Depends(admin_page)]) -> HTMLResponse:
    listed = await attempt(tokens.tokens(found.ctx.reader))
    token = next((token for token in listed if token.name == _named(name)), None)
    if token is None:
        raise PageError(404, f"There is no token named {name!r}; the tokens page lists them.")
    last = _last_admin(listed, name, found.now)
    return await _page(request, found, confirm=_row(found, token), error=f"Token {name} {LAST_ADMIN}" if last else "")


@router.post("/tokens/{name}/revoke", response_class=HTMLResponse)
async def revoke(request: Request, name: str, found: Annotated[Visitor, Depends(admin_form)]) -> Response:
    ctx = found.ctx
    if _last_admin(await attempt(tokens.tokens(ctx.reader)), _named(name), found.now):
        return await _page(request, found, status_code=409, error=f"token {name} {LAST_ADMIN}")
    try:
        await tokens.revoke(ctx.db, ctx.clock, name=name, by=found.caller.name)
    except AdminError as exc:
        return await _page(request, found, status_code=status_for(exc)[0], error=str(exc))
    await audit(ctx.db, ctx.clock, found.caller, "token_revoke", detail={"name": name}, via="dashboard")
    return RedirectResponse(f"/tokens?revoked={name}", status_code=303)
