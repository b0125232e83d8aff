"""``GET /api/v1/attention``: the overview's "Needs attention" list, each entry with the page where it is resolved; a
viewer's has ids, counts and times only (no safety flags, no model error)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from promptpipe.config import TransportName
from promptpipe.domain.access import Role, allows
from promptpipe.domain.participant_filter import MAX_SILENT_DAYS
from promptpipe.domain.states import Stage, Status
from promptpipe.research.attention import DEFAULT_SILENT_DAYS, Attention, AttentionEntry, AttentionKind, read_attention
from promptpipe.research.views import as_json
from promptpipe.web.auth import Context, Viewer
from promptpipe.web.context import WebContext
from promptpipe.web.schemas import ErrorBody

__all__ = ["AttentionOut", "ViewerAttentionOut", "attention_for", "entry_link", "participant_link", "router"]

router = APIRouter(prefix="/api/v1", responses={code: {"model": ErrorBody} for code in (400, 401, 403, 422, 429, 503)})


def participant_link(participant_id: str) -> str:
    return f"/participants/{participant_id}"


def entry_link(entry: AttentionEntry, silent_days: int) -> str:
    """The dashboard page where an entry is resolved (or, for a few participants, the oldest one's page)."""
    match entry.kind:
        case AttentionKind.SAFETY_FLAG:
            return "/flags"
        case AttentionKind.SILENT:
            return f"/participants?status={Status.ACTIVE}&silent={silent_days}&sort=last_in"
        case AttentionKind.INTAKE_ON_HOLD:
            return f"/participants?status={Status.ACTIVE}&stage={Stage.INTAKE_SUSPENDED}"
        case AttentionKind.WHATSAPP | AttentionKind.MODEL_ERROR:
            return "/#service"  # the overview's service card
        case AttentionKind.NUMBER:
            return "/#numbers"  # the overview's list of WhatsApp numbers
    return participant_link(entry.participants[0].participant_id) if entry.participants else "/participants"


async def attention_for(ctx: WebContext, role: str, *, silent_days: int = DEFAULT_SILENT_DAYS,
                        detail: bool = True) -> Attention:
    """The list as ``role`` may read it (the API, the overview and the navigation's count)."""
    return await read_attention(ctx.reader, ctx.clock.now(), silent_days=silent_days,
                                identified=allows(role, Role.RESEARCHER),
                                whatsapp=ctx.settings.transport == TransportName.WHATSAPP, detail=detail,
                                numbers=ctx.settings.number_plan)


class ConcernOut(BaseModel):
    participant_id: str
    count: int
    since: str = Field(description="the oldest one's time")
    name: str | None = Field(None, description="the participant's name (researchers and admins only)")
    link: str = Field(description="the participant's dashboard page")


class ViewerAttentionEntry(BaseModel):
    kind: AttentionKind
    count: int = Field(description="flags, inputs, sends, prompts or participants (1 for WhatsApp and the model)")
    participants: list[ConcernOut] = Field(description="the participants concerned, oldest first (at most 20)")
    since: str | None = Field(description="the oldest one's time, or when WhatsApp's (or the number's) state began")
    state: str | None = Field(None, description="for whatsapp and number: the state (null: none recorded)")
    number: str | None = Field(None, description="for number: the WhatsApp number banned or logged out, whose "
                                                 "participants are listed (they keep it until the team moves them)")
    reason: str | None = Field(None, description="for number: why its participants are listed and what to do")
    link: str = Field(description="the dashboard page where it is resolved")


class AttentionEntryOut(ViewerAttentionEntry):
    error: str | None = Field(None, description="for model_error: the error's line")


class ViewerAttentionOut(BaseModel):
    silent_days: int
    total: int = Field(description="the count the dashboard's navigation shows")
    entries: list[ViewerAttentionEntry]


class AttentionOut(ViewerAttentionOut):
    entries: list[AttentionEntryOut]  # type: ignore[assignment]


def _entry(entry: AttentionEntry, silent_days: int, *, researcher: bool) -> ViewerAttentionEntry:
    concerns = [{**as_json(c), "link": participant_link(c.participant_id)} for c in entry.participants]
    model = AttentionEntryOut if researcher else ViewerAttentionEntry  # a viewer's has no error
    return model.model_validate({**as_json(entry), "participants": concerns, "link": entry_link(entry, silent_days)})


@router.get("/attention", response_model=AttentionOut | ViewerAttentionOut, tags=["service"])
async def attention(ctx: Context, caller: Viewer,
                    silent_days: Annotated[int, Query(ge=1, le=MAX_SILENT_DAYS,
                                                      description="active participants silent this many days")]
                    = DEFAULT_SILENT_DAYS) -> AttentionOut | ViewerAttentionOut:
    """Open safety flags, participants whose WhatsApp number is banned or logged out (one entry per number), inputs
    given up on or failing, uncertain sends, daily prompts not delivered for a day, active participants silent for
    ``silent_days``, intake on hold, WhatsApp not connected and the last model error of the past day (the last two and
    the flags for researchers only), each with the dashboard page where it is resolved."""
    researcher = allows(caller.role, Role.RESEARCHER)
    found = await attention_for(ctx, caller.role, silent_days=silent_days)
    entries = [_entry(entry, silent_days, researcher=researcher) for entry in found.entries]
    model = AttentionOut if researcher else ViewerAttentionOut
    return model.model_validate({"silent_days": silent_days, "total": found.total, "entries": entries})
