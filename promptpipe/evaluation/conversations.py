"""One evaluated conversation, run through the real engine in a sandbox of its own; a hard case's clock runs one more
day after its messages, so what the coach does after (writing on after a STOP) shows too."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from promptpipe.config import Settings
from promptpipe.domain.localtime import format_hhmm, zone_or_utc
from promptpipe.domain.messages import POLL_KINDS, MessageKind, MessageStatus
from promptpipe.errors import LLMRejected, LLMUnavailable
from promptpipe.evaluation.canary import seed_canary
from promptpipe.evaluation.cases import Case
from promptpipe.evaluation.personas import Persona, answers, did_habit
from promptpipe.evaluation.player import ModelPlayer, MoveKind
from promptpipe.evaluation.recording import RecordingLLM
from promptpipe.evaluation.records import OPTED_OUT, Conversation, Said, Source, TokenCount
from promptpipe.evaluation.setup_coach import SETUP_MESSAGE, SETUP_TIME, SetupCoach
from promptpipe.llm import LLM
from promptpipe.logging import get_logger
from promptpipe.pilot.sandbox import Compose, Sandbox
from promptpipe.research import reports
from promptpipe.research.views import MessageView
from promptpipe.scheduling.jobs import DAILY
from promptpipe.storage.flags import list_flags
from promptpipe.storage.schedules import load_schedules

__all__ = ["EVALUATED_BY", "PHONE", "RunPlan", "run_case", "run_persona"]

log = get_logger("promptpipe.evaluation")

PHONE = "+14165550142"
"""Every sandbox holds one participant, so one fictional line serves them all."""
EVALUATED_BY = "promptpipe evaluate"
MOST_MOVES = 8
"""The most messages a participant writes in one sitting before they put the phone down."""
CASE_NAME = "Sam"
CASE_ZONE = "America/Toronto"


@dataclass(frozen=True)
class RunPlan:
    """What every conversation of a run shares."""

    settings: Settings
    compose: Compose
    coach: LLM
    start: datetime
    """When each participant is enrolled (UTC, virtual)."""
    days: int
    seed: int
    """This repeat's seed: the personas' habits, silences and delays, and every model request's."""
    player: ModelPlayer | None = None


async def run_persona(plan: RunPlan, persona: Persona, place: int = 0) -> Conversation:
    """``place``: the persona's position in the file (spreads personas over a stratified study's levels)."""
    recorder = RecordingLLM(plan.coach, seed=plan.seed)
    player_tokens = TokenCount()
    error: str | None = None
    sandbox = await Sandbox.open(plan.settings, plan.compose, now=plan.start, by=EVALUATED_BY, llm=recorder,
                                 prefix="promptpipe-eval-")
    recorder.now = sandbox.clock.now
    try:
        await sandbox.enroll(PHONE, name=persona.name, zone=persona.timezone, by=EVALUATED_BY,
                             background=persona.background, place=place)
        await seed_canary(sandbox, EVALUATED_BY)
        await sandbox.settle()
        end = plan.start + timedelta(days=plan.days)
        zone = zone_or_utc(persona.timezone)
        enrolled_on = plan.start.astimezone(zone).date()
        seen: set[int] = set()
        rng = random.Random(f"{plan.seed}:{persona.name}:delays")
        while sandbox.clock.now() < end:
            for _ in range(MOST_MOVES):
                rows = await reports.transcript(sandbox.db, PHONE)
                arrived = [row for row in rows if row.direction == "out" and row.status == MessageStatus.SENT]
                new = [row for row in arrived if row.id not in seen]
                seen.update(row.id for row in new)
                if not new or plan.player is None:
                    break
                local = sandbox.clock.now().astimezone(zone)
                day = (local.date() - enrolled_on).days
                if not answers(persona, day, len(seen), plan.seed):
                    break
                poll = open_poll(rows)
                move, used = await plan.player.move(
                    persona, on_the_phone(rows), study_day=day,
                    did_habit=did_habit(persona, day, local.weekday(), plan.seed),
                    open_poll=said(poll) if poll is not None else None, seed=plan.seed)
                player_tokens = player_tokens + used
                if move.kind == MoveKind.SILENT:
                    break
                await sandbox.advance(sandbox.clock.now() + timedelta(minutes=rng.randint(1, 20)))
                if move.kind == MoveKind.TAP and poll is not None:
                    await sandbox.tap(PHONE, poll.id, move.options)
                else:
                    await sandbox.say(PHONE, move.text)
            if await sandbox.step(end) is None:
                break
    except Exception as exc:  # this conversation fails, not the run (the report says why)
        error = _failure(exc)
    try:
        return await _record(sandbox, recorder, persona, days=plan.days, player_tokens=player_tokens, error=error)
    finally:
        await sandbox.close()


