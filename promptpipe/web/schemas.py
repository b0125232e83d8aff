"""API bodies about a participant (source of the OpenAPI schema): ISO 8601 times with offset, absent values null."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue, model_validator

from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.limits import BACKGROUND_CHARS, NAME_CHARS, REASON_CHARS
from promptpipe.domain.localtime import IANA_ZONES
from promptpipe.domain.messages import MessageKind, MessageStatus, VoteSource
from promptpipe.domain.outcomes import Outcome
from promptpipe.domain.states import Stage, Status, Vote
from promptpipe.domain.timers import TimerKind
from promptpipe.study.operations import MAX_EXTENSION_DAYS

__all__ = ["DB_INT_MAX", "MESSAGE_CHARS", "OPTIONAL_TEXT", "VISIBLE_LINE", "VISIBLE_TEXT", "Accepted",
           "ConsentLedger", "Delivery", "EnrollRequest", "Erased", "ErrorBody", "ExtendRequest", "Health", "IsoDate",
           "MessageRequest", "ParticipantDetail", "ParticipantPage", "ParticipantSummary", "Schedules", "StrictBody",
           "Timers", "TranscriptEntry", "TranscriptPage", "UpdateRequest"]

MESSAGE_CHARS = 4096
DB_INT_MAX = 2**63 - 1
"""The largest number a database integer holds (a larger one in a path or query is a 400)."""
_INVISIBLE = (r"\s\x00-\x1f\x7f-\x9f\u00ad\u0300-\u036f\u115f\u1160\u200b-\u200f\u2028-\u202f\u2060-\u206f"
              r"\u3164\ufe00-\ufe0f\ufeff")
"""Characters that do not show (spaces, controls, zero-width and format characters, combining
marks, blank-looking letters), as in :func:`promptpipe.domain.text.has_visible_text`."""
VISIBLE_TEXT = rf"^[^\x00]*[^{_INVISIBLE}][^\x00]*$"
"""Free text: something visible in it (not only spaces or zero-width characters), no NUL."""
VISIBLE_LINE = rf"^[^\x00\r\n]*[^{_INVISIBLE}][^\x00\r\n]*$"
"""One line of free text (a name)."""
OPTIONAL_TEXT = rf"^(\s*|[^\x00]*[^{_INVISIBLE}][^\x00]*)$"
"""Free text that may be left empty (or blank), but not only zero-width characters."""
PHONE = r"^\+[1-9][0-9]{6,14}$"
ZONES: list[JsonValue] = [*sorted(IANA_ZONES)]


def _date_as_written(value: object) -> object:
    """Only YYYY-MM-DD: pydantic would also read a number as seconds since 1970 (``to=0``)."""
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise ValueError("a day as YYYY-MM-DD")
    return value


IsoDate = Annotated[date, BeforeValidator(_date_as_written)]
"""A day in a query (the schema's format ``date``)."""


class StrictBody(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(BaseModel):
    code: str = Field(description="invalid_request | unauthorized | forbidden | not_found | conflict | refused | "
                                  "too_many_attempts | unavailable")
    message: str = Field(description="one line for a person")
    details: list[dict[str, str]] | None = Field(None, description="for invalid_request: each field and its problem")


class ErrorBody(BaseModel):
    """Every error response has this shape."""

    error: ErrorDetail


class Health(BaseModel):
    status: Literal["ok"]


class ParticipantSummary(BaseModel):
    id: str
    phone: str | None = Field(None, description="null for viewers")
    name: str | None = Field(None, description="null for viewers")
    timezone: str
    status: Status
    stage: Stage
    arm: str | None
    study_day: int | None
    day_one: str | None
    enrolled_at: str
    completed_at: str | None
    erased: bool
    last_in_at: str | None
    last_out_at: str | None
    prompts_sent: int
    prompts_answered: int
    answered_share: float | None
    current_streak: int


class ParticipantPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[ParticipantSummary]


class ParticipantDetail(BaseModel):
    id: str
    phone: str | None
    name: str | None
    timezone: str
    status: Status
    paused_by: str | None
    opted_out: bool
    researcher_paused: bool
    stage: Stage
    enrolled_at: str
    arm: str | None
    strata: dict[str, Any]
    number: str | None = Field(None, description="the WhatsApp number (of WHATSAPP_NUMBERS) they are written from; "
                                                 "null: the deployment's first, default one")
    day_one: str | None
    extra_days: int
    completed_at: str | None
    background: str | None = None
    profile: dict[str, str] | None = None
    last_habit_prompt: str | None = None
    summary: str | None = None
    intensity: str
    counters: dict[str, Any]
    tone: str
    messages_in: int
    messages_out: int
    inputs_waiting: int
    replies_unsent: int


def _zone(default: Any = ...) -> Any:
    return Field(default, description="IANA zone, e.g. America/Toronto", max_length=60,
                 json_schema_extra={"enum": ZONES})


class EnrollRequest(StrictBody):
    phone: str = Field(description="E.164: + and the country code, no spaces, e.g. +14165550123; it must be a "
                                   "valid number for its country", pattern=PHONE, json_schema_extra={"format": "phone"})
    name: str = Field(max_length=NAME_CHARS, pattern=VISIBLE_LINE)
    timezone: str = _zone()
    background: str = Field("", max_length=BACKGROUND_CHARS, pattern=OPTIONAL_TEXT)
    strata: dict[str, Annotated[str, Field(max_length=100, pattern=VISIBLE_TEXT)]] = Field(
        default_factory=dict, description="the study's stratification fields; a field the study file's "
                                          "[allocation.strata] does not name is refused (409 refused)")
    number: str | None = Field(None, pattern=r"^[a-z0-9_-]{1,32}$",
                               description="the WhatsApp number (a name of WHATSAPP_NUMBERS) they are written from; "
                                           "left out: given by NUMBER_ASSIGNMENT. A name the deployment lacks is "
                                           "refused (400)")


class UpdateRequest(StrictBody):
    model_config = ConfigDict(json_schema_extra={"anyOf": [  # something to change
        {"required": [name], "properties": {name: {"not": {"type": "null"}}}}
        for name in ("name", "background", "timezone", "status")]})

    name: str | None = Field(None, max_length=NAME_CHARS, pattern=VISIBLE_LINE)
    background: str | None = Field(None, max_length=BACKGROUND_CHARS, pattern=OPTIONAL_TEXT)
    timezone: str | None = _zone(None)
    status: Literal["active", "paused"] | None = Field(
        None, description="paused: the research team's pause; active: lift it (a participant's own STOP "
                          "is lifted only by them). Withdrawal has its own endpoint.")
    reason: str = Field("", max_length=REASON_CHARS, pattern=OPTIONAL_TEXT)

    @model_validator(mode="after")
    def _something_to_change(self) -> UpdateRequest:
        if all(getattr(self, name) is None for name in ("name", "background", "timezone", "status")):
            raise ValueError("nothing to change: give name, background, timezone or status")
        return self


class ExtendRequest(StrictBody):
    days: int = Field(ge=1, le=MAX_EXTENSION_DAYS,
                      description="study days to add to this participant's study")


class MoveNumberRequest(StrictBody):
    to: str = Field(pattern=r"^[a-z0-9_-]{1,32}$", description="the number's name (of WHATSAPP_NUMBERS); one the "
                                                              "deployment lacks is refused (409)")
    message: str = Field(min_length=1, max_length=MESSAGE_CHARS, pattern=VISIBLE_TEXT,
                         description="what they are told, sent from the new number (held until their quiet hours "
                                     "end)")


class WithdrawRequest(StrictBody):
    reason: str = Field("", max_length=REASON_CHARS, pattern=OPTIONAL_TEXT)


class MessageRequest(StrictBody):
    text: str = Field(min_length=1, max_length=MESSAGE_CHARS, pattern=VISIBLE_TEXT)
    anyway: bool = Field(False, strict=True, description="send it even inside the study's quiet hours")
    after_quiet_hours: bool = Field(False, strict=True,
                                    description="inside the study's quiet hours, hold it until they end")


class Accepted(BaseModel):
    """The request was written to the inbox; the running service carries it out."""

    participant_id: str
    inbox_id: int | None = None
    message: str


class TranscriptEntry(BaseModel):
    id: int
    at: str
    direction: Literal["in", "out"]
    kind: MessageKind
    status: MessageStatus
    sent_at: str | None
    delivered_at: str | None
    read_at: str | None
    played_at: str | None
    text: str | None = Field(None, description="null for viewers")


class TranscriptPage(BaseModel):
    participant_id: str
    items: list[TranscriptEntry]
    next_before_id: int | None = Field(None, description="pass as before_id for the older page")


class Delivery(BaseModel):
    local_date: str
    sent_at: str
    delivered_at: str | None
    read_at: str | None
    vote: Vote | None
    vote_source: VoteSource | None
    replied_at: str | None
    reminder_at: str | None
    outcome: Outcome
    prompt_text: str | None = Field(None, description="null for viewers")


class ViewerTimer(BaseModel):
    kind: TimerKind
    due: str
    due_utc: str
    armed: bool


class ResearcherTimer(ViewerTimer):
    detail: str = Field("", description="the timer's payload (may quote the conversation); not for viewers")


class ScheduleOut(BaseModel):
    id: str
    habit: str = Field(description="when it fires: 08:00, or a random time 08:00-10:00")
    prep_minutes: int
    next_prompt: str | None = Field(description="the next prompt, in the participant's local time and zone")
    armed: bool = Field(description="whether the alarm clock holds its job")


class Schedules(BaseModel):
    participant_id: str
    status: Status
    timezone: str
    schedules: list[ScheduleOut]


class Timers(BaseModel):
    participant_id: str
    timers: list[ResearcherTimer | ViewerTimer] = Field(description="a viewer's have no detail")


class Erased(BaseModel):
    participant_id: str
    messages_erased: int
    pending_inputs_closed: int
    unsent_messages_dropped: int


class ConsentEvent(BaseModel):
    id: int
    at: str
    event: ConsentKind
    source: ConsentSource
    actor: str
    words: str = Field(description="what the participant wrote, when they gave or withdrew consent in words")
    reconstructed: bool = Field(description="rebuilt from the transition log by an upgrade, not recorded then")
    said_at: str | None = Field(None, description="the participant's own opt-out or opt-in: when they sent it, by "
                                "their WhatsApp's clock (``at`` is when it was received); the latest of these decides")


class ConsentLedger(BaseModel):
    participant_id: str
    status: Status
    opted_out: bool
    researcher_paused: bool
    events: list[ConsentEvent] = Field(description="oldest first")
