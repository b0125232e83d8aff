"""One participant's timeline (``/participants/{id}/timeline``), filtered by kind and local day and paged; a viewer's
has kinds, times and summaries only (no words, no team member's name, no safety flag)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from promptpipe.domain.timeline import KIND_LABELS, RESEARCHER_ONLY, Cursor, TimelineKind
from promptpipe.research.timeline import timeline
from promptpipe.web.pages._render import PageError, Visiting, Visitor, attempt, render
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.participant import checked_id

__all__ = ["PER_PAGE", "router", "timeline_url"]

router = APIRouter()
PER_PAGE = 50


def timeline_url(participant_id: str, kinds: tuple[str, ...] = (), first: str = "", last: str = "",
                 cursor: str = "") -> str:
    pairs = [("kind", kind) for kind in kinds] + [(name, value) for name, value in
                                                  (("from", first), ("to", last), ("cursor", cursor)) if value]
    return f"/participants/{participant_id}/timeline" + (f"?{urlencode(pairs)}" if pairs else "")


@dataclass(frozen=True)
class Row:
    at: TimeLabel | None
    kind: str
    label: str
    summary: str
    text: str | None
    due: TimeLabel | None
    ref: str


@dataclass(frozen=True)
class Filter:
    kinds: tuple[TimelineKind, ...]
    first: date | None
    last: date | None
    cursor: Cursor | None
    values: tuple[str, str]
    """The days as typed back into the form (only those that were dates)."""
    problems: tuple[str, ...]


def _day(name: str, raw: str, problems: list[str]) -> date | None:
    raw = raw.strip()[:40]
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        problems.append(f"{name}: {raw!r} is not a date like 2026-03-14")
        return None


def read_filter(found: Visitor, request: Request) -> Filter:
    """The filter from the query string; a part that is wrong is left out and explained."""
    query, problems = request.query_params, []
    kinds = []
    for raw in query.getlist("kind")[:len(TimelineKind) * 2]:
        try:
            kind = TimelineKind(raw)
        except ValueError:
            problems.append(f"kind: {raw[:40]!r} is not a kind of entry")
            continue
        if kind in RESEARCHER_ONLY and not found.identified:
            raise PageError(403, f"Safety flags are for researchers and admins; your token ({found.caller.name}) is "
                                 f"a {found.caller.role}'s.")
        kinds.append(kind)
    first, last = _day("from", query.get("from", ""), problems), _day("to", query.get("to", ""), problems)
    cursor = None
    if raw_cursor := query.get("cursor", ""):
        try:
            cursor = Cursor.parse(raw_cursor)
        except ValueError:
            problems.append("page: the link was not one this page made, so the newest entries are shown")
    return Filter(tuple(dict.fromkeys(kinds)), first, last, cursor,
                  (first.isoformat() if first else "", last.isoformat() if last else ""), tuple(problems))


@router.get("/participants/{participant_id}/timeline", response_class=HTMLResponse)
async def participant_timeline(request: Request, participant_id: str, found: Visiting) -> HTMLResponse:
    flt = read_filter(found, request)
    page = await attempt(timeline(found.ctx.reader, checked_id(participant_id), identified=found.identified,
                                  kinds=flt.kinds, first_day=flt.first, last_day=flt.last, cursor=flt.cursor,
                                  limit=PER_PAGE))
    kinds = tuple(kind.value for kind in flt.kinds)

    def link(cursor: str) -> str:
        return timeline_url(participant_id, kinds, *flt.values, cursor=cursor)

    offered = [(kind.value, KIND_LABELS[kind]) for kind in TimelineKind
               if found.identified or kind not in RESEARCHER_ONLY]
    zone = page.timezone
    rows = [Row(found.when(entry.at, zone), entry.kind.value, entry.kind.value.replace("_", " "), entry.summary,
                entry.text, found.when(entry.due_at, zone), entry.ref) for entry in page.entries]
    return render(request, "timeline.html", found, section="participants", participant_id=participant_id,
                  timezone=zone, rows=rows,
                  offered=offered, chosen=set(kinds), first=flt.values[0], last=flt.values[1],
                  problems=flt.problems, paged=flt.cursor is not None,
                  newest_url=link("") if flt.cursor is not None else None,
                  newer_url=link(page.newer) if page.newer else None,
                  older_url=link(page.older) if page.older else None)
