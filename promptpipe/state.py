"""The working copy of one participant's conversation during a turn.

Tools change this copy, never the database; the flow writes it back together with the reply in
one transaction. A turn that fails half-way therefore leaves no trace and can simply run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from promptpipe.localtime import DailySpec, parse_hhmm
from promptpipe.models import ACTIVE, FEEDBACK, INTAKE, PAUSED, SUB_STATES, WITHDRAWN
from promptpipe.nudges import TIMER_KINDS
from promptpipe.tone import ToneUpdate

STATUS_TRANSITIONS: dict[str, tuple[str, str | None]] = {
    "opted_out": (PAUSED, "participant"),
    "opted_in": (ACTIVE, None),
    "paused_by_researcher": (PAUSED, "researcher"),
    "resumed_by_researcher": (ACTIVE, None),
    "withdrawn_by_researcher": (WITHDRAWN, None),
}
"""Named status changes: the new status and who paused (kept so START cannot lift a researcher's pause)."""

SUB_STATE_TRANSITIONS: dict[tuple[str, str], str] = {
    (INTAKE, FEEDBACK): "intake_to_feedback",
    (FEEDBACK, INTAKE): "feedback_to_intake",
}
"""Every allowed sub-state change has a name; the audit log records the name and the reason."""

PROFILE_FIELDS: tuple[str, ...] = (
    "habit_domain",
    "prompt_anchor",
    "motivational_frame",
    "preferred_time",
    "additional_info",
    "last_successful_prompt",
    "last_barrier",
    "last_motivator",
    "last_tweak",
)
"""Free-text profile fields the model may set (the Go system's ``UserProfile`` contract)."""

INTAKE_FIELDS: tuple[str, ...] = ("habit_domain", "prompt_anchor", "motivational_frame", "preferred_time")
"""What intake gathers before the first prompt."""

PROMPT_REQUIRED_FIELDS: tuple[str, ...] = ("prompt_anchor", "preferred_time")
"""What a habit prompt cannot be written without."""


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


@dataclass(frozen=True)
class HistoryEntry:
    """One past transcript message as the model sees it."""

    role: str
    """user | assistant"""
    text: str
    id: int = 0
    """The transcript message id (0 when not from the transcript)."""


@dataclass(frozen=True)
class PendingTransition:
    kind: str
    """sub_state | status"""
    name: str
    from_value: str | None
    to_value: str
    reason: str


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
        def hhmm(value: str | None) -> object:
            return parse_hhmm(value) if value else None

        return DailySpec(kind=self.kind, habit_time=hhmm(self.habit_time), window_start=hhmm(self.window_start),  # type: ignore[arg-type]
                         window_end=hhmm(self.window_end), prep_minutes=self.prep_minutes, seed=self.id)


@dataclass(frozen=True)
class PendingTimer:
    """A timer that is waiting to fire, as loaded at the start of the turn."""

    id: int
    kind: str
    due_at: datetime
    payload: dict[str, Any]


@dataclass(frozen=True)
class TimerChange:
    """A committed change to one participant's timers, for the alarm clock: ``timer`` is the
    new pending timer of this kind, or None when the kind has none any more."""

    participant_id: str
    kind: str
    timer: PendingTimer | None


@dataclass(frozen=True)
class TimerOp:
    """A change to the participant's timers, applied on commit: arm replaces the pending timer
    of the same kind; cancel drops it."""

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
    profile: dict[str, Any]
    version: int
    transitions: list[PendingTransition] = field(default_factory=list)
    status: str = ""
    paused_by: str | None = None
    timezone: str = ""
    schedules: list[ScheduleEntry] = field(default_factory=list)
    pending_timers: dict[str, PendingTimer] = field(default_factory=dict)
    timer_ops: list[TimerOp] = field(default_factory=list)
    committed_timer_changes: list[TimerChange] = field(default_factory=list)
    """Filled on commit: what the alarm clock must now arm or disarm."""
    tone: dict[str, Any] = field(default_factory=dict)
    """The stored tone state (see :class:`promptpipe.tone.ToneState`)."""
    tone_updates: list[ToneUpdate] = field(default_factory=list)
    """Tone proposals validated during this turn, logged on commit."""
    summary: str = ""
    summary_through: int = 0
    turns_since_summary: int = 0

    def __post_init__(self) -> None:
        if not self.status:
            self.status, self.paused_by = self.participant.status, self.participant.paused_by
        if not self.timezone:
            self.timezone = self.participant.timezone

    @property
    def schedule_changed(self) -> bool:
        """Whether committing this turn changes the daily alarms (schedules, status or zone);
        timer changes alone are handed over as :attr:`committed_timer_changes`."""
        return bool(
            any(entry.dirty for entry in self.schedules)
            or self.status != self.participant.status
            or self.timezone != self.participant.timezone
        )

    def arm_timer(self, kind: str, due_at: datetime, payload: dict[str, Any] | None = None, *, reason: str = "") -> None:
        self.timer_ops.append(TimerOp("arm", kind, due_at, dict(payload or {}), reason))

    def cancel_timers(self, *kinds: str, reason: str = "") -> None:
        for kind in kinds:
            self.timer_ops.append(TimerOp("cancel", kind, reason=reason))

    def timer_pending_after_commit(self, kind: str) -> bool:
        """Whether a timer of this kind will be pending once the turn commits."""
        pending = kind in self.pending_timers
        for op in self.timer_ops:
            if op.kind == kind:
                pending = op.action == "arm"
        return pending

    def active_schedules(self) -> list[ScheduleEntry]:
        return [entry for entry in self.schedules if entry.active]

    def set_timezone(self, name: str, *, reason: str) -> bool:
        if name == self.timezone:
            return False
        self.transitions.append(PendingTransition("timezone", "timezone_changed", self.timezone, name, reason))
        self.timezone = name
        return True

    def change_status(self, name: str, *, reason: str) -> bool:
        """Apply a named status change; False when it changes nothing."""
        target, paused_by = STATUS_TRANSITIONS[name]
        if (target, paused_by) == (self.status, self.paused_by):
            return False
        self.transitions.append(PendingTransition("status", name, self.status, target, reason))
        self.status, self.paused_by = target, paused_by
        if target != ACTIVE:  # nothing scheduled may reach someone who is not active
            self.cancel_timers(*TIMER_KINDS, reason=f"status changed: {name}")
        return True

    def record_status_event(self, name: str, *, reason: str) -> None:
        """Log a named status event that leaves the status as it is (e.g. STOP while paused by the team)."""
        self.transitions.append(PendingTransition("status", name, self.status, self.status, reason))

    def missing_fields(self, names: tuple[str, ...]) -> list[str]:
        return [name for name in names if not str(self.profile.get(name) or "").strip()]

    def move_to(self, target: str, *, reason: str) -> bool:
        """Change sub-state by its named transition; False when already there (nothing recorded)."""
        if target not in SUB_STATES:
            raise ValueError(f"unknown sub-state {target!r}")
        if target == self.sub_state:
            return False
        name = SUB_STATE_TRANSITIONS[(self.sub_state, target)]
        self.transitions.append(PendingTransition("sub_state", name, self.sub_state, target, reason))
        self.sub_state = target
        return True
