"""``GET /api/v1/participants/search``: the dashboard's search box as an API. Its router is included before the
participants' (``/participants/{participant_id}`` would take ``search`` for an id)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from promptpipe.domain.access import Role, allows
from promptpipe.domain.participant_search import MAX_QUERY_CHARS
from promptpipe.research.search import MAX_HITS, search_participants
from promptpipe.web.api import participant_summary
from promptpipe.web.auth import Context, Viewer
from promptpipe.web.schemas import VISIBLE_LINE, ErrorBody, ParticipantSummary

__all__ = ["ParticipantSearch", "router"]

router = APIRouter(prefix="/api/v1",
                   responses={code: {"model": ErrorBody} for code in (400, 401, 403, 422, 429, 503)})


class ParticipantSearch(BaseModel):
    query: str = Field(description="what was searched for, without the spaces around it")
    items: list[ParticipantSummary] = Field(description="the matches, oldest enrolment first")
    more: bool = Field(description="more participants match than are listed: search for more of it")


@router.get("/participants/search", response_model=ParticipantSearch, tags=["participants"])
async def search(
    ctx: Context, caller: Viewer,
    q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, pattern=VISIBLE_LINE,
                            description="researchers: a name or part of it (any case), a phone number however "
                                        "written (its digits are compared; at least 4), or an id or its start "
                                        "(p_ and at least 4 hex digits); viewers: an id or its start only")],
    limit: Annotated[int, Query(ge=1, le=MAX_HITS)] = MAX_HITS,
) -> ParticipantSearch:
    """Participants matching ``q`` (a viewer's search for a name or a phone number matches nobody)."""
    identified = allows(caller.role, Role.RESEARCHER)
    found = await search_participants(ctx.reader, ctx.clock, q, identified=identified, limit=limit)
    return ParticipantSearch(query=found.query, items=[participant_summary(row, identified) for row in found.items],
                             more=found.more)


@router.api_route("/participants/search", methods=["POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
                  include_in_schema=False)
async def other_methods() -> None:
    """405 (with ``Allow: GET``) rather than the participant routes' 404 for an id "search"."""
    raise HTTPException(405)
