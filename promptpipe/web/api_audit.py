"""The API's audit log, researchers and admins only (it ties tokens to participants' ids; no phone, name or text)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, JsonValue

from promptpipe.domain.access import Role
from promptpipe.research.tokens import MAX_AUDIT_PAGE, audit_page
from promptpipe.research.views import as_json
from promptpipe.web.auth import Context, Researcher
from promptpipe.web.schemas import DB_INT_MAX

__all__ = ["AuditEntryOut", "AuditPageOut", "router"]

router = APIRouter()
DEFAULT_LIMIT = 50


class AuditEntryOut(BaseModel):
    id: int
    at: str = Field(description="when (ISO 8601, UTC)")
    actor: str = Field(description="the token's name (or, via cli, the user of the admin script)")
    role: Role
    action: str = Field(description="enroll, update, pause, resume, withdraw, erase, send, broadcast, prompt_now, "
                                     "export, resolve_flag, token_create, token_revoke …")
    via: str = Field(description="api, dashboard or cli")
    participant_id: str | None
    address: str | None = Field(description="the caller's address, where one was recorded")
    detail: dict[str, JsonValue] = Field(description="what else was recorded (never a participant's words)")


class AuditPageOut(BaseModel):
    total: int = Field(description="every entry the filter matches")
    limit: int
    offset: int
    entries: list[AuditEntryOut]


@router.get("/audit", response_model=AuditPageOut, tags=["audit"])
async def audit_log(ctx: Context, caller: Researcher,
                    actor: Annotated[str, Query(max_length=200, description="who: a token's name")] = "",
                    action: Annotated[str, Query(max_length=64, description="what, e.g. pause")] = "",
                    participant_id: Annotated[str, Query(max_length=64, description="to whom")] = "",
                    limit: Annotated[int, Query(ge=1, le=MAX_AUDIT_PAGE)] = DEFAULT_LIMIT,
                    offset: Annotated[int, Query(ge=0, le=DB_INT_MAX)] = 0) -> AuditPageOut:
    """The audit log, newest first: every write made through the API, the dashboard or (for tokens) the admin script."""
    found = await audit_page(ctx.reader, actor=actor.strip(), action=action.strip(),
                             participant_id=participant_id.strip(), limit=limit, offset=offset)
    return AuditPageOut(total=found.total, limit=limit, offset=offset,
                        entries=[AuditEntryOut.model_validate(as_json(entry)) for entry in found.entries])
