"""The rest of a participant's lifecycle (edit, withdraw, erase, extend, move to another number), researchers and
admins only: each step (:data:`STEPS`) is a page whose form posts to the same address; a refusal shows it again with
what was typed, changing nothing. Each goes through the admin script's operation and is audited."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.limits import BACKGROUND_CHARS, NAME_CHARS, REASON_CHARS, RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.states import Status
from promptpipe.errors import AdminError, Forbidden
from promptpipe.research import admin, erasure
from promptpipe.research.listing import one_participant
from promptpipe.research.number_moves import move_to_number
from promptpipe.research.tokens import audit
from promptpipe.research.views import ParticipantDetail
from promptpipe.study.operations import MAX_EXTENSION_DAYS
from promptpipe.web.errors import api_words, status_for
from promptpipe.web.pages._render import Acting, PageError, Visiting, Visitor, attempt, render
from promptpipe.web.pages.participant import checked_id, study_length
from promptpipe.web.pages.participants import done_redirect, participant_url, plain

__all__ = ["STEPS", "router"]

router = APIRouter()
DAYS = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class Step:
    title: str
    explanation: str
    button: str
    several_numbers: bool = False
    """Offered only on a deployment with several WhatsApp numbers."""


STEPS = {
    "edit": Step("Edit name, notes and time zone",
                 "The name is how the study greets them. The notes are for the research team only and are never "
                 "sent to them. Their daily prompts follow a new time zone from the next one on.", "Save changes"),
    "withdraw": Step("Withdraw this participant",
                     "Withdrawal is final: nothing more is sent to them, scheduled or by hand, and it cannot be "
                     "undone. What they said so far stays in the study's data; erase it separately if they ask.",
                     "Yes, withdraw them"),
    "erase": Step("Erase this participant's personal data",
                  "This removes their phone number, name and notes, the texts of their messages, prompts and flags, "
                  "and their habit plan. It cannot be undone. The pseudonymous id and the counts stay, so the "
                  "study's numbers still add up. Nothing more is sent to them.", "Erase for good"),
    "extend": Step("Add study days",
                   "Their study lasts longer by this many days: daily prompts go on until the new last day. A "
                   "participant whose study has ended comes back into it.", "Yes, add the days"),
    "number": Step("Move to another number",
                   "From now on everything to them goes from the number you choose. They consented with the number "
                   "they know, so tell them: your message goes to them from the new number (after their quiet "
                   "hours, if it is night for them).", "Move them and send the message", several_numbers=True),
}


@dataclass(frozen=True)
class Who:
    """The participant as these pages show them (researchers only)."""

    id: str
    name: str
    phone: str
    status: str
    url: str
    number: str
    """Their WhatsApp number (empty when the deployment has one)."""


@dataclass(frozen=True)
class Typed:
    """What the form held, shown again after a refusal."""

    name: str = ""
    background: str = ""
    timezone: str = ""
    reason: str = ""
    confirm: str = ""
    days: str = ""
    to: str = ""
    message: str = ""


async def _row(found: Visitor, participant_id: str) -> ParticipantDetail:
    if not found.identified:
        raise PageError(403, "Only researchers and admins can change a participant; your token is a viewer's.")
    return await attempt(admin.show(found.ctx.reader, checked_id(participant_id)))


def _refusal(step: str, row: ParticipantDetail, erased: bool, extendable: bool) -> str:
    """Why ``step`` cannot be done for them at all (empty: it can)."""
    if erased:
        return f"{row.id}'s personal data was erased; nothing more can be changed for them."
    if step in ("withdraw", "extend", "number") and row.status == Status.WITHDRAWN:
        return f"{row.id} was withdrawn from the study; that cannot be undone or changed."
    if step == "extend" and not extendable:
        return "This study has no set length (length_days in the study file), so there are no study days to add."
    return ""


def _one_number(found: Visitor) -> None:
    """A deployment with one WhatsApp number has no number page."""
    if not found.ctx.settings.number_plan.several:
        raise PageError(404, "This deployment has one WhatsApp number, so there is no other to move anyone to.")


async def _page(request: Request, found: Visitor, participant_id: str, step: str, *, typed: Typed | None = None,
                error: str = "", status_code: int = 200) -> HTMLResponse:
    if STEPS[step].several_numbers:
        _one_number(found)
    row = await _row(found, participant_id)
    study, numbers = found.ctx.settings.study, found.ctx.settings.number_plan
    length_days = study.length_days
    listed = await attempt(one_participant(found.ctx.reader, found.ctx.clock, row.id))
    refused = _refusal(step, row, listed is not None and listed.erased, study.in_use and length_days is not None)
    if refused:
        raise PageError(409, refused)
    plan = await attempt(erasure.plan(found.ctx.reader, phone=row.id)) if step == "erase" else None
    typed = typed or Typed(name=row.name, background=row.background, timezone=row.timezone)
    who = Who(row.id, row.name or "—", row.phone, row.status, participant_url(row.id),
              numbers.of(row.number) if numbers.several else "")
    return render(request, "lifecycle.html", found, section="participants", step=step, words=STEPS[step],
                  who=who, typed=typed, error=error, plan=plan, length=study_length(row, length_days),
                  max_days=MAX_EXTENSION_DAYS, name_chars=NAME_CHARS, background_chars=BACKGROUND_CHARS,
                  reason_chars=REASON_CHARS, message_chars=RESEARCHER_MESSAGE_CHARS,
                  other_numbers=[name for name in numbers.numbers if name != numbers.of(row.number)],
                  status_code=status_code)


async def _refused(request: Request, found: Visitor, participant_id: str, step: str, typed: Typed,
                   exc: AdminError) -> HTMLResponse:
    return await _page(request, found, participant_id, step, typed=typed, error=api_words(str(exc)),
                       status_code=status_for(exc)[0])


async def _done(found: Visitor, participant_id: str, action: str, done: str,
                detail: dict[str, object] | None = None) -> RedirectResponse:
    """Audit ``action`` and go back to their page with the result ``done``."""
    ctx = found.ctx
    await audit(ctx.db, ctx.clock, found.caller, action, participant_id=participant_id, via="dashboard", detail=detail)
    return done_redirect(participant_id, done)


def _form_page(step: str) -> Callable[..., Awaitable[HTMLResponse]]:
    async def form(request: Request, participant_id: str, found: Visiting) -> HTMLResponse:
        return await _page(request, found, participant_id, step)

    return form


for _step in STEPS:  # each step's page: GET /participants/{id}/edit, …/withdraw, …
    router.add_api_route(f"/participants/{{participant_id}}/{_step}", _form_page(_step), methods=["GET"],
                         response_class=HTMLResponse, name=f"{_step}_form")


async def _edit(found: Visitor, row: ParticipantDetail, typed: Typed) -> dict[str, object] | None:
    """Save what changed (the zone checked first: a refusal saves nothing); the audit's detail, None if nothing did."""
    ctx, by = found.ctx, found.caller.name
    zone_changed = typed.timezone != row.timezone
    if zone_changed:
        admin.validate_timezone(typed.timezone)
        if row.status == Status.WITHDRAWN:
            raise Forbidden("timezone: they were withdrawn from the study, so their time zone cannot be changed")
    fields = [name for name, before in (("name", row.name), ("background", row.background))
              if getattr(typed, name) != before]
    if fields:
        await admin.update_participant(ctx.db, ctx.clock, who=row.id, by=by,
                                       name=typed.name if "name" in fields else None,
                                       background=typed.background if "background" in fields else None)
    if zone_changed:
        await admin.set_timezone(ctx.db, ctx.clock, phone=row.id, timezone=typed.timezone, by=by,
                                 study=ctx.settings.study)
        fields.append("timezone")
    return {"fields": sorted(fields), **({"timezone": typed.timezone} if zone_changed else {})} if fields else None


