"""The HTTP API's study-wide endpoints: broadcast, statistics, questionnaires, the export, the service's status,
safety flags, API tokens and the report (the same tables as the dashboard's report page, so they cannot disagree)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query, status
from fastapi import Path as PathParam
from fastapi.responses import FileResponse

from promptpipe.domain.access import NEEDED_TO_READ, SAFETY_FLAGS, TOKEN_NAME, Role, allows
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.questionnaires import operations as questionnaire_ops
from promptpipe.research import flag_review, messaging, oversight, tokens
from promptpipe.research.listing import MAX_PAGE
from promptpipe.research.monitoring import MAX_STATS_DAYS, prompt_stats
from promptpipe.research.status import read_status
from promptpipe.research.tokens import Caller, audit
from promptpipe.research.views import as_json
from promptpipe.study.report.tables import report_tables
from promptpipe.web.auth import Admin, Context, Researcher, Viewer, require
from promptpipe.web.export_download import export_zip
from promptpipe.web.schemas import DB_INT_MAX, IsoDate
from promptpipe.web.schemas_questionnaires import (
    OutcomeCounts,
    QuestionnaireCompliance,
    QuestionnaireReason,
    QuestionnaireResponsePage,
    instance_out,
)
from promptpipe.web.schemas_study import (
    BroadcastRequest,
    BroadcastResult,
    FlagDetailOut,
    FlagOut,
    ReportOut,
    ReportTableOut,
    ResolveRequest,
    ServiceStatus,
    Stats,
    TokenCreated,
    TokenOut,
    TokenRequest,
    ViewerServiceStatus,
)

__all__ = ["router"]

router = APIRouter()
DEFAULT_STATS_DAYS = 14


@router.post("/broadcast", response_model=BroadcastResult, tags=["messages"])
async def broadcast(ctx: Context, body: BroadcastRequest, caller: Researcher) -> BroadcastResult:
    """Send one message to every participant the filter matches. Count first (``dry_run``), then
    send with ``expected_count`` set to that count. Messages go through the outbox under the send
    rate; anyone who sent STOP or was withdrawn is skipped."""
    flt = ParticipantFilter(status=body.status, stage=body.stage, arm=body.arm, silent_days=body.silent_days)
    count = await messaging.broadcast_count(ctx.reader, ctx.clock, flt)
    if body.dry_run:
        return BroadcastResult(recipients=count, dry_run=True)
    result = await messaging.broadcast(ctx.db, ctx.clock, text=body.text, flt=flt, by=caller.name,
                                       expected=body.expected_count, anyway=body.anyway)
    await audit(ctx.db, ctx.clock, caller, "broadcast",
                detail={"filter": flt.describe(), "broadcast_id": result.broadcast_id, "queued": result.queued,
                        "skipped": result.skipped, "chars": len(body.text)})
    return BroadcastResult(recipients=count, dry_run=False, broadcast_id=result.broadcast_id, queued=result.queued,
                           skipped=result.skipped)


@router.get("/stats", response_model=Stats, response_model_by_alias=True, tags=["study"])
async def stats(ctx: Context, caller: Viewer,
                from_: Annotated[IsoDate | None, Query(alias="from", description="first local day (default: "
                                                    f"{DEFAULT_STATS_DAYS} days ago)")] = None,
                to: Annotated[IsoDate | None, Query(description="last local day (default: today)")] = None,
                ) -> Stats:
    """Daily prompts by participant-local day and arm: sent, delivered, read, answered, done.
    Of a longer range only its last 366 days are counted (``from`` in the answer says where they
    begin); a range that ends before it begins has no days."""
    last = to or ctx.clock.now().astimezone(ctx.researcher_zone).date()
    first = from_ or _days_before(last, DEFAULT_STATS_DAYS - 1)
    if first > last:
        return Stats.model_validate({"from": first.isoformat(), "to": last.isoformat(), "arms": {}, "days": []})
    first = max(first, _days_before(last, MAX_STATS_DAYS - 1))
    found = await prompt_stats(ctx.reader, first_day=first, last_day=last)
    return Stats.model_validate({"from": found.first_day, "to": found.last_day, "arms": found.arms,
                                 "days": [as_json(day) for day in found.days]})


def _days_before(day: date, days: int) -> date:
    return date.fromordinal(max(1, day.toordinal() - days))


@router.get("/status", response_model=ServiceStatus | ViewerServiceStatus, tags=["service"])
async def service_status(ctx: Context, caller: Viewer) -> ServiceStatus | ViewerServiceStatus:
    """WhatsApp's state, the outbox backlog, uncertain sends, inputs given up on and (for
    researchers: a provider's message may quote a participant) the last model error."""
    report = await read_status(ctx.reader, ctx.settings.number_plan, ctx.clock.now())
    researcher = allows(caller.role, Role.RESEARCHER)
    model = ServiceStatus if researcher else ViewerServiceStatus
    return model.model_validate({**report.to_json(), "summary": report.lines(model_error=researcher)})


