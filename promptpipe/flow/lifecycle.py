"""The participant's way through the study beside the conversation: intake on hold and resumed, study days, the end."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.domain import keys, transitions
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.phrases import is_escape
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.domain.states import INTAKE_STAGES, Stage, Status
from promptpipe.domain.timers import NudgePolicy, TimerKind
from promptpipe.domain.transition_log import Actor
from promptpipe.flow.turn import FlowConfig, FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.pipeline.events import Enrolled, as_input
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import InboxRow, add_input
from promptpipe.storage.transcript import never_greeted
from promptpipe.study.rules.days import day_one, study_end
from promptpipe.study.rules.protocol import AFTER_ENROLLMENT, Study

__all__ = ["INTAKE_ON_HOLD", "INTAKE_REMINDER_TEXT", "RESUME_CUE", "arm_intake_inactivity", "arm_intake_reminder",
           "complete_intake_for_prompt", "end_if_overdue", "escape_outcome", "greet_if_never_greeted",
           "intake_inactive_outcome", "intake_reminder_outcome", "last_day", "resume_intake", "start_study_days",
           "study_end_outcome"]

INTAKE_ON_HOLD = (
    "No problem, we can set up your habit another time. I'll check back in a while, and whenever "
    "you're ready, just write to me here. (If you'd rather not hear from the study at all, send STOP.)"
)
INTAKE_REMINDER_TEXT = (
    "Hi again! Whenever you have a couple of minutes, we can finish setting up your small daily habit. "
    "Just reply here and we'll pick up where we left off."
)
RESUME_CUE = (
    "[Event, not written by the participant] Setting up the habit was put on hold earlier; the "
    "participant has just written again. Welcome them back in a few words, say briefly what you "
    "already know about their plan (if anything), and ask only for what is still missing. If they "
    "still do not want to go on now, respect that and put intake on hold again."
)


# ------------------------------------------------------------------------------------- on hold

def escape_outcome(context: TurnContext, batch: list[InboxRow]) -> Outcome | None:
    """An escape phrase as the batch's last words during intake: on hold, acknowledged (reminder armed at commit)."""
    state = context.state
    texts = [context.texts.get(item.id, "") for item in batch if context.texts.get(item.id, "").strip()]
    if state.status != Status.ACTIVE or state.sub_state not in INTAKE_STAGES or not texts or not is_escape(texts[-1]):
        return None
    transitions.apply(state, "intake_suspended", actor=Actor.PARTICIPANT,
                      reason=f"they wrote {texts[-1].strip()[:40]!r}")
    return Outcome([Outgoing(keys.command_reply(batch[-1].id), INTAKE_ON_HOLD, MessageKind.COMMAND)],
                   log=("intake_on_hold", {"by": "participant"}))


def resume_intake(state: TurnState) -> bool:
    """They wrote while intake was on hold: intake goes on (the model hears :data:`RESUME_CUE`)."""
    if state.sub_state != Stage.INTAKE_SUSPENDED:
        return False
    state.profile.record.intake_reminders = 0
    return transitions.apply(state, "intake_resumed", actor=Actor.PARTICIPANT, reason="they wrote again")


def arm_intake_inactivity(state: TurnState, policy: NudgePolicy, now: datetime) -> None:
    """After an intake turn: on hold if they stay silent for INTAKE_INACTIVITY (armed once; it checks the last turn)."""
    state.profile.record.last_turn_at = now.isoformat()
    if (state.sub_state == Stage.INTAKE and state.status == Status.ACTIVE and policy.intake_inactivity > timedelta(0)
            and not state.timer_pending_after_commit(TimerKind.INTAKE_INACTIVE)):
        state.arm_timer(TimerKind.INTAKE_INACTIVE, now + policy.intake_inactivity, reason="intake waits for an answer")


def arm_intake_reminder(state: TurnState, policy: NudgePolicy, now: datetime) -> None:
    """The next intake reminder, while reminders are left (quiet hours move it; see TurnState)."""
    record = state.profile.record
    if policy.intake_reminder_delay <= timedelta(0) or record.intake_reminders >= policy.intake_reminder_max:
        return
    state.arm_timer(TimerKind.INTAKE_REMINDER, now + policy.intake_reminder_delay, reason="intake on hold")


def intake_inactive_outcome(state: TurnState, policy: NudgePolicy, now: datetime) -> str | None:
    """The inactivity timer fired: on hold if the last intake turn is INTAKE_INACTIVITY old, else wait till it is."""
    if state.sub_state != Stage.INTAKE or state.status != Status.ACTIVE or policy.intake_inactivity <= timedelta(0):
        return None
    last = state.profile.record.last_turn_at
    quiet_since = datetime.fromisoformat(last) if last else None
    if quiet_since is not None and now < quiet_since + policy.intake_inactivity - timedelta(seconds=1):
        state.arm_timer(TimerKind.INTAKE_INACTIVE, quiet_since + policy.intake_inactivity,
                        reason="intake waits for an answer")
        return "they talked since: checked again later"
    transitions.apply(state, "intake_suspended", actor=Actor.TIMER, reason="no answer during intake")
    return "intake on hold"


