"""A daily prompt and its "did you do it?" poll, both in the transcript so the feedback module sees what is answered."""

from __future__ import annotations

from datetime import date, datetime

from promptpipe.domain import keys, transitions
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.polls import DONE_PURPOSE, POLL_OPTIONS, POLL_QUESTION
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.states import Stage, Status
from promptpipe.domain.timers import NudgePolicy, TimerKind
from promptpipe.domain.transition_log import Actor
from promptpipe.errors import LLMUnavailable, ToolArgumentError
from promptpipe.flow import decisions, intensity, lifecycle
from promptpipe.flow.timers import arm_after_prompt, lateness
from promptpipe.flow.turn import FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.pipeline.events import DailyPromptDue
from promptpipe.pipeline.turn_writes import Decision, Delivery, TurnWrite
from promptpipe.questionnaires.conversation.answer import ask_again_after
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import FIXED_STYLE, PERSONALISED, NotSent
from promptpipe.study.store.decisions import DecisionValues
from promptpipe.tools import write_habit_prompt

_FIELD_WORDS = {
    "prompt_anchor": "the everyday moment your habit can follow",
    "preferred_time": "when you'd like to get your nudge",
}


def missing_fields_message(missing: list[str]) -> str:
    needed = " and ".join(_FIELD_WORDS.get(name, name.replace("_", " ")) for name in missing)
    return (
        f"It's time for your daily nudge, but I can't write it yet: I still need to know {needed}. "
        "Could you tell me?"
    )


async def prepare_daily_prompt(
    deps: FlowDeps, state: TurnState, *, inbox_id: int, now: datetime, policy: NudgePolicy, local_day: date,
    style: str = PERSONALISED, day: int | None = None,
) -> list[Outgoing]:
    """What to send for one daily prompt in ``style``; back to intake when the profile cannot carry it."""
    if style == FIXED_STYLE:
        text = decisions.fixed_prompt(deps.config, state, day)
    else:
        missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
        if missing:
            if state.sub_state == Stage.FEEDBACK:  # in intake (or with intake on hold) it is where it belongs
                transitions.apply(state, "feedback_to_intake", actor=Actor.SERVER,
                                  reason="daily prompt due but the profile lacks " + ", ".join(missing))
            return [Outgoing(keys.reply(inbox_id), missing_fields_message(missing), MessageKind.TEXT)]
        try:
            text = await write_habit_prompt(deps.llm, state, deps.prompts.prompt_generator, delivery_mode="scheduled")
        except ToolArgumentError as exc:  # the writer answered nothing: try again later
            raise LLMUnavailable(f"prompt generator gave no prompt ({exc})") from exc
    record = state.profile.record
    record.last_habit_prompt, record.last_prompt_sent_at, record.last_prompt_vote = text, now.isoformat(), None
    arm_after_prompt(state, policy, now, inbox_id)
    outgoing = [
        Outgoing(keys.prompt_text(inbox_id), text, MessageKind.PROMPT, {"style": style}),
        Outgoing(keys.prompt_poll(inbox_id), POLL_QUESTION, MessageKind.POLL,
                 {"options": list(POLL_OPTIONS), "purpose": DONE_PURPOSE}),
    ]
    if policy.intensity_poll and (options := intensity.poll_options(state, local_day)):
        outgoing.append(Outgoing(keys.intensity_poll(inbox_id), intensity.QUESTION, MessageKind.POLL,
                                 {"options": options, "purpose": intensity.PURPOSE}))
    return outgoing


def delivery_writes(state: TurnState, outgoing: list[Outgoing], *, inbox_id: int, schedule_id: str | None,
                    local_day: date, now: datetime, decision: DecisionValues | None = None) -> list[TurnWrite]:
    """Write the decision point, and record the prompt as a delivery (its poll is how votes find it)."""
    prompt = next((o for o in outgoing if o.kind == MessageKind.PROMPT), None)
    writes: list[TurnWrite] = [] if decision is None else [Decision(decision, keys.prompt_text(inbox_id))]
    if prompt is not None:
        writes.append(Delivery(state.participant.id, inbox_id, schedule_id, local_day.isoformat(), prompt.text,
                               (keys.prompt_text(inbox_id), keys.prompt_poll(inbox_id), keys.intensity_poll(inbox_id)),
                               state.profile.record, now))
    return writes