@router.post("/participants/{participant_id}/edit", response_class=HTMLResponse)
async def edit(request: Request, participant_id: str, found: Acting, name: Annotated[str, Form()] = "",
               background: Annotated[str, Form()] = "", timezone: Annotated[str, Form()] = "") -> Response:
    row = await _row(found, participant_id)
    typed = Typed(name=name.strip(), background=plain(background), timezone=timezone.strip())
    try:
        detail = await _edit(found, row, typed)
    except AdminError as exc:
        return await _refused(request, found, participant_id, "edit", typed, exc)
    return await _done(found, row.id, "update", "edited", detail) if detail else done_redirect(row.id, "edit_unchanged")


@router.post("/participants/{participant_id}/withdraw", response_class=HTMLResponse)
async def withdraw(request: Request, participant_id: str, found: Acting,
                   reason: Annotated[str, Form()] = "") -> Response:
    ctx, participant_id = found.ctx, checked_id(participant_id)
    typed = Typed(reason=plain(reason))
    try:
        await admin.set_status(ctx.db, ctx.clock, phone=participant_id, action="withdraw", reason=typed.reason,
                               by=found.caller.name, study=ctx.settings.study)
    except AdminError as exc:
        return await _refused(request, found, participant_id, "withdraw", typed, exc)
    return await _done(found, participant_id, "withdraw", "withdrawn",
                       {"reason": typed.reason} if typed.reason else None)


