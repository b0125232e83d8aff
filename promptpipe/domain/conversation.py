"""The working copy of one participant's conversation during a turn.

Tools change this copy, never the database; the flow writes it back together with the reply in
one transaction. A turn that fails half-way therefore leaves no trace and can simply run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from promptpipe.domain.consent import ConsentRecord
from promptpipe.domain.safety import NewFlag
from promptpipe.domain.localtime import DailySpec, parse_hhmm
from promptpipe.domain.states import ACTIVE, FEEDBACK, INTAKE, PAUSED, SUB_STATES, WITHDRAWN
from promptpipe.domain.timers import TIMER_KINDS
from promptpipe.domain.profile import INTAKE_FIELDS, PROMPT_REQUIRED_FIELDS, Profile
from promptpipe.domain.tone import ToneUpdate

STATUS_TRANSITIONS: dict[str, str] = {
    "opted_out": "opted_out",
    "opted_in": "opted_in",
    "paused_by_researcher": "paused",
    "resumed_by_researcher": "resumed",
    "withdrawn_by_researcher": "withdrawn",
}
"""Named status changes and the consent event each one is. A participant's opt-out and a
researcher's pause are two independent reasons to be paused: each is lifted only by its own side,
and the participant is active only when neither holds."""


def derive_status(*, withdrawn: bool, opted_out: bool, researcher_paused: bool) -> tuple[str, str | None]:
    """The status and the ``paused_by`` label that follow from the reasons."""
    if withdrawn:
        return WITHDRAWN, None
    holders = [who for who, holds in (("participant", opted_out), ("researcher", researcher_paused)) if holds]
    return (PAUSED, "+".join(holders)) if holders else (ACTIVE, None)

SUB_STATE_TRANSITIONS: dict[tuple[str, str], str] = {
    (INTAKE, FEEDBACK): "intake_to_feedback",
    (FEEDBACK, INTAKE): "feedback_to_intake",
}
"""Every allowed sub-state change has a name; the audit log records the name and the reason."""

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
    schedules: list[ScheduleEntry] = field(default_factory=list)
    pending_timers: dict[str, PendingTimer] = field(default_factory=dict)
    timer_ops: list[TimerOp] = field(default_factory=list)
    committed_timer_changes: list[TimerChange] = field(default_factory=list)
    """Filled on commit: what the alarm clock must now arm or disarm."""
    tone: dict[str, Any] = field(default_factory=dict)
    """The stored tone state (see :class:`promptpipe.domain.tone.ToneState`)."""
    tone_updates: list[ToneUpdate] = field(default_factory=list)
    """Tone proposals validated during this turn, logged on commit."""
    summary: str = ""
    summary_through: int = 0
    turns_since_summary: int = 0

    def __post_init__(self) -> None:
        if not self.status:
            self.status, self.paused_by = self.participant.status, self.participant.paused_by
            self.opted_out, self.researcher_paused = self.participant.opted_out, self.participant.researcher_paused
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

    @property
    def status_facts(self) -> tuple[str, str | None, bool, bool]:
        return self.status, self.paused_by, self.opted_out, self.researcher_paused

    def change_status(self, name: str, *, reason: str, source: str = "server", actor: str = "", words: str = "") -> bool:
        """Apply a named status change and record it as a consent event (``words``: what caused
        it, the participant's message or the researcher's reason); False when it changes nothing.
        A withdrawal is final: nothing changes a withdrawn participant."""
        if name not in STATUS_TRANSITIONS:
            raise ValueError(f"unknown status change {name!r}")
        if self.status == WITHDRAWN:
            return False
        opted_out, paused, withdrawn = self.opted_out, self.researcher_paused, False
        if name in ("opted_out", "opted_in"):
            opted_out = name == "opted_out"
        elif name in ("paused_by_researcher", "resumed_by_researcher"):
            paused = name == "paused_by_researcher"
        else:
            withdrawn = True
        if (opted_out, paused, withdrawn) == (self.opted_out, self.researcher_paused, False):
            return False
        status, paused_by = derive_status(withdrawn=withdrawn, opted_out=opted_out, researcher_paused=paused)
        self.transitions.append(PendingTransition("status", name, self.status, status, reason))
        self.consent.append(ConsentRecord(STATUS_TRANSITIONS[name], source, words or reason, actor))
        self.status, self.paused_by, self.opted_out, self.researcher_paused = status, paused_by, opted_out, paused
        if status != ACTIVE:  # nothing scheduled may reach someone who is not active
            self.cancel_timers(*TIMER_KINDS, reason=f"status changed: {name}")
        return True

    def missing_fields(self, names: tuple[str, ...]) -> list[str]:
        return self.profile.habit.missing(names)

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
