"""Questionnaires as a study file declares them, as typed values, and the rules that need no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from promptpipe.domain.setting_values import duration_words

__all__ = ["END_REASON_WORDS", "POLL_OPTION_LIMIT", "QUESTIONNAIRE_PURPOSE", "EndReason", "InstanceStatus", "ItemType",
           "OpenQuestionnaire", "Option", "Questionnaire", "QuestionnaireItem", "QuestionnaireState",
           "QueuedQuestionnaire", "SendAt", "SendEvent", "ShowIf", "next_item", "reason_words"]

QUESTIONNAIRE_PURPOSE = "questionnaire"
"""The ``purpose`` of a questionnaire item's messages (a vote on its poll is routed by it)."""
POLL_OPTION_LIMIT = 12
"""WhatsApp shows at most 12 options in one poll."""


class ItemType(StrEnum):
    """How an item is asked and answered."""

    SINGLE_CHOICE = "single_choice"
    """a poll; one option"""
    MULTIPLE_CHOICE = "multiple_choice"
    """a poll; any number of options"""
    SCALE = "scale"
    """a whole number from ``low`` to ``high``, labelled at its ends: a poll, or typed"""
    NUMBER = "number"
    """a typed number from ``low`` to ``high``, with a unit"""
    YES_NO = "yes_no"
    """a poll with two options, coded 1 (yes) and 0 (no)"""
    TEXT = "text"
    """typed words, up to ``max_chars``"""


class InstanceStatus(StrEnum):
    """Where one sending of a questionnaire stands: sent (first item asked), started (an item answered), then ended."""

    SCHEDULED = "scheduled"
    SENT = "sent"
    STARTED = "started"
    COMPLETED = "completed"
    EXPIRED = "expired"
    STOPPED = "stopped"
    NOT_SENT = "not_sent"


class EndReason(StrEnum):
    """Why an instance ended unfinished or was never sent (the export's codes; :data:`END_REASON_WORDS` in words)."""

    NOT_IN_STUDY_FILE = "not_in_study_file"
    OPTED_OUT = "opted_out"
    PAUSED = "paused"
    WITHDRAWN = "withdrawn"
    STUDY_OVER = "study_over"
    ANOTHER_UNDER_WAY = "another_under_way"
    NO_ITEM = "no_item"
    WINDOW_CLOSED = "window_closed"
    NOT_SENT_IN_TIME = "not_sent_in_time"
    PAST_LAST_DAY = "past_last_day"
    STUDY_EXTENDED = "study_extended"
    NO_FREE_MINUTE = "no_free_minute"
    TIME_ZONE_CHANGED = "time_zone_changed"
    NOT_PLANNED = "not_planned"
    """the export's own: no self-report instance was planned for a decision point's day"""


END_REASON_WORDS: Mapping[EndReason, str] = {
    EndReason.NOT_IN_STUDY_FILE: "the study file in force has no such questionnaire",
    EndReason.OPTED_OUT: "the participant had sent STOP",
    EndReason.PAUSED: "the participant was paused",
    EndReason.WITHDRAWN: "the participant withdrew or was withdrawn (or their data erased)",
    EndReason.STUDY_OVER: "the participant's study had ended",
    EndReason.ANOTHER_UNDER_WAY: "another questionnaire was under way",
    EndReason.NO_ITEM: "no item was left to ask",
    EndReason.WINDOW_CLOSED: "its time to answer ran out",
    EndReason.NOT_SENT_IN_TIME: "its time ran out before it could be sent (the participant was not active, or the "
                                "service was down)",
    EndReason.PAST_LAST_DAY: "it fell after the participant's last study day (the study was shortened)",
    EndReason.STUDY_EXTENDED: "the study was extended after it had ended: asked again at its new end",
    EndReason.NO_FREE_MINUTE: "no minute of its window was outside the quiet hours and far enough (min_gap) from "
                              "the day's other messages",
    EndReason.TIME_ZONE_CHANGED: "the participant's time zone changed, and on the new clock its time had passed or no "
                                 "minute of its window was free",
    EndReason.NOT_PLANNED: "none was planned for that day (outside the participant's study days, or no [self_report])",
}


def reason_words(reason: str | None) -> str | None:
    """A stored reason in words (a reason stored before the codes, as it was)."""
    try:
        return END_REASON_WORDS[EndReason(reason or "")]
    except ValueError:
        return reason


