"""The working copy of one participant's conversation during a turn: tools change it, never the database, and the flow
writes it back with the reply in one transaction, so a turn that fails half-way leaves no trace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NamedTuple

from promptpipe.domain.consent import ConsentRecord
from promptpipe.domain.localtime import DailySpec, zone_or_utc
from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.domain.profile import Profile
from promptpipe.domain.quiet_hours import after_quiet_hours
from promptpipe.domain.safety import NewFlag
from promptpipe.domain.timers import SENDS_MESSAGE
from promptpipe.domain.tone import ToneUpdate
from promptpipe.domain.transition_log import PendingTransition
from promptpipe.questionnaires.rules.definition import OpenQuestionnaire, QuestionnaireState
from promptpipe.study.rules.protocol import QuietHours


@dataclass(frozen=True)
class ParticipantInfo:
    id: str
    phone: str
    name: str
    timezone: str
    status: str
    background: str
    lid: str | None = None
    paused_by: str | None = None
    opted_out: bool = False
    researcher_paused: bool = False
    arm: str | None = None
    day_one: date | None = None
    extra_days: int = 0
    completed: bool = False
    enrolled_at: datetime | None = None
    number: str | None = None
    """The deployment's number everything to them goes from (None: the default one)."""
    own_consent_at: datetime | None = None
    """When they sent (their clock) the latest opt-out or opt-in of theirs that was applied."""


RESEARCHER_NOTE = "[the research team wrote:]"
"""What the model reads before such a message in its history, so it knows the words are not its own."""


class HistoryEntry(NamedTuple):
    """One past transcript message as the model sees it. A named tuple: a turn reads 50 of them, and a frozen
    dataclass took three times as long to build (a fifth of the history's read)."""

    role: str
    """user | assistant"""
    text: str
    id: int = 0
    """The transcript message id (0 when not from the transcript)."""
    held_greeting: bool = False
    """A greeting not sent yet (held for quiet hours): a turn that answers the participant drops it."""

    @classmethod
    def of(cls, role: str, kind: str, text: str, message_id: int = 0, status: str = "") -> HistoryEntry:
        """A message from the research team is marked as theirs (the participant got the words alone)."""
        return cls(role, f"{RESEARCHER_NOTE} {text}" if kind == MessageKind.RESEARCHER else text, message_id,
                   kind == MessageKind.GREETING and status == MessageStatus.QUEUED)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str, str, str, str]]) -> list[HistoryEntry]:
        """Transcript rows ``(id, role, kind, text, status)`` as :meth:`of` reads them, in their order: the usual
        text or greeting row goes straight to the tuple (a method call each cost as much as the tuple)."""
        make, plain = tuple.__new__, _PLAIN_KINDS
        return [make(cls, (role, text, row_id, False)) if kind in plain else cls.of(role, kind, text, row_id, status)
                for row_id, role, kind, text, status in rows]


_PLAIN_KINDS = frozenset(kind for kind in MessageKind if kind not in (MessageKind.RESEARCHER, MessageKind.GREETING))
"""Transcript kinds :meth:`HistoryEntry.of` keeps as they are (not a researcher's message, not a greeting)."""


@dataclass
class ScheduleEntry:
    """A daily-prompt schedule as the turn sees it (the working copy of a ``schedule`` row)."""

    id: str
    kind: str
    habit_time: str | None
    window_start: str | None
    window_end: str | None
    prep_minutes: int
    active: bool = True
    created_at: datetime | None = None
    dirty: bool = False
    """Changed (or created) during this turn: written back on commit."""

    def spec(self) -> DailySpec:
        return DailySpec.from_text(self.kind, self.habit_time, self.window_start, self.window_end, self.prep_minutes,
                                   self.id)


@dataclass(frozen=True)
class PendingTimer:
    """A timer that is waiting to fire, as loaded at the start of the turn."""

    id: int
    kind: str
    due_at: datetime
    payload: dict[str, Any]


@dataclass(frozen=True)
class TimerChange:
    """A committed change to one participant's timers, for the alarm clock (``timer`` None: none pending any more)."""

    participant_id: str
    kind: str
    timer: PendingTimer | None


@dataclass(frozen=True)
class TimerOp:
    """A change to the participant's timers, applied on commit: arm replaces the pending one of its kind."""

    action: str
    """arm | cancel"""
    kind: str
    due_at: datetime | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass
