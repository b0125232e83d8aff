"""What a participant's timers do when they fire, and which timers a turn arms.

Every timer arrives as an inbox row in the participant's lane, so it never races their messages.
A timer checks the situation again before acting: a hand-over that already happened, or a
feedback question for someone who moved on, does nothing.
"""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain.states import FEEDBACK, INTAKE
from promptpipe.domain.timers import (
    AUTO_FEEDBACK,
    FEEDBACK_CHECK_IN,
    FEEDBACK_FOLLOWUP,
    FEEDBACK_TIMERS,
    REMINDER,
    TRANSITION,
    NudgePolicy,
)
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.transitions import (
    ARM_CHECK_IN,
    CANCEL_AUTO_FEEDBACK,
    CANCEL_FEEDBACK_TIMERS,
    MOVE_TO,
    stage_effects,
)

REMINDER_TEXT = (
    "Just checking in on today's small step. Whenever you have a moment, tell me how it went; "
    "a quick \"done\" or \"not today\" is plenty."
)


def arm_after_prompt(state: TurnState, policy: NudgePolicy, now: datetime, prompt_inbox_id: int) -> None:
    """A daily prompt went out: remind if no reply, and hand over to feedback if still silent."""
    if policy.reminder_delay.total_seconds() > 0:
        state.arm_timer(REMINDER, now + policy.reminder_delay, {"prompt_inbox_id": prompt_inbox_id},
                        reason="daily prompt sent")
    if policy.auto_feedback and state.sub_state != FEEDBACK:
        state.arm_timer(AUTO_FEEDBACK, now + policy.auto_feedback_delay, {"prompt_inbox_id": prompt_inbox_id},
                        reason="daily prompt sent")
    elif state.sub_state == FEEDBACK and policy.feedback_initial_timeout.total_seconds() > 0:
        # Already in FEEDBACK: the check-in clock starts with the prompt.
        state.arm_timer(FEEDBACK_CHECK_IN, now + policy.feedback_initial_timeout, reason="daily prompt sent")


def apply_stage_effects(state: TurnState, policy: NudgePolicy, now: datetime) -> None:
    """Carry out the timer effects the turn's change of stage declares (see domain.transitions)."""
    effects = stage_effects(state)
    if CANCEL_AUTO_FEEDBACK in effects and state.timer_pending_after_commit(AUTO_FEEDBACK):
        state.cancel_timers(AUTO_FEEDBACK, reason="already in FEEDBACK")
    if ARM_CHECK_IN in effects and policy.feedback_initial_timeout.total_seconds() > 0:
        state.arm_timer(FEEDBACK_CHECK_IN, now + policy.feedback_initial_timeout, reason="entered FEEDBACK")
    if CANCEL_FEEDBACK_TIMERS in effects:
        pending = [kind for kind in FEEDBACK_TIMERS if state.timer_pending_after_commit(kind)]
        if pending:
            state.cancel_timers(*pending, reason="back in INTAKE")


def apply_silent_timer(state: TurnState, kind: str, payload: dict[str, object], policy: NudgePolicy) -> str | None:
    """Timers that change state without a message: returns a log note, or None if moot."""
    if kind == AUTO_FEEDBACK:
        minutes = round(policy.auto_feedback_delay.total_seconds() / 60)
        moved = state.apply(MOVE_TO[FEEDBACK], actor="timer", reason=f"no reply {minutes} min after the daily prompt")
        return "moved to FEEDBACK" if moved else None
    if kind == TRANSITION:
        target = str(payload.get("target") or "")
        reason = str(payload.get("reason") or "delayed transition")
        if target not in (INTAKE, FEEDBACK):
            return None
        moved = state.apply(MOVE_TO[target], actor="timer", reason=f"delayed: {reason}")
        return f"moved to {target}" if moved else None
    return None


MESSAGE_TIMERS = (REMINDER, FEEDBACK_CHECK_IN, FEEDBACK_FOLLOWUP)
