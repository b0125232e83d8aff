"""What every page shares: the signed-in :class:`Visitor`, the CSRF check, the templates, errors as pages."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

import jinja2
from fastapi import Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from promptpipe.domain.access import Role, allows, may_read
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.participant_filter import MAX_SILENT_DAYS
from promptpipe.errors import AdminError, StorageError
from promptpipe.research.attention import DEFAULT_SILENT_DAYS
from promptpipe.research.tokens import Caller
from promptpipe.study.store.protocol import ProtocolChanged
from promptpipe.web.api_attention import attention_for
from promptpipe.web.auth import SessionData, SignInRequired, context, csrf_token, session_caller
from promptpipe.web.context import WebContext
from promptpipe.web.errors import api_words, protocol_words, status_for
from promptpipe.web.pages._times import TimeLabel, time_label

__all__ = ["SILENT_DAYS_COOKIE", "TEMPLATES_DIR", "Acting", "PageError", "Visiting", "Visitor", "allowing", "attempt",
           "form_visitor", "identified_only", "install", "reader_of", "remembered_silent_days", "render", "researcher",
           "sign_in_url", "signed_in", "url", "visitor"]

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
ENVIRONMENT = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES_DIR), autoescape=True,
                                 undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
T = TypeVar("T")
SILENT_DAYS_COOKIE = "pp_silent_days"
"""The days of silence the "Needs attention" list counts, as last chosen on the overview."""


@dataclass(frozen=True)
class Visitor:
    """The signed-in dashboard user on this request."""

    ctx: WebContext
    caller: Caller
    session: SessionData
    now: datetime
    attention: int | None = None
    """What needs attention (the navigation's count); None where it was not counted."""

    @property
    def identified(self) -> bool:
        """May see phone numbers, names and message text, and act (researchers and admins)."""
        return allows(self.caller.role, Role.RESEARCHER)

    def may_read(self, what: str) -> bool:
        """Whether this role may read ``what`` (see domain.access.NEEDED_TO_READ)."""
        return may_read(self.caller.role, what)

    @property
    def csrf(self) -> str:
        return csrf_token(self.ctx, self.session.nonce)

    @property
    def zone(self) -> ZoneInfo:
        return self.ctx.researcher_zone

    def when(self, value: datetime | str | None, participant_zone: str | None) -> TimeLabel | None:
        return time_label(value, zone_or_utc(participant_zone or "UTC"), self.zone, self.now)


async def signed_in(request: Request) -> Visitor:
    """A dependency: the signed-in user without the navigation's count (a page reading the whole list counts it)."""
    caller, session = await session_caller(request)
    ctx = context(request)
    return Visitor(ctx, caller, session, ctx.clock.now())


def remembered_silent_days(request: Request) -> int:
    """The days of silence this browser last chose on the overview (3 unless it chose)."""
    value = request.cookies.get(SILENT_DAYS_COOKIE, "")
    return int(value) if value.isdigit() and 1 <= int(value) <= MAX_SILENT_DAYS else DEFAULT_SILENT_DAYS


async def visitor(request: Request) -> Visitor:
    """A dependency: the signed-in user with the navigation's count of what needs attention."""
    found = await signed_in(request)
    try:
        attention = await attention_for(found.ctx, found.caller.role, silent_days=remembered_silent_days(request),
                                        detail=False)
    except StorageError:  # the page says what went wrong, if it needs the database itself
        return found
    counted = replace(found, attention=attention.total)
    request.state.visitor = counted  # an error page shows it without counting again
    return counted


class PageError(Exception):
    """Shown as a page with this status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


async def form_visitor(request: Request, csrf: Annotated[str, Form()] = "") -> Visitor:
    """A dependency for POST forms: the signed-in user, whose form carried their CSRF token (403 otherwise)."""
    found = await visitor(request)
    if not hmac.compare_digest(csrf.encode(), found.csrf.encode()):
        raise PageError(403, "This form is out of date or did not come from this dashboard, so nothing was done. "
                             "Go back, reload the page and try again.")
    return found


async def researcher(found: Annotated[Visitor, Depends(form_visitor)]) -> Visitor:
    """A dependency for actions: a researcher's or admin's form (403 for a viewer)."""
    if not found.identified:
        raise PageError(403, f"Only researchers and admins can do this; your token ({found.caller.name}) is a "
                             f"{found.caller.role}'s, so nothing was done.")
    return found


Visiting = Annotated[Visitor, Depends(visitor)]
"""A page's visitor (:func:`visitor`); ``Acting``, a researcher's or admin's form (:func:`researcher`)."""
Acting = Annotated[Visitor, Depends(researcher)]


def allowing(allowed: Callable[[Visitor], bool], refusal: str) -> Callable[..., Awaitable[Visitor]]:
    """A dependency: the visitor if ``allowed``, else a 403 page saying ``refusal`` and whose token they hold."""

    async def dependency(found: Annotated[Visitor, Depends(visitor)]) -> Visitor:
        if not allowed(found):
            raise PageError(403, f"{refusal}; your token ({found.caller.name}) is a {found.caller.role}'s.")
        return found

    return dependency


def identified_only(refusal: str) -> Callable[..., Awaitable[Visitor]]:
    """A dependency for a page only researchers and admins open."""
    return allowing(lambda found: found.identified, refusal)


def reader_of(what: str) -> Callable[..., Awaitable[Visitor]]:
    """A dependency for a page that shows ``what``, to the roles the API lets read it."""
    return allowing(lambda found: found.may_read(what), f"The {what} are for researchers and admins")


async def attempt(operation: Awaitable[T]) -> T:
    """Await a research operation; its error becomes a page with its one-line message."""
    try:
        return await operation
    except AdminError as exc:
        raise PageError(status_for(exc)[0], api_words(str(exc))) from None
    except ProtocolChanged as exc:
        raise PageError(409, protocol_words(exc)) from None
    except StorageError:
        raise PageError(503, "The database cannot be reached right now; try again in a moment.") from None


def url(path: str, **query: Any) -> str:
    """``path`` with the query parameters that have a value."""
    pairs = {key: value for key, value in query.items() if value not in (None, "")}
    return path + ("?" + urlencode(pairs) if pairs else "")


def render(request: Request, template: str, found: Visitor | None, *, status_code: int = 200,
           **data: Any) -> HTMLResponse:
    page = ENVIRONMENT.get_template(template).render(visitor=found, path=request.url.path, **data)
    return HTMLResponse(page, status_code=status_code)


def sign_in_url(request: Request) -> str:
    """The sign-in page, coming back here afterwards (only a page one can GET is come back to)."""
    if request.method not in ("GET", "HEAD"):
        return "/login"
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return "/login?next=" + quote(here, safe="")


def install(site: Any) -> None:
    """Page errors as pages, and a missing or ended sign-in as a redirect to the sign-in page."""

    async def sign_in(request: Request, _: Exception) -> RedirectResponse:
        return RedirectResponse(sign_in_url(request), status_code=303)

    async def page_error(request: Request, exc: Exception) -> HTMLResponse:
        assert isinstance(exc, PageError)
        found: Visitor | None = getattr(request.state, "visitor", None)
        try:  # the navigation too, for someone signed in
            found = found or await visitor(request)
        except (SignInRequired, StorageError):
            found = None
        return render(request, "error.html", found, status_code=exc.status, message=exc.message, status=exc.status,
                      section="")

    site.add_exception_handler(SignInRequired, sign_in)
    site.add_exception_handler(PageError, page_error)
