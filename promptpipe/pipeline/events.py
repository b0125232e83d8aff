"""Typed inbox events: every input a participant's lane runs, as a frozen dataclass.

Producers (the inbox, the admin script, the alarm clock) build one of these and write it with
:func:`as_input`; the router parses a row once with :func:`parse_event`. Each class is tagged by
its ``kind``; one pair of functions turns any of them into the row's JSON payload and back, so
a field is named in one place. Payloads of rows written by earlier versions parse unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, Literal, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from promptpipe.domain.timers import TimerKind
from promptpipe.storage.inbox_rows import WA_ID, NewInput
from promptpipe.storage.queue_tables import InboxStatus

__all__ = [
    "AlarmSyncRequested",
    "AutoFeedbackDue",
    "CheckInDue",
    "DailyPromptDue",
    "DelayedTransitionDue",
    "Enrolled",
    "FollowUpDue",
    "InboxEvent",
    "InboxKind",
    "IntakeInactiveDue",
    "IntakeReminderDue",
    "MessageReceived",
    "PollVoteReceived",
    "PromptNowDue",
    "ReactionReceived",
    "ReminderDue",
    "ResearcherMessageQueued",
    "SelfReportDue",
    "StudyEndDue",
    "TeamAction",
    "TeamChange",
    "TimerEvent",
    "as_input",
    "parse_event",
    "timer_event",
]

E = TypeVar("E", bound="_Payload")


class InboxKind(StrEnum):
    """The ``kind`` of an inbox row: which event it carries."""

    MESSAGE = "message"
    POLL_VOTE = "poll_vote"
    REACTION = "reaction"
    ENROLL = "enroll"
    """the greeting is due (an enrolment, or someone never greeted made active again)"""
    SYNC = "sync"
    TEAM_CHANGE = "team_change"
    RESEARCHER_MESSAGE = "researcher_message"
    DAILY_PROMPT = "daily_prompt"
    TIMER = "timer"


@dataclass(frozen=True)
class _Payload:
    """The codec every event shares: fields at their default are left out of the payload."""

    INBOX_KIND: ClassVar[InboxKind]
    """The ``kind`` column of the event's inbox row."""

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {}
        for name, key, default in _payload_fields(cast(Hashable, type(self))):
            value = getattr(self, name)
            if value != default:
                payload[key] = list(value) if isinstance(value, tuple) else value
        return payload

    @classmethod
    def from_payload(cls: type[E], payload: dict[str, Any]) -> E:
        hints = _hints(cast(Hashable, cls))
        values: dict[str, Any] = {}
        for spec in dataclasses.fields(cls):
            key = _KEYS.get(spec.name, spec.name)
            if spec.name != "kind" and key in payload:
                values[spec.name] = _coerce(payload[key], hints[spec.name])
        return cls(**values)


@functools.cache
def _payload_fields(cls: Hashable) -> tuple[tuple[str, str, Any], ...]:
    """Each field but ``kind``: (name, payload key, default). Remembered per class: asking
    :func:`dataclasses.fields` for every row was a sixth of delivering a burst's alarms."""
    return tuple((spec.name, _KEYS.get(spec.name, spec.name), spec.default)
                 for spec in dataclasses.fields(cast(type[_Payload], cls)) if spec.name != "kind")


@functools.cache
def _hints(cls: Hashable) -> dict[str, Any]:
    """A class's field types, worked out once: every inbox row read is parsed by them, and
    resolving the annotations (strings here) each time cost more than the rest of the parse."""
    return get_type_hints(cls)


_KEYS = {"wa_message_id": WA_ID, "screened": "safety"}
"""Fields stored under another payload key (the names rows have always used)."""


def _coerce(value: Any, hint: Any) -> Any:
    """JSON values back to the field's type: lists to tuples; a wrong type to None."""
    options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    if value is None:
        return None
    for option in options:
        origin = get_origin(option) or option
        if origin is tuple and isinstance(value, list):
            return tuple(value)
        if origin is bool and isinstance(value, bool):
            return value
        if origin is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if origin is str and isinstance(value, str):
            return value
    return None


# ------------------------------------------------------------------------- from the participant

@dataclass(frozen=True)
class MessageReceived(_Payload):
    """Something the participant wrote (or sent without words: a voice note, a photo …)."""

    INBOX_KIND = InboxKind.MESSAGE
    kind: Literal["message"] = "message"
    wa_message_id: str | None = None
    content: str = "text"
    """``text``, or what came without words (``voice``, ``image`` …)."""
    quoted_message_id: str | None = None
    edited: bool = False
    edit_of: str | None = None
    """For an edit: the WhatsApp id of the message it replaces."""
    original_text_b64: str | None = None
    """The exact text as received, when making it storable changed it."""
    screened: str | None = None
    """Set once the safety screen flagged it (so a re-run does not flag it twice)."""
    said_at: str | None = None
    """When the participant sent it, by their WhatsApp's clock (ISO, UTC; never after it arrived)."""


