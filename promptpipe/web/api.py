"""The HTTP API, version 1: participants and what belongs to one. Every write goes through the same research
operation as ``promptpipe-admin`` (so through the inbox: nothing is sent inside a request) and is audited."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, status

from promptpipe.domain.access import Role, allows
from promptpipe.domain.messages import kind_shown
from promptpipe.domain.participant_filter import (
    IDENTIFYING_SORT_KEYS,
    MAX_SILENT_DAYS,
    SORT_KEYS,
    ParticipantFilter,
    ParticipantSort,
)
from promptpipe.domain.states import Stage, Status
from promptpipe.questionnaires.operations import participant_questionnaires
from promptpipe.research import admin, erasure, messaging, monitoring, oversight
from promptpipe.research._common import PARTICIPANT_ID
from promptpipe.research.listing import MAX_PAGE, one_participant, participant_list
from promptpipe.research.number_moves import move_to_number
from promptpipe.research.tokens import audit
from promptpipe.research.views import ListedRow, as_json
from promptpipe.study import operations as study_ops
from promptpipe.web import api_audit, api_study
from promptpipe.web.auth import Context, Researcher, Viewer
from promptpipe.web.errors import ApiError
from promptpipe.web.schemas import (
    DB_INT_MAX,
    Accepted,
    ConsentLedger,
    Delivery,
    EnrollRequest,
    Erased,
    ErrorBody,
    ExtendRequest,
    Health,
    MessageRequest,
    MoveNumberRequest,
    ParticipantDetail,
    ParticipantPage,
    ParticipantSummary,
    ResearcherTimer,
    Schedules,
    Timers,
    TranscriptEntry,
    TranscriptPage,
    UpdateRequest,
    ViewerTimer,
    WithdrawRequest,
)
from promptpipe.web.schemas_questionnaires import QuestionnaireInstancePage, instance_out

__all__ = ["health", "participant_summary", "router"]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 422, 429, 503)}
health = APIRouter()
router = APIRouter(prefix="/api/v1", responses=ERRORS)
router.include_router(api_study.router)
router.include_router(api_audit.router)
HIDDEN_FOR_VIEWERS = ("phone", "name", "background", "profile", "last_habit_prompt", "summary")


@health.get("/health", response_model=Health, tags=["service"])
async def get_health() -> dict[str, str]:
    """Liveness: answers without a token and says nothing about the study."""
    return {"status": "ok"}


async def _participant_id(participant_id: Annotated[str, Path(
        description="p_ and 16 hex digits (another value names nobody: 404)",
        json_schema_extra={"pattern": f"^{PARTICIPANT_ID.pattern}$"})]) -> str:
    # async: FastAPI runs a plain function's dependency in a worker thread, a hop per request
    if not PARTICIPANT_ID.fullmatch(participant_id):
        raise ApiError(404, f"no participant has the id {participant_id[:40]!r}")
    return participant_id


ParticipantId = Annotated[str, Depends(_participant_id)]


def participant_summary(row: ListedRow, identified: bool) -> ParticipantSummary:
    hide = {} if identified else {"phone": None, "name": None}
    return ParticipantSummary.model_validate({**as_json(row), **hide})


@router.get("/participants", response_model=ParticipantPage, tags=["participants"])
async def list_participants(
    ctx: Context, caller: Viewer, status_: Annotated[Status | None, Query(alias="status")] = None,
    stage: Stage | None = None, arm: Annotated[str | None, Query(max_length=100, pattern=r"\S")] = None,
    silent_days: Annotated[int | None, Query(ge=1, le=MAX_SILENT_DAYS,
                                             description="no message from them for this many days")] = None,
    sort: Annotated[str, Query(description=f"one of {', '.join(SORT_KEYS)}; prefix - for descending "
                               f"({', '.join(sorted(IDENTIFYING_SORT_KEYS))}: researchers only)",
                               pattern=f"^-?({'|'.join(SORT_KEYS)})$")] = "enrolled",
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50, offset: Annotated[int, Query(ge=0, le=DB_INT_MAX)] = 0,
) -> ParticipantPage:
    """Participants, filtered and paged (``total`` counts every match)."""
    try:
        order = ParticipantSort.parse(sort)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None
    identified = allows(caller.role, Role.RESEARCHER)
    if order.key in IDENTIFYING_SORT_KEYS and not identified:
        raise ApiError(403, f"sorting by {order.key} needs the researcher role (viewers cannot see it)")
    flt = ParticipantFilter(status=status_, stage=stage, arm=arm, silent_days=silent_days)
    page = await participant_list(ctx.reader, ctx.clock, flt, order, limit=limit, offset=offset)
    return ParticipantPage(total=page.total, limit=page.limit, offset=page.offset,
                           items=[participant_summary(row, identified) for row in page.items])


@router.post("/participants", response_model=ParticipantSummary, status_code=status.HTTP_201_CREATED,
             tags=["participants"])
async def enroll(ctx: Context, body: EnrollRequest, caller: Researcher) -> ParticipantSummary:
    """Enroll a participant (allocated to an arm by the study's rule); the service greets them."""
    fields = ctx.settings.study.allocation.stratum_fields
    unknown = sorted(set(body.strata) - set(fields))
    if unknown:  # the schema cannot know the study file: its rules refuse the field
        allowed = f"this study stratifies by {', '.join(fields)}" if fields else "this study is not stratified"
        raise ApiError(409, f"strata.{unknown[0][:40]}: {allowed}", code="refused")
    plan = ctx.settings.number_plan
    if body.number is not None and body.number not in plan.numbers:  # the schema cannot know the deployment's
        raise ApiError(409, f"number: there is no number {body.number!r}; this deployment has "
                       f"{', '.join(plan.numbers)}", code="refused")
    row = await admin.enroll(ctx.db, ctx.clock, admin.Enrolment(
        phone=body.phone, name=body.name, timezone=body.timezone, background=body.background, by=caller.name,
        study=ctx.settings.study, strata=body.strata, numbers=ctx.settings.number_plan, number=body.number))
    await audit(ctx.db, ctx.clock, caller, "enroll", participant_id=row.id, detail={"arm": row.arm})
    listed = await one_participant(ctx.db, ctx.clock, row.id)
    if listed is None:
        raise ApiError(404, f"no participant has the id {row.id}")
    return participant_summary(listed, allows(caller.role, Role.RESEARCHER))


@router.get("/participants/{participant_id}", response_model=ParticipantDetail, tags=["participants"])
async def get_participant(ctx: Context, participant_id: ParticipantId, caller: Viewer) -> ParticipantDetail:
    """One participant: status, stage, arm, counters; profile texts for researchers."""
    row = as_json(await admin.show(ctx.reader, participant_id))
    row["stage"] = row.pop("sub_state")
    if not allows(caller.role, Role.RESEARCHER):
        row.update(dict.fromkeys(HIDDEN_FOR_VIEWERS))
    return ParticipantDetail.model_validate(row)


@router.patch("/participants/{participant_id}", response_model=ParticipantDetail, tags=["participants"])
async def update_participant(ctx: Context, participant_id: ParticipantId, body: UpdateRequest,
                             caller: Researcher) -> ParticipantDetail:
    """Change the name, background notes or time zone, or pause / resume (the research team's
    pause only): each through the same operation as the admin script."""
    if body.name is not None or body.background is not None:
        await admin.update_participant(ctx.db, ctx.clock, who=participant_id, name=body.name,
                                       background=body.background, by=caller.name)
    if body.timezone is not None:
        await admin.set_timezone(ctx.db, ctx.clock, phone=participant_id, timezone=body.timezone, by=caller.name)
    if body.status is not None:
        action = "pause" if Status(body.status) is Status.PAUSED else "resume"
        await admin.set_status(ctx.db, ctx.clock, phone=participant_id, action=action, reason=body.reason,
                               by=caller.name, study=ctx.settings.study)
    fields = sorted(name for name in ("name", "background", "timezone", "status")
                    if getattr(body, name) is not None)
    await audit(ctx.db, ctx.clock, caller, "update", participant_id=participant_id,
                detail={"fields": fields, **({"status": body.status} if body.status else {}),
                        **({"timezone": body.timezone} if body.timezone else {})})
    return await get_participant(ctx, participant_id, caller)


@router.post("/participants/{participant_id}/withdraw", response_model=ParticipantDetail, tags=["participants"])
async def withdraw(ctx: Context, participant_id: ParticipantId, body: WithdrawRequest,
                   caller: Researcher) -> ParticipantDetail:
    """Withdraw the participant from the study (final: nothing more is sent to them)."""
    await admin.set_status(ctx.db, ctx.clock, phone=participant_id, action="withdraw", reason=body.reason,
                           by=caller.name, study=ctx.settings.study)
    await audit(ctx.db, ctx.clock, caller, "withdraw", participant_id=participant_id)
    return await get_participant(ctx, participant_id, caller)


@router.post("/participants/{participant_id}/extend", response_model=ParticipantDetail, tags=["participants"])
async def extend(ctx: Context, participant_id: ParticipantId, body: ExtendRequest,
                 caller: Researcher) -> ParticipantDetail:
    """Add study days to one participant's study (a completed one is brought back); refused (409)
    without a study file that sets the study's length, and for a withdrawn participant."""
    await study_ops.extend(ctx.db, ctx.clock, study=ctx.settings.study, phone=participant_id, days=body.days,
                           by=caller.name)
    await audit(ctx.db, ctx.clock, caller, "extend", participant_id=participant_id, detail={"days": body.days})
    return await get_participant(ctx, participant_id, caller)


@router.post("/participants/{participant_id}/number", response_model=ParticipantDetail, tags=["participants"])
async def move_number(ctx: Context, participant_id: ParticipantId, body: MoveNumberRequest,
                      caller: Researcher) -> ParticipantDetail:
    """Move one participant to another of the deployment's WhatsApp numbers; ``message`` tells them,
    from the new number. Refused (409) for a number the deployment lacks or the one they have."""
    await move_to_number(ctx.db, ctx.clock, who=participant_id, to=body.to, text=body.message,
                         numbers=ctx.settings.number_plan, by=caller.name, study=ctx.settings.study)
    await audit(ctx.db, ctx.clock, caller, "move_number", participant_id=participant_id, detail={"to": body.to})
    return await get_participant(ctx, participant_id, caller)


@router.delete("/participants/{participant_id}", response_model=Erased, tags=["participants"])
async def erase(ctx: Context, participant_id: ParticipantId, caller: Researcher,
                confirm: Annotated[str, Query(description="the participant id again, to confirm (another "
                                                          "value is refused: 400)",
                                              pattern=f"^{PARTICIPANT_ID.pattern}$")]
                ) -> Erased:
    """Erase the participant's personal data (cannot be undone; the pseudonymous id and the
    counts stay). ``confirm`` must repeat the id."""
    if confirm != participant_id:  # it fits the schema, but names someone else
        raise ApiError(409, "confirm: repeat this participant's id to confirm the erasure")
    done = await erasure.erase(ctx.db, ctx.clock, study=ctx.settings.study, phone=participant_id, by=caller.name)
    await audit(ctx.db, ctx.clock, caller, "erase", participant_id=participant_id)
    return Erased(participant_id=done.participant_id, messages_erased=done.messages,
                  pending_inputs_closed=done.pending_inputs_closed,
                  unsent_messages_dropped=done.unsent_messages_dropped)


@router.get("/participants/{participant_id}/transcript", response_model=TranscriptPage, tags=["participants"])
async def transcript(ctx: Context, participant_id: ParticipantId, caller: Viewer,
                     limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
                     before_id: Annotated[int | None, Query(ge=1, le=DB_INT_MAX)] = None) -> TranscriptPage:
    """Messages in and out, newest first, with WhatsApp's delivery and read receipts (the text is null for viewers)."""
    rows = await admin.transcript(ctx.reader, participant_id, limit=limit + 1, before_id=before_id)
    page = rows[::-1][:limit]  # one more than asked says whether an older page exists
    hide = not allows(caller.role, Role.RESEARCHER)
    items = [TranscriptEntry(**{k: getattr(row, k) for k in TranscriptEntry.model_fields if k not in ("text", "kind")},
                             kind=kind_shown(row.kind, not hide), text=None if hide else row.text) for row in page]
    return TranscriptPage(participant_id=participant_id, items=items,
                          next_before_id=page[-1].id if len(rows) > limit else None)


@router.get("/participants/{participant_id}/schedules", response_model=Schedules, tags=["participants"])
async def schedules(ctx: Context, participant_id: ParticipantId, caller: Viewer) -> Schedules:
    """Daily prompt schedules with their next local time, and whether each alarm is armed."""
    data = await admin.schedules(ctx.reader, ctx.clock, phone=participant_id)
    return Schedules.model_validate({"participant_id": participant_id, "status": data.status,
                                     "timezone": data.timezone, "schedules": as_json(data.schedules)})


@router.get("/participants/{participant_id}/timers", response_model=Timers, response_model_exclude_unset=True,
            tags=["participants"])
async def timers(ctx: Context, participant_id: ParticipantId, caller: Viewer) -> Timers:
    """Pending timers (reminders, hand-overs, check-ins, the study's end) with their due times;
    researchers also see each timer's detail (it may quote the conversation)."""
    data = await admin.schedules(ctx.reader, ctx.clock, phone=participant_id)
    model = ResearcherTimer if allows(caller.role, Role.RESEARCHER) else ViewerTimer
    return Timers(participant_id=participant_id, timers=[model.model_validate(as_json(timer)) for timer in data.timers])


@router.get("/participants/{participant_id}/deliveries", response_model=list[Delivery], tags=["participants"])
async def deliveries(ctx: Context, participant_id: ParticipantId, caller: Viewer) -> list[Delivery]:
    """Every daily prompt sent: receipts, vote, reply, reminder and outcome."""
    _, rows = await monitoring.deliveries(ctx.reader, ctx.clock, participant_id,
                                          receipt_window=ctx.settings.delivery_receipt_window)
    hide = {} if allows(caller.role, Role.RESEARCHER) else {"prompt_text": None}
    return [Delivery.model_validate({**as_json(row), **hide}) for row in rows]


@router.get("/participants/{participant_id}/questionnaires", response_model=QuestionnaireInstancePage,
            tags=["participants"])
async def questionnaires(ctx: Context, participant_id: ParticipantId, caller: Viewer,
                         limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
                         offset: Annotated[int, Query(ge=0, le=DB_INT_MAX)] = 0) -> QuestionnaireInstancePage:
    """Their questionnaires, newest first but the planned ones last: status, times, why one ended
    unfinished, and each item's answer (the coded value and the reply as given are null for
    viewers, as message text is)."""
    page = await participant_questionnaires(ctx.reader, participant_id, limit=limit, offset=offset)
    identified = allows(caller.role, Role.RESEARCHER)
    return QuestionnaireInstancePage(participant_id=participant_id, total=page.total, limit=page.limit,
                                     offset=page.offset, items=[instance_out(row, identified) for row in page.items])


@router.post("/participants/{participant_id}/messages", response_model=Accepted,
             status_code=status.HTTP_202_ACCEPTED, tags=["participants"])
async def send_message(ctx: Context, participant_id: ParticipantId, body: MessageRequest,
                       caller: Researcher) -> Accepted:
    """Queue a message from the research team (kept in the transcript as such); the service
    sends it through the outbox. Refused for someone who sent STOP or was withdrawn."""
    queued = await messaging.send_message(ctx.db, ctx.clock, who=participant_id, text=body.text, by=caller.name,
                                          quiet=ctx.settings.study.quiet_hours, anyway=body.anyway,
                                          after_quiet_hours=body.after_quiet_hours)
    await audit(ctx.db, ctx.clock, caller, "send", participant_id=participant_id,
                detail={"inbox_id": queued.inbox_id, "chars": len(body.text)})
    held = f" when their quiet hours end ({queued.held_until} UTC)" if queued.held_until else ""
    return Accepted(participant_id=participant_id, inbox_id=queued.inbox_id,
                    message=f"queued; the running service sends it{held}")


@router.post("/participants/{participant_id}/prompt-now", response_model=Accepted,
             status_code=status.HTTP_202_ACCEPTED, tags=["participants"])
async def prompt_now(ctx: Context, participant_id: ParticipantId, caller: Researcher,
                     anyway: Annotated[bool, Query(description="even inside the study's quiet hours")] = False,
                     after_quiet_hours: Annotated[bool, Query(
                         description="inside the study's quiet hours, send it when they end")] = False,
                     ) -> Accepted:
    """Send today's habit prompt and its poll now (as the daily alarm would); refused (409) inside
    the study's quiet hours on the participant's clock unless ``anyway`` or ``after_quiet_hours``."""
    inbox_id = await admin.send_prompt_now(ctx.db, ctx.clock, phone=participant_id,
                                           study=ctx.settings.study, anyway=anyway,
                                           after_quiet_hours=after_quiet_hours)
    await audit(ctx.db, ctx.clock, caller, "prompt_now", participant_id=participant_id, detail={"inbox_id": inbox_id})
    return Accepted(participant_id=participant_id, inbox_id=inbox_id,
                    message="daily prompt queued; the running service writes and sends it")


@router.get("/participants/{participant_id}/consent", response_model=ConsentLedger, tags=["participants"])
async def consent(ctx: Context, participant_id: ParticipantId, caller: Researcher) -> ConsentLedger:
    """The participant's consent ledger, oldest first."""
    return ConsentLedger.model_validate(as_json(await oversight.consent(ctx.reader, participant_id)))
