"""One participant (``/participants/{id}``); a viewer's page has no phone, name, habit plan, message or answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import NotRequired, TypedDict

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from promptpipe.domain.limits import RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind, kind_shown
from promptpipe.domain.states import Status
from promptpipe.research import admin, oversight
from promptpipe.research._common import PARTICIPANT_ID
from promptpipe.research.listing import one_participant
from promptpipe.research.views import ListedRow, MessageView, ParticipantDetail, SchedulesView
from promptpipe.storage.queue_tables import InboxStatus
from promptpipe.web.api_inputs import MAX_INPUTS
from promptpipe.web.pages._lists import STAGE_LABELS
from promptpipe.web.pages._render import PageError, Visiting, Visitor, attempt, render
from promptpipe.web.pages._times import TimeLabel, from_label
from promptpipe.web.pages.flag import flag_url
from promptpipe.web.pages.participants import share_text
from promptpipe.web.pages.questionnaires import HIDDEN, QuestionnaireSection, questionnaire_section

__all__ = ["DONE_MESSAGES", "TRANSCRIPT_LIMIT", "Length", "checked_id", "router", "sender_and_kind", "study_length",
           "tick"]

router = APIRouter()
TRANSCRIPT_LIMIT = 200
"""The newest messages shown; the export has them all."""
DONE_MESSAGES = {
    "paused": "Paused: no scheduled message goes to them until you resume.",
    "resumed": "Resumed: their daily prompts go out again.",
    "unchanged": "Nothing changed: they were already in that state.",
    "resumed_but_stopped": "Your pause is lifted, but they stay paused by their own STOP until they send START.",
    "sent": "Message queued: the service sends it in a moment, and it shows below once sent.",
    "prompted": "Prompt queued: the service writes today's prompt and sends it in a moment.",
    "input_retried": "Queued again: the service tries that input within seconds.",
    "input_skipped": "Skipped: that input stays in the transcript and will not be answered.",
    "edited": "Saved: the new details show below.",
    "edit_unchanged": "Nothing to save: the details were already so.",
    "withdrawn": "Withdrawn: nothing more is sent to them, and this cannot be undone.",
    "erased": "Erased: their personal data is gone; the pseudonymous id and the counts stay.",
    "extended": "Study days added: their study length below shows the new total.",
    "moved": "Moved: everything to them goes from their new WhatsApp number now, starting with your message.",
    "moved_unsent": "Moved to the new WhatsApp number, but your message was not sent: they cannot be written to "
                    "now (their status below says why).",
}
"""The one-line result shown after an action (``?done=…``)."""
TICKS = {  # outbound message state -> (ticks, word, css class)
    "read": ("✓✓", "read", "tick-read"), "delivered": ("✓✓", "delivered", "tick-delivered"),
    "sent": ("✓", "sent", "tick-sent"), "queued": ("…", "waiting to be sent", "tick-waiting"),
    "sending": ("…", "being sent", "tick-waiting"), "failed": ("✕", "not sent", "tick-failed"),
    "uncertain": ("?", "may not have arrived", "tick-failed"),
    "cancelled": ("✕", "cancelled: consent withdrawn or paused before it went out", "tick-failed"),
}


class Tick(TypedDict):
    marks: str
    word: str
    css: str
    detail: str


MessageLine = TypedDict("MessageLine", {"id": int, "direction": str, "kind": str, "from": str,
                                        "at": TimeLabel | None, "tick": Tick | None, "text": str | None})


class ScheduleLine(TypedDict):
    id: str
    habit: str | None
    prep_minutes: int
    armed: bool
    next: TimeLabel | None


class TimerLine(TypedDict):
    kind: str
    armed: bool
    due: TimeLabel | None


class ScheduleLines(TypedDict):
    schedules: list[ScheduleLine]
    timers: list[TimerLine]


class StuckLine(TypedDict):
    id: int
    kind: str
    at: TimeLabel | None
    attempts: int
    error: str | None
    state: str


class FlagLine(TypedDict):
    """An open safety flag about them (for those who may open flags)."""

    id: int
    page: str
    severity: str
    at: TimeLabel | None


class Profile(TypedDict):
    """What the page says about them; the identifying part only for researchers and admins."""

    id: str
    status: Status
    paused_by: str | None
    opted_out: bool
    researcher_paused: bool
    stage: str
    arm: str
    timezone: str
    enrolled: TimeLabel | None
    completed: TimeLabel | None
    day_one: str
    messages_in: int
    messages_out: int
    inputs_waiting: int
    replies_unsent: int
    counters: Mapping[str, object]
    tone: str
    study_day: int | str
    answered: str
    length: str
    last_in: TimeLabel | None
    last_out: TimeLabel | None
    number: str
    phone: NotRequired[str]
    name: NotRequired[str]
    background: NotRequired[str]
    plan: NotRequired[dict[str, str]]
    last_prompt: NotRequired[str]
    summary: NotRequired[str]


class ParticipantView(ScheduleLines):
    """The page's template context (besides the visitor and the ``done`` line)."""

    profile: Profile
    questionnaires: QuestionnaireSection
    stuck: list[StuckLine]
    flags: list[FlagLine]
    messages: list[MessageLine]
    more_messages: int
    hidden_text: str
    max_chars: int
    actions: list[str]