@dataclass(frozen=True)
class PollVoteReceived(_Payload):
    """A tap on one of our polls; WhatsApp sends the whole selection (empty: withdrawn)."""

    INBOX_KIND = InboxKind.POLL_VOTE
    kind: Literal["poll_vote"] = "poll_vote"
    wa_message_id: str | None = None
    poll_message_id: str | None = None
    poll_id: int | None = None
    """Our transcript id of the poll, found at ingest."""
    selected: tuple[str, ...] = ()
    selected_hashes: tuple[str, ...] = ()
    known_poll: bool = False
    purpose: str | None = None
    said_at: str | None = None
    """When the participant tapped, by their WhatsApp's clock (ISO, UTC)."""

    @property
    def withdrawn(self) -> bool:
        return not self.selected_hashes


@dataclass(frozen=True)
class ReactionReceived(_Payload):
    """An emoji reaction on a message (an empty emoji takes it back)."""

    INBOX_KIND = InboxKind.REACTION
    kind: Literal["reaction"] = "reaction"
    wa_message_id: str | None = None
    reacted_to: str = ""
    emoji: str = ""
    said_at: str | None = None
    """When the participant reacted, by their WhatsApp's clock (ISO, UTC)."""


def said_at(event: InboxEvent) -> datetime | None:
    """When the participant sent this input, by their clock (None: not theirs, or stored before
    inputs kept it)."""
    when = getattr(event, "said_at", None)
    return datetime.fromisoformat(when) if isinstance(when, str) else None


# ---------------------------------------------------------------------------- from researchers

@dataclass(frozen=True)
class Enrolled(_Payload):
    """A researcher enrolled the participant: the greeting is due."""

    INBOX_KIND = InboxKind.ENROLL
    kind: Literal["enroll"] = "enroll"


@dataclass(frozen=True)
class AlarmSyncRequested(_Payload):
    """An admin change (pause, resume, time zone, erasure): the alarms follow our tables again."""

    INBOX_KIND = InboxKind.SYNC
    kind: Literal["sync"] = "sync"


class TeamAction(StrEnum):
    """What a :class:`TeamChange` does."""

    PAUSE = "pause"
    RESUME = "resume"
    WITHDRAW = "withdraw"
    TIMEZONE = "timezone"
    """a new time zone (``value``)"""
    EXTEND = "extend"
    """more study days (``value``)"""
    NUMBER = "number"
    """another of the deployment's WhatsApp numbers (``value``)"""


@dataclass(frozen=True)
class TeamChange(_Payload):
    """The research team changes the participant's state: pause, resume, withdraw, a new time
    zone, more study days or another WhatsApp number. It runs in the participant's lane, between
    their turns; the outcome (a line for whoever asked, or the refusal) is written back into the
    row's payload."""

    INBOX_KIND = InboxKind.TEAM_CHANGE
    kind: Literal["team_change"] = "team_change"
    action: str = ""
    """A :class:`TeamAction`."""
    reason: str = ""
    by: str = ""
    """The researcher's (or API token's) name."""
    value: str | None = None
    """The new time zone, the number of days to add, or the number's name."""


@dataclass(frozen=True)
class ResearcherMessageQueued(_Payload):
    """A message from the research team to the participant (one of a broadcast, or written to
    them alone); the flow sends it unless their consent says no."""

    INBOX_KIND = InboxKind.RESEARCHER_MESSAGE
    kind: Literal["researcher_message"] = "researcher_message"
    text: str = ""
    by: str = ""
    """The researcher's (or API token's) name."""
    broadcast_id: str | None = None
    quiet_hours: str = "hold"
    """hold: inside the participant's quiet hours it waits for their end; send: it goes at once."""


# ------------------------------------------------------------------------------ from the clock

@dataclass(frozen=True)
class DailyPromptDue(_Payload):
    """A daily prompt is due (from a schedule's alarm, or asked for by hand)."""

    INBOX_KIND = InboxKind.DAILY_PROMPT
    kind: Literal["daily_prompt"] = "daily_prompt"
    schedule_id: str | None = None
    local_date: str | None = None
    due_at: str | None = None
    manual: bool = False
    not_before: str | None = None
    """A prompt asked for by hand inside quiet hours, to go when they end (ISO 8601, UTC)."""


@dataclass(frozen=True)
class _TimerDue(_Payload):
    INBOX_KIND = InboxKind.TIMER
    timer_id: int | None = None
    due_at: str | None = None
    kind: str = ""
    """The timer's kind (each subclass sets its own)."""

    def to_payload(self) -> dict[str, Any]:
        return {**super().to_payload(), "timer_kind": self.kind}


@dataclass(frozen=True)
class ReminderDue(_TimerDue):
    kind: Literal["reminder"] = "reminder"
    prompt_inbox_id: int | None = None


