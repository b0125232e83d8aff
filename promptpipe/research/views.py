"""What the research operations hand to the admin script, the API and the dashboard: frozen dataclasses, never loose
dictionaries; :func:`as_json` turns any of them into plain JSON values."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.domain.states import Stage, Status
from promptpipe.pipeline.events import InboxKind
from promptpipe.storage.consent import LedgerEntry
from promptpipe.storage.queue_tables import InboxStatus

__all__ = ["ConsentView", "InputView", "ListedRow", "MessageView", "ParticipantDetail", "ParticipantPage",
           "ParticipantView", "ScheduleView", "SchedulesView", "TimerView", "as_json", "counted", "iso"]


_PLAIN = frozenset({str, int, float, bool, type(None)})


def as_json(value: Any) -> Any:
    """A view (or a list or dict of them) as JSON values: enums as their values."""
    if type(value) in _PLAIN:  # most fields: checked first, as the API's lists convert thousands a second
        return value
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: as_json(getattr(value, spec.name)) for spec in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def counted(count: int, noun: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class ParticipantView:
    """A participant as the list shows them."""

    id: str
    phone: str
    name: str
    timezone: str
    status: Status
    paused_by: str | None
    opted_out: bool
    researcher_paused: bool
    sub_state: Stage
    enrolled_at: str
    arm: str | None
    strata: dict[str, str]
    day_one: str | None
    extra_days: int
    completed_at: str | None
    number: str | None = None
    """The deployment's WhatsApp number they are written from (None: the default one)."""


@dataclass(frozen=True)
class ParticipantDetail(ParticipantView):
    """One participant in full (``show``)."""

    background: str = ""
    profile: dict[str, str | None] = field(default_factory=dict)
    """The habit plan the model gathered, by field."""
    last_habit_prompt: str | None = None
    intensity: str = "normal"
    counters: dict[str, int | str | None] = field(default_factory=dict)
    """prompts_sent, successes … (numbers) and the last success and miss (dates or None)."""
    tone: str = ""
    summary: str = ""
    messages_in: int = 0
    messages_out: int = 0
    inputs_waiting: int = 0
    replies_unsent: int = 0


@dataclass(frozen=True)
class TimerView:
    phone: str
    kind: str
    due: str
    """In the participant's local time, with the zone."""
    due_utc: str
    detail: str
    armed: bool
    """Whether the alarm clock holds its job."""


@dataclass(frozen=True)
class ScheduleView:
    id: str
    habit: str
    prep_minutes: int
    next_prompt: str | None
    armed: bool


@dataclass(frozen=True)
class SchedulesView:
    phone: str
    status: Status
    timezone: str
    schedules: list[ScheduleView]
    timers: list[TimerView]


@dataclass(frozen=True)
class MessageView:
    """One transcript message with WhatsApp's receipts."""

    id: int
    at: str
    direction: str
    """in | out"""
    kind: MessageKind
    status: MessageStatus
    sent_at: str | None
    delivered_at: str | None
    read_at: str | None
    played_at: str | None
    whatsapp_id: str | None
    text: str
    payload: dict[str, Any]
    """Open by nature: what the message carried (a vote's options, a researcher's name …)."""


@dataclass(frozen=True)
class ConsentView:
    """A participant's consent ledger, oldest first, and their status now."""

    participant_id: str
    phone: str
    status: Status
    opted_out: bool
    researcher_paused: bool
    events: list[LedgerEntry]


@dataclass(frozen=True)
class InputView:
    """An input not answered yet (pending, or given up on)."""

    id: int
    participant_id: str
    phone: str
    kind: InboxKind
    status: InboxStatus
    attempts: int
    last_error: str
    at: str
    retry_at: str | None


@dataclass(frozen=True)
class ListedRow:
    """A participant as a row of the API's and the dashboard's list."""

    id: str
    phone: str
    name: str
    timezone: str
    status: Status
    stage: Stage
    arm: str | None
    study_day: int | None
    day_one: str | None
    extra_days: int
    enrolled_at: str
    completed_at: str | None
    erased: bool
    last_in_at: str | None
    last_out_at: str | None
    prompts_sent: int
    prompts_answered: int
    answered_share: float | None
    current_streak: int


@dataclass(frozen=True)
class ParticipantPage:
    """One page of the list; ``total`` counts every match."""

    total: int
    limit: int
    offset: int
    items: list[ListedRow]