def checked_id(participant_id: str) -> str:
    if not PARTICIPANT_ID.fullmatch(participant_id):
        raise PageError(404, "There is no participant with that id (an id is p_ and 16 letters and digits).")
    return participant_id


def tick(found: Visitor, message: MessageView, zone: str) -> Tick | None:
    """The ticks of a message we sent: ✓ sent, ✓✓ delivered, ✓✓ read (or why it is not sent)."""
    if message.direction != "out":
        return None
    state = ("read" if message.read_at else "delivered" if message.delivered_at
             else message.status if message.status in TICKS else "sent")
    marks, word, css = TICKS[state]
    times = [(name, found.when(at, zone)) for name, at in
             (("sent", message.sent_at), ("delivered", message.delivered_at), ("read", message.read_at))]
    detail = "; ".join(f"{name} {label}" for name, label in times if label)
    return {"marks": marks, "word": word, "css": css, "detail": detail}


def sender_and_kind(direction: str, kind: str) -> tuple[str, str]:
    """Who a message is from, and its kind in words (empty for plain text)."""
    sender = ("From the participant" if direction == "in"
              else "From the research team" if kind == MessageKind.RESEARCHER else "From the study")
    return sender, "" if kind in (MessageKind.TEXT, MessageKind.RESEARCHER) else kind.replace("_", " ")


def _message(found: Visitor, message: MessageView, zone: str) -> MessageLine:
    sender, kind = sender_and_kind(message.direction, kind_shown(message.kind, found.identified))
    return {"id": message.id, "direction": message.direction, "kind": kind, "from": sender,
            "at": found.when(message.at, zone), "tick": tick(found, message, zone),
            "text": message.text if found.identified else None}


def _profile(found: Visitor, row: ParticipantDetail, listed: ListedRow | None) -> Profile:
    zone, length = row.timezone, study_length(row, found.ctx.settings.study.length_days)
    profile: Profile = {
        "id": row.id, "status": row.status, "paused_by": row.paused_by, "opted_out": row.opted_out,
        "researcher_paused": row.researcher_paused, "stage": STAGE_LABELS.get(row.sub_state, row.sub_state),
        "arm": row.arm or "—", "timezone": zone, "enrolled": found.when(row.enrolled_at, zone),
        "completed": found.when(row.completed_at, zone), "day_one": row.day_one or "not set",
        "messages_in": row.messages_in, "messages_out": row.messages_out,
        "inputs_waiting": row.inputs_waiting, "replies_unsent": row.replies_unsent,
        "counters": row.counters, "tone": row.tone or "—",
        "study_day": listed.study_day if listed and listed.study_day is not None else "—",
        "answered": share_text(listed.prompts_answered, listed.prompts_sent) if listed else "—",
        "length": f"{length.days} days" + (f" ({length.added} added)" if length.added else "") if length else "",
        "last_in": found.when(listed.last_in_at, zone) if listed else None,
        "last_out": found.when(listed.last_out_at, zone) if listed else None,
        "number": found.ctx.settings.number_plan.of(row.number) if found.ctx.settings.number_plan.several else "",
    }
    if found.identified:
        profile.update({"phone": row.phone or "erased", "name": row.name or "—", "background": row.background or "",
                        "plan": {key.replace("_", " "): value for key, value in row.profile.items() if value},
                        "last_prompt": row.last_habit_prompt or "", "summary": row.summary or ""})
    return profile