def intake_reminder_outcome(state: TurnState, policy: NudgePolicy, item: InboxRow,
                            now: datetime) -> tuple[list[Outgoing], str | None]:
    """Invite them back to intake (if it is still on hold and reminders are left)."""
    record = state.profile.record
    if (state.sub_state != Stage.INTAKE_SUSPENDED or state.status != Status.ACTIVE
            or record.intake_reminders >= policy.intake_reminder_max):
        return [], None
    record.intake_reminders += 1
    arm_intake_reminder(state, policy, now)
    return [Outgoing(keys.intake_reminder(item.id), INTAKE_REMINDER_TEXT, MessageKind.REMINDER)], "intake reminder sent"


# ---------------------------------------------------------------------------------- study days

def last_day(study: Study, state: TurnState) -> int | None:
    """The participant's last study day (the study's length plus their extension; None: open-ended)."""
    return None if study.length_days is None else study.length_days + state.extra_days


def start_study_days(state: TurnState, config: FlowConfig, now: datetime) -> None:
    """Set study day 1 once it is known, and arm the end of the last day."""
    study = config.study
    if not study.in_use or state.day_one is not None or state.status in (Status.WITHDRAWN, Status.COMPLETED):
        return
    zone = zone_or_utc(state.timezone)
    enrolled = state.participant.enrolled_at or now
    if study.day_one == AFTER_ENROLLMENT:
        first = day_one(AFTER_ENROLLMENT, intake_completed_on=None, enrolled_on=enrolled.astimezone(zone).date())
        why = "the day after enrollment"
    elif state.sub_state == Stage.FEEDBACK:
        first = day_one(study.day_one, intake_completed_on=now.astimezone(zone).date(),
                        enrolled_on=enrolled.astimezone(zone).date())
        why = "the day after intake was completed"
    else:
        return
    assert first is not None
    transitions.apply(state, "study_started", actor=Actor.SERVER, reason=f"study day 1 is {why}",
                      value=first.isoformat())
    arm_study_end(state, study, now)


def arm_study_end(state: TurnState, study: Study, now: datetime) -> None:
    last = last_day(study, state)
    if last is None or state.day_one is None:
        return
    end = study_end(state.day_one, last, zone_or_utc(state.timezone))
    state.arm_timer(TimerKind.STUDY_END, max(end, now), {"last_day": last}, reason=f"end of study day {last}")


def end_if_overdue(state: TurnState, study: Study, now: datetime) -> bool:
    """A daily prompt after their last study day with no end pending (issue 48's missed ends): the end is armed now."""
    last = last_day(study, state)
    if (last is None or state.day_one is None or state.status not in (Status.ACTIVE, Status.PAUSED)
            or state.timer_pending_after_commit(TimerKind.STUDY_END)
            or study_end(state.day_one, last, zone_or_utc(state.timezone)) > now):
        return False
    arm_study_end(state, study, now)
    return True


def complete_intake_for_prompt(state: TurnState, now: datetime) -> bool:
    """A daily prompt came due before study day 1 with the plan in place: intake is complete; day 1 follows."""
    if state.sub_state not in INTAKE_STAGES or state.missing_fields(PROMPT_REQUIRED_FIELDS):
        return False
    return transitions.apply(state, "intake_to_feedback", actor=Actor.SERVER,
                             reason="the first daily prompt came due with the habit plan in place")


def study_end_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, last: int | None) -> Outcome:
    """The last study day is over: completed, with the closing message unless paused."""
    state, study, now = context.state, deps.config.study, deps.clock.now()
    if state.status not in (Status.ACTIVE, Status.PAUSED) or state.day_one is None:
        return Outcome(save_state=False, log=("timer_done", {"kind": TimerKind.STUDY_END, "outcome": "nothing to do"}))
    current_last = last_day(study, state)
    if current_last is None or study_end(state.day_one, current_last, zone_or_utc(state.timezone)) > now:
        return Outcome(save_state=False,
                       log=("timer_done", {"kind": TimerKind.STUDY_END, "outcome": "study still running"}))
    send = state.status == Status.ACTIVE
    transitions.apply(state, "study_completed", actor=Actor.TIMER, reason=f"study day {current_last} was the last")
    # Late (the service was down) inside quiet hours: completed now, the closing message at their end.
    held = quiet_period_end(study.quiet_hours, now, zone_or_utc(state.timezone)) if send else None
    outgoing = [Outgoing(keys.closing(item.id), study.closing_message, MessageKind.CLOSING, not_before=held)
                ] if send else []
    return Outcome(outgoing, log=("study_completed", {"last_day": current_last, "closing_message": send,
                                                      "planned_last_day": last,
                                                      "held_until": held.isoformat() if held else None}))


def greet_if_never_greeted(db: Database, session: Session, state: TurnState, now: datetime) -> bool:
    """After a change that made them active again, in its transaction: queue a greeting if none reached them yet."""
    if not state.greet_if_never_greeted:
        return False
    state.greet_if_never_greeted = False
    pid = state.participant.id
    if not never_greeted(session, pid, greeting_key=keys.enrollment(pid)):
        return False
    key = keys.greeting_again(pid, secrets.token_hex(4))
    return add_input(db, session, as_input(Enrolled(), key=key, participant_id=pid), now) is not None