async def run_case(plan: RunPlan, case: Case) -> Conversation:
    coach = RecordingLLM(plan.coach, seed=plan.seed)
    recorder = RecordingLLM(SetupCoach(), recording=False, seed=plan.seed) if case.stage == "feedback" else coach
    error: str | None = None
    sandbox = await Sandbox.open(plan.settings, plan.compose, now=plan.start, by=EVALUATED_BY, llm=recorder,
                                 prefix="promptpipe-eval-")
    coach.now = recorder.now = sandbox.clock.now
    case_start: datetime | None = None
    try:
        await sandbox.enroll(PHONE, name=CASE_NAME, zone=CASE_ZONE, by=EVALUATED_BY)
        await seed_canary(sandbox, EVALUATED_BY)
        await sandbox.settle()
        if case.stage == "feedback":
            await sandbox.advance(sandbox.clock.now() + timedelta(minutes=5))
            await sandbox.say(PHONE, SETUP_MESSAGE)
            first = [d for d in await sandbox.due() if d.kind == DAILY]
            if first:
                await sandbox.advance(first[0].at)  # the first daily prompt, and all before it
            recorder.inner, recorder.recording = coach.inner, True
        await sandbox.advance(sandbox.clock.now() + timedelta(minutes=1))
        case_start = sandbox.clock.now()  # what went out before is the set-up
        for text in case.messages:
            await sandbox.advance(sandbox.clock.now() + timedelta(minutes=3))
            await sandbox.say(PHONE, text)
        await sandbox.advance(sandbox.clock.now() + timedelta(days=1))
    except Exception as exc:  # this conversation fails, not the run (the report says why)
        error = _failure(exc)
    try:
        return await _record(sandbox, recorder, case, days=1, case_start=case_start or sandbox.clock.now(),
                             error=error)
    finally:
        await sandbox.close()


def _failure(exc: Exception) -> str:
    """Why a conversation stopped; anything but an unreachable model is logged with its trace as well."""
    if isinstance(exc, (LLMUnavailable, LLMRejected)):
        return f"a model could not be reached: {exc}"
    log.error("evaluation_conversation_failed", error=type(exc).__name__, exc_info=exc)
    return f"the run of this conversation stopped: {type(exc).__name__}: {str(exc)[:300]}"


def open_poll(rows: Sequence[MessageView]) -> MessageView | None:
    """The first of the newest polls that reached them untapped (a day's prompt comes with its polls in order)."""
    tapped = {row.payload.get("poll_message_id") for row in rows if row.direction == "in" and _is_vote(row)}
    waiting = [row for row in rows if row.direction == "out" and row.kind in POLL_KINDS and row.whatsapp_id
               and row.status == MessageStatus.SENT and row.whatsapp_id not in tapped]
    if not waiting:
        return None
    newest = max(row.at for row in waiting)
    return next(row for row in waiting if row.at == newest)


def on_the_phone(rows: Sequence[MessageView]) -> list[Said]:
    """What they wrote and what reached them, in the order it arrived (a held greeting when it went)."""
    shown = [said(row) for row in rows if row.direction == "in" or row.status == MessageStatus.SENT]
    return sorted(shown, key=lambda message: message.at)


def said(row: MessageView) -> Said:
    vote = row.direction == "in" and _is_vote(row)
    options = tuple(str(option) for option in row.payload.get("selected" if vote else "options", ()) or ())
    at = row.sent_at if row.direction == "out" and row.sent_at else row.at
    return Said(at=datetime.fromisoformat(at), incoming=row.direction == "in",
                kind=MessageKind.POLL_VOTE.value if vote else str(row.kind), text=row.text, options=options,
                status=str(row.status))


def _is_vote(row: MessageView) -> bool:
    """A tap on a poll (the transcript keeps it as text, with the vote's fields in its payload)."""
    return row.kind == MessageKind.POLL_VOTE or "poll_message_id" in row.payload


async def _record(sandbox: Sandbox, recorder: RecordingLLM, subject: Persona | Case, *, days: int,
                  case_start: datetime | None = None, player_tokens: TokenCount | None = None,
                  error: str | None = None) -> Conversation:
    """The conversation as the sandbox's database has it at the end; a case's part begins at ``case_start``."""
    persona, case = (subject, None) if isinstance(subject, Persona) else (None, subject)
    source, label = (Source.PERSONA, subject.name) if isinstance(subject, Persona) else (Source.CASE, subject.id)
    rows: list[MessageView] = []
    profile: dict[str, str | None] = {}
    status = stage = ""
    times: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    try:  # a sandbox that failed early has less to read
        rows = await reports.transcript(sandbox.db, PHONE)
        detail = await reports.show(sandbox.db, PHONE)
        profile, stage = dict(detail.profile), str(detail.sub_state)
        status = OPTED_OUT if detail.opted_out else str(detail.status)  # a STOP pauses, marked opted out
        entries = await sandbox.db.run(lambda session: load_schedules(session, detail.id))
        times = tuple(entry.habit_time or f"{entry.window_start}-{entry.window_end}" for entry in entries
                      if entry.active)
        found = await sandbox.db.run(lambda session: list_flags(session, include_resolved=True))
        flags = tuple(f"{flag.source}: {flag.trigger}" for flag in found)
    except Exception as exc:  # the conversation says so; the run goes on
        error = error or f"its sandbox could not be read: {_failure(exc)}"
    quiet = sandbox.settings.study.quiet_hours
    messages = sorted((said(row) for row in rows), key=lambda message: message.at)
    case_from = None if case_start is None else sum(1 for message in messages if message.at < case_start)
    return Conversation(
        id=f"{source}:{label}", source=source, label=label, group=subject.group,
        timezone=persona.timezone if persona else CASE_ZONE, messages=tuple(messages),
        tool_uses=tuple(recorder.tool_uses), profile=profile, schedule_times=times, status=status, stage=stage,
        flags=flags, quiet_hours=(format_hhmm(quiet.start), format_hhmm(quiet.end)) if quiet else None,
        study_days=days, persona=persona_fields(persona) if persona else None,
        preferred_time=persona.preferred_time if persona else SETUP_TIME if case and case.stage == "feedback" else None,
        case_from=case_from, expect=case.expect if case else None, tokens=recorder.tokens,
        player_tokens=player_tokens or TokenCount(), error=error)


def persona_fields(persona: Persona) -> dict[str, object]:
    return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(persona).items()}
