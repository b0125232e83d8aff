"""Safety flags (``/flags``) linking to their pages (:mod:`flag`); researchers resolve one with a note here or there."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.access import SAFETY_FLAGS
from promptpipe.domain.safety import FlagStatus
from promptpipe.errors import AdminError
from promptpipe.research import oversight
from promptpipe.research.flag_review import flag_list
from promptpipe.research.tokens import audit
from promptpipe.web.errors import api_words, status_for
from promptpipe.web.pages._render import Acting, PageError, Visitor, attempt, reader_of, render
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.flag import NOTE_CHARS, flag_page, flag_url
from promptpipe.web.pages.participants import participant_url

__all__ = ["SHOWN", "router"]

router = APIRouter()
SHOWN = {"open": FlagStatus.OPEN, "resolved": FlagStatus.RESOLVED, "all": None}
"""The list's filter: ``?show=`` one of these."""


FlagRow = dict[str, str | int | TimeLabel | None]
"""What one row of the list shows (a template's context)."""


async def _flag_rows(found: Visitor, show: str) -> tuple[list[FlagRow], int]:
    listed = await attempt(flag_list(found.ctx.reader, SHOWN[show]))
    rows: list[FlagRow] = [
        {"id": flag.id, "page": flag_url(flag.id), "participant_id": flag.participant_id,
         "url": participant_url(flag.participant_id), "severity": flag.severity,
         "source": flag.source.replace("_", " "), "alert": flag.alert, "status": flag.status,
         "at": found.when(flag.at, flag.timezone), "resolved_at": found.when(flag.resolved_at, flag.timezone),
         "resolved_by": flag.resolved_by or "—",
         **({"trigger": flag.trigger, "name": flag.name or "—", "phone": flag.phone, "note": flag.note or ""}
            if found.identified else {})} for flag in listed.flags]
    return rows, listed.total


async def _page(request: Request, found: Visitor, *, show: str = "open", done: str = "", error: str = "",
                failed_flag: int | None = None, note: str = "", status_code: int = 200) -> HTMLResponse:
    rows, total = await _flag_rows(found, show)
    return render(request, "flags.html", found, section="flags", flags=rows, total=total, show=show,
                  choices=list(SHOWN), done=done, error=error, failed_flag=failed_flag, note=note,
                  note_chars=NOTE_CHARS, status_code=status_code)


@router.get("/flags", response_class=HTMLResponse)
async def flags(request: Request, found: Annotated[Visitor, Depends(reader_of(SAFETY_FLAGS))],
                resolved: str = "", show: str = "open") -> HTMLResponse:
    if show not in SHOWN:
        raise PageError(400, "show: choose open, resolved or all.")
    done = f"Flag {resolved} is resolved." if resolved.isdigit() else ""
    return await _page(request, found, show=show, done=done)


@router.post("/flags/{flag_id}/resolve", response_class=HTMLResponse)
async def resolve(request: Request, flag_id: str, found: Acting,
                  note: Annotated[str, Form()] = "", back: Annotated[str, Form()] = "") -> Response:
    """Resolve with a note (required); ``back=flag`` came from the flag's page and goes back there."""
    number = int(flag_id) if flag_id.isdigit() and len(flag_id) < 12 else 0
    note = note.strip()
    try:
        if not note:
            raise AdminError("Write a note on what was done before resolving the flag.")
        _, participant_id = await oversight.resolve_naming(found.ctx.db, found.ctx.clock, flag_id=number, note=note,
                                                           by=found.caller.name)
    except AdminError as exc:
        if back == "flag" and number:
            return await flag_page(request, found, number, error=api_words(str(exc)), note=note,
                                   status_code=status_for(exc)[0])
        return await _page(request, found, error=api_words(str(exc)), failed_flag=number, note=note,
                           status_code=status_for(exc)[0])
    await audit(found.ctx.db, found.ctx.clock, found.caller, "resolve_flag", participant_id=participant_id,
                detail={"flag_id": number}, via="dashboard")
    if back == "flag":
        return RedirectResponse(f"{flag_url(number)}?done={FlagStatus.RESOLVED}", status_code=303)
    return RedirectResponse(f"/flags?resolved={number}", status_code=303)
