"""ConversationFlow: turns a batch of inbox rows for one participant into one outcome, committed in one transaction."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from sqlalchemy.orm import Session

from promptpipe.domain.conversation import TimerChange, TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageStatus
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.domain.states import Status
from promptpipe.domain.text import clean_for_storage
from promptpipe.errors import LLMError, LLMRejected
from promptpipe.flow import commands, lifecycle, typed_answers, votes
from promptpipe.flow.context import load_context
from promptpipe.flow.conversation import conversation_outcome, model_inputs
from promptpipe.flow.daily_prompt import daily_prompt_outcome
from promptpipe.flow.failures import apologise_if_blocked, record_failure
from promptpipe.flow.reactions import reaction_outcome
from promptpipe.flow.researcher_message import researcher_message_outcome
from promptpipe.flow.safety_step import SCREENED, screen_outcome, was_screened, with_safety_message
from promptpipe.flow.team_changes import team_change_outcome
from promptpipe.flow.timers import apply_stage_effects, timer_outcome
from promptpipe.flow.turn import FlowDeps, Outcome, TurnContext, Typing
from promptpipe.logging import get_logger
from promptpipe.pipeline import events
from promptpipe.pipeline.turn_writes import apply_writes
from promptpipe.questionnaires.conversation import answer
from promptpipe.questionnaires.conversation.instance import answering
from promptpipe.questionnaires.conversation.queue import questionnaire_due_outcome, tend
from promptpipe.storage.conversations import save_turn_state
from promptpipe.storage.db import Database
from promptpipe.storage.flags import add_flags
from promptpipe.storage.inbox_rows import InboxRow, mark_inbox_done, message_words
from promptpipe.storage.live import is_simulated
from promptpipe.storage.outbox_rows import Claimed, Queued
from promptpipe.storage.transcript import ToSend, queue_messages
from promptpipe.transport import Recipient, Transport

log = get_logger("promptpipe.flow")

READ_KINDS = ("message", "poll_vote")
"""Inbox kinds that are a participant's own WhatsApp message (they can get blue ticks)."""


class SendsAtOnce(Protocol):
    """What the commit hands its messages to (the outbox): claimed in its transaction, sent once it has committed."""

    def claim_queued(self, session: Session, participant_id: str, recipient: Recipient,
                     queued: Mapping[str, Queued]) -> list[Claimed]: ...

    def send_when_committed(self, commit: Awaitable[list[Claimed]]) -> None: ...

    def dispatch_later(self) -> None: ...