async def _drawn_prompt(deps: FlowDeps, state: TurnState, point: decisions.DecisionPoint, *, inbox_id: int,
                        policy: NudgePolicy, local_day: date, now: datetime) -> tuple[list[Outgoing], NotSent | None]:
    """What the decision point sends, or why a drawn prompt does not go out (too late: until then it is retried)."""
    study = deps.config.study
    if not point.sends or point.style is None:
        return [], None
    if decisions.after_outcome_question(study, state.timezone, local_day, point.row.scheduled_for, now):
        return [], NotSent.AFTER_OUTCOME_QUESTION
    try:
        return await prepare_daily_prompt(deps, state, inbox_id=inbox_id, now=now, policy=policy, local_day=local_day,
                                          style=point.style, day=point.row.study_day), None
    except LLMUnavailable:
        if not decisions.too_late_to_send(study.quiet_hours, state.timezone, local_day, now):
            raise
        return [], NotSent.MODEL_OUTAGE


async def daily_prompt_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, event: DailyPromptDue) -> Outcome:
    """A daily prompt time: decide, send and record (one asked for by hand: the arm's style, no decision point)."""
    state, now, config = context.state, deps.clock.now(), deps.config
    policy = config.policy_for(state)
    local_day = (date.fromisoformat(event.local_date) if event.local_date
                 else now.astimezone(zone_or_utc(state.timezone)).date())
    if event.manual and event.not_before and datetime.fromisoformat(event.not_before) > now:
        state.arm_timer(TimerKind.PROMPT_NOW, datetime.fromisoformat(event.not_before),
                        {"model_free": True} if event.model_free else None, reason="asked for in quiet hours")
        return Outcome(log=("daily_prompt_held", {"until": event.not_before, "manual": True}))
    if event.manual or event.schedule_id is None:
        style = config.study.arm(state.participant.arm).prompt_style
        by_hand = await prepare_daily_prompt(deps, state, inbox_id=item.id, now=now, policy=policy,
                                             local_day=local_day, style=style)
        writes = delivery_writes(state, by_hand, inbox_id=item.id, local_day=local_day, now=now, schedule_id=None)
        return Outcome(by_hand, writes=writes, log=("daily_prompt_done", {
            "sent": [o.kind for o in by_hand], "local_date": local_day.isoformat(), "manual": True}))
    if config.study.in_use and state.day_one is None and state.status == Status.ACTIVE:
        lifecycle.complete_intake_for_prompt(state, now)  # day 1 follows at commit
    if config.study.in_use:
        lifecycle.end_if_overdue(state, config.study, now)
    draw_key = keys.decision_draw(keys.daily_prompt(state.participant.id, event.schedule_id, local_day))
    point = decisions.decide(config, state, event, inbox_id=item.id, inbox_key=draw_key, local_day=local_day,
                             now=now, seed=context.study_seed)
    outgoing, not_sent = await _drawn_prompt(deps, state, point, inbox_id=item.id, policy=policy,
                                             local_day=local_day, now=now)
    sent = any(o.kind == MessageKind.PROMPT for o in outgoing)
    personalised = sent and point.style == PERSONALISED
    prompt_hash = decisions.prompt_hash(deps.prompts.prompt_generator) if personalised else None
    decision = point.as_run(style=point.style if sent else None, model=config.model_name if personalised else None,
                            system_prompt_hash=prompt_hash, not_sent_reason=not_sent)
    outcome = Outcome(outgoing, writes=delivery_writes(state, outgoing, inbox_id=item.id, local_day=local_day, now=now,
                                                       schedule_id=event.schedule_id, decision=decision))
    if sent and state.questionnaire is not None:  # it came in the middle of a questionnaire: back to it
        ask_again_after(outcome, state, config.study, item)
    outcome.log = ("daily_prompt_done", {
        "sent": [o.kind for o in outgoing], "local_date": local_day.isoformat(), "study_day": point.row.study_day,
        "available": point.row.available, "unavailable_reason": point.row.unavailable_reason,
        "action": point.row.action, "not_sent_reason": not_sent, "late_s": lateness(event.due_at, now)})
    return outcome
