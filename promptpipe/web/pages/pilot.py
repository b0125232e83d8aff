"""Pilot mode (``/pilot``), for researchers and admins: chat with a sandbox participant on its own database
(:mod:`promptpipe.pilot`), skip its clock ahead, start over or end it. Starting and ending one are audited; what is said
in it is not (it is no one's data, and it is deleted with it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, TypeVar
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.limits import INBOUND_CHARS, NAME_CHARS
from promptpipe.domain.messages import MessageKind
from promptpipe.errors import AdminError, ConfigError, StorageError
from promptpipe.pilot import IDLE_LIMIT, Pilot, PilotDesk, SkipTo
from promptpipe.research.tokens import audit
from promptpipe.web.errors import status_for
from promptpipe.web.pages._render import Acting, PageError, Visitor, attempt, identified_only, render, url

__all__ = ["DEFAULT_NAME", "router"]

router = APIRouter()
T = TypeVar("T")
SKIPS = {what.value for what in SkipTo}
IDLE_MINUTES = round(IDLE_LIMIT.total_seconds() / 60)
DEFAULT_NAME = "Sam"
"""The name the start form suggests for the sandbox participant."""
DONE = {"started": "A new pilot started; the study has greeted the sandbox participant.",
        "ended": "The pilot ended; its conversation was deleted."}
KIND_WORDS = {MessageKind.PROMPT: "daily prompt", MessageKind.POLL: "poll", MessageKind.REMINDER: "reminder",
              MessageKind.QUESTIONNAIRE: "questionnaire", MessageKind.QUESTIONNAIRE_POLL: "questionnaire poll",
              MessageKind.GREETING: "greeting", MessageKind.CHECK_IN: "check-in", MessageKind.SAFETY: "safety message",
              MessageKind.CLOSING: "closing", MessageKind.COMMAND: "command answer", MessageKind.APOLOGY: "apology"}


_identified = identified_only("Pilot mode is for researchers and admins")


def _desk(found: Visitor) -> PilotDesk:
    desk = found.ctx.pilots
    if desk is None:
        raise PageError(503, "Pilot mode is not offered by this server.")
    return desk


def _running(found: Visitor) -> Pilot:
    pilot = _desk(found).find(found.caller.name)
    if pilot is None:
        raise PageError(409, f"You have no pilot running (one ends after {IDLE_MINUTES} minutes without use); start "
                             "a new one on the pilot page.")
    return pilot


def _clock_label(zone: ZoneInfo) -> Callable[[datetime], str]:
    def label(instant: datetime) -> str:
        local = instant.astimezone(zone)
        return f"{local:%a} {local.day} {local:%b %H:%M}"
    return label


async def _page(request: Request, found: Visitor, *, status_code: int = 200, error: str = "", done: str = "",
                text: str = "", name: str = DEFAULT_NAME) -> HTMLResponse:
    pilot = _desk(found).find(found.caller.name)
    view = await attempt(pilot.view()) if pilot is not None else None
    zone = found.ctx.researcher_zone
    study = found.ctx.settings.study
    return render(request, "pilot.html", found, section="pilot", status_code=status_code, pilot=view, error=error,
                  done=done, text=text, name=name, max_chars=INBOUND_CHARS, name_chars=NAME_CHARS, zone=zone.key,
                  at=_clock_label(zone), skips=[s for s in SkipTo if s is not SkipTo.SELF_REPORT or study.self_report],
                  kind_words=KIND_WORDS, idle_minutes=IDLE_MINUTES)


@router.get("/pilot", response_class=HTMLResponse)
async def pilot_page(request: Request, found: Annotated[Visitor, Depends(_identified)], done: str = "",
                     skipped: str = "", sent: str = "") -> HTMLResponse:
    note = DONE.get(done, "")
    if skipped in SKIPS:
        note = f"Skipped ahead to {SkipTo(skipped).words}; everything due on the way happened first."
        if sent == "0":
            note += " The study sent nothing (at a prompt, its decision may be not to send one)."
    return await _page(request, found, done=note)


async def _act(request: Request, found: Visitor, action: Awaitable[T], *, text: str = "",
               name: str = DEFAULT_NAME) -> T | HTMLResponse:
    """Await ``action``; its error becomes the pilot page saying what is wrong (the words typed kept)."""
    try:
        return await action
    except AdminError as exc:
        return await _page(request, found, status_code=status_for(exc)[0], error=str(exc), text=text, name=name)
    except ConfigError as exc:
        return await _page(request, found, status_code=503, error=f"The pilot cannot start: {exc}", name=name)
    except StorageError:
        return await _page(request, found, status_code=503, error="The pilot's database failed; start over.",
                           text=text)


@router.post("/pilot/start", response_class=HTMLResponse)
async def start(request: Request, found: Acting, name: Annotated[str, Form()] = DEFAULT_NAME) -> Response:
    desk = _desk(found)
    started = await _act(request, found, desk.start(found.caller.name, name=name, zone=found.ctx.researcher_zone.key),
                         name=name)
    if isinstance(started, HTMLResponse):
        return started
    await audit(found.ctx.db, found.ctx.clock, found.caller, "pilot_start", via="dashboard")
    return RedirectResponse(url("/pilot", done="started"), status_code=303)


@router.post("/pilot/end", response_class=HTMLResponse)
async def end(found: Acting) -> Response:
    if await _desk(found).end(found.caller.name):
        await audit(found.ctx.db, found.ctx.clock, found.caller, "pilot_end", via="dashboard")
    return RedirectResponse(url("/pilot", done="ended"), status_code=303)


@router.post("/pilot/say", response_class=HTMLResponse)
async def say(request: Request, found: Acting, text: Annotated[str, Form()] = "") -> Response:
    failed = await _act(request, found, _running(found).say(text), text=text)
    return failed if isinstance(failed, HTMLResponse) else RedirectResponse("/pilot#say", status_code=303)


@router.post("/pilot/tap", response_class=HTMLResponse)
async def tap(request: Request, found: Acting,
              message_id: Annotated[str, Form()] = "", option: Annotated[list[str] | None, Form()] = None) -> Response:
    if not (message_id.isascii() and message_id.isdigit() and len(message_id) < 19):
        raise PageError(400, "That is not one of this pilot's polls; go back to the pilot page.")
    failed = await _act(request, found, _running(found).tap(int(message_id), option or []))
    return failed if isinstance(failed, HTMLResponse) else RedirectResponse("/pilot#say", status_code=303)


@router.post("/pilot/skip/{what}", response_class=HTMLResponse)
async def skip(request: Request, what: str, found: Acting) -> Response:
    if what not in SKIPS:
        raise PageError(404, "The pilot can skip to the next prompt, reminder or self-report only.")
    skipped = await _act(request, found, _running(found).skip(SkipTo(what)))
    if isinstance(skipped, HTMLResponse):
        return skipped
    return RedirectResponse(url("/pilot", skipped=what, sent=str(skipped.sent)) + "#say", status_code=303)