@router.get("/questionnaires", response_model=list[QuestionnaireCompliance], tags=["study"])
async def questionnaires(ctx: Context, caller: Viewer) -> list[QuestionnaireCompliance]:
    """Every questionnaire of the study file in force: its instances by status and by outcome,
    the completion rate, and why instances are partial, expired, stopped or not sent."""
    rows = await questionnaire_ops.questionnaire_compliance(ctx.reader, ctx.settings.study)
    return [QuestionnaireCompliance(
        id=row.questionnaire_id, title=row.title, by_status=row.tally.by_status,
        outcomes=OutcomeCounts.model_validate(row.tally.by_outcome), sent=row.tally.sent,
        completion_rate=row.tally.completion_rate,
        reasons=[QuestionnaireReason.model_validate(as_json(reason)) for reason in row.tally.reasons]) for row in rows]


QuestionnaireId = Annotated[str, PathParam(
    description="the questionnaire's id in the study file (another value names nothing: 404)",
    json_schema_extra={"pattern": "^[a-z0-9_]{1,32}$"})]


@router.get("/questionnaires/{questionnaire_id}/responses", response_model=QuestionnaireResponsePage, tags=["study"])
async def questionnaire_responses(ctx: Context, questionnaire_id: QuestionnaireId, caller: Viewer,
                                  limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
                                  offset: Annotated[int, Query(ge=0, le=DB_INT_MAX)] = 0) -> QuestionnaireResponsePage:
    """Everyone's instances of one questionnaire, completed first and planned last, each with its
    participant's id and each item's answer (the coded value and the reply are null for viewers)."""
    page = await questionnaire_ops.questionnaire_responses(ctx.reader, ctx.settings.study, questionnaire_id,
                                                           limit=limit, offset=offset)
    identified = allows(caller.role, Role.RESEARCHER)
    return QuestionnaireResponsePage(questionnaire_id=questionnaire_id, total=page.total, limit=limit, offset=offset,
                                     items=[instance_out(row, identified) for row in page.items])


@router.get("/export", response_class=FileResponse, tags=["study"],
            responses={200: {"content": {"application/zip": {}}, "description": "the export as a zip"}})
async def export(ctx: Context, caller: Researcher,
                 format_: Annotated[str, Query(alias="format", pattern="^(csv|jsonl)$")] = "csv",
                 include_identifiers: bool = False) -> FileResponse:
    """The pseudonymised analysis files (with study.json and the codebook) as one zip;
    ``include_identifiers`` adds the key file (phone and name per participant id)."""
    return await export_zip(ctx, caller, fmt=format_, include_identifiers=include_identifiers,
                            via="api")


FlagReader = Annotated[Caller, Depends(require(NEEDED_TO_READ[SAFETY_FLAGS]))]


@router.get("/flags", response_model=list[FlagOut], tags=["safety"])
async def flags(ctx: Context, caller: FlagReader, all_: Annotated[bool, Query(alias="all")] = False) -> list[FlagOut]:
    """Safety flags, oldest first (open ones unless ``all``)."""
    rows = await oversight.flags(ctx.reader, include_resolved=all_)
    return [FlagOut.model_validate({k: v for k, v in as_json(row).items() if k != "phone"}) for row in rows]


