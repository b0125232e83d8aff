"""Typed answers to an open poll, committed as votes (see :mod:`promptpipe.domain.polls` for what counts)."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain import keys
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.polls import Ambiguous, PollAnswer, read_answer
from promptpipe.flow.turn import Outcome, Outgoing, TurnContext
from promptpipe.flow.votes import Vote, votes_outcome
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import MessageReceived
from promptpipe.storage.inbox_rows import InboxRow

__all__ = ["answers_outcome", "typed_answers"]

log = get_logger("promptpipe.flow")


def typed_answers(context: TurnContext, batch: list[InboxRow]) -> list[tuple[InboxRow, PollAnswer | Ambiguous]]:
    if not context.polls:  # nothing to answer: the texts are not even read (their words cost a tenth of a decision)
        return []
    found = []
    for item, event in zip(batch, context.events, strict=True):
        if not isinstance(event, MessageReceived):
            continue
        answer = read_answer(context.texts.get(item.id, ""), context.polls, quoted=event.quoted_message_id)
        if answer is not None:
            found.append((item, answer))
    return found


def answers_outcome(context: TurnContext, batch: list[InboxRow],
                    answers: list[tuple[InboxRow, PollAnswer | Ambiguous]], now: datetime) -> Outcome:
    """The typed answers as votes (an ambiguous one gets a question back); the rest of the batch stays pending."""
    outgoing: list[Outgoing] = []
    handled: dict[int, dict[str, object]] = {}
    inputs = []
    for item, answer in answers:
        if isinstance(answer, PollAnswer):
            inputs.append(Vote(item, answer.poll.purpose, answer.poll.poll_id, [answer.option], source="typed"))
            continue
        outgoing.append(Outgoing(keys.reply(item.id), answer.reply, MessageKind.TEXT))
        if item.message_id is not None:
            handled[item.message_id] = {"handled_as": "ambiguous"}
        log.info("typed_answer_ambiguous", participant_id=context.state.participant.id, polls=len(answer.polls))
    settled = [item for item, _ in answers]
    outcome = votes_outcome(context, settled, inputs, now, outgoing=outgoing, handled=handled)
    outcome.again = len(settled) < len(batch)
    return outcome
