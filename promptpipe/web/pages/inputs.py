"""Settling a participant's input that failed and waits, from their page (the dashboard's twin of ``promptpipe-admin
inbox retry|skip``): "Try again" queues it anew, "Skip" gives up on it for good. Each is a form with the session's CSRF
token, for researchers, audited with ``via="dashboard"``; an input is found only under its own participant."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from promptpipe.research import oversight
from promptpipe.research.tokens import audit
from promptpipe.web.pages._render import Acting, PageError, attempt
from promptpipe.web.pages.participant import checked_id
from promptpipe.web.pages.participants import done_redirect

__all__ = ["router"]

router = APIRouter()


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
