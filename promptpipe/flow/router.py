"""ConversationFlow: turns a batch of inbox rows for one participant into one committed result.

Routing is event-first: the safety screen (crisis phrases get the study's safety message and a
flag, committed on their own before anything else) → commands (STOP, START/RESUME, HELP, after
normalisation; see :mod:`promptpipe.flow.commands` for folded batches) → votes and other events
→ participants who are not active get no model → an enrollment event gets a greeting from intake
whatever the stage; other messages go to the module of the participant's sub-state (INTAKE by
default, FEEDBACK).
Nothing is written until the turn is complete; then the new state, the transition log, the reply
(transcript + outbox) and the "done" marks on the inbox rows commit in one transaction. A step
that commits part of a batch (the screen, the commands) returns True: the lane runs what is left.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.clock import Clock
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import (
    QuotedMessage, annotate_message, mark_reminder_sent, messages_by_wa_id, newest_polls, vote_targets, recount,
)
from promptpipe.errors import ContextTooLong, LLMError, LLMRejected
from promptpipe.storage.flags import add_flags
from promptpipe.flow import intensity, votes
from promptpipe.flow.commands import STOPPED, CommandPlan, paused_hint, plan_commands
from promptpipe.flow.context_notes import quote_note, reaction_note
from promptpipe.flow.daily_prompt import CommitHook, Outgoing, delivery_hook, prepare_daily_prompt
from promptpipe.flow.failures import record_failure
from promptpipe.flow.safety_step import SCREENED, SafetyConfig, screen_batch, was_screened, with_safety_message
from promptpipe.flow.timers import REMINDER_TEXT, apply_silent_timer, apply_stage_effects
from promptpipe.flow.typed_answers import Ambiguous, OpenPoll, PollAnswer, open_polls, reaction_answer, read_answer
from promptpipe.llm import LLM
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.logging import get_logger
from promptpipe.domain.states import ACTIVE, FEEDBACK, INTAKE, PAUSED
from promptpipe.agents import FEEDBACK as FEEDBACK_MODULE
from promptpipe.agents import INTAKE as INTAKE_MODULE
from promptpipe.agents import AgentModule
from promptpipe.agents.agent import BUDGETS, CHECK_IN_CUE, FOLLOW_UP_CUE, GREETING_CUE, SAFETY_CUE
from promptpipe.agents.summary import fold_into_summary
from promptpipe.agents.toolloop import LoopResult
from promptpipe.domain.timers import FEEDBACK_CHECK_IN, FEEDBACK_FOLLOWUP, REMINDER, NudgePolicy
from promptpipe.domain.conversation import HistoryEntry, TimerChange, TurnState
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.storage.conversations import load_turn_state, save_turn_state
from promptpipe.storage.inbox_rows import KEPT, InboxRow, mark_inbox_done, merge_inbox_payload
from promptpipe.storage.transcript import history_before, message_texts, queue_outgoing
from promptpipe.tools import PromptTexts, ToolContext
from promptpipe.transport import Recipient, Transport

log = get_logger("promptpipe.flow")

FOLD_SPAN = 3
"""A turn reads at most this many windows of unsummarised history (the rest is folded first)."""


@dataclass
class TurnContext:
    """What a turn reads before it starts, in one transaction."""

    state: TurnState
    history: list[HistoryEntry]
    texts: dict[int, str]
    """The texts of the batch by inbox row id."""
    polls: list[OpenPoll] = field(default_factory=list)
    """Polls a typed answer or a reaction in the batch may resolve."""
    quoted: dict[str, QuotedMessage] = field(default_factory=dict)
    """Messages the batch quotes or reacts to, by WhatsApp id."""


@dataclass(frozen=True)
class _Vote:
    """One answer to a poll: tapped, typed or reacted."""

    item: InboxRow
    purpose: object
    poll_id: int | None
    chosen: list[str]
    withdrawn: bool = False
    source: str = "tap"


READ_KINDS = ("message", "poll_vote")
"""Inbox kinds that are a participant's own WhatsApp message (they can get blue ticks)."""