class ConversationFlow:
    """The lanes' turn runner: :meth:`load` in the batch's transaction, then :meth:`decide` and :meth:`commit`."""

    def __init__(self, db: Database, deps: FlowDeps, transport: Transport | None = None, *,
                 on_alarms_changed: Callable[[list[str]], None] | None = None,
                 on_timers_changed: Callable[[list[TimerChange]], None] | None = None,
                 on_flags_raised: Callable[[], None] | None = None) -> None:
        self.db, self.deps, self.transport = db, deps, transport
        self.on_alarms_changed, self.on_timers_changed = on_alarms_changed, on_timers_changed
        self.fence: Callable[[Session, str | None, list[str]], None] | None = None
        """Several services: last in a commit, it refuses unless this service still serves the participant's number
        (last: its share lock on the lease would otherwise hold up the keeper's renewal while the commit waits); given
        the participants for :attr:`notify_alarms`, it tells the alarm clock in the same statement."""
        self.notify_alarms: Callable[[Session, list[str]], None] | None = None
        """Another service may run the alarm clock: called in a commit that changed schedules or timers (by the fence
        when there is one)."""
        self.on_flags_raised = on_flags_raised
        self.sender: SendsAtOnce | None = None
        """The outbox, when it sends what a commit queued without waiting for its next claim."""
        self.turns = self.failures = 0
        self._screen = functools.lru_cache(maxsize=256)(deps.config.safety.screen.match)
        """The crisis screen, remembered: a message is screened as its input is stored and again in its turn."""

    def load(self, session: Session, participant_id: str, batch: list[InboxRow]) -> TurnContext:
        return load_context(session, participant_id, batch, self.deps.config, self.deps.clock.now())

    def number(self, context: TurnContext) -> str | None:
        return context.state.participant.number

    def blocked(self, session: Session, participant_id: str, rows: list[InboxRow], now: datetime) -> None:
        apologise_if_blocked(session, participant_id, rows, now)

    def urgent(self, session: Session, rows: list[InboxRow]) -> set[int]:
        """Messages that must not wait for the model: a command, or crisis words the screen has not answered yet."""
        texts = message_words(session, rows)
        words = {row.id: texts.get(row.message_id, "") for row in rows if row.message_id is not None}
        return {row.id for row in rows if (text := words.get(row.id)) and (
            commands.as_command(text) or (row.payload.get("safety") != SCREENED and self._screen(text)))}


    async def decide(self, participant_id: str, batch: list[InboxRow], context: TurnContext) -> Outcome:
        """What the batch comes to; nothing is written (the lane may set it aside)."""
        if self.transport is not None and self.transport.reaches_people:
            simulated = [item for item in batch if is_simulated(item.wa_message_id)]
            if simulated:  # a researcher's "as the participant" never acts for a real person
                return Outcome(answered=[], kept=simulated, save_state=False, again=len(simulated) < len(batch),
                               log=("simulated_input_set_aside", {"inputs": len(simulated)}))
        state, now, study = context.state, self.deps.clock.now(), self.deps.config.study
        match event := context.events[0]:
            case events.AlarmSyncRequested():  # an admin change: the alarms follow our tables again
                return replace(commands.kept_outcome(batch, status=state.status), resync_alarms=True)
            case events.TeamChange():
                return team_change_outcome(self.deps, context, batch[0], event)
            case events.ResearcherMessageQueued():  # consent decides, not the status alone
                return researcher_message_outcome(state, batch[0], event, study.quiet_hours, now)
            case events.PollVoteReceived():
                answered = answer.answer_outcome(study, context, batch, now) if answering(state) else None
                return (answered or answer.late_tap_outcome(study, context, batch, now)
                        or votes.votes_outcome(context, batch, votes.taps(context, batch), now))
            case events.ReactionReceived():
                return await reaction_outcome(self.deps, context, batch[0], event, now)
            case events.MessageReceived() if (handled := self._message_outcome(context, batch, now)) is not None:
                return handled
            # the study's clock runs on while paused: a decision point is recorded, the study ends
            case events.StudyEndDue() if state.status == Status.PAUSED:
                return await timer_outcome(self.deps, context, batch[0], event)
            case events.DailyPromptDue(manual=False) if state.status == Status.PAUSED and event.schedule_id is not None:
                return await daily_prompt_outcome(self.deps, context, batch[0], event)
            case events.QuestionnaireDue() if state.status != Status.ACTIVE:  # coded not sent, or an exit one
                return questionnaire_due_outcome(study, context, batch[0], event, now)
            case _ if state.status != Status.ACTIVE:
                return commands.inactive_outcome(state, batch, message=isinstance(event, events.MessageReceived),
                                                 screened=was_screened(context.events),
                                                 reminder_key=commands.restart_reminder_key(state, now))
            case events.DailyPromptDue():
                return await daily_prompt_outcome(self.deps, context, batch[0], event)
            case events.PromptNowDue():  # held for quiet hours; held again if they are still on
                end = quiet_period_end(study.quiet_hours, now, zone_or_utc(state.timezone))
                held = events.DailyPromptDue(manual=True, not_before=end.isoformat() if end else None,
                                             model_free=event.model_free)
                return await daily_prompt_outcome(self.deps, context, batch[0], held)
            case events.MessageReceived() | events.Enrolled():
                return await self._conversation_outcome(context, batch, event)
            case _:
                return await timer_outcome(self.deps, context, batch[0], event)

    def _message_outcome(self, context: TurnContext, batch: list[InboxRow], now: datetime) -> Outcome | None:
        """What a batch of messages comes to before the model (None: the model answers)."""
        state, study = context.state, self.deps.config.study
        said = [events.said_at(e) for e in context.events]
        state.said_at = max((at for at in said if at is not None), default=None)
        screened = screen_outcome(self.deps.config.safety, context, batch, self._screen)
        if screened is not None:
            return screened
        plan = commands.plan_commands(
            state, [context.texts.get(item.id, "") for item in batch], said,
            commands.CommandContext(now, study.ordinary_words, answer.option_reader(study, state)))
        if plan is not None:
            return commands.commands_outcome(batch, plan, commands.restart_reminder_key(state, now))
        answered = (answer.answer_outcome(study, context, batch, now) if answering(state) else None) \
            or answer.late_typed_outcome(study, context, batch, now)
        if answered is not None:
            return answered
        answers = typed_answers.typed_answers(context, batch) if state.status == Status.ACTIVE else []
        if answers:
            return typed_answers.answers_outcome(context, batch, answers, now)
        return lifecycle.escape_outcome(context, batch)

    async def _conversation_outcome(self, context: TurnContext, batch: list[InboxRow],
                                    event: events.MessageReceived | events.Enrolled) -> Outcome:
        state = context.state
        outcome = await conversation_outcome(self.deps, context, batch, model_inputs(context, batch))
        if state.questionnaire is not None and isinstance(event, events.MessageReceived) and not (
                state.flags or was_screened(context.events)):  # after distress the item waits for its reminder
            answer.ask_again_after(outcome, state, self.deps.config.study, batch[-1])  # after the coach
        return outcome

    async def commit(self, participant_id: str, batch: list[InboxRow], context: TurnContext, outcome: Outcome) -> bool:
        """One transaction (shielded: never half-cancelled), then blue ticks, alerts and alarms; True: more pending."""
        state, now = context.state, self.deps.clock.now()
        safety = self.deps.config.safety
        writes = list(outcome.writes)
        if outcome.save_state:
            lifecycle.start_study_days(state, self.deps.config, now)
            apply_stage_effects(state, self.deps.config.policy_for(state), now)
            writes += tend(state, self.deps.config.study, context.events, now)  # the questionnaires' plans
        outgoing = outcome.outgoing
        if state.flags and not was_screened(context.events):  # a flag the model raised: the safety message first
            outgoing = with_safety_message(outgoing, safety.message, batch[-1].id)
        flags = [*outcome.flags, *state.flags]
        kept_ids = {item.id for item in outcome.kept}
        answered = outcome.answered if outcome.answered is not None else [i for i in batch if i.id not in kept_ids]
        schedule_changed = outcome.save_state and state.schedule_changed

        def write(session: Session) -> list[Claimed]:
            ids = queue_messages(session, state.participant.id,
                                 [ToSend(m.key, m.text, m.kind, m.payload, m.not_before) for m in outgoing], now)
            apply_writes(session, writes, ids)
            if flags:
                add_flags(session, state.participant.id, flags, now, alert=safety.alerts)
            if outcome.save_state:
                save_turn_state(session, state, now)
                lifecycle.greet_if_never_greeted(self.db, session, state, now)
            mark_inbox_done(session, answered, now)
            mark_inbox_done(session, outcome.kept, now, message_status=MessageStatus.KEPT)
            alarms = [state.participant.id] if self.notify_alarms is not None and (
                schedule_changed or outcome.resync_alarms or state.committed_timer_changes) else []
            if alarms and self.fence is None and self.notify_alarms is not None:
                self.notify_alarms(session, alarms)
            claimed = [] if self.sender is None or not any(ids.values()) else self.sender.claim_queued(
                session, state.participant.id, recipient,
                {m.key: Queued(m.kind, clean_for_storage(m.text), m.payload or {}) for m in outgoing if ids.get(m.key)})
            if self.fence is not None:  # last: the lease's lock is held only until the commit just after
                self.fence(session, state.number, alarms)
            return claimed

        recipient = Recipient(phone=state.participant.phone, lid=state.participant.lid, number=state.number)
        writing = asyncio.ensure_future(self.db.run(write))
        if self.sender is not None and outgoing:  # sent even if this turn is cancelled while its commit runs
            self.sender.send_when_committed(writing)
        await asyncio.shield(writing)
        state.flags.clear()
        if outcome.log is not None:
            event, fields = outcome.log
            log.info(event, participant_id=state.participant.id, **fields)
        if outcome.model_turn:
            self.turns += 1
        if self.deps.config.mark_read and outgoing:
            await self._mark_read(state, recipient, answered)
        self._committed(state, len(flags), alarms_changed=schedule_changed or outcome.resync_alarms)
        return outcome.again

    def _committed(self, state: TurnState, flags: int, *, alarms_changed: bool) -> None:
        if flags:
            log.warning("safety_flag_raised", participant_id=state.participant.id, flags=flags)
            if self.on_flags_raised is not None and self.deps.config.safety.alerts:
                self.on_flags_raised()
        if alarms_changed and self.on_alarms_changed is not None:
            self.on_alarms_changed([state.participant.id])
        elif state.committed_timer_changes and self.on_timers_changed is not None:
            self.on_timers_changed(state.committed_timer_changes)

    async def record_failure(self, participant_id: str, batch: list[InboxRow], error: BaseException) -> None:
        """Keep the inputs for a later retry (see :mod:`promptpipe.flow.failures`)."""
        self.failures += 1
        now = self.deps.clock.now()
        outcome = await self.db.run(lambda session: record_failure(session, participant_id, batch, error, now))
        if self.sender is not None:  # an apology may be queued: sent now, not at the dispatcher's next poll
            self.sender.dispatch_later()
        level = "error" if outcome.is_bug or outcome.gave_up or isinstance(error, LLMRejected) else "warning"
        detail = {"detail": str(error.__cause__)[:500]} if self.deps.config.debug and error.__cause__ else {}
        getattr(log, level)("turn_failed", participant_id=participant_id, error=str(error)[:300],
                            error_type=type(error).__name__, attempts=batch[0].attempts, gave_up=outcome.gave_up,
                            retry_at=batch[0].available_at.isoformat(), llm=isinstance(error, LLMError),
                            exc_info=outcome.is_bug, **detail)

    async def _mark_read(self, state: TurnState, recipient: Recipient, answered: list[InboxRow]) -> None:
        """Blue ticks for what this committed turn answered (best effort: only decoration)."""
        ids = [mid for item in answered if item.kind in READ_KINDS and (mid := item.wa_message_id)]
        if not ids or self.transport is None:
            return
        try:
            await self.transport.mark_read(recipient, ids)
        except Exception as exc:
            log.debug("mark_read_failed", participant_id=state.participant.id, error=str(exc))


def typing_through(transport: Transport) -> Typing:
    """The typing indicator, best effort: it is decoration and never breaks a turn."""

    async def typing(recipient: Recipient, on: bool) -> None:
        try:
            await transport.set_typing(recipient, on)
        except Exception as exc:
            log.debug("typing_failed", error=str(exc))

    return typing
