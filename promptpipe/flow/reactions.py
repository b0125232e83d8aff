"""A reaction: a yes or no emoji on the open poll counts as an answer; one on a daily prompt goes to the model."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain import transitions
from promptpipe.domain.polls import reaction_answer
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.states import Status
from promptpipe.domain.transition_log import Actor
from promptpipe.flow.commands import kept_outcome
from promptpipe.flow.context_notes import reaction_note
from promptpipe.flow.conversation import conversation_outcome
from promptpipe.flow.turn import FlowDeps, Outcome, TurnContext
from promptpipe.flow.votes import Vote, votes_outcome
from promptpipe.pipeline.events import ReactionReceived
from promptpipe.storage.inbox_rows import InboxRow

__all__ = ["reaction_outcome"]


async def reaction_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, event: ReactionReceived,
                           now: datetime) -> Outcome:
    state = context.state
    target = context.quoted.get(event.reacted_to)
    if state.status != Status.ACTIVE or not event.emoji or target is None or target.direction != "out":
        return kept_outcome([item], status=state.status)
    poll = next((p for p in context.polls if p.poll_id == target.id), None)
    if poll is not None and (option := reaction_answer(event.emoji, poll)) is not None:
        vote = Vote(item, poll.purpose, poll.poll_id, [option], source="reaction")
        return votes_outcome(context, [item], [vote], now)
    if target.prompt_of is None:
        return kept_outcome([item], status=state.status)
    if not state.missing_fields(PROMPT_REQUIRED_FIELDS):
        transitions.apply(state, "intake_to_feedback", actor=Actor.PARTICIPANT, reason="reacted to a daily prompt")
    return await conversation_outcome(deps, context, [item], [reaction_note(event.emoji, target)])
