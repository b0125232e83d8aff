"""ConversationFlow: turns a batch of inbox rows for one participant into one committed result.

Routing is event-first: commands (STOP, START/RESUME, HELP; exact match) are answered without the
model; participants who are not active get no model either; an enrollment event gets a greeting
from intake whatever the stage; other messages go to the module of the participant's sub-state
(INTAKE by default, FEEDBACK).
Nothing is written until the turn is complete; then the new state, the transition log, the reply
(transcript + outbox) and the "done" marks on the inbox rows commit in one transaction.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session

from promptpipe import keys
from promptpipe.clock import Clock
from promptpipe.db import Database
from promptpipe.errors import LLMError, LLMRejected, PromptPipeError
from promptpipe.flow.commands import PAUSED_BY_TEAM, PAUSED_HINT, apply_command, last_command
from promptpipe.flow.daily_prompt import Outgoing, prepare_daily_prompt
from promptpipe.llm import LLM
from promptpipe.logging import get_logger
from promptpipe.models import ACTIVE, FAILED, FEEDBACK, PAUSED, InboxItem, Message
from promptpipe.modules import FEEDBACK as FEEDBACK_MODULE
from promptpipe.modules import INTAKE as INTAKE_MODULE
from promptpipe.modules import AgentModule
from promptpipe.state import HistoryEntry, TurnState
from promptpipe.store import (
    InboxRow,
    history_before,
    load_turn_state,
    mark_inbox_done,
    message_texts,
    queue_outgoing,
    save_turn_state,
)
from promptpipe.tools import PromptTexts, ToolContext
from promptpipe.transport import Recipient, Transport

log = get_logger("promptpipe.flow")

APOLOGY = (
    "Sorry, I can't give you a proper answer right now. I've kept your message and will reply "
    "as soon as I can."
)
RETRY_FIRST_S = 30.0
RETRY_MAX_S = 15 * 60.0
MAX_ATTEMPTS_FOR_BUGS = 8
"""An unexpected error (a bug) gives up after this many tries; an LLM outage never does."""


def retry_delay(attempts: int) -> timedelta:
    """30 s, 60 s, 2 min … capped at 15 min."""
    return timedelta(seconds=min(RETRY_FIRST_S * 2 ** max(attempts - 1, 0), RETRY_MAX_S))


TurnContext = tuple[TurnState, list[HistoryEntry], list[str]]
"""The participant's state, their history window, and the texts of the batch."""


@dataclass(frozen=True)
class FlowConfig:
    history_window: int
    debug: bool = False