class TurnState:
    participant: ParticipantInfo
    sub_state: str
    profile: Profile
    version: int
    transitions: list[PendingTransition] = field(default_factory=list)
    status: str = ""
    paused_by: str | None = None
    opted_out: bool = False
    researcher_paused: bool = False
    consent: list[ConsentRecord] = field(default_factory=list)
    """Consent events of this turn, written to the ledger on commit."""
    flags: list[NewFlag] = field(default_factory=list)
    """Safety concerns raised in this turn (by the model), written on commit."""
    timezone: str = ""
    number: str | None = ""
    """The deployment's number they are written from (None: the default); "" means the participant row's."""
    schedules: list[ScheduleEntry] = field(default_factory=list)
    pending_timers: dict[str, PendingTimer] = field(default_factory=dict)
    timer_ops: list[TimerOp] = field(default_factory=list)
    committed_timer_changes: list[TimerChange] = field(default_factory=list)
    """Filled on commit: what the alarm clock must now arm or disarm."""
    tone: Mapping[str, object] = field(default_factory=dict)
    """The stored tone state (see :class:`promptpipe.domain.tone.ToneState`)."""
    tone_updates: list[ToneUpdate] = field(default_factory=list)
    """Tone proposals validated during this turn, logged on commit."""
    summary: str = ""
    summary_through: int = 0
    turns_since_summary: int = 0
    completed: bool = False
    day_one: date | None = None
    """Study day 1 (the participant's local date), once known."""
    extra_days: int = 0
    """Days a researcher added to this participant's study."""
    quiet_hours: QuietHours | None = None
    """The study's quiet hours: timers that send something are armed outside them."""
    ever_prompted: bool = True
    """A daily prompt has gone to them: until then the turn looks for no poll or prompt of theirs."""
    questionnaires: QuestionnaireState = field(default_factory=QuestionnaireState)
    """The questionnaire under way and the planned ones (saved with the conversation)."""
    greet_if_never_greeted: bool = False
    """Set by a change that made them active again: on commit they are greeted unless they were already."""
    own_consent_at: datetime | None = None
    """When they sent (their clock) the latest opt-out or opt-in of theirs applied (saved)."""
    said_at: datetime | None = None
    """When they sent the message this turn acts on (their clock; None: no message of theirs)."""

    def __post_init__(self) -> None:
        if not self.status:
            self.status, self.paused_by = self.participant.status, self.participant.paused_by
            self.opted_out, self.researcher_paused = self.participant.opted_out, self.participant.researcher_paused
            self.completed = self.participant.completed
            self.day_one, self.extra_days = self.participant.day_one, self.participant.extra_days
            self.own_consent_at = self.participant.own_consent_at
        if not self.timezone:
            self.timezone = self.participant.timezone
        if self.number == "":
            self.number = self.participant.number

    @property
    def schedule_changed(self) -> bool:
        """Whether committing this turn changes the daily alarms (schedules, status or zone)."""
        return (any(entry.dirty for entry in self.schedules) or self.status != self.participant.status
                or self.timezone != self.participant.timezone)

    def arm_timer(self, kind: str, due_at: datetime, payload: dict[str, Any] | None = None, *,
                  reason: str = "") -> None:
        """Arm (or re-arm) the timer of this kind; one that sends something is moved out of quiet hours."""
        if kind in SENDS_MESSAGE:
            moved = after_quiet_hours(self.quiet_hours, due_at, zone_or_utc(self.timezone))
            if moved != due_at:
                due_at, reason = moved, f"{reason} (moved out of quiet hours)".strip()
        self.timer_ops.append(TimerOp("arm", kind, due_at, dict(payload or {}), reason))

    def cancel_timers(self, *kinds: str, reason: str = "") -> None:
        self.timer_ops += [TimerOp("cancel", kind, reason=reason) for kind in kinds]

    def timer_pending_after_commit(self, kind: str) -> bool:
        last = next((op for op in reversed(self.timer_ops) if op.kind == kind), None)
        return kind in self.pending_timers if last is None else last.action == "arm"

    def active_schedules(self) -> list[ScheduleEntry]:
        return [entry for entry in self.schedules if entry.active]

    @property
    def questionnaire(self) -> OpenQuestionnaire | None:
        """The questionnaire under way, if any."""
        return self.questionnaires.open

    @questionnaire.setter
    def questionnaire(self, value: OpenQuestionnaire | None) -> None:
        self.questionnaires.open = value

    @property
    def status_facts(self) -> tuple[str, str | None, bool, bool, bool]:
        return self.status, self.paused_by, self.opted_out, self.researcher_paused, self.completed

    def missing_fields(self, names: tuple[str, ...]) -> list[str]:
        return self.profile.habit.missing(names)
