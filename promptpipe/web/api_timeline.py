"""``GET /api/v1/participants/{id}/timeline``: everything that happened to one participant in one list (see
:mod:`promptpipe.research.timeline`); a viewer reads kinds, times and summaries only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from promptpipe.domain.access import SAFETY_FLAGS, Role, allows, may_read
from promptpipe.domain.timeline import CURSOR_PATTERN, MAX_TIMELINE_PAGE, RESEARCHER_ONLY, Cursor, TimelineKind
from promptpipe.research.timeline import timeline
from promptpipe.research.views import as_json
from promptpipe.web.api import ERRORS, ParticipantId
from promptpipe.web.auth import Context, Viewer
from promptpipe.web.errors import ApiError
from promptpipe.web.schemas import IsoDate

__all__ = ["TimelineEntryOut", "TimelinePageOut", "router"]

router = APIRouter(prefix="/api/v1", responses=ERRORS)


class TimelineEntryOut(BaseModel):
    at: str = Field(description="when (ISO 8601, UTC)")
    kind: TimelineKind
    summary: str = Field(description="one line in plain words (no phone, name or words of the participant for "
                                     "viewers, nor the team's names)")
    text: str | None = Field(description="the words behind it: a message's text, a prompt, an answer as typed, a "
                                         "reason or a note; null for viewers and where there are none")
    due_at: str | None = Field(description="a timer's due time (ISO 8601, UTC); null for other kinds")
    ref: str = Field(description="the row it comes from, table:id")


class TimelinePageOut(BaseModel):
    participant_id: str
    timezone: str = Field(description="the participant's zone: from and to are their local days")
    kinds: list[TimelineKind] = Field(description="the kinds read (all the role may read when none were asked for)")
    entries: list[TimelineEntryOut] = Field(description="newest first")
    older: str | None = Field(description="pass as cursor for the next older page (null: none)")
    newer: str | None = Field(description="pass as cursor for the next newer page (null: none)")


@router.get("/participants/{participant_id}/timeline", response_model=TimelinePageOut, tags=["participants"])
async def participant_timeline(
    ctx: Context, participant_id: ParticipantId, caller: Viewer,
    kind: Annotated[list[TimelineKind] | None, Query(description="the kinds to show (repeat it for several; "
                                                     "none: every kind; flag: researchers only)")] = None,
    from_: Annotated[IsoDate | None, Query(alias="from", description="the first day, in the participant's zone")]
    = None,
    to: Annotated[IsoDate | None, Query(description="the last day, in the participant's zone (before from: nothing)")]
    = None,
    cursor: Annotated[str | None, Query(pattern=CURSOR_PATTERN, description="older or newer of a page before")]
    = None,
    limit: Annotated[int, Query(ge=1, le=MAX_TIMELINE_PAGE)] = 50,
) -> TimelinePageOut:
    """Everything that happened to and with one participant, newest first."""
    kinds = set(kind or ())
    if kinds & RESEARCHER_ONLY and not may_read(caller.role, SAFETY_FLAGS):
        raise ApiError(403, f"kind flag needs the researcher role (safety flags are not for viewers); your token "
                            f"has {caller.role}")
    page = await timeline(ctx.reader, participant_id, identified=allows(caller.role, Role.RESEARCHER),
                          kinds=kinds, first_day=from_, last_day=to,
                          cursor=Cursor.parse(cursor) if cursor else None, limit=limit)
    return TimelinePageOut.model_validate(as_json(page))
