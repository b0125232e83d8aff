"""Header search box (``/search?q=``): one match opens it, several are listed, none says so (viewers: ids only)."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from promptpipe.domain.participant_search import MAX_QUERY_CHARS
from promptpipe.research.search import search_participants
from promptpipe.web.pages._lists import STAGE_LABELS
from promptpipe.web.pages._render import PageError, Visiting, attempt, render
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.participants import participant_url

__all__ = ["router"]

router = APIRouter()


@dataclass(frozen=True)
class Hit:
    id: str
    url: str
    name: str | None
    """None for viewers."""
    status: str
    stage: str
    enrolled: TimeLabel | None


@router.get("/search", response_class=HTMLResponse)
async def search(request: Request, found: Visiting, q: str = "") -> Response:
    query = q.strip()
    if len(query) > MAX_QUERY_CHARS:
        raise PageError(400, f"Search for at most {MAX_QUERY_CHARS} characters; nothing was searched.")
    if not query:
        return render(request, "search.html", found, section="", q="", hits=[], more=False, searched=False)
    result = await attempt(search_participants(found.ctx.reader, found.ctx.clock, query,
                                               identified=found.identified))
    if len(result.items) == 1 and not result.more:
        return RedirectResponse(participant_url(result.items[0].id), status_code=303)
    hits = [Hit(row.id, participant_url(row.id), (row.name or "—") if found.identified else None, row.status,
                STAGE_LABELS.get(row.stage, row.stage), found.when(row.enrolled_at, row.timezone))
            for row in result.items]
    return render(request, "search.html", found, section="", q=query, hits=hits, more=result.more, searched=True)
