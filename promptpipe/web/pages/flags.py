"""Open safety flags (``/flags``), oldest first, with what raised them; a researcher resolves one
with a note on what was done."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.access import SAFETY_FLAGS
from promptpipe.errors import AdminError
from promptpipe.research import oversight
from promptpipe.research.tokens import audit
from promptpipe.web.errors import api_words, status_for
from promptpipe.web.pages._render import Visitor, attempt, reader_of, render, researcher
from promptpipe.web.pages.participants import participant_url

__all__ = ["MAX_FLAGS_SHOWN", "router"]

router = APIRouter()
MAX_FLAGS_SHOWN = 100
"""The oldest open flags shown at once (resolving them brings the next ones)."""
NOTE_CHARS = 500


async def _flag_rows(found: Visitor) -> tuple[list[dict[str, Any]], int]:
    flags = await attempt(oversight.flags(found.ctx.reader))
    shown = flags[:MAX_FLAGS_SHOWN]
    rows = []
    for flag in shown:
        row = {"id": flag.id, "participant_id": flag.participant_id,
               "url": participant_url(flag.participant_id), "severity": flag.severity,
               "source": flag.source.replace("_", " "), "alert": flag.alert,
               "at": found.when(flag.at, flag.timezone)}
        if found.identified:
            row.update(trigger=flag.trigger, name=flag.name or "—", phone=flag.phone)
        rows.append(row)
    return rows, len(flags)


async def _page(request: Request, found: Visitor, *, done: str = "", error: str = "", failed_flag: int | None = None,
                note: str = "", status_code: int = 200) -> HTMLResponse:
    rows, total = await _flag_rows(found)
    return render(request, "flags.html", found, section="flags", flags=rows, total=total, done=done, error=error,
                  failed_flag=failed_flag, note=note, note_chars=NOTE_CHARS, status_code=status_code)


@router.get("/flags", response_class=HTMLResponse)
async def flags(request: Request, found: Annotated[Visitor, Depends(reader_of(SAFETY_FLAGS))],
                resolved: str = "") -> HTMLResponse:
    done = f"Flag {resolved} is resolved." if resolved.isdigit() else ""
    return await _page(request, found, done=done)


@router.post("/flags/{flag_id}/resolve", response_class=HTMLResponse)
async def resolve(request: Request, flag_id: str, found: Annotated[Visitor, Depends(researcher)],
                  note: Annotated[str, Form()] = "") -> Response:
    number = int(flag_id) if flag_id.isdigit() and len(flag_id) < 12 else 0
    note = note.strip()
    try:
        if not note:
            raise AdminError("Write a note on what was done before resolving the flag.")
        await oversight.resolve(found.ctx.db, found.ctx.clock, flag_id=number, note=note, by=found.caller.name)
    except AdminError as exc:
        return await _page(request, found, error=api_words(str(exc)), failed_flag=number, note=note,
                           status_code=status_for(exc)[0])
    await audit(found.ctx.db, found.ctx.clock, found.caller, "resolve_flag", detail={"flag_id": number},
                via="dashboard")
    return RedirectResponse(f"/flags?resolved={number}", status_code=303)
