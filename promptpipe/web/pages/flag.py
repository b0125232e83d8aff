"""One safety flag (``/flags/{id}``), for researchers and admins: what raised it, the messages around it, its course
and the form to resolve it (posted to :mod:`flags`, which comes back here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from promptpipe.domain.access import SAFETY_FLAGS
from promptpipe.domain.limits import REASON_CHARS
from promptpipe.domain.safety import FlagStatus
from promptpipe.research.flag_review import AlertSettings, FlagDetail, alert_settings, flag_detail
from promptpipe.storage.flags import AlertStatus, FlagRecord
from promptpipe.web.pages._render import PageError, Visitor, attempt, reader_of, render
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.participants import participant_url

__all__ = ["flag_page", "flag_url", "router"]

router = APIRouter()
NOTE_CHARS = REASON_CHARS
SOURCE_WORDS = {"screen": "the safety screen matched a phrase", "model": "the model flagged a concern"}
TRIGGER_WORDS = {"screen": "Phrase matched", "model": "The model's reason"}


def flag_url(flag_id: int) -> str:
    return f"/flags/{flag_id}"


@dataclass(frozen=True)
class Step:
    """One line of the flag's course."""

    what: str
    at: TimeLabel | None
    detail: str


@dataclass(frozen=True)
class Line:
    """A message around the flag."""

    id: int
    direction: str
    who: str
    kind: str
    at: TimeLabel | None
    text: str
    flagged: bool


def _course(found: Visitor, record: FlagRecord) -> list[Step]:
    flag, zone = record.entry, record.entry.timezone
    steps = [Step("Raised", found.when(flag.at, zone),
                  f"{flag.severity} severity: {SOURCE_WORDS.get(flag.source, flag.source)}; the participant was sent "
                  "the study's safety message at once")]
    tries = f"{record.alert_attempts} attempt{'' if record.alert_attempts == 1 else 's'}"
    if flag.alert == AlertStatus.SENT:
        steps.append(Step("Alert delivered", found.when(record.alerted_at, zone), f"to the alert webhook ({tries})"))
    elif flag.alert == AlertStatus.PENDING:
        steps.append(Step("Alert not delivered yet", None,
                          f"{tries} so far; the service keeps trying with growing pauses"))
    else:
        steps.append(Step("No alert", None, "no alert webhook was set when it was raised"))
    if flag.status == FlagStatus.RESOLVED:
        steps.append(Step("Resolved", found.when(flag.resolved_at, zone), f"by {flag.resolved_by or 'someone'}"))
    return steps


async def flag_page(request: Request, found: Visitor, flag_id: int, *, done: str = "", error: str = "",
                    note: str = "", status_code: int = 200) -> HTMLResponse:
    detail: FlagDetail = await attempt(flag_detail(found.ctx.reader, flag_id))
    record = detail.record
    settings: AlertSettings = alert_settings(found.ctx.settings)
    lines = [Line(m.id, m.direction, "Participant" if m.direction == "in" else "Study", m.kind.replace("_", " "),
                  found.when(m.at, record.entry.timezone), m.text, m.id == detail.flagged_id) for m in detail.messages]
    return render(request, "flag.html", found, section="flags", flag=record.entry, record=record,
                  raised=found.when(record.entry.at, record.entry.timezone),
                  resolved_at=found.when(record.entry.resolved_at, record.entry.timezone),
                  participant=participant_url(record.entry.participant_id),
                  trigger_label=TRIGGER_WORDS.get(record.entry.source, "What raised it"),
                  course=_course(found, record), lines=lines, alerts=settings,
                  done=done, error=error, note=note, note_chars=NOTE_CHARS, status_code=status_code)


@router.get("/flags/{flag_id}", response_class=HTMLResponse)
async def flag(request: Request, flag_id: str, found: Annotated[Visitor, Depends(reader_of(SAFETY_FLAGS))],
               done: str = "") -> HTMLResponse:
    if not flag_id.isdigit() or len(flag_id) > 11:
        raise PageError(404, f"There is no flag {flag_id[:20]}: a flag's number is a whole number such as 12.")
    return await flag_page(request, found, int(flag_id),
                           done="The flag is resolved." if done == FlagStatus.RESOLVED else "")
