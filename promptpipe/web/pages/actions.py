"""What a researcher does to one participant (pause, resume, send a message, send today's prompt now), each through a
confirmation page whose form performs it and comes back to their page with a one-line result; and retrying or skipping
an input of theirs that failed. Each goes through the admin script's operation and is audited (``via="dashboard"``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.limits import RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.errors import AdminError
from promptpipe.pipeline.events import TeamAction
from promptpipe.research import admin, messaging, oversight
from promptpipe.research.tokens import audit
from promptpipe.web.errors import api_words, status_for
from promptpipe.web.pages._render import Acting, PageError, Visiting, Visitor, attempt, render
from promptpipe.web.pages.lifecycle import Step
from promptpipe.web.pages.participant import checked_id
from promptpipe.web.pages.participants import done_redirect, participant_url, plain

__all__ = ["ACTIONS", "router"]

router = APIRouter()


ACTIONS = {
    "pause": Step("Pause this participant",
                    "No scheduled message (daily prompt, reminder, check-in) goes to them until someone resumes. "
                    "If they write, the study still answers.", "Yes, pause"),
    "resume": Step("Resume this participant",
                     "Their daily prompts and reminders go out again from the next one on. If they sent STOP "
                     "themselves, they stay paused until they send START.", "Yes, resume"),
    "message": Step("Send this message",
                      "It goes to them on WhatsApp from the study's number and is kept in the transcript as a "
                      "message from the research team.", "Yes, send it"),
    "prompt": Step("Send today's prompt now",
                     "The service writes today's habit prompt and its poll and sends them now, as the daily "
                     "alarm would.", "Yes, send the prompt"),
}


def _action(action: str) -> Step:
    if action not in ACTIONS:
        raise PageError(404, "There is no such action; go back to the participant's page.")
    return ACTIONS[action]


async def _confirm_page(request: Request, found: Visitor, participant_id: str, action: str, *, text: str = "",
                        reason: str = "", error: str = "", status_code: int = 200) -> HTMLResponse:
    row = await attempt(admin.show(found.ctx.reader, checked_id(participant_id)))
    quiet = found.ctx.settings.study.quiet_hours
    zone = zone_or_utc(row.timezone)
    local = found.now.astimezone(zone)
    return render(request, "confirm.html", found, section="participants", action=action, step=_action(action),
                  participant={"id": row.id, "name": row.name or "—", "phone": row.phone or "erased",
                               "status": row.status, "url": participant_url(row.id)},
                  text=text, reason=reason, error=error, max_chars=RESEARCHER_MESSAGE_CHARS, status_code=status_code,
                  quiet_hours=quiet.describe() if quiet else "",
                  quiet_now=f"{local:%H:%M}" if in_quiet_hours(quiet, found.now, zone) else "")


@router.get("/participants/{participant_id}/confirm/{action}", response_class=HTMLResponse)
async def confirm(request: Request, participant_id: str, action: str, found: Visiting) -> Response:
    _action(action)
    if not found.identified:
        raise PageError(403, "Only researchers and admins can act on participants; your token is a viewer's.")
    if action == "message":  # the text comes from the form on the participant's page
        return RedirectResponse(participant_url(checked_id(participant_id)) + "#send", status_code=303)
    return await _confirm_page(request, found, participant_id, action)


@router.post("/participants/{participant_id}/confirm/message", response_class=HTMLResponse)
async def confirm_message(request: Request, participant_id: str, found: Acting,
                          text: Annotated[str, Form()] = "") -> HTMLResponse:
    text = plain(text)
    if not text:
        return await _confirm_page(request, found, participant_id, "message", status_code=400,
                                   error="The message is empty: write what to send.")
    return await _confirm_page(request, found, participant_id, "message", text=text)


async def _pause_or_resume(found: Visitor, participant_id: str, action: str, reason: str) -> str:
    """Pause or resume; the result's key (see :data:`participant.DONE_MESSAGES`)."""
    ctx = found.ctx
    before = await admin.show(ctx.db, participant_id)
    await admin.set_status(ctx.db, ctx.clock, phone=participant_id, action=action, reason=reason,
                           by=found.caller.name, study=ctx.settings.study)
    after = await admin.show(ctx.db, participant_id)
    changed = before.researcher_paused != after.researcher_paused
    await audit(ctx.db, ctx.clock, found.caller, action, participant_id=participant_id,
                detail={"changed": changed, **({"reason": reason} if reason else {})}, via="dashboard")
    if not changed:
        return "unchanged"
    if action == TeamAction.RESUME and after.opted_out:
        return "resumed_but_stopped"
    return "paused" if action == TeamAction.PAUSE else "resumed"


async def _perform(found: Visitor, participant_id: str, action: str, text: str, reason: str,
                   after_quiet_hours: bool) -> str:
    ctx = found.ctx
    if action in (TeamAction.PAUSE, TeamAction.RESUME):  # team changes, applied in their lane
        return await _pause_or_resume(found, participant_id, action, reason)
    if action == "message":
        if not text:
            raise AdminError("The message is empty: write what to send.")
        queued = await messaging.send_message(ctx.db, ctx.clock, who=participant_id, text=text, by=found.caller.name,
                                              quiet=ctx.settings.study.quiet_hours,
                                              after_quiet_hours=after_quiet_hours)
        await audit(ctx.db, ctx.clock, found.caller, "send", participant_id=participant_id,
                    detail={"inbox_id": queued.inbox_id, "chars": len(text)}, via="dashboard")
        return "sent"
    inbox_id = await admin.send_prompt_now(ctx.db, ctx.clock, phone=participant_id,
                                           study=ctx.settings.study, after_quiet_hours=after_quiet_hours)
    await audit(ctx.db, ctx.clock, found.caller, "prompt_now", participant_id=participant_id,
                detail={"inbox_id": inbox_id}, via="dashboard")
    return "prompted"


@router.post("/participants/{participant_id}/actions/{action}", response_class=HTMLResponse)
async def perform(request: Request, participant_id: str, action: str, found: Acting,
                  text: Annotated[str, Form()] = "", reason: Annotated[str, Form()] = "",
                  after_quiet_hours: Annotated[str, Form()] = "") -> Response:
    _action(action)
    checked_id(participant_id)
    text, reason = plain(text), reason.strip()
    try:
        done = await _perform(found, participant_id, action, text, reason, after_quiet_hours == "1")
    except AdminError as exc:
        return await _confirm_page(request, found, participant_id, action, text=text, reason=reason,
                                   error=api_words(str(exc)), status_code=status_for(exc)[0])
    return done_redirect(participant_id, done)


@router.post("/participants/{participant_id}/inputs/{inbox_id}/{action}")
async def settle(participant_id: str, inbox_id: str, action: str, found: Acting) -> RedirectResponse:
    checked_id(participant_id)
    if action not in ("retry", "skip") or not inbox_id.isdigit() or len(inbox_id) > 18:
        raise PageError(404, "There is no such input or action; go back to the participant's page.")
    ctx, number = found.ctx, int(inbox_id)
    if action == "retry":
        await attempt(oversight.retry_inbox(ctx.db, ctx.clock, inbox_id=number, participant_id=participant_id))
    else:
        await attempt(oversight.skip_inbox(ctx.db, ctx.clock, inbox_id=number, by=found.caller.name,
                                           participant_id=participant_id))
    await audit(ctx.db, ctx.clock, found.caller, f"inbox_{action}", participant_id=participant_id,
                detail={"inbox_id": number}, via="dashboard")
    return done_redirect(participant_id, "input_retried" if action == "retry" else "input_skipped")
