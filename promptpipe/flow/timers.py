"""What timers do when they fire (in the lane: never racing messages; one for someone who moved on does nothing)."""

from __future__ import annotations

from datetime import datetime

from promptpipe.agents import FEEDBACK as FEEDBACK_MODULE
from promptpipe.agents.agent import CHECK_IN_CUE, FOLLOW_UP_CUE
from promptpipe.domain import keys, transitions
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.domain.states import Stage
from promptpipe.domain.timers import FEEDBACK_TIMERS, INTAKE_TIMERS, SENDS_MESSAGE, NudgePolicy, TimerKind
from promptpipe.domain.transition_log import Actor
from promptpipe.flow import lifecycle
from promptpipe.flow.conversation import respond
from promptpipe.flow.turn import FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.pipeline import events
from promptpipe.pipeline.turn_writes import ReminderSent, TurnWrite
from promptpipe.questionnaires.conversation.queue import questionnaire_due_outcome
from promptpipe.storage.inbox_rows import InboxRow

REMINDER_TEXT = (
    "Just checking in on your latest small step. Whenever you have a moment, tell me how it went; "
    "a quick \"done\" or \"not this time\" is plenty."
)


def arm_after_prompt(state: TurnState, policy: NudgePolicy, now: datetime, prompt_inbox_id: int) -> None:
    """A daily prompt went out: remind if no reply, and hand over to feedback if still silent."""
    if policy.reminder_delay.total_seconds() > 0:
        state.arm_timer(TimerKind.REMINDER, now + policy.reminder_delay, {"prompt_inbox_id": prompt_inbox_id},
                        reason="daily prompt sent")
    if policy.auto_feedback and state.sub_state != Stage.FEEDBACK:
        state.arm_timer(TimerKind.AUTO_FEEDBACK, now + policy.auto_feedback_delay, {"prompt_inbox_id": prompt_inbox_id},
                        reason="daily prompt sent")
    elif state.sub_state == Stage.FEEDBACK and policy.feedback_initial_timeout.total_seconds() > 0:
        # Already in FEEDBACK: the check-in clock starts with the prompt.
        state.arm_timer(TimerKind.FEEDBACK_CHECK_IN, now + policy.feedback_initial_timeout, reason="daily prompt sent")


def apply_stage_effects(state: TurnState, policy: NudgePolicy, now: datetime) -> None:
    """Carry out the timer effects the turn's change of stage declares (see domain.transitions)."""
    effects = transitions.stage_effects(state)
    if transitions.CANCEL_AUTO_FEEDBACK in effects and state.timer_pending_after_commit(TimerKind.AUTO_FEEDBACK):
        state.cancel_timers(TimerKind.AUTO_FEEDBACK, reason="already in FEEDBACK")
    if transitions.ARM_CHECK_IN in effects and policy.feedback_initial_timeout.total_seconds() > 0:
        state.arm_timer(TimerKind.FEEDBACK_CHECK_IN, now + policy.feedback_initial_timeout, reason="entered FEEDBACK")
    if transitions.CANCEL_FEEDBACK_TIMERS in effects:
        state.cancel_timers(*filter(state.timer_pending_after_commit, FEEDBACK_TIMERS), reason="back in INTAKE")
    cancel = INTAKE_TIMERS if transitions.CANCEL_INTAKE_TIMERS in effects else (
        (TimerKind.INTAKE_REMINDER,) if transitions.CANCEL_INTAKE_REMINDER in effects else ())
    state.cancel_timers(*filter(state.timer_pending_after_commit, cancel), reason=f"now in {state.sub_state}")
    if transitions.ARM_INTAKE_REMINDER in effects:
        state.profile.record.intake_reminders = 0
        lifecycle.arm_intake_reminder(state, policy, now)


def lateness(due_at: str | None, now: datetime) -> float | None:
    """Seconds from when an event was due to now (logged, and read by the benchmarks)."""
    return None if not due_at else round((now - datetime.fromisoformat(due_at)).total_seconds(), 3)


