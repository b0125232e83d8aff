"""Typed inbox events, tagged by ``kind``: pydantic turns each into its row's JSON and back (a field named once)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, ClassVar, Literal, cast, get_args

from pydantic import Field, JsonValue, TypeAdapter, ValidationError

from promptpipe.domain.timers import TimerKind
from promptpipe.storage.inbox_rows import NewInput
from promptpipe.storage.queue_tables import InboxStatus

__all__ = ["AlarmSyncRequested", "AutoFeedbackDue", "CheckInDue", "DailyPromptDue", "DelayedTransitionDue",
           "Enrolled", "FollowUpDue", "InboxEvent", "InboxKind", "IntakeInactiveDue", "IntakeReminderDue",
           "MessageReceived", "PollVoteReceived", "PromptNowDue", "ReactionReceived", "ReminderDue",
           "ResearcherMessageQueued", "SelfReportDue", "StudyEndDue", "TeamAction", "TeamChange", "TimerEvent",
           "as_input", "parse_event", "timer_event"]

class InboxKind(StrEnum):
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
    """What every event shares: its row's kind, and its payload (fields at their default are left out)."""

    INBOX_KIND: ClassVar[InboxKind]

    def to_payload(self) -> dict[str, JsonValue]:
        payload: dict[str, JsonValue] = _EVENTS.dump_python(cast(InboxEvent, self), mode="json", by_alias=True,
                                                            exclude_defaults=True, exclude={"kind"})
        return payload


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
    screened: Annotated[str | None, Field(alias="safety")] = None
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
    asks: tuple[int, str, str, str] | None = None
    """A questionnaire poll's instance, questionnaire, item and window close: a tap in time counts though read late."""

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


def said_at(event: InboxEvent) -> datetime | None:
    """When the participant sent this input, by their clock (None: not theirs, or stored before inputs kept it)."""
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
    """The research team changes the participant's state, in their lane; the outcome is written back into the row."""

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
    """A message from the research team (a broadcast's, or to them alone); sent unless their consent says no."""

    INBOX_KIND = InboxKind.RESEARCHER_MESSAGE
    kind: Literal["researcher_message"] = "researcher_message"
    text: str = ""
    by: str = ""
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
    model_free: bool = False
    """Its arm's prompts are fixed texts: its turn calls no model, so it does not wait behind one that does."""


@dataclass(frozen=True)
class _TimerDue(_Payload):
    INBOX_KIND = InboxKind.TIMER
    timer_id: int | None = None
    due_at: str | None = None
    kind: str = ""

    def to_payload(self) -> dict[str, JsonValue]:
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
    model_free: bool = False
    """As the prompt asked for: a fixed-text arm's needs no model."""


@dataclass(frozen=True)
class SelfReportDue(_TimerDue):
    kind: Literal["self_report"] = "self_report"
    local_date: str = ""
    """The participant's day the question is about (YYYY-MM-DD)."""


@dataclass(frozen=True)
class QuestionnaireDue(_TimerDue):
    """A questionnaire instance to send, or the one under way to remind about or to close."""

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

_EVENTS: TypeAdapter[InboxEvent] = TypeAdapter(Annotated[InboxEvent, Field(discriminator="kind")])
_KINDS = {cls.__dataclass_fields__["kind"].default: cls for cls in get_args(InboxEvent)}
_TIMER_KINDS = {kind for kind, cls in _KINDS.items() if cls.INBOX_KIND == InboxKind.TIMER}
assert set(TimerKind) == _TIMER_KINDS, "every timer kind has its event"


def parse_event(inbox_kind: str, payload: Mapping[str, object]) -> InboxEvent:
    """The event an inbox row holds; an unknown kind is a bug (ValueError)."""
    if inbox_kind == InboxKind.TIMER:
        return timer_event(str(payload.get("timer_kind") or ""), payload)
    if inbox_kind not in _KINDS or inbox_kind in _TIMER_KINDS:
        raise ValueError(f"unknown inbox kind {inbox_kind!r}")
    return _decode(inbox_kind, payload)


def timer_event(timer_kind: str, payload: Mapping[str, object]) -> TimerEvent:
    if timer_kind not in _TIMER_KINDS:
        raise ValueError(f"unknown timer kind {timer_kind!r}")
    return cast(TimerEvent, _decode(timer_kind, payload))


def _decode(kind: str, payload: Mapping[str, object]) -> InboxEvent:
    """Unknown keys are ignored; a value of the wrong type is left out, so its field keeps its default."""
    values = {**payload, "kind": kind}
    try:
        return _EVENTS.validate_python(values)
    except ValidationError as error:
        wrong = {e["loc"][1] for e in error.errors() if len(e["loc"]) > 1}
        return _EVENTS.validate_python({key: value for key, value in values.items() if key not in wrong})


def as_input(event: InboxEvent, *, key: str, participant_id: str, message_id: int | None = None,
             status: str = InboxStatus.PENDING, payload: dict[str, JsonValue] | None = None) -> NewInput:
    """``payload``: ``event.to_payload()`` when the caller made it already."""
    return NewInput(key=key, participant_id=participant_id, kind=event.INBOX_KIND,
                    payload=event.to_payload() if payload is None else payload, message_id=message_id, status=status)
