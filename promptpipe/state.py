"""The working copy of one participant's conversation during a turn.

Tools change this copy, never the database; the flow writes it back together with the reply in
one transaction. A turn that fails half-way therefore leaves no trace and can simply run again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from promptpipe.models import FEEDBACK, INTAKE, SUB_STATES

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


@dataclass(frozen=True)
class HistoryEntry:
    """One past transcript message as the model sees it."""

    role: str
    """user | assistant"""
    text: str


@dataclass(frozen=True)
class PendingTransition:
    kind: str
    """sub_state | status"""
    name: str
    from_value: str | None
    to_value: str
    reason: str


@dataclass
class TurnState:
    participant: ParticipantInfo
    sub_state: str
    profile: dict[str, Any]
    version: int
    transitions: list[PendingTransition] = field(default_factory=list)

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
