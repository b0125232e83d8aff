"""One participant's study day (``/participants/{id}/days/{YYYY-MM-DD}``), opened from a heatmap cell; a viewer's
page has no name, no prompt text, no message text and no answer."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import date, timedelta

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from promptpipe.domain.states import VOTE_WORDS
from promptpipe.research.monitoring import DeliveryView
from promptpipe.study.day_view import MESSAGES_SHOWN, StudyDay, read_day
from promptpipe.study.rules.protocol import NotSent
from promptpipe.study.store.day import DayDecision
from promptpipe.web.charts import OUTCOME_LABELS, OUTCOME_SYMBOLS
from promptpipe.web.pages._render import PageError, Visiting, Visitor, attempt, render
from promptpipe.web.pages._times import TimeLabel
from promptpipe.web.pages.adherence import day_url, status_word
from promptpipe.web.pages.participant import checked_id, sender_and_kind
from promptpipe.web.pages.participants import participant_url
from promptpipe.web.pages.questionnaires import HIDDEN, InstanceView, _instance

__all__ = ["router"]

router = APIRouter()
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
FIRST_YEAR, LAST_YEAR = 1970, 2999
"""The days a page is given for (no study runs outside them; the links to the next day stay dates)."""
ACTION_WORDS = {"send": "send the prompt", "no_send": "send no prompt", "personalised": "a personalised prompt",
                "fixed": "a fixed prompt", "none": "nothing (not available)"}
UNAVAILABLE_WORDS = {
    "not_in_study": "not in the study that day", "opted_out": "they had sent STOP", "paused": "paused",
    "baseline": "baseline days (no prompts yet)", "quiet_hours": "quiet hours",
    "already_answered": "already answered that day", "missed_service_down": "the service was down at that time",
}
NOT_SENT_WORDS: dict[str, str] = {
    NotSent.MODEL_OUTAGE: "the prompt could not be written in time (the model was unavailable)",
    NotSent.AFTER_OUTCOME_QUESTION: "the prompt could not go out before the day's self-report question",
}
HOW_WORDS = {"tap": "tapped on the poll", "typed": "typed", "reaction": "a reaction on the poll"}
OUTCOME_WORDS = {"done": "done", "not_this_time": "not this time", "free_text_reply": "wrote back (no vote)",
                 "reminder_sent": "no answer, reminder sent", "no_reply": "no answer",
                 "not_delivered": "not delivered to the phone"}


@dataclass(frozen=True)
class DecisionView:
    at: TimeLabel | None
    arm: str
    available: str
    action: str
    probability: str
    style: str
    not_sent: str


@dataclass(frozen=True)
class PromptView:
    sent: TimeLabel | None
    delivered: TimeLabel | None
    read: TimeLabel | None
    text: str | None
    """None: hidden for this visitor."""
    answer: str
    replied: TimeLabel | None
    reminder: TimeLabel | None
    outcome: str


@dataclass(frozen=True)
class MessageLine:
    id: int
    direction: str
    sender: str
    kind: str
    at: TimeLabel | None
    text: str | None


@dataclass(frozen=True)
class DayView:
    participant_id: str
    name: str | None
    status: str
    day: str
    weekday: str
    study_day: str
    symbol: str
    outcome: str
    outcome_key: str
    decisions: list[DecisionView]
    prompts: list[PromptView]
    messages: list[MessageLine]
    more_messages: bool
    questionnaires: list[InstanceView]
    back: str
    heatmap: str
    previous: str
    next: str


def _day(raw: str) -> date:
    with contextlib.suppress(ValueError):  # a date the calendar lacks, such as 2026-02-30
        if _DATE.fullmatch(raw) and FIRST_YEAR <= int(raw[:4]) <= LAST_YEAR:
            return date.fromisoformat(raw)
    raise PageError(404, f"{raw[:20]!r} is not a day: write it as YYYY-MM-DD, e.g. 2026-03-02.")


def _study_day(number: int | None) -> str:
    if number is None:
        return ""  # day 1 is not set (intake not complete, or a study without days)
    return f"study day {number}" if number >= 1 else "before study day 1"


def _decision(found: Visitor, row: DayDecision, zone: str) -> DecisionView:
    available = ("yes" if row.available
                 else "no: " + UNAVAILABLE_WORDS.get(row.unavailable_reason or "", row.unavailable_reason or "—"))
    return DecisionView(
        at=found.when(row.decided_at, zone), arm=row.arm or "—",
        available=available, action=ACTION_WORDS.get(row.action, row.action),
        probability=f"{row.probability:.2f}" if row.probability is not None else "— (no decision rule)",
        style=row.prompt_style or "—",
        not_sent=NOT_SENT_WORDS.get(row.not_sent_reason or "", row.not_sent_reason or ""))


def _prompt(found: Visitor, row: DeliveryView, zone: str) -> PromptView:
    answer = VOTE_WORDS.get(row.vote or "", "no vote")
    if row.vote and row.vote_source:
        answer += f" ({HOW_WORDS.get(row.vote_source, row.vote_source)})"
    return PromptView(sent=found.when(row.sent_at, zone), delivered=found.when(row.delivered_at, zone),
                      read=found.when(row.read_at, zone), text=row.prompt_text if found.identified else None,
                      answer=answer, replied=found.when(row.replied_at, zone),
                      reminder=found.when(row.reminder_at, zone), outcome=OUTCOME_WORDS.get(row.outcome, row.outcome))


def day_view(found: Visitor, data: StudyDay, day: date) -> DayView:
    zone = data.timezone
    study = found.ctx.settings.study
    return DayView(
        participant_id=data.participant_id, name=(data.name or "—") if found.identified else None,
        status=status_word(data.status, data.stage, data.paused_by), day=data.day, weekday=f"{day:%A}",
        study_day=_study_day(data.study_day),
        symbol=OUTCOME_SYMBOLS.get(data.outcome, ""), outcome=OUTCOME_LABELS.get(data.outcome, data.outcome),
        outcome_key=data.outcome, decisions=[_decision(found, row, zone) for row in data.decisions],
        prompts=[_prompt(found, row, zone) for row in data.prompts],
        messages=[MessageLine(m.id, m.direction, *sender_and_kind(m.direction, m.kind), found.when(m.at, zone),
                              m.text if found.identified else None) for m in data.messages],
        more_messages=data.more_messages,
        questionnaires=[_instance(found, study, row, zone) for row in data.questionnaires],
        back=participant_url(data.participant_id), heatmap="/adherence",
        previous=day_url(data.participant_id, day - timedelta(days=1)),
        next=day_url(data.participant_id, day + timedelta(days=1)))


@router.get("/participants/{participant_id}/days/{day}", response_class=HTMLResponse)
async def study_day(request: Request, participant_id: str, day: str, found: Visiting) -> HTMLResponse:
    when = _day(day)
    data = await attempt(read_day(found.ctx.reader, found.ctx.clock, checked_id(participant_id), when,
                                  receipt_window=found.ctx.settings.delivery_receipt_window))
    return render(request, "day.html", found, section="adherence", v=day_view(found, data, when),
                  hidden=HIDDEN, messages_shown=MESSAGES_SHOWN)