@router.get("/flags/{flag_id}", response_model=FlagDetailOut, tags=["safety"])
async def flag(ctx: Context, flag_id: Annotated[int, PathParam(ge=1, le=DB_INT_MAX)],
               caller: FlagReader) -> FlagDetailOut:
    """One safety flag with what its row keeps of its course (raised, alerted, resolved by whom,
    when, with what note) and the participant's messages around it, oldest first: up to five
    before the message that raised it, that one (``flagged``), up to five after."""
    found = await flag_review.flag_detail(ctx.reader, flag_id)
    record = found.record
    entry = {k: v for k, v in as_json(record.entry).items() if k != "phone"}
    return FlagDetailOut.model_validate({
        **entry, "alert_attempts": record.alert_attempts, "alerted_at": record.alerted_at,
        "messages": [{**as_json(message), "flagged": message.id == found.flagged_id} for message in found.messages]})


@router.post("/flags/{flag_id}/resolve", tags=["safety"])
async def resolve_flag(ctx: Context, flag_id: Annotated[int, PathParam(ge=1, le=DB_INT_MAX)],
                       body: ResolveRequest, caller: Researcher) -> dict[str, str]:
    """Mark a safety flag as dealt with, with a note on what was done."""
    line, participant_id = await oversight.resolve_naming(ctx.db, ctx.clock, flag_id=flag_id, note=body.note,
                                                          by=caller.name)
    await audit(ctx.db, ctx.clock, caller, "resolve_flag", participant_id=participant_id, detail={"flag_id": flag_id})
    return {"message": line}


@router.get("/tokens", response_model=list[TokenOut], tags=["tokens"])
async def list_tokens(ctx: Context, caller: Admin) -> list[TokenOut]:
    """Every token by name and role (never the secret)."""
    return [TokenOut.model_validate(as_json(row)) for row in await tokens.tokens(ctx.reader)]


@router.post("/tokens", response_model=TokenCreated, status_code=status.HTTP_201_CREATED, tags=["tokens"])
async def create_token(ctx: Context, body: TokenRequest, caller: Admin) -> TokenCreated:
    """A new token; its secret is in this answer and nowhere else."""
    expires_at = ctx.clock.now() + timedelta(days=body.expires_in_days) if body.expires_in_days else None
    secret, row = await tokens.create_token(ctx.db, ctx.clock, name=body.name, role=body.role, by=caller.name,
                                            expires_at=expires_at)
    await audit(ctx.db, ctx.clock, caller, "token_create",
                detail={"name": body.name, "role": body.role, "expires_at": row.expires_at})
    return TokenCreated.model_validate({**as_json(row), "token": secret})


@router.delete("/tokens/{name}", response_model=TokenOut, tags=["tokens"])
async def revoke_token(ctx: Context, name: Annotated[str, PathParam(pattern=f"^{TOKEN_NAME.pattern}$")],
                       caller: Admin) -> TokenOut:
    """Revoke a token: requests with it fail from now on."""
    await tokens.revoke(ctx.db, ctx.clock, name=name, by=caller.name)
    await audit(ctx.db, ctx.clock, caller, "token_revoke", detail={"name": name})
    rows = await tokens.tokens(ctx.db)
    return TokenOut.model_validate(as_json(next(row for row in rows if row.name == name)))


@router.get("/report", response_model=ReportOut, tags=["study"])
async def report(ctx: Context, caller: Viewer) -> ReportOut:
    """Participants by status and arm, study days reached, prompts per arm, adherence per day and
    arm, decision points by availability and action, questionnaire and self-report compliance."""
    now = ctx.clock.now()
    found = await report_tables(ctx.reader, ctx.settings.study, now=now,
                                today=now.astimezone(ctx.researcher_zone).date())
    return ReportOut(study=ctx.settings.study.name, generated_at=now.isoformat(),
                     tables=[ReportTableOut(key=table.key, title=table.title, columns=list(table.columns),
                                            rows=[list(row) for row in table.rows], share_columns=sorted(table.shares))
                             for table in found.tables.values()])
