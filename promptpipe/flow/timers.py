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


def arm_after_hand_over(state: TurnState, policy: NudgePolicy, now: datetime) -> None:
    """Keep the feedback timers in step with the sub-state this turn ends in."""
    moves = [t for t in state.transitions if t.kind == "sub_state"]
    if not moves:
        return
    if moves[-1].to_value == FEEDBACK:
        if state.timer_pending_after_commit(AUTO_FEEDBACK):
            state.cancel_timers(AUTO_FEEDBACK, reason="already in FEEDBACK")
        if policy.feedback_initial_timeout.total_seconds() > 0:
            state.arm_timer(FEEDBACK_CHECK_IN, now + policy.feedback_initial_timeout, reason="entered FEEDBACK")
    elif moves[-1].to_value == INTAKE:
        pending = [kind for kind in FEEDBACK_TIMERS if state.timer_pending_after_commit(kind)]
        if pending:
            state.cancel_timers(*pending, reason="back in INTAKE")


def apply_silent_timer(state: TurnState, kind: str, payload: dict[str, object], policy: NudgePolicy) -> str | None:
    """Timers that change state without a message: returns a log note, or None if moot."""
    if kind == AUTO_FEEDBACK:
        minutes = round(policy.auto_feedback_delay.total_seconds() / 60)
        moved = state.move_to(FEEDBACK, reason=f"no reply {minutes} min after the daily prompt")
        return "moved to FEEDBACK" if moved else None
    if kind == TRANSITION:
        target = str(payload.get("target") or "")
        reason = str(payload.get("reason") or "delayed transition")
        if target not in (INTAKE, FEEDBACK):
            return None
        return f"moved to {target}" if state.move_to(target, reason=f"delayed: {reason}") else None
    return None


MESSAGE_TIMERS = (REMINDER, FEEDBACK_CHECK_IN, FEEDBACK_FOLLOWUP)