async def timer_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, event: events.TimerEvent) -> Outcome:
    """What a timer does when it fires; one that would send inside quiet hours (fired late, say) waits for their end."""
    state, now = context.state, deps.clock.now()
    policy = deps.config.policy_for(state)
    if isinstance(event, events.StudyEndDue):
        return lifecycle.study_end_outcome(deps, context, item, event.last_day)
    if isinstance(event, events.QuestionnaireDue):
        return questionnaire_due_outcome(deps.config.study, context, item, event, now)
    quiet = deps.config.study.quiet_hours
    if event.kind in SENDS_MESSAGE and in_quiet_hours(quiet, now, zone_or_utc(state.timezone)):
        payload = {k: v for k, v in item.payload.items() if k not in ("timer_id", "due_at", "timer_kind")}
        state.arm_timer(event.kind, now, payload, reason="came due in quiet hours")
        return Outcome(log=("timer_done", {"kind": event.kind, "outcome": "moved out of quiet hours",
                                           "late_s": lateness(event.due_at, now)}))
    outgoing, writes, note = await _fired(deps, context, item, event, policy, now)
    return Outcome(outgoing, writes=writes, log=("timer_done", {
        "kind": event.kind, "outcome": note or "nothing to do", "late_s": lateness(event.due_at, now)}))


async def _fired(deps: FlowDeps, context: TurnContext, item: InboxRow, event: events.TimerEvent, policy: NudgePolicy,
                 now: datetime) -> tuple[list[Outgoing], list[TurnWrite], str | None]:
    state = context.state
    if isinstance(event, events.SelfReportDue):  # armed before the self-report ran as a questionnaire
        return [], [], "the self-report is planned as a questionnaire now"
    if isinstance(event, events.ReminderDue):
        # the reminder goes on the record of the prompt it follows
        writes: list[TurnWrite] = [] if event.prompt_inbox_id is None else [ReminderSent(event.prompt_inbox_id, now)]
        return [Outgoing(keys.reminder(item.id), REMINDER_TEXT, MessageKind.REMINDER)], writes, "reminder sent"
    if isinstance(event, events.CheckInDue | events.FollowUpDue):
        if state.sub_state != Stage.FEEDBACK:
            return [], [], None
        cue = CHECK_IN_CUE if isinstance(event, events.CheckInDue) else FOLLOW_UP_CUE
        result = await respond(deps, context, FEEDBACK_MODULE, [], cue)
        if isinstance(event, events.CheckInDue) and policy.feedback_followup_delay.total_seconds() > 0:
            state.arm_timer(TimerKind.FEEDBACK_FOLLOWUP, now + policy.feedback_followup_delay,
                            reason="check-in unanswered")
        return [Outgoing(keys.check_in(item.id), result.text, MessageKind.CHECK_IN)], [], f"{event.kind} sent"
    if isinstance(event, events.IntakeInactiveDue):
        return [], [], lifecycle.intake_inactive_outcome(state, policy, now)
    if isinstance(event, events.IntakeReminderDue):
        outgoing, note = lifecycle.intake_reminder_outcome(state, policy, item, now)
        return outgoing, [], note
    if isinstance(event, events.AutoFeedbackDue):
        minutes = round(policy.auto_feedback_delay.total_seconds() / 60)
        moved = transitions.apply(state, transitions.MOVE_TO[Stage.FEEDBACK], actor=Actor.TIMER,
                                  reason=f"no reply {minutes} min after the daily prompt")
        return [], [], "moved to FEEDBACK" if moved else None
    if isinstance(event, events.DelayedTransitionDue) and event.target in (Stage.INTAKE, Stage.FEEDBACK):
        moved = transitions.apply(state, transitions.MOVE_TO[event.target], actor=Actor.TIMER,
                                  reason=f"delayed: {event.reason or 'delayed transition'}")
        return [], [], f"moved to {event.target}" if moved else None
    return [], [], None
