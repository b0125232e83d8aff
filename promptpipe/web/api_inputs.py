"""A participant's inputs that failed and wait, and trying one again or skipping it (researchers only: an error may
quote the participant). An input is found only under its own participant, so a mistyped id touches nobody else's."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from promptpipe.pipeline.events import InboxKind
from promptpipe.research import admin, oversight
from promptpipe.research.tokens import audit
from promptpipe.research.views import as_json
from promptpipe.storage.queue_tables import InboxStatus
from promptpipe.web.api import ERRORS, ParticipantId
from promptpipe.web.auth import Context, Researcher
from promptpipe.web.schemas import DB_INT_MAX

__all__ = ["MAX_INPUTS", "InputOut", "router"]

router = APIRouter(prefix="/api/v1", responses=ERRORS)
InboxId = Annotated[int, Path(ge=1, le=DB_INT_MAX, description="the input's id (from the list of inputs)")]
MAX_INPUTS = 50
"""The oldest inputs listed; a participant with more has a bigger problem than a list shows."""


class InputOut(BaseModel):
    id: int
    kind: InboxKind
    status: InboxStatus = Field(description="pending: still being tried; failed: given up on")
    attempts: int
    last_error: str
    at: str = Field(description="when it arrived (UTC)")
    retry_at: str | None = Field(description="the next try of a pending one (UTC)")


class Settled(BaseModel):
    message: str


@router.get("/participants/{participant_id}/inputs", response_model=list[InputOut], tags=["participants"])
async def participant_inputs(ctx: Context, participant_id: ParticipantId, caller: Researcher,
                             stuck: Annotated[bool, Query(description="only those that failed or keep failing")]
                             = True) -> list[InputOut]:
    """Inputs not answered yet, oldest first (at most 50)."""
    await admin.show(ctx.reader, participant_id)  # 404 for nobody
    rows = await oversight.inbox_rows(ctx.reader, stuck_only=stuck, participant_id=participant_id, limit=MAX_INPUTS)
    return [InputOut.model_validate(as_json(row)) for row in rows]  # its phone is left out


@router.post("/participants/{participant_id}/inputs/{inbox_id}/retry", response_model=Settled,
             tags=["participants"])
async def retry_input(ctx: Context, participant_id: ParticipantId, inbox_id: InboxId, caller: Researcher) -> Settled:
    """Queue the input again, to be tried now from scratch."""
    line = await oversight.retry_inbox(ctx.db, ctx.clock, inbox_id=inbox_id, participant_id=participant_id)
    await audit(ctx.db, ctx.clock, caller, "inbox_retry", participant_id=participant_id, detail={"inbox_id": inbox_id})
    return Settled(message=line)


@router.post("/participants/{participant_id}/inputs/{inbox_id}/skip", response_model=Settled, tags=["participants"])
async def skip_input(ctx: Context, participant_id: ParticipantId, inbox_id: InboxId, caller: Researcher) -> Settled:
    """Give up on the input for good: it stays in the transcript, marked skipped, and is never answered."""
    line = await oversight.skip_inbox(ctx.db, ctx.clock, inbox_id=inbox_id, by=caller.name,
                                      participant_id=participant_id)
    await audit(ctx.db, ctx.clock, caller, "inbox_skip", participant_id=participant_id, detail={"inbox_id": inbox_id})
    return Settled(message=line)