class SendEvent(StrEnum):
    """The moments a questionnaire can be sent once."""

    ENROLLMENT = "enrollment"
    INTAKE_COMPLETE = "intake_complete"
    STUDY_END = "study_end"
    """after the last study day"""


@dataclass(frozen=True)
class Option:
    label: str
    code: int


@dataclass(frozen=True)
class ShowIf:
    """Ask the item only if the earlier item ``item`` was answered with any of ``codes``."""

    item: str
    codes: tuple[int, ...]


@dataclass(frozen=True)
class QuestionnaireItem:
    id: str
    text: str
    type: ItemType
    options: tuple[Option, ...] = ()
    """The choices of a single or multiple choice, a poll-asked scale and yes/no, in order."""
    low: float | None = None
    high: float | None = None
    """The range of a scale or a number (whole numbers for a scale)."""
    low_label: str | None = None
    high_label: str | None = None
    as_poll: bool = False
    """A scale asked as a poll (one option per point) rather than typed."""
    unit: str | None = None
    decimals: int = 0
    max_chars: int = 0
    """The longest text answer kept (a text item)."""
    required: bool = True
    """An optional item accepts "skip"."""
    show_if: ShowIf | None = None

    @property
    def is_poll(self) -> bool:
        return self.type in (ItemType.SINGLE_CHOICE, ItemType.MULTIPLE_CHOICE, ItemType.YES_NO) or self.as_poll

    @property
    def codes(self) -> tuple[int, ...]:
        """Every code the item's answer can take (empty for a typed number or a text)."""
        if self.options:
            return tuple(option.code for option in self.options)
        if self.type is ItemType.SCALE and self.low is not None and self.high is not None:
            return tuple(range(int(self.low), int(self.high) + 1))
        return ()


@dataclass(frozen=True)
class SendAt:
    """Once at ``event`` (after ``delay``), or on ``study_days`` (None: all) at ``at`` or a time drawn each day
    ``between``, ``min_gap`` from the day's other messages; always outside quiet hours."""

    event: SendEvent | None = None
    delay: timedelta = timedelta(0)
    study_days: tuple[int, ...] | None = None
    at: time | None = None
    between: tuple[time, time] | None = None
    min_gap: timedelta = timedelta(hours=1)

    def describe(self) -> str:
        if self.event is not None:
            after = f" + {duration_words(self.delay)}" if self.delay else ""
            return f"at {self.event.value}{after}"
        days = "every study day" if self.study_days is None else "study days " + ", ".join(map(str, self.study_days))
        if self.at is not None:
            return f"{days} at {self.at.strftime('%H:%M')}"
        assert self.between is not None
        start, end = (moment.strftime("%H:%M") for moment in self.between)
        return (f"{days} at a random time {start}-{end}, drawn each day, at least {duration_words(self.min_gap)} "
                "from the daily prompt and other questionnaires")


@dataclass(frozen=True)
class Questionnaire:
    id: str
    title: str
    items: tuple[QuestionnaireItem, ...]
    send: SendAt
    open_for: timedelta = timedelta(hours=3)
    """How long after it is sent its answers count; then it expires."""
    reminders: int = 0
    """Reminders while it is open and unfinished, spread evenly over ``open_for``."""
    intro: str | None = None
    closing: str | None = None
    coach_sees_answers: bool = False

    def item(self, item_id: str) -> QuestionnaireItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    def reminder_offsets(self) -> tuple[timedelta, ...]:
        """When each reminder is due, after the questionnaire was sent."""
        step = self.open_for / (self.reminders + 1)
        return tuple(step * number for number in range(1, self.reminders + 1))


def next_item(questionnaire: Questionnaire, codes: Mapping[str, tuple[int, ...] | None],
              after: str | None = None) -> QuestionnaireItem | None:
    """The item asked after ``after`` (None: the first), skipping each whose condition does not hold in ``codes``."""
    items = questionnaire.items
    start = 0 if after is None else next(number for number, item in enumerate(items) if item.id == after) + 1
    for item in items[start:]:
        condition = item.show_if
        if condition is None or set(codes.get(condition.item) or ()) & set(condition.codes):
            return item
    return None


class OpenJson(TypedDict):
    instance_id: int
    questionnaire_id: str
    item_id: str
    expires_at: str
    tries: int
    codes: dict[str, list[int]]
    reminders_sent: int
    poll_ids: list[int]
    asked_at: str | None


class QueuedJson(TypedDict):
    questionnaire_id: str
    due_at: str
    expires_at: str
    instance_id: int | None
    local_date: str | None