@dataclass(frozen=True)
class FlowConfig:
    history_window: int
    debug: bool = False
    policy: NudgePolicy = NudgePolicy()
    summary_every_turns: int = 10
    """Fold messages older than the window into the summary at most once per this many turns (0: never)."""
    safety: SafetyConfig = field(default_factory=SafetyConfig)
    mark_read: bool = True
    """Blue ticks on the participant's messages once the turn that answers them is committed."""
    typed_answer_window: timedelta = timedelta(0)
    """How long after a prompt a typed answer still resolves its polls (0: until the next prompt)."""


ANSWER_CHARS = 60
"""Messages longer than this are never a typed poll answer (their open polls are not even read)."""


def _as_int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _lateness(due_at: object, now: datetime) -> float | None:
    """Seconds from when an event was due to now (logged, and read by the benchmarks)."""
    if not isinstance(due_at, str):
        return None
    return round((now - datetime.fromisoformat(due_at)).total_seconds(), 3)


def _reminder_hook(prompt_inbox_id: object, now: datetime) -> CommitHook | None:
    """The reminder goes on the record of the prompt it follows."""
    if not isinstance(prompt_inbox_id, int):
        return None
    return lambda session, _: mark_reminder_sent(session, prompt_inbox_id, now)


class ConversationFlow:
    def __init__(
        self, db: Database, llm: LLM, clock: Clock, prompts: PromptTexts, config: FlowConfig,
        transport: Transport | None = None, on_alarms_changed: Callable[[list[str]], None] | None = None,
        on_timers_changed: Callable[[list[TimerChange]], None] | None = None,
        on_flags_raised: Callable[[], None] | None = None,
    ) -> None:
        self.db, self.llm, self.clock, self.prompts, self.config = db, llm, clock, prompts, config
        self.transport = transport
        self.on_alarms_changed = on_alarms_changed
        """Re-check a participant's alarms against our tables (schedules, status or zone changed)."""
        self.on_timers_changed = on_timers_changed
        """Arm or disarm exactly these timers (the cheap path after most turns)."""
        self.on_flags_raised = on_flags_raised
        """Safety flags were committed: the alert webhook has work."""
        self.turns = 0
        self.failures = 0
        self.flags_raised = 0

    def module_for(self, state: TurnState, batch: list[InboxRow]) -> AgentModule:
        """INTAKE for a greeting and by default; FEEDBACK in that stage, unless the plan cannot
        carry a prompt any more: then the participant goes back to intake to repair it."""
        if batch[0].kind == "enroll":
            return INTAKE_MODULE
        if state.sub_state != FEEDBACK:
            return INTAKE_MODULE
        missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
        if missing:
            state.apply("feedback_to_intake", actor="server",
                        reason="in FEEDBACK but the profile lacks " + ", ".join(missing))
            return INTAKE_MODULE
        return FEEDBACK_MODULE

    async def process(self, participant_id: str, batch: list[InboxRow], context: TurnContext | None = None) -> bool:
        """Answer one batch (an event, or one or more folded messages). Raises on failure.
        ``context`` is what :meth:`load_context` read, when the caller already has it. Returns
        True when part of the batch is still pending (the lane runs it next)."""
        if context is None:
            context = await self.db.run(lambda session: self.load_context(session, participant_id, batch))
        state, history, texts = context.state, context.history, context.texts
        first = batch[0]
        if first.kind == "sync":  # an admin change: the alarms follow our tables again
            await self._close_without_reply(batch, state)
            self._alarms_changed(participant_id)
            return False
        if first.kind == "poll_vote":
            await self._poll_vote(state, batch)
            return False
        if first.kind == "reaction":
            await self._reaction(context, first)
            return False
        if first.kind == "message":
            if await self._screen(state, batch, texts):
                return True
            plan = plan_commands(state, [texts.get(item.id, "") for item in batch])
            if plan is not None:
                return await self._commands(state, batch, plan)
            if state.status == ACTIVE and context.polls:
                answers = self._typed_answers(context, batch)
                if answers:
                    return await self._answers(state, batch, answers)
        if state.status != ACTIVE:
            await self._answer_inactive(state, batch)
            return False
        if first.kind == "daily_prompt":
            await self._daily_prompt(state, batch)
            return False
        if first.kind == "timer":
            await self._timer(state, batch, history)
            return False
        await self._conversation_turn(state, batch, history, self._model_inputs(context, batch))
        return False

    @staticmethod
    def _model_inputs(context: TurnContext, batch: list[InboxRow]) -> list[str]:
        """The batch's texts as the model reads them: a swipe reply says what it answers."""
        inputs = []
        for item in batch:
            text = context.texts.get(item.id, "")
            if not text.strip():
                continue
            quoted = context.quoted.get(str(item.payload.get("quoted_message_id") or ""))
            inputs.append(f"{quote_note(quoted)}\n{text}" if quoted is not None else text)
        return inputs

    async def _conversation_turn(self, state: TurnState, batch: list[InboxRow], history: list[HistoryEntry],
                                 inputs: list[str]) -> None:
        module = self.module_for(state, batch)
        greeting = batch[0].kind == "enroll"
        cue = GREETING_CUE if greeting else SAFETY_CUE if was_screened(batch) else None
        result = await self._respond(module, state, history, inputs, cue)
        opted_out_by_model = any(c.event == "opted_out" and c.source == "model" for c in state.consent)
        reply = STOPPED if opted_out_by_model else result.text
        kind = "greeting" if greeting else "command" if opted_out_by_model else "text"
        await self._finish(state, batch, [Outgoing(keys.reply(batch[-1].id), reply, kind)])
        self.turns += 1
        log.info("turn_done", participant_id=state.participant.id, module=module.name, rounds=result.rounds,
                 tools=result.tools_called, inputs=len(batch), stopped=result.stopped,
                 **({"reply": result.text} if self.config.debug else {}))

    async def _screen(self, state: TurnState, batch: list[InboxRow], texts: dict[int, str]) -> bool:
        """Commit a flag and the safety message for every new message with a crisis phrase
        (whatever the participant's status: someone in crisis always gets it). True when it did."""
        found = screen_batch(self.config.safety.screen, batch, texts)
        if not found:
            return False
        pid, now, safety = state.participant.id, self.clock.now(), self.config.safety

        def write(session: Session) -> None:
            add_flags(session, pid, [flag for _, flag in found], now, alert=safety.alerts)
            queue_outgoing(session, participant_id=pid, key=keys.safety(found[-1][0].id), text=safety.message,
                           now=now, kind="safety")
            for item, _ in found:
                merge_inbox_payload(session, item, **{SCREENED: "flagged"})

        await asyncio.shield(self.db.run(write))
        self._flags_committed(pid, len(found), source="screen")
        return True

    async def _commands(self, state: TurnState, batch: list[InboxRow], plan: CommandPlan) -> bool:
        """Commit the commands of a folded batch with their replies; the messages the model
        should still answer stay pending for the next turn (True), the others are kept."""
        answer_ids = {batch[index].id for index in plan.answer}
        settled = [item for item in batch if item.id not in answer_ids]
        commands = {batch[index].id for index, _, _ in plan.replies}
        outgoing = [Outgoing(keys.reply(batch[index].id), reply, "command") for index, _, reply in plan.replies]
        await self._finish(state, settled, outgoing,
                           kept=[item for item in settled if item.id not in commands])
        log.info("command_handled", participant_id=state.participant.id, commands=[c for _, c, _ in plan.replies],
                 status=state.status, still_to_answer=len(answer_ids))
        return bool(answer_ids)

    async def _respond(self, module: AgentModule, state: TurnState, history: list[HistoryEntry], texts: list[str],
                       cue: str | None) -> LoopResult:
        """Run the module; when the request does not fit the model's context, ask again with less
        history and shorter messages (each try starts from the same state), then give up."""
        recipient = Recipient(phone=state.participant.phone, lid=state.participant.lid)
        await self._typing(recipient, True)
        try:
            history = await self._remembered(state, history)
            state.turns_since_summary += 1
            before = copy.deepcopy(state)
            for attempt, budget in enumerate(BUDGETS):
                ctx = ToolContext(state=state, llm=self.llm, clock=self.clock, prompts=self.prompts,
                                  policy=self.config.policy, inbound=tuple(texts))
                try:
                    return await module.respond(ctx, history, texts, cue=cue, budget=budget)
                except ContextTooLong:
                    if attempt == len(BUDGETS) - 1:
                        raise
                    log.warning("context_too_long_retry", participant_id=state.participant.id, next_budget=attempt + 1)
                    vars(state).update(vars(copy.deepcopy(before)))
            raise AssertionError("unreachable")
        finally:
            await self._typing(recipient, False)

    async def _remembered(self, state: TurnState, history: list[HistoryEntry]) -> list[HistoryEntry]:
        """The last ``history_window`` messages, which the model reads with the running summary.
        Once messages the summary does not cover have fallen out of the window, and enough turns
        have passed since the last fold, everything but the newer half of the window is folded in:
        the overlap means messages leave the window already summarised unless more than half a
        window's worth arrive within those turns."""
        window, every = self.config.history_window, self.config.summary_every_turns
        if window <= 0:
            return []
        visible = history[-window:]
        if len(history) <= window or every <= 0 or state.turns_since_summary < every:
            return visible
        older = history[:-(window // 2)] if window >= 2 else history
        try:
            state.summary = await fold_into_summary(self.llm, self.prompts.summary, state.summary, older,
                                                    state.participant.name)
        except (LLMError, ValueError) as exc:  # tried again next turn
            log.warning("summary_failed", participant_id=state.participant.id, error=str(exc)[:200])
            return visible
        state.summary_through, state.turns_since_summary = older[-1].id, 0
        log.info("summary_updated", participant_id=state.participant.id, folded=len(older),
                 through=state.summary_through, chars=len(state.summary))
        return visible

    async def _daily_prompt(self, state: TurnState, batch: list[InboxRow]) -> None:
        item, now = batch[0], self.clock.now()
        zone = zone_or_utc(state.timezone)
        day = item.payload.get("local_date")
        local_day = date.fromisoformat(day) if isinstance(day, str) else now.astimezone(zone).date()
        outgoing = await prepare_daily_prompt(self.llm, state, self.prompts.prompt_generator, inbox_id=item.id,
                                              now=now, policy=self.config.policy, local_day=local_day)
        schedule_id = item.payload.get("schedule_id")
        hook = delivery_hook(state, outgoing, inbox_id=item.id, local_day=local_day, now=now,
                             schedule_id=schedule_id if isinstance(schedule_id, str) else None)
        await self._finish(state, batch, outgoing, hook=hook)
        log.info("daily_prompt_done", participant_id=state.participant.id, sent=[o.kind for o in outgoing],
                 sub_state=state.sub_state, local_date=local_day.isoformat(),
                 late_s=_lateness(item.payload.get("due_at"), now))

    async def _timer(self, state: TurnState, batch: list[InboxRow], history: list[HistoryEntry]) -> None:
        item = batch[0]
        kind = str(item.payload.get("timer_kind") or "")
        outgoing: list[Outgoing] = []
        note: str | None = None
        hook: CommitHook | None = None
        if kind == REMINDER:
            outgoing = [Outgoing(keys.reminder(item.id), REMINDER_TEXT, "reminder")]
            note = "reminder sent"
            hook = _reminder_hook(item.payload.get("prompt_inbox_id"), self.clock.now())
        elif kind in (FEEDBACK_CHECK_IN, FEEDBACK_FOLLOWUP):
            if state.sub_state == FEEDBACK:
                cue = CHECK_IN_CUE if kind == FEEDBACK_CHECK_IN else FOLLOW_UP_CUE
                result = await self._respond(FEEDBACK_MODULE, state, history, [], cue)
                outgoing = [Outgoing(keys.check_in(item.id), result.text, "check_in")]
                delay = self.config.policy.feedback_followup_delay
                if kind == FEEDBACK_CHECK_IN and delay.total_seconds() > 0:
                    state.arm_timer(FEEDBACK_FOLLOWUP, self.clock.now() + delay, reason="check-in unanswered")
                note = f"{kind} sent"
        else:
            note = apply_silent_timer(state, kind, item.payload, self.config.policy)
        await self._finish(state, batch, outgoing, hook=hook)
        log.info("timer_done", participant_id=state.participant.id, kind=kind, outcome=note or "nothing to do",
                 sub_state=state.sub_state, late_s=_lateness(item.payload.get("due_at"), self.clock.now()))

    async def _poll_vote(self, state: TurnState, batch: list[InboxRow]) -> None:
        """Taps on a poll (the poll's transcript id was found at ingest)."""
        await self._apply_votes(state, batch, [
            _Vote(item, item.payload.get("purpose"), poll if isinstance(poll := item.payload.get("poll_id"), int) else None,
                  [str(option) for option in item.payload.get("selected") or []],
                  withdrawn=not item.payload.get("selected_hashes"))
            for item in batch
        ])

    def _typed_answers(self, context: TurnContext, batch: list[InboxRow]) -> list[tuple[InboxRow, PollAnswer | Ambiguous]]:
        """The messages of the batch that answer an open poll (see :mod:`promptpipe.flow.typed_answers`)."""
        found = []
        for item in batch:
            quoted = item.payload.get("quoted_message_id")
            answer = read_answer(context.texts.get(item.id, ""), context.polls,
                                 quoted=quoted if isinstance(quoted, str) else None)
            if answer is not None:
                found.append((item, answer))
        return found

    async def _answers(self, state: TurnState, batch: list[InboxRow],
                       answers: list[tuple[InboxRow, PollAnswer | Ambiguous]]) -> bool:
        """Commit the typed answers as votes (an ambiguous one gets a question back); the other
        messages of the batch stay pending for the next turn (True when there are any)."""
        outgoing: list[Outgoing] = []
        handled: dict[int, dict[str, object]] = {}
        inputs = []
        for item, answer in answers:
            if isinstance(answer, PollAnswer):
                inputs.append(_Vote(item, answer.poll.purpose, answer.poll.poll_id, [answer.option], source="typed"))
                continue
            outgoing.append(Outgoing(keys.reply(item.id), answer.reply, "text"))
            if item.message_id is not None:
                handled[item.message_id] = {"handled_as": "ambiguous"}
            log.info("typed_answer_ambiguous", participant_id=state.participant.id, polls=len(answer.polls))
        settled = [item for item, _ in answers]
        await self._apply_votes(state, settled, inputs, outgoing=outgoing, handled=handled)
        return len(settled) < len(batch)

    async def _reaction(self, context: TurnContext, item: InboxRow) -> None:
        """A reaction on the open "did you do it?" poll that means yes or no counts like a typed
        answer; one on a daily prompt or its poll goes to the model as what it is; any other is
        kept without an answer (so is a reaction taken back)."""
        state, emoji = context.state, str(item.payload.get("emoji") or "")
        target = context.quoted.get(str(item.payload.get("reacted_to") or ""))
        if state.status != ACTIVE or not emoji or target is None or target.direction != "out":
            await self._close_without_reply([item], state)
            return
        poll = next((p for p in context.polls if p.poll_id == target.id), None)
        option = reaction_answer(emoji, poll) if poll is not None else None
        if poll is not None and option is not None:
            await self._apply_votes(state, [item], [_Vote(item, poll.purpose, poll.poll_id, [option], source="reaction")])
            return
        if target.prompt_of is None:
            await self._close_without_reply([item], state)
            return
        if not state.missing_fields(PROMPT_REQUIRED_FIELDS):
            state.apply("intake_to_feedback", actor="participant", reason="reacted to a daily prompt")
        await self._conversation_turn(state, [item], context.history, [reaction_note(emoji, target)])

    async def _apply_votes(self, state: TurnState, batch: list[InboxRow], inputs: list[_Vote], *,
                           outgoing: list[Outgoing] | None = None,
                           handled: dict[int, dict[str, object]] | None = None) -> None:
        """Votes are answered by the server: an intensity vote moves the intensity, a "did you do
        it?" vote sets its delivery's outcome and the counters. Every vote stays in the transcript
        with a note of how it was handled (and, unless tapped, how it was given)."""
        pid = state.participant.id
        poll_ids = sorted({vote.poll_id for vote in inputs if vote.poll_id is not None})
        targets = await self.db.run(lambda session: vote_targets(session, pid, poll_ids))
        outgoing, handled = list(outgoing or []), dict(handled or {})
        tally = votes.VoteTally(targets)
        for vote in inputs:
            reply: str | None = None
            if state.status != ACTIVE:
                outcome = "not_active"
            elif vote.purpose == intensity.PURPOSE:
                reply, outcome = intensity.apply_vote(state, vote.chosen, vote.poll_id, withdrawn=vote.withdrawn,
                                                      source=vote.source)
            elif vote.purpose == votes.PURPOSE:
                decision = tally.handle(vote.poll_id, vote.chosen, withdrawn=vote.withdrawn, source=vote.source)
                reply, outcome = decision.reply, decision.handled_as
                if decision.changes_delivery:
                    state.profile.record.last_prompt_vote = decision.vote
            else:
                outcome = "not_counted"
            if vote.item.message_id is not None:
                handled[vote.item.message_id] = {"handled_as": outcome, **(
                    {"vote_source": vote.source, "answers_poll": vote.poll_id, "selected": vote.chosen}
                    if vote.source != "tap" else {})}
            if reply:
                outgoing.append(Outgoing(keys.reply(vote.item.id), reply, "text"))
            log.info("poll_vote_handled", participant_id=pid, purpose=vote.purpose, handled_as=outcome, source=vote.source)
        if tally.answered and not state.missing_fields(PROMPT_REQUIRED_FIELDS):
            # their next words are feedback
            state.apply("intake_to_feedback", actor="participant", reason="answered the daily poll")
        now = self.clock.now()

        def write(session: Session, _: object) -> None:
            tally.write(session, now)
            if tally.final:
                state.profile.record.counters = recount(session, pid)
            for message_id, fields in handled.items():
                annotate_message(session, message_id, **fields)

        await self._finish(state, batch, outgoing, hook=write)

    async def _finish(self, state: TurnState, batch: list[InboxRow], outgoing: list[Outgoing], *,
                      hook: CommitHook | None = None,
                      kept: list[InboxRow] | None = None) -> None:
        """Arm the timers the turn implies, commit it (shielded: a commit is never half-cancelled),
        then have the alarms follow if anything about them changed. ``feedback_timers=False``
        when entering FEEDBACK needs no check-in (the participant just answered). A flag the
        model raised puts the safety message first. ``kept``: rows of the batch that are done
        without an answer."""
        apply_stage_effects(state, self.config.policy, self.clock.now())
        flags = len(state.flags)
        if flags and batch and not was_screened(batch):
            outgoing = with_safety_message(outgoing, self.config.safety.message, batch[-1].id)
        schedule_changed = state.schedule_changed
        await asyncio.shield(self._commit(state, batch, outgoing, hook, kept or []))
        if self.config.mark_read and outgoing:
            await self._mark_read(state, [item for item in batch if item not in (kept or [])])
        if flags:
            self._flags_committed(state.participant.id, flags, source="model")
        if schedule_changed:
            self._alarms_changed(state.participant.id)
        elif state.committed_timer_changes and self.on_timers_changed is not None:
            self.on_timers_changed(state.committed_timer_changes)

    def _alarms_changed(self, participant_id: str) -> None:
        if self.on_alarms_changed is not None:
            self.on_alarms_changed([participant_id])

    def load_context(self, session: Session, participant_id: str, batch: list[InboxRow]) -> TurnContext:
        """Everything a turn reads, in one transaction."""
        message_ids = [item.message_id for item in batch if item.message_id is not None]
        state = load_turn_state(session, participant_id)
        # More than the window: the messages the summary has not covered yet are what it folds in.
        history = history_before(session, participant_id, min(message_ids, default=None),
                                 FOLD_SPAN * self.config.history_window, after_id=state.summary_through)
        texts_by_id = message_texts(session, message_ids)
        texts = {item.id: texts_by_id.get(item.message_id, "") for item in batch if item.message_id is not None}
        context = TurnContext(state, history, texts)
        pointed_at = [ref for item in batch for key in ("quoted_message_id", "reacted_to")
                      if isinstance(ref := item.payload.get(key), str) and ref]
        context.quoted = messages_by_wa_id(session, participant_id, pointed_at)
        if batch[0].kind == "reaction" or (batch[0].kind == "message" and any(
                len(text) <= ANSWER_CHARS for text in texts.values())):
            record = state.profile.record
            newest = newest_polls(session, participant_id, record.intensity_poll_message)
            context.polls = open_polls(newest, record, self.clock.now(), self.config.typed_answer_window)
        return context

    async def _commit(self, state: TurnState, batch: list[InboxRow], outgoing: list[Outgoing],
                      hook: CommitHook | None = None, kept: list[InboxRow] | None = None) -> None:
        """State, transition log, flags, messages to send, the turn's extra writes and the inbox
        "done" marks: one transaction."""
        now = self.clock.now()
        kept_ids = {item.id for item in kept or []}

        def write(session: Session) -> None:
            message_ids = {
                message.key: queue_outgoing(session, participant_id=state.participant.id, key=message.key,
                                            text=message.text, now=now, kind=message.kind, payload=message.payload)
                for message in outgoing
            }
            if hook is not None:
                hook(session, message_ids)
            if state.flags:
                add_flags(session, state.participant.id, state.flags, now, alert=self.config.safety.alerts)
            save_turn_state(session, state, now)
            mark_inbox_done(session, [item for item in batch if item.id not in kept_ids], now)
            mark_inbox_done(session, [item for item in batch if item.id in kept_ids], now, message_status=KEPT)

        await self.db.run(write)
        state.flags.clear()

    def _flags_committed(self, participant_id: str, count: int, *, source: str) -> None:
        self.flags_raised += count
        log.warning("safety_flag_raised", participant_id=participant_id, source=source, flags=count)
        if self.on_flags_raised is not None and self.config.safety.alerts:
            self.on_flags_raised()

    async def _answer_inactive(self, state: TurnState, batch: list[InboxRow]) -> None:
        """No model for someone who is not active: a paused participant who writes gets a short
        note on how (or by whom) the pause is lifted (unless the safety message just answered
        them); a withdrawn or completed one gets nothing (their message is still kept)."""
        if state.status == PAUSED and batch[0].kind == "message" and not was_screened(batch):
            await self._finish(state, batch, [Outgoing(keys.reply(batch[-1].id), paused_hint(state), "command")])
            return
        await self._close_without_reply(batch, state)

    async def _close_without_reply(self, batch: list[InboxRow], state: TurnState) -> None:
        now = self.clock.now()
        await self.db.run(lambda session: mark_inbox_done(session, batch, now, message_status=KEPT))
        log.info("input_not_answered", participant_id=state.participant.id, status=state.participant.status,
                 inputs=len(batch))

    async def record_failure(self, participant_id: str, batch: list[InboxRow], error: BaseException) -> None:
        """Keep the inputs for a later retry (see :mod:`promptpipe.flow.failures`)."""
        self.failures += 1
        outcome = await self.db.run(lambda session: record_failure(session, participant_id, batch, error,
                                                                   self.clock.now()))
        level = "error" if outcome.is_bug or outcome.gave_up or isinstance(error, LLMRejected) else "warning"
        getattr(log, level)("turn_failed", participant_id=participant_id, error=str(error)[:300],
                            error_type=type(error).__name__, attempts=batch[0].attempts, gave_up=outcome.gave_up,
                            retry_at=batch[0].available_at.isoformat(), llm=isinstance(error, LLMError),
                            exc_info=outcome.is_bug)

    async def _mark_read(self, state: TurnState, answered: list[InboxRow]) -> None:
        """Blue ticks for what this committed turn answered (best effort: only decoration)."""
        ids = [item.wa_message_id for item in answered if item.kind in READ_KINDS and item.wa_message_id]
        if not ids or self.transport is None:
            return
        recipient = Recipient(phone=state.participant.phone, lid=state.participant.lid)
        try:
            await self.transport.mark_read(recipient, [mid for mid in ids if mid])
        except Exception as exc:
            log.debug("mark_read_failed", participant_id=state.participant.id, error=str(exc))

    async def _typing(self, recipient: Recipient, on: bool) -> None:
        if self.transport is None:
            return
        try:
            await self.transport.set_typing(recipient, on)
        except Exception as exc:  # typing is decoration; never let it break a turn
            log.debug("typing_failed", error=str(exc))
