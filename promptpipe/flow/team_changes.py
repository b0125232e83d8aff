"""The research team's changes to a participant's state, applied in their lane: ordered with their turns and timers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from promptpipe.domain import transitions
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.states import Status
from promptpipe.domain.transition_log import Actor
from promptpipe.errors import AdminError, Forbidden
from promptpipe.flow.lifecycle import arm_study_end, last_day
from promptpipe.flow.turn import FlowDeps, Outcome, TurnContext
from promptpipe.pipeline.events import TeamAction, TeamChange
from promptpipe.pipeline.turn_writes import InboxNote
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.days import study_end
from promptpipe.study.rules.protocol import Study

__all__ = ["STATUS_CHANGES", "TeamOutcome", "apply_team_change", "team_change_outcome"]

STATUS_CHANGES: dict[str, tuple[str, str]] = {
    TeamAction.PAUSE: ("paused_by_researcher", "paused by a researcher"),
    TeamAction.RESUME: ("resumed_by_researcher", "resumed by a researcher"),
    TeamAction.WITHDRAW: ("withdrawn_by_researcher", "withdrawn by a researcher"),
}
"""The team's status changes: the transition each applies and its reason when none is given."""
REFUSALS: dict[str, type[AdminError]] = {"forbidden": Forbidden, "invalid": AdminError}
"""How a refusal is stored in the row, and the error it is raised as again for the asker."""


@dataclass(frozen=True)
class TeamOutcome:
    """What a team change came to: a line for whoever asked, or a refusal."""

    line: str = ""
    refused: str | None = None
    """forbidden | invalid (see :data:`REFUSALS`)"""

    def to_payload(self) -> dict[str, str]:
        return {"refused": self.refused, "result": self.line} if self.refused else {"result": self.line}

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> TeamOutcome | None:
        return cls(str(payload["result"]), payload.get("refused")) if "result" in payload else None

    def said_for(self, who: str) -> str:
        """The line, or raise the refusal, naming the participant as the asker knows them."""
        line = self.line.replace("{who}", who)
        if self.refused:
            raise REFUSALS.get(self.refused, AdminError)(line)
        return line


def apply_team_change(state: TurnState, change: TeamChange, study: Study, now: datetime) -> TeamOutcome:
    """Apply ``change`` to the working copy of the participant's state (nothing is written here)."""
    if state.status == Status.WITHDRAWN:
        return TeamOutcome("{who} was withdrawn from the study; that cannot be undone or changed", "forbidden")
    if change.action in STATUS_CHANGES:
        return _status(state, change)
    if change.action == TeamAction.TIMEZONE:
        return _zone(state, change.value or "")
    if change.action == TeamAction.EXTEND:
        return _extend(state, change, study, now)
    if change.action == TeamAction.NUMBER:
        return _number(state, change)
    return TeamOutcome(f"{change.action!r} is not a change the team can make", "invalid")


def _status(state: TurnState, change: TeamChange) -> TeamOutcome:
    name, default_reason = STATUS_CHANGES[change.action]
    if change.action == TeamAction.RESUME and not state.researcher_paused:
        if state.opted_out:
            return TeamOutcome("{who} stopped the messages themselves (STOP); only they can switch them back on, by "
                               "sending START", "forbidden")
        return TeamOutcome("{who} is already active; nothing changed")
    if change.action == TeamAction.PAUSE and state.researcher_paused:
        return TeamOutcome("{who} is already paused by the research team; nothing changed")
    was_opted_out = state.opted_out
    reason = change.reason or default_reason
    if not transitions.apply(state, name, actor=Actor.RESEARCHER, reason=reason, words=reason, actor_name=change.by):
        return TeamOutcome(f"{{who}} is already {state.status}; nothing changed")
    if change.action == TeamAction.RESUME and state.status != Status.ACTIVE:
        return TeamOutcome("{who}: the research team's pause is lifted, but they stay paused because they sent STOP "
                           "themselves; only they can switch messages back on, by sending START")
    if change.action == TeamAction.PAUSE and was_opted_out:
        return TeamOutcome("{who} is now paused by the research team as well as by their own STOP; both must be "
                           "lifted before anything is sent")
    return TeamOutcome(f"{{who}} is now {state.status}"
                       + ("; no scheduled message will be sent to them" if state.status != Status.ACTIVE else ""))


def _zone(state: TurnState, zone: str) -> TeamOutcome:
    was = state.timezone
    if was == zone:
        return TeamOutcome(f"{{who}} already uses {zone}; nothing changed")
    transitions.apply(state, "timezone_changed", actor=Actor.RESEARCHER, reason="changed by a researcher", value=zone)
    return TeamOutcome(f"{{who}} now uses {zone} (was {was}); their daily prompts follow the new local time from "
                       "the next one on")


def _number(state: TurnState, change: TeamChange) -> TeamOutcome:
    """Everything to them goes from ``change.value`` from now on (checked by whoever asked)."""
    was = state.number
    if not transitions.apply(state, "number_changed", actor=Actor.RESEARCHER,
                                   reason=change.reason or "moved by the team", value=change.value or ""):
        return TeamOutcome(f"{{who}} is written to from {change.value} already; nothing changed")
    return TeamOutcome(f"{{who}} is now written to from {change.value} (was {was or 'the default number'})")


def _extend(state: TurnState, change: TeamChange, study: Study, now: datetime) -> TeamOutcome:
    days = int(change.value or 0)
    state.quiet_hours = study.quiet_hours
    transitions.apply(state, "study_extended", actor=Actor.RESEARCHER, reason=f"extended by {days} days ({change.by})",
                      value=str(state.extra_days + days))
    last = last_day(study, state)
    if last is None:
        return TeamOutcome("extend needs a study file with length_days: set PROMPTPIPE_STUDY_FILE", "invalid")
    if state.completed:
        end = study_end(state.day_one, last, zone_or_utc(state.timezone)) if state.day_one else now
        if end <= now + timedelta(minutes=1):
            return TeamOutcome(f"{{who}}: even with {days} more days their study would already be over; extend by "
                               "more days", "invalid")
        transitions.apply(state, "reopened_by_researcher", actor=Actor.RESEARCHER,
                                reason=f"extended by {days} days ({change.by})")
    arm_study_end(state, study, now)
    if state.day_one is None:
        return TeamOutcome(f"{{who}}: extended by {days} days; their study will last {last} days from day 1 (not "
                           "set yet: it begins after intake)")
    final = state.day_one + timedelta(days=last - 1)
    return TeamOutcome(f"{{who}}: extended by {days} days; their last study day is now day {last} ({final})")


def team_change_outcome(deps: FlowDeps, context: TurnContext, row: InboxRow, change: TeamChange) -> Outcome:
    """The change applied to the turn's state, its outcome written back into the row (a refusal changes nothing)."""
    outcome = apply_team_change(context.state, change, deps.config.study, deps.clock.now())
    return Outcome(writes=[InboxNote(row, outcome.to_payload())], answered=[row], save_state=outcome.refused is None,
                   resync_alarms=outcome.refused is None,
                   log=("team_change", {"action": change.action, "refused": outcome.refused}))