@dataclass(frozen=True)
class Length:
    days: int
    added: int
    last_day: date | None
    """Their last study day's date, once study day 1 is set."""


def study_length(row: ParticipantDetail, length_days: int | None) -> Length | None:
    """How long their study is now (None for a study of no set length)."""
    if length_days is None:
        return None
    days = length_days + row.extra_days
    first = date.fromisoformat(row.day_one) if row.day_one else None
    return Length(days, row.extra_days, first + timedelta(days=days - 1) if first else None)


def _schedules(found: Visitor, data: SchedulesView) -> ScheduleLines:
    zone = data.timezone
    return {
        "schedules": [{"id": entry.id, "habit": entry.habit if found.identified else None,
                       "prep_minutes": entry.prep_minutes, "armed": entry.armed,
                       "next": found.when(from_label(entry.next_prompt, zone_or_utc(zone)), zone)}
                      for entry in data.schedules],
        "timers": [{"kind": timer.kind.replace("_", " "), "armed": timer.armed,
                    "due": found.when(timer.due_utc, zone)} for timer in data.timers],
    }


def _actions(row: ParticipantDetail, listed: ListedRow | None, extendable: bool, movable: bool) -> list[str]:
    """The actions that make sense for them now (see also :mod:`lifecycle`)."""
    if listed is not None and listed.erased:
        return []
    if row.status == Status.WITHDRAWN:
        return ["edit", "erase"]
    actions = ["resume" if row.researcher_paused else "pause", "message",
               *(["prompt"] if row.status == Status.ACTIVE else [])]
    return [*actions, "edit", *(["extend"] if extendable else []), *(["number"] if movable else []), "withdraw",
            "erase"]


async def participant_view(found: Visitor, participant_id: str) -> ParticipantView:
    """Everything the page shows, shaped for the visitor's role."""
    reader, clock = found.ctx.reader, found.ctx.clock
    row = await attempt(admin.show(reader, checked_id(participant_id)))
    listed = await attempt(one_participant(reader, clock, participant_id))
    schedules = await attempt(admin.schedules(reader, clock, phone=participant_id))
    messages = await attempt(admin.transcript(reader, participant_id, limit=TRANSCRIPT_LIMIT))
    newest = messages[::-1]
    questionnaires = await questionnaire_section(found, participant_id, row.timezone)
    study = found.ctx.settings.study
    stuck = (await attempt(oversight.inbox_rows(reader, stuck_only=True, participant_id=participant_id,
                                                limit=MAX_INPUTS)) if found.identified else [])
    flags = ([flag for flag in await attempt(oversight.flags(reader)) if flag.participant_id == participant_id]
             if found.identified else [])
    return {"profile": _profile(found, row, listed), **_schedules(found, schedules), "questionnaires": questionnaires,
            "flags": [{"id": flag.id, "page": flag_url(flag.id), "severity": flag.severity,
                       "at": found.when(flag.at, row.timezone)} for flag in flags],
            "stuck": [{"id": item.id, "kind": item.kind.replace("_", " "), "at": found.when(item.at, row.timezone),
                       "attempts": item.attempts, "error": item.last_error,
                       "state": "given up on" if item.status == InboxStatus.FAILED else "still being tried"}
                      for item in stuck],
            "messages": [_message(found, message, row.timezone) for message in newest],
            "more_messages": max(0, row.messages_in + row.messages_out - len(newest)), "hidden_text": HIDDEN,
            "max_chars": RESEARCHER_MESSAGE_CHARS,
            "actions": _actions(row, listed, study.in_use and study.length_days is not None,
                                found.ctx.settings.number_plan.several)
            if found.identified else []}


@router.get("/participants/{participant_id}", response_class=HTMLResponse)
async def participant(request: Request, participant_id: str, found: Visiting, done: str = "") -> HTMLResponse:
    view = await participant_view(found, participant_id)
    return render(request, "participant.html", found, section="participants", done=DONE_MESSAGES.get(done, ""),
                  **view)