@dataclass(frozen=True)
class AutoFeedbackDue(_TimerDue):
    kind: Literal["auto_feedback"] = "auto_feedback"
    prompt_inbox_id: int | None = None


@dataclass(frozen=True)
class DelayedTransitionDue(_TimerDue):
    kind: Literal["transition"] = "transition"
    target: str = ""
    reason: str = ""


@dataclass(frozen=True)
class CheckInDue(_TimerDue):
    kind: Literal["feedback_check_in"] = "feedback_check_in"


@dataclass(frozen=True)
class FollowUpDue(_TimerDue):
    kind: Literal["feedback_followup"] = "feedback_followup"


@dataclass(frozen=True)
class IntakeInactiveDue(_TimerDue):
    kind: Literal["intake_inactive"] = "intake_inactive"


@dataclass(frozen=True)
class IntakeReminderDue(_TimerDue):
    kind: Literal["intake_reminder"] = "intake_reminder"


@dataclass(frozen=True)
class StudyEndDue(_TimerDue):
    kind: Literal["study_end"] = "study_end"
    last_day: int | None = None


@dataclass(frozen=True)
class PromptNowDue(_TimerDue):
    """A prompt the team asked for inside quiet hours, due now that they ended."""

    kind: Literal["prompt_now"] = "prompt_now"


@dataclass(frozen=True)
class SelfReportDue(_TimerDue):
    kind: Literal["self_report"] = "self_report"
    local_date: str = ""
    """The participant's day the question is about (YYYY-MM-DD)."""


@dataclass(frozen=True)
class QuestionnaireDue(_TimerDue):
    """A questionnaire instance to send (a team's piloting send or its schedule), or the one under
    way to remind about or to close."""

    kind: Literal["questionnaire"] = "questionnaire"
    instance_id: int | None = None
    questionnaire_id: str = ""
    action: str = "send"
    """send | remind | expire"""
    sent_at: str | None = None
    """When the instance was sent (a reminder or its end counts from it)."""


TimerEvent = (ReminderDue | AutoFeedbackDue | DelayedTransitionDue | CheckInDue | FollowUpDue | IntakeInactiveDue
              | IntakeReminderDue | StudyEndDue | SelfReportDue | PromptNowDue | QuestionnaireDue)
InboxEvent = (MessageReceived | PollVoteReceived | ReactionReceived | Enrolled | AlarmSyncRequested
              | TeamChange | ResearcherMessageQueued | DailyPromptDue | TimerEvent)

_BY_KIND: dict[str, type[_Payload]] = {
    cls.INBOX_KIND: cls for cls in (MessageReceived, PollVoteReceived, ReactionReceived, Enrolled,
                                    AlarmSyncRequested, TeamChange, ResearcherMessageQueued, DailyPromptDue)
}
_TIMERS: dict[str, type[_TimerDue]] = {
    TimerKind.REMINDER: ReminderDue, TimerKind.AUTO_FEEDBACK: AutoFeedbackDue,
    TimerKind.TRANSITION: DelayedTransitionDue, TimerKind.FEEDBACK_CHECK_IN: CheckInDue,
    TimerKind.FEEDBACK_FOLLOWUP: FollowUpDue, TimerKind.INTAKE_INACTIVE: IntakeInactiveDue,
    TimerKind.INTAKE_REMINDER: IntakeReminderDue, TimerKind.STUDY_END: StudyEndDue,
    TimerKind.SELF_REPORT: SelfReportDue, TimerKind.PROMPT_NOW: PromptNowDue, TimerKind.QUESTIONNAIRE: QuestionnaireDue,
}
assert set(_TIMERS) == set(TimerKind), "every timer kind has its event"


def parse_event(inbox_kind: str, payload: dict[str, Any]) -> InboxEvent:
    """The event an inbox row holds; an unknown kind is a bug (ValueError)."""
    if inbox_kind == _TimerDue.INBOX_KIND:
        return timer_event(str(payload.get("timer_kind") or ""), payload)
    cls = _BY_KIND.get(inbox_kind)
    if cls is None:
        raise ValueError(f"unknown inbox kind {inbox_kind!r}")
    return cast(InboxEvent, cls.from_payload(payload))  # _BY_KIND holds InboxEvent classes only


def timer_event(timer_kind: str, payload: dict[str, Any]) -> TimerEvent:
    cls = _TIMERS.get(timer_kind)
    if cls is None:
        raise ValueError(f"unknown timer kind {timer_kind!r}")
    return cast(TimerEvent, cls.from_payload(payload))  # _TIMERS holds TimerEvent classes only


def as_input(event: InboxEvent, *, key: str, participant_id: str, message_id: int | None = None,
             status: str = InboxStatus.PENDING) -> NewInput:
    """The inbox row that carries ``event``."""
    return NewInput(key=key, participant_id=participant_id, kind=event.INBOX_KIND, payload=event.to_payload(),
                    message_id=message_id, status=status)