class QuestionnaireStateJson(TypedDict):
    """How :class:`QuestionnaireState` is kept in the conversation's JSON column."""

    open: OpenJson | None
    queue: list[QueuedJson]
    planned: list[str]
    days: dict[str, int]
    closed: NotRequired[OpenJson | None]


PHONE_CLOCK_SLACK = timedelta(minutes=5)
"""How far before a question was asked a reply may say it was sent and still answer it."""


@dataclass
class OpenQuestionnaire:
    """The questionnaire under way for a participant (kept on their conversation)."""

    instance_id: int
    questionnaire_id: str
    item_id: str
    expires_at: datetime
    tries: int = 0
    codes: dict[str, list[int]] = field(default_factory=dict)
    reminders_sent: int = 0
    poll_ids: list[int] = field(default_factory=list)
    """The transcript ids of the messages that asked the current item (a reminder asks again)."""
    asked_at: datetime | None = None
    """When it was sent (None: kept before this was recorded)."""

    def within(self, said: datetime) -> bool:
        """Whether a reply sent at ``said`` (their clock, given :data:`PHONE_CLOCK_SLACK`) was given in its window."""
        return (self.asked_at is None or said >= self.asked_at - PHONE_CLOCK_SLACK) and said <= self.expires_at

    def to_json(self) -> OpenJson:
        return {"instance_id": self.instance_id, "questionnaire_id": self.questionnaire_id, "item_id": self.item_id,
                "expires_at": self.expires_at.isoformat(), "tries": self.tries, "codes": self.codes,
                "reminders_sent": self.reminders_sent, "poll_ids": self.poll_ids,
                "asked_at": self.asked_at.isoformat() if self.asked_at else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> OpenQuestionnaire | None:
        if not data:
            return None
        return cls(int(data["instance_id"]), str(data["questionnaire_id"]), str(data["item_id"]),
                   datetime.fromisoformat(data["expires_at"]), int(data.get("tries", 0)),
                   {key: list(value) for key, value in (data.get("codes") or {}).items()},
                   int(data.get("reminders_sent", 0)), [int(i) for i in data.get("poll_ids") or ()],
                   datetime.fromisoformat(data["asked_at"]) if data.get("asked_at") else None)


@dataclass
class QueuedQuestionnaire:
    """An instance planned and not sent yet (not sent at all if it could not go before ``expires_at``)."""

    questionnaire_id: str
    due_at: datetime
    expires_at: datetime
    instance_id: int | None = None
    local_date: str | None = None
    """The participant's day a study-day instance belongs to (None: sent at an event)."""

    def to_json(self) -> QueuedJson:
        return {"questionnaire_id": self.questionnaire_id, "due_at": self.due_at.isoformat(),
                "expires_at": self.expires_at.isoformat(), "instance_id": self.instance_id,
                "local_date": self.local_date}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QueuedQuestionnaire:
        return cls(str(data["questionnaire_id"]), datetime.fromisoformat(data["due_at"]),
                   datetime.fromisoformat(data["expires_at"]),
                   None if data.get("instance_id") is None else int(data["instance_id"]),
                   data.get("local_date"))


@dataclass
class QuestionnaireState:
    """What a participant's conversation keeps about questionnaires (under way, planned, how far days are planned)."""

    open: OpenQuestionnaire | None = None
    queue: list[QueuedQuestionnaire] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)
    days: dict[str, int] = field(default_factory=dict)
    """The study day each study-day questionnaire is planned through, by id."""
    closed: OpenQuestionnaire | None = None
    """The last one whose time ran out unanswered: a typed answer given in its window still answers it."""

    def to_json(self) -> QuestionnaireStateJson | None:
        if self.open is None and not self.queue and not self.planned and not self.days and self.closed is None:
            return None
        return {"open": self.open.to_json() if self.open else None, "queue": [q.to_json() for q in self.queue],
                "planned": list(self.planned), "days": dict(self.days),
                "closed": self.closed.to_json() if self.closed else None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> QuestionnaireState:
        if not data:
            return cls()
        return cls(OpenQuestionnaire.from_json(data.get("open")),
                   [QueuedQuestionnaire.from_json(item) for item in data.get("queue") or ()],
                   [str(item) for item in data.get("planned") or ()],
                   {str(key): int(value) for key, value in (data.get("days") or {}).items()},
                   OpenQuestionnaire.from_json(data.get("closed")))