@router.post("/participants/{participant_id}/erase", response_class=HTMLResponse)
async def erase(request: Request, participant_id: str, found: Acting,
                confirm: Annotated[str, Form()] = "") -> Response:
    ctx, participant_id = found.ctx, checked_id(participant_id)
    typed = Typed(confirm=confirm.strip()[:40])
    try:
        if typed.confirm != participant_id:
            raise AdminError("The id you typed is not this participant's, so nothing was erased. Type "
                             f"{participant_id} exactly as shown.")
        await erasure.erase(ctx.db, ctx.clock, study=ctx.settings.study, phone=participant_id, by=found.caller.name)
    except AdminError as exc:
        return await _refused(request, found, participant_id, "erase", typed, exc)
    return await _done(found, participant_id, "erase", "erased")


@router.post("/participants/{participant_id}/extend", response_class=HTMLResponse)
async def extend(request: Request, participant_id: str, found: Acting,
                 days: Annotated[str, Form()] = "") -> Response:
    ctx, participant_id = found.ctx, checked_id(participant_id)
    typed = Typed(days=days.strip()[:20])
    try:
        if not DAYS.fullmatch(typed.days) or not 1 <= int(typed.days) <= MAX_EXTENSION_DAYS:
            raise AdminError(f"days: give a whole number of days from 1 to {MAX_EXTENSION_DAYS}")
        await admin.extend(ctx.db, ctx.clock, study=ctx.settings.study, phone=participant_id, days=int(typed.days),
                           by=found.caller.name)
    except AdminError as exc:
        return await _refused(request, found, participant_id, "extend", typed, exc)
    return await _done(found, participant_id, "extend", "extended", {"days": int(typed.days)})


@router.post("/participants/{participant_id}/number", response_class=HTMLResponse)
async def move_number(request: Request, participant_id: str, found: Acting, to: Annotated[str, Form()] = "",
                      message: Annotated[str, Form()] = "") -> Response:
    """Move them to number ``to``; ``message`` tells them, from it. The move stands if it can't go now (result says)."""
    _one_number(found)
    ctx, participant_id = found.ctx, checked_id(participant_id)
    typed = Typed(to=to.strip()[:40], message=plain(message))
    try:
        if not typed.to:
            raise AdminError("to: choose the number to move them to")
        moved = await move_to_number(ctx.db, ctx.clock, who=participant_id, to=typed.to, text=typed.message,
                                     numbers=ctx.settings.number_plan, by=found.caller.name,
                                     study=ctx.settings.study)
    except AdminError as exc:
        return await _refused(request, found, participant_id, "number", typed, exc)
    return await _done(found, participant_id, "move_number", "moved" if moved.message_sent else "moved_unsent",
                       {"to": typed.to})
