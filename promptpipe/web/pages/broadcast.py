"""One message to every participant of the list as filtered (``/broadcast?status=…``), in three steps: the count,
the text shown back, one confirmation that sends only if the filter still matches the number counted, and once for one
review form (a double click sends the form twice). Researchers and admins only; audited (``via="dashboard"``)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.limits import RESEARCHER_MESSAGE_CHARS
from promptpipe.errors import AdminError
from promptpipe.research import admin, messaging
from promptpipe.research.broadcast_plan import BroadcastPlan, broadcast_plan
from promptpipe.research.tokens import audit
from promptpipe.web.errors import api_words, status_for
from promptpipe.web.pages._lists import FilterForm, read_filter
from promptpipe.web.pages._render import Acting, PageError, Visiting, Visitor, attempt, render, url
from promptpipe.web.pages.participants import plain

__all__ = ["SKIPPED_WORDS", "router"]

router = APIRouter()
SKIPPED_WORDS = {"opted_out": "sent STOP", "withdrawn": "withdrawn from the study", "erased": "erased"}
"""Why someone the filter matches is not written to, as the count page says it."""
COUNT = re.compile(r"[0-9]{1,9}")
ONCE = re.compile(r"[0-9a-f]{32}")
"""The review form's own key: it names the broadcast, so the same form sent twice sends once."""


@dataclass(frozen=True)
class Shown:
    form: FilterForm
    plan: BroadcastPlan
    skipped: tuple[str, ...]
    """``2 sent STOP``, ``1 withdrawn from the study`` …"""
    quiet_hours: str
    """The study's quiet hours (``22:00-07:00``), or empty when it has none."""

    @property
    def skipped_total(self) -> int:
        return self.plan.matches - self.plan.recipients

    @property
    def list_url(self) -> str:
        return url("/participants", **self.form.query)


def _filter(status: str, stage: str, arm: str, silent: str) -> FilterForm:
    """The list's filter; a wrong part refuses the broadcast (it must never reach more than the list showed)."""
    form = read_filter(status, stage, arm, silent)
    if form.problems:
        raise PageError(400, "Part of the filter is not valid (" + "; ".join(form.problems) + "), so nothing "
                             "was sent. Filter the participant list again and start from there.")
    return form


async def _shown(found: Visitor, form: FilterForm) -> Shown:
    if not found.identified:
        raise PageError(403, "Only researchers and admins can send a broadcast; your token is a viewer's.")
    quiet = found.ctx.settings.study.quiet_hours
    plan = await attempt(broadcast_plan(found.ctx.reader, found.ctx.clock, form.flt, quiet))
    skipped = tuple(f"{count} {SKIPPED_WORDS.get(reason, reason)}" for reason, count in plan.skipped)
    return Shown(form, plan, skipped, quiet.describe() if quiet else "")


def _page(request: Request, found: Visitor, shown: Shown, step: str, *, text: str = "", error: str = "",
          once: str = "", status_code: int = 200) -> HTMLResponse:
    return render(request, "broadcast.html", found, section="participants", step=step, shown=shown, text=text,
                  error=error, once=once, max_chars=RESEARCHER_MESSAGE_CHARS, status_code=status_code)


def _expected(raw: str) -> int:
    if not COUNT.fullmatch(raw.strip()):
        raise PageError(400, "This form lost its count, so nothing was sent. Start again from the participant list.")
    return int(raw.strip())


Form_ = Annotated[str, Form()]


@router.get("/broadcast", response_class=HTMLResponse)
async def count(request: Request, found: Visiting, status: str = "", stage: str = "",
                arm: str = "", silent: str = "") -> HTMLResponse:
    """Step 1: how many it will reach, and a box for the text."""
    return _page(request, found, await _shown(found, _filter(status, stage, arm, silent)), "count")


@router.post("/broadcast/review", response_class=HTMLResponse)
async def review(request: Request, found: Acting, text: Form_ = "",
                 status: Form_ = "", stage: Form_ = "", arm: Form_ = "", silent: Form_ = "",
                 expected: Form_ = "") -> HTMLResponse:
    """Step 2: the text shown back with the count, and the one button that sends it."""
    text, counted = plain(text), _expected(expected)
    shown = await _shown(found, _filter(status, stage, arm, silent))
    if shown.plan.matches != counted:
        return _page(request, found, shown, "count", text=text, status_code=409,
                     error=f"The filter now matches {shown.plan.matches} participants, not {counted}; here is the "
                           "new count. Check it, then review again.")
    try:
        admin.validate_text("text", text, RESEARCHER_MESSAGE_CHARS, required=True)
    except AdminError as exc:
        return _page(request, found, shown, "count", text=text, error=api_words(str(exc)), status_code=400)
    return _page(request, found, shown, "review", text=text, once=secrets.token_hex(16))


@router.post("/broadcast/send", response_class=HTMLResponse)
async def send(request: Request, found: Acting, text: Form_ = "",
               status: Form_ = "", stage: Form_ = "", arm: Form_ = "", silent: Form_ = "",
               expected: Form_ = "", once: Form_ = "") -> Response:
    """Step 3: queue it for everyone counted (refused if the count changed meanwhile)."""
    ctx, text, counted = found.ctx, plain(text), _expected(expected)
    form = _filter(status, stage, arm, silent)
    if not ONCE.fullmatch(once):
        raise PageError(400, "This form lost its key, so nothing was sent. Start again from the participant list.")
    try:  # the form's key names the broadcast: sent twice (a double click, another web process), queued once
        result = await messaging.broadcast(ctx.db, ctx.clock, text=text, flt=form.flt, by=found.caller.name,
                                           expected=counted, broadcast_id="b_" + once)
    except AdminError as exc:
        shown = await _shown(found, form)
        return _page(request, found, shown, "count", text=text, error=api_words(str(exc)),
                     status_code=status_for(exc)[0])
    if not result.repeated:
        await audit(ctx.db, ctx.clock, found.caller, "broadcast", via="dashboard",
                    detail={"filter": form.flt.describe(), "broadcast_id": result.broadcast_id,
                            "queued": result.queued, "skipped": result.skipped, "chars": len(text)})
    return RedirectResponse(url("/broadcast/sent", **form.query, queued=str(result.queued),
                                skipped=str(result.skipped)), status_code=303)


@router.get("/broadcast/sent", response_class=HTMLResponse)
async def sent(request: Request, found: Visiting, status: str = "", stage: str = "",
               arm: str = "", silent: str = "", queued: str = "0", skipped: str = "0") -> HTMLResponse:
    """What was queued (the numbers come from the send that redirected here)."""
    if not found.identified:
        raise PageError(403, "Only researchers and admins can send a broadcast; your token is a viewer's.")
    form = read_filter(status, stage, arm, silent)
    quiet = found.ctx.settings.study.quiet_hours
    numbers = [int(value) if COUNT.fullmatch(value) else 0 for value in (queued, skipped)]
    return render(request, "broadcast_sent.html", found, section="participants", queued=numbers[0],
                  skipped=numbers[1], described=form.flt.describe(), list_url=url("/participants", **form.query),
                  quiet_hours=quiet.describe() if quiet else "")
