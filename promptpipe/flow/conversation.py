"""A turn the model answers: the module of the participant's stage, with their history window and running summary."""

from __future__ import annotations

import pickle
from collections.abc import Callable

from promptpipe.agents import FEEDBACK as FEEDBACK_MODULE
from promptpipe.agents import INTAKE as INTAKE_MODULE
from promptpipe.agents import AgentModule
from promptpipe.agents.agent import BUDGETS, GREETING_CUE, SAFETY_CUE
from promptpipe.agents.summary import fold_into_summary
from promptpipe.agents.toolloop import LoopResult
from promptpipe.domain import keys, transitions
from promptpipe.domain.command_words import Reply
from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.conversation import HistoryEntry, TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.domain.states import Stage
from promptpipe.domain.transition_log import Actor
from promptpipe.errors import ContextTooLong, LLMError
from promptpipe.flow import commands
from promptpipe.flow.context_notes import quote_note
from promptpipe.flow.lifecycle import RESUME_CUE, arm_intake_inactivity, resume_intake
from promptpipe.flow.safety_step import was_screened
from promptpipe.flow.turn import FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import Enrolled, MessageReceived
from promptpipe.pipeline.turn_writes import GreetingDropped, TurnWrite
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.tools import ToolContext
from promptpipe.transport import Recipient

__all__ = ["conversation_outcome", "model_inputs", "module_for", "respond", "restorer"]

log = get_logger("promptpipe.flow")


def module_for(state: TurnState, greeting: bool) -> AgentModule:
    """INTAKE for a greeting and by default; FEEDBACK in that stage, unless the plan cannot carry a prompt any more."""
    if greeting or state.sub_state != Stage.FEEDBACK:
        return INTAKE_MODULE
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        transitions.apply(state, "feedback_to_intake", actor=Actor.SERVER,
                          reason="in FEEDBACK but the profile lacks " + ", ".join(missing))
        return INTAKE_MODULE
    return FEEDBACK_MODULE


def model_inputs(context: TurnContext, batch: list[InboxRow]) -> list[str]:
    """The batch's texts as the model reads them: a swipe reply says what it answers."""
    inputs = []
    for item, event in zip(batch, context.events, strict=True):
        text = context.texts.get(item.id, "")
        if not text.strip():
            continue
        quoted = context.quoted.get(event.quoted_message_id or "") if isinstance(event, MessageReceived) else None
        inputs.append(f"{quote_note(quoted)}\n{text}" if quoted is not None else text)
    return inputs


async def conversation_outcome(deps: FlowDeps, context: TurnContext, batch: list[InboxRow],
                               inputs: list[str]) -> Outcome:
    """The model answers ``inputs`` (a greeting for a new participant)."""
    state = context.state
    greeting = isinstance(context.events[0], Enrolled)
    resumed = not greeting and bool(inputs) and resume_intake(state)
    module = module_for(state, greeting)
    cue = (GREETING_CUE if greeting else SAFETY_CUE if was_screened(context.events)
           else RESUME_CUE if resumed else None)
    result = await respond(deps, context, module, inputs, cue)
    # A greeting nobody asked for waits for the end of their quiet hours; the wait for their answer starts when it goes
    held = quiet_period_end(deps.config.study.quiet_hours, deps.clock.now(),
                            zone_or_utc(state.timezone)) if greeting else None
    arm_intake_inactivity(state, deps.config.policy_for(state), held or deps.clock.now())
    opted_out_by_model = any(c.event == ConsentKind.OPTED_OUT and c.source == ConsentSource.MODEL
                             for c in state.consent)
    reply = commands.reply(state, Reply.STOPPED) if opted_out_by_model else result.text
    kind = (MessageKind.GREETING if greeting else MessageKind.COMMAND if opted_out_by_model else MessageKind.TEXT)
    key = keys.command_reply(batch[-1].id) if opted_out_by_model else keys.reply(batch[-1].id)
    # a greeting still held for quiet hours would come after the conversation has begun: dropped (none: no statement)
    greeting_held = not greeting and any(entry.held_greeting for entry in context.history)
    dropped: list[TurnWrite] = [GreetingDropped(state.participant.id)] if greeting_held else []
    return Outcome([Outgoing(key, reply, kind, not_before=held)], writes=dropped, model_turn=True, log=("turn_done", {
        "module": module.name, "rounds": result.rounds, "tools": result.tools_called, "inputs": len(batch),
        "stopped": result.stopped, **({"reply": result.text} if deps.config.debug else {})}))


async def respond(deps: FlowDeps, context: TurnContext, module: AgentModule, texts: list[str],
                  cue: str | None) -> LoopResult:
    """Run the module; when the request does not fit the model's context, ask again with less, then give up."""
    state = context.state
    recipient = Recipient(phone=state.participant.phone, lid=state.participant.lid, number=state.number)
    await deps.typing(recipient, True)
    try:
        history = await _remembered(deps, state, context.history)
        state.turns_since_summary += 1
        kept: list[Callable[[], None]] = []

        def keep() -> None:  # before the first tool changes the state; a turn without tools (most) copies nothing
            if not kept:
                kept.append(restorer(state))

        for attempt, budget in enumerate(BUDGETS):
            ctx = ToolContext(state=state, llm=deps.llm, clock=deps.clock, prompts=deps.prompts,
                              policy=deps.config.policy_for(state), inbound=tuple(texts),
                              study=deps.config.study, before_change=keep)
            try:
                return await module.respond(ctx, history, texts, cue=cue, budget=budget)
            except ContextTooLong:
                if attempt == len(BUDGETS) - 1:
                    raise
                log.warning("context_too_long_retry", participant_id=state.participant.id, next_budget=attempt + 1)
                if kept:  # what the attempt's tools changed is undone
                    kept[0]()
        raise AssertionError("unreachable")
    finally:
        await deps.typing(recipient, False)


def restorer(state: TurnState) -> Callable[[], None]:
    """What puts ``state`` back as it is now (for a retry with less context, after tools changed it): its pickle, a
    deep copy taken in a third of ``copy.deepcopy``'s time (a tenth of a turn's decision), unpickled only on a retry."""
    frozen = pickle.dumps(state, pickle.HIGHEST_PROTOCOL)

    def restore() -> None:
        vars(state).update(vars(pickle.loads(frozen)))  # our own bytes, made just above

    return restore


async def _remembered(deps: FlowDeps, state: TurnState, history: list[HistoryEntry]) -> list[HistoryEntry]:
    """The last ``history_window`` messages; all but their newer half is folded into the summary once uncovered ones
    fell out of it (the overlap: messages leave the window already summarised)."""
    window, every = deps.config.history_window, deps.config.summary_every_turns
    if window <= 0:
        return []
    visible = history[-window:]
    if len(history) <= window or every <= 0 or state.turns_since_summary < every:
        return visible
    older = history[:-(window // 2)] if window >= 2 else history
    try:
        state.summary = await fold_into_summary(deps.llm, deps.prompts.summary, state.summary, older,
                                                state.participant.name)
    except (LLMError, ValueError) as exc:  # tried again next turn
        log.warning("summary_failed", participant_id=state.participant.id, error=str(exc)[:200])
        return visible
    state.summary_through, state.turns_since_summary = older[-1].id, 0
    log.info("summary_updated", participant_id=state.participant.id, folded=len(older),
             through=state.summary_through, chars=len(state.summary))
    return visible
