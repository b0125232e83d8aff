"""Signing in with a token (once), then a session cookie; signing out. The sign-in form has no session to derive a
CSRF token from, so a random value in a short-lived ``pp_login`` cookie and in a hidden field must match."""

from __future__ import annotations

import hmac
import secrets
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.research.tokens import audit
from promptpipe.web.auth import SESSION_COOKIE, check_secret, client_address, context, new_session_cookie
from promptpipe.web.errors import ApiError
from promptpipe.web.pages._render import Visitor, form_visitor, render

__all__ = ["LOGIN_COOKIE", "router", "safe_next"]

router = APIRouter()
LOGIN_COOKIE = "pp_login"
LOGIN_FORM_LIFETIME_S = 900
MAX_NEXT_CHARS = 2000


def safe_next(raw: str | None) -> str:
    """Where to go after signing in: a path on this site, else the overview."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or len(raw) > MAX_NEXT_CHARS:
        return "/"
    if "\\" in raw or any(ord(char) < 0x20 or ord(char) == 0x7F for char in raw):
        return "/"
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc or parts.path.startswith(("/login", "/logout")):
        return "/"
    return raw


def _login_page(request: Request, *, next_path: str, message: str = "", status_code: int = 200,
                signed_out: bool = False) -> HTMLResponse:
    """The form, with a fresh double-submit value in the cookie and in the form."""
    value = secrets.token_urlsafe(24)
    response = render(request, "login.html", None, status_code=status_code, form_value=value,
                      next_path=next_path, message=message, signed_out=signed_out)
    response.set_cookie(LOGIN_COOKIE, value, max_age=LOGIN_FORM_LIFETIME_S, path="/login", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")
    return response


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request, next: str = "", signed_out: str = "") -> HTMLResponse:
    return _login_page(request, next_path=safe_next(next), signed_out=bool(signed_out))


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request, token: Annotated[str, Form()] = "", csrf: Annotated[str, Form()] = "",
                next: Annotated[str, Form()] = "") -> Response:
    ctx = context(request)
    next_path = safe_next(next)
    cookie = request.cookies.get(LOGIN_COOKIE, "")
    if not cookie or not hmac.compare_digest(cookie.encode(), csrf.encode()):
        return _login_page(request, next_path=next_path, status_code=403,
                           message="This sign-in form had expired or came from another site. Please sign in again.")
    try:
        caller = await check_secret(ctx, client_address(request), token.strip())
    except ApiError as exc:
        return _login_page(request, next_path=next_path, status_code=exc.status,
                           message=f"Sign-in refused: {exc.message}.")
    if caller is None:
        return _login_page(request, next_path=next_path, status_code=401,
                           message="That token is not valid (mistyped, or revoked). Check it and try again.")
    await audit(ctx.db, ctx.clock, caller, "sign_in", via="dashboard")
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(SESSION_COOKIE, new_session_cookie(ctx, caller, ctx.clock.now()), path="/",
                        max_age=int(ctx.settings.web_session_lifetime.total_seconds()), httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


@router.post("/logout")
async def logout(request: Request, found: Annotated[Visitor, Depends(form_visitor)]) -> RedirectResponse:
    await audit(found.ctx.db, found.ctx.clock, found.caller, "sign_out", via="dashboard")
    response = RedirectResponse("/login?signed_out=1", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
    return response