class ConversationFlow:
    def __init__(
        self, db: Database, llm: LLM, clock: Clock, prompts: PromptTexts, config: FlowConfig,
        transport: Transport | None = None,
    ) -> None:
        self.db, self.llm, self.clock, self.prompts, self.config = db, llm, clock, prompts, config
        self.transport = transport
        self.turns = 0
        self.failures = 0

    def module_for(self, state: TurnState, batch: list[InboxRow]) -> AgentModule:
        if batch[0].kind == "enroll":
            return INTAKE_MODULE
        return FEEDBACK_MODULE if state.sub_state == FEEDBACK else INTAKE_MODULE

    async def process(self, participant_id: str, batch: list[InboxRow], context: TurnContext | None = None) -> None:
        """Answer one batch (an enrollment, or one or more folded messages). Raises on failure.
        ``context`` is what :meth:`load_context` read, when the caller already has it."""
        if context is None:
            context = await self.db.run(lambda session: self.load_context(session, participant_id, batch))
        state, history, texts = context
        if batch[0].kind == "poll_vote":
            # Poll votes are kept in the transcript; answering them is the feedback module's job.
            await self._close_without_reply(batch, state)
            return
        command = last_command(texts) if batch[0].kind == "message" else None
        if command is not None:
            reply = apply_command(state, command)
            await asyncio.shield(self._commit(state, batch, [Outgoing(keys.reply(batch[-1].id), reply, "command")]))
            log.info("command_handled", participant_id=participant_id, command=command, status=state.status)
            return
        if state.status != ACTIVE:
            await self._answer_inactive(state, batch)
            return
        if batch[0].kind == "daily_prompt":
            outgoing = await prepare_daily_prompt(self.llm, state, self.prompts.prompt_generator,
                                                  inbox_id=batch[0].id, now=self.clock.now())
            await asyncio.shield(self._commit(state, batch, outgoing))
            log.info("daily_prompt_done", participant_id=participant_id, sent=[o.kind for o in outgoing],
                     sub_state=state.sub_state)
            return
        module = self.module_for(state, batch)
        ctx = ToolContext(state=state, llm=self.llm, clock=self.clock, prompts=self.prompts)
        recipient = Recipient(phone=state.participant.phone, lid=state.participant.lid)
        await self._typing(recipient, True)
        try:
            result = await module.respond(ctx, history, texts, greeting=batch[0].kind == "enroll")
        finally:
            await self._typing(recipient, False)
        kind = "greeting" if batch[0].kind == "enroll" else "text"
        await asyncio.shield(self._commit(state, batch, [Outgoing(keys.reply(batch[-1].id), result.text, kind)]))
        self.turns += 1
        log.info("turn_done", participant_id=participant_id, module=module.name, rounds=result.rounds,
                 tools=result.tools_called, inputs=len(batch), stopped=result.stopped,
                 **({"reply": result.text} if self.config.debug else {}))

    def load_context(self, session: Session, participant_id: str, batch: list[InboxRow]) -> TurnContext:
        """Everything a turn reads, in one transaction."""
        message_ids = [item.message_id for item in batch if item.message_id is not None]
        state = load_turn_state(session, participant_id)
        history = history_before(session, participant_id, min(message_ids, default=None), self.config.history_window)
        texts_by_id = message_texts(session, message_ids)
        texts = [texts_by_id[i] for i in message_ids if texts_by_id.get(i, "").strip()]
        return state, history, texts

    async def _commit(self, state: TurnState, batch: list[InboxRow], outgoing: list[Outgoing]) -> None:
        """State, transition log, messages to send and the inbox "done" marks: one transaction."""
        now = self.clock.now()

        def write(session: Session) -> None:
            save_turn_state(session, state, now)
            for message in outgoing:
                queue_outgoing(session, participant_id=state.participant.id, key=message.key, text=message.text,
                               now=now, kind=message.kind, payload=message.payload)
            mark_inbox_done(session, batch, now)

        await self.db.run(write)

    async def _answer_inactive(self, state: TurnState, batch: list[InboxRow]) -> None:
        """No model for someone who is not active: a paused participant who writes gets a short
        note on how (or by whom) the pause is lifted; a withdrawn or completed one gets nothing
        (their message is still kept)."""
        if state.status == PAUSED and batch[0].kind == "message":
            hint = PAUSED_HINT if state.paused_by == "participant" else PAUSED_BY_TEAM
            await asyncio.shield(self._commit(state, batch, [Outgoing(keys.reply(batch[-1].id), hint, "command")]))
            return
        await self._close_without_reply(batch, state)

    async def _close_without_reply(self, batch: list[InboxRow], state: TurnState) -> None:
        now = self.clock.now()
        await self.db.run(lambda session: mark_inbox_done(session, batch, now))
        log.info("input_not_answered", participant_id=state.participant.id, status=state.participant.status,
                 inputs=len(batch))

    async def record_failure(self, participant_id: str, batch: list[InboxRow], error: BaseException) -> None:
        """Keep the inputs for a later retry; tell a waiting participant once that we're delayed."""
        self.failures += 1
        now = self.clock.now()
        is_bug = not isinstance(error, PromptPipeError)
        first_failure = all(item.attempts == 0 for item in batch)

        def write(session: Session) -> None:
            for item in batch:
                item.attempts += 1
                item.last_error = f"{type(error).__name__}: {error}"[:500]
                item.available_at = now + retry_delay(item.attempts)
                if is_bug and item.attempts >= MAX_ATTEMPTS_FOR_BUGS:
                    item.status = FAILED
                    if item.message_id is not None:
                        session.connection().execute(update(Message).where(Message.id == item.message_id).values(status="failed"))
                session.connection().execute(update(InboxItem).where(InboxItem.id == item.id).values(
                    attempts=item.attempts, last_error=item.last_error, available_at=item.available_at,
                    status=item.status))
            if first_failure and any(item.kind == "message" for item in batch):
                queue_outgoing(session, participant_id=participant_id, key=keys.apology(batch[-1].id),
                               text=APOLOGY, now=now, kind="apology")

        await self.db.run(write)
        level = "error" if is_bug or isinstance(error, LLMRejected) else "warning"
        getattr(log, level)("turn_failed", participant_id=participant_id, error=str(error)[:300],
                            error_type=type(error).__name__, attempts=batch[0].attempts,
                            retry_at=batch[0].available_at.isoformat(), llm=isinstance(error, LLMError),
                            exc_info=is_bug)

    async def _typing(self, recipient: Recipient, on: bool) -> None:
        if self.transport is None:
            return
        try:
            await self.transport.set_typing(recipient, on)
        except Exception as exc:  # typing is decoration; never let it break a turn
            log.debug("typing_failed", error=str(exc))
