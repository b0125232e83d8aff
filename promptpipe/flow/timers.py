"""What a participant's timers do when they fire, and which timers a turn arms.

Every timer arrives as an inbox row in the participant's lane, so it never races their messages.
A timer checks the situation again before acting: a hand-over that already happened, or a
feedback question for someone who moved on, does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.agents import FEEDBACK as FEEDBACK_MODULE
from promptpipe.agents.agent import CHECK_IN_CUE, FOLLOW_UP_CUE
from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.states import FEEDBACK, INTAKE
from promptpipe.domain.timers import (
    AUTO_FEEDBACK,
    FEEDBACK_CHECK_IN,
    FEEDBACK_FOLLOWUP,
    FEEDBACK_TIMERS,
    REMINDER,
    NudgePolicy,
)
from promptpipe.domain.transitions import (
    ARM_CHECK_IN,
    CANCEL_AUTO_FEEDBACK,
    CANCEL_FEEDBACK_TIMERS,
    MOVE_TO,
    stage_effects,
)
from promptpipe.flow.conversation import respond
from promptpipe.flow.turn import CommitHook, FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.pipeline.events import AutoFeedbackDue, CheckInDue, FollowUpDue, ReminderDue, TimerEvent
from promptpipe.storage.deliveries import mark_reminder_sent
from promptpipe.storage.inbox_rows import InboxRow

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


def _reminder_recorded(prompt_inbox_id: int, now: datetime) -> CommitHook:
    def write(session: Session, _: Mapping[str, int | None]) -> None:
        mark_reminder_sent(session, prompt_inbox_id, now)

    return write


def lateness(due_at: str | None, now: datetime) -> float | None:
    """Seconds from when an event was due to now (logged, and read by the benchmarks)."""
    return None if not due_at else round((now - datetime.fromisoformat(due_at)).total_seconds(), 3)


async def timer_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, event: TimerEvent) -> Outcome:
    """What a timer does when it fires: a reminder, a check-in the feedback module writes, or a
    change of stage; a timer whose moment has passed (they moved on) does nothing."""
    state, now, policy = context.state, deps.clock.now(), deps.config.policy
    outgoing: list[Outgoing] = []
    hook: CommitHook | None = None
    note: str | None = None
    if isinstance(event, ReminderDue):
        outgoing = [Outgoing(keys.reminder(item.id), REMINDER_TEXT, "reminder")]
        note = "reminder sent"
        if event.prompt_inbox_id is not None:  # the reminder goes on the record of the prompt it follows
            hook = _reminder_recorded(event.prompt_inbox_id, now)
    elif isinstance(event, CheckInDue | FollowUpDue):
        if state.sub_state == FEEDBACK:
            cue = CHECK_IN_CUE if isinstance(event, CheckInDue) else FOLLOW_UP_CUE
            result = await respond(deps, context, FEEDBACK_MODULE, [], cue)
            outgoing = [Outgoing(keys.check_in(item.id), result.text, "check_in")]
            if isinstance(event, CheckInDue) and policy.feedback_followup_delay.total_seconds() > 0:
                state.arm_timer(FEEDBACK_FOLLOWUP, now + policy.feedback_followup_delay, reason="check-in unanswered")
            note = f"{event.kind} sent"
    elif isinstance(event, AutoFeedbackDue):
        minutes = round(policy.auto_feedback_delay.total_seconds() / 60)
        moved = state.apply(MOVE_TO[FEEDBACK], actor="timer", reason=f"no reply {minutes} min after the daily prompt")
        note = "moved to FEEDBACK" if moved else None
    elif event.target in (INTAKE, FEEDBACK):
        moved = state.apply(MOVE_TO[event.target], actor="timer",
                            reason=f"delayed: {event.reason or 'delayed transition'}")
        note = f"moved to {event.target}" if moved else None
    return Outcome(outgoing, hook=hook, log=("timer_done", {
        "kind": event.kind, "outcome": note or "nothing to do", "late_s": lateness(event.due_at, now)}))
