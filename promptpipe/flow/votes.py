"""Votes on the "did you do it?" poll, by the server: counters recounted from the deliveries, so none counts twice."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from promptpipe.domain import keys, states, transitions
from promptpipe.domain.messages import MessageKind, VoteSource
from promptpipe.domain.polls import DONE_PURPOSE, VOTE_BY_OPTION
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.states import Status
from promptpipe.domain.transition_log import Actor
from promptpipe.flow import intensity
from promptpipe.flow.turn import Outcome, Outgoing, TurnContext
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import PollVoteReceived
from promptpipe.pipeline.turn_writes import MessageNote, Recount, TurnWrite, VoteSet
from promptpipe.questionnaires.rules.definition import QUESTIONNAIRE_PURPOSE
from promptpipe.storage.deliveries import VoteTarget
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import SELF_REPORT_PURPOSE

log = get_logger("promptpipe.flow")

COUNTED, CHANGED, WITHDRAWN, REPEATED, OUTDATED, UNKNOWN = (
    "counted", "changed", "withdrawn", "repeated", "outdated", "unknown_poll")
"""How a vote was handled (kept on its transcript message)."""

FIRST_REPLY = {
    states.Vote.DONE: "Well done, that one counts! If you like, tell me in a few words what made it work today.",
    states.Vote.NOT_THIS_TIME: ("Thanks for telling me; that happens to everyone. If you like, tell me what got in "
                         "the way, and we can make the next one easier."),
}
CHANGED_REPLY = {
    states.Vote.DONE: "Got it, I've changed your answer to done. Nice one!",
    states.Vote.NOT_THIS_TIME: "Got it, I've changed your answer to not this time.",
}
WITHDRAWN_REPLY = "Okay, I've cleared your answer. You can vote again whenever you like."
CLOSED = "Thanks! That question has closed, so this answer isn't counted."
CLOSED_PURPOSES = (QUESTIONNAIRE_PURPOSE, SELF_REPORT_PURPOSE)
"""A vote with one of these purposes that reaches the votes is on a questionnaire item no longer waiting for one."""
OUTDATED_REPLY = ("Thanks! That poll was for {day}, so I've noted your answer but it doesn't change anything: "
                  "only the poll of your newest prompt counts.")

_FIXED = frozenset((*FIRST_REPLY.values(), *CHANGED_REPLY.values(), WITHDRAWN_REPLY, CLOSED))
_OUTDATED = re.compile(re.escape(OUTDATED_REPLY).replace(re.escape("{day}"), ".+"))


def is_fixed_reply(text: str) -> bool:
    """Whether ``text`` is one of the service's own answers to a tapped poll (not the coach's words)."""
    return text in _FIXED or _OUTDATED.fullmatch(text) is not None


@dataclass(frozen=True)
class VoteDecision:
    handled_as: str
    vote: str | None = None
    """The delivery's vote after this one (for counted, changed and withdrawn)."""
    reply: str | None = None

    @property
    def changes_delivery(self) -> bool:
        return self.handled_as in (COUNTED, CHANGED, WITHDRAWN)


def day_label(local_date: str) -> str:
    day = date.fromisoformat(local_date)
    return f"{day:%A} {day.day} {day:%B}"


def decide(target: VoteTarget | None, chosen: list[str], *, withdrawn: bool) -> VoteDecision:
    """What a vote means, given the delivery it is about (None: a poll we have no delivery for)."""
    if target is None:
        return VoteDecision(UNKNOWN)
    if not target.is_latest:
        return VoteDecision(OUTDATED, reply=OUTDATED_REPLY.format(day=day_label(target.local_date)))
    new = VOTE_BY_OPTION.get(chosen[-1]) if chosen else None
    if new is None and not withdrawn:
        return VoteDecision(UNKNOWN)  # an option we did not offer
    if new == target.vote:
        return VoteDecision(REPEATED)
    if new is None:
        return VoteDecision(WITHDRAWN, None, WITHDRAWN_REPLY)
    if target.vote is None:
        return VoteDecision(COUNTED, new, FIRST_REPLY[new])
    return VoteDecision(CHANGED, new, CHANGED_REPLY[new])


@dataclass
class VoteTally:
    """The "did you do it?" votes of one batch, each against what those before it left (the last of quick taps wins)."""

    targets: dict[int, VoteTarget]
    """Deliveries by poll transcript id, as stored before the batch."""
    final: dict[int, tuple[str | None, bool, str]] = field(default_factory=dict)
    """Delivery id -> (its vote after the batch, whether an earlier vote was replaced, how the last was given)."""

    def handle(self, poll_id: int | None, chosen: list[str], *, withdrawn: bool, source: str = "tap") -> VoteDecision:
        target = self.targets.get(poll_id) if poll_id is not None else None
        if target is not None and target.delivery_id in self.final:
            target = replace(target, vote=self.final[target.delivery_id][0])
        decision = decide(target, chosen, withdrawn=withdrawn)
        if target is not None and decision.changes_delivery:
            replaced = self.final.get(target.delivery_id, (None, False, source))[1] or decision.handled_as != COUNTED
            self.final[target.delivery_id] = (decision.vote, replaced, source)
        return decision

    @property
    def answered(self) -> bool:
        """Whether a delivery now has a vote (the participant answered, rather than withdrew)."""
        return any(vote is not None for vote, _, _ in self.final.values())

    def writes(self, now: datetime) -> list[VoteSet]:
        return [VoteSet(delivery_id, vote, replaced, source, now)
                for delivery_id, (vote, replaced, source) in self.final.items()]


@dataclass(frozen=True)
class Vote:
    """One answer to a poll: tapped, typed or reacted."""

    item: InboxRow
    purpose: str | None
    poll_id: int | None
    chosen: list[str]
    withdrawn: bool = False
    source: str = "tap"


def taps(context: TurnContext, batch: list[InboxRow]) -> list[Vote]:
    """The batch's taps on polls (the poll's transcript id was found at ingest)."""
    return [Vote(item, event.purpose, event.poll_id, list(event.selected), withdrawn=event.withdrawn)
            for item, event in zip(batch, context.events, strict=True) if isinstance(event, PollVoteReceived)]


def votes_outcome(context: TurnContext, batch: list[InboxRow], inputs: list[Vote], now: datetime, *,
                  outgoing: list[Outgoing] | None = None,
                  handled: dict[int, dict[str, object]] | None = None) -> Outcome:
    """Votes are answered by the server; every vote stays in the transcript with a note of how it was handled."""
    state, pid = context.state, context.state.participant.id
    outgoing, handled = list(outgoing or []), dict(handled or {})
    tally = VoteTally(context.targets)
    for vote in inputs:
        reply: str | None = None
        if state.status != Status.ACTIVE:
            outcome = "not_active"
        elif vote.purpose == intensity.PURPOSE:
            reply, outcome = intensity.apply_vote(state, vote.chosen, vote.poll_id, withdrawn=vote.withdrawn,
                                                  source=vote.source)
        elif vote.purpose in CLOSED_PURPOSES:  # a questionnaire's poll that is no longer open
            reply, outcome = (None if vote.withdrawn else CLOSED), "closed"
        elif vote.purpose == DONE_PURPOSE:
            decision = tally.handle(vote.poll_id, vote.chosen, withdrawn=vote.withdrawn, source=vote.source)
            reply, outcome = decision.reply, decision.handled_as
            if decision.changes_delivery:
                state.profile.record.last_prompt_vote = decision.vote
        else:
            outcome = "not_counted"
        if vote.item.message_id is not None:
            handled[vote.item.message_id] = {"handled_as": outcome, **(
                {"vote_source": vote.source, "answers_poll": vote.poll_id, "selected": vote.chosen}
                if vote.source != VoteSource.TAP else {})}
        if reply:
            outgoing.append(Outgoing(keys.reply(vote.item.id), reply, MessageKind.TEXT))
        log.info("poll_vote_handled", participant_id=pid, purpose=vote.purpose, handled_as=outcome, source=vote.source)
    if tally.answered and not state.missing_fields(PROMPT_REQUIRED_FIELDS):
        # their next words are feedback
        transitions.apply(state, "intake_to_feedback", actor=Actor.PARTICIPANT, reason="answered the daily poll")
    writes: list[TurnWrite] = [*tally.writes(now), *([Recount(state.profile.record, pid)] if tally.final else []),
                               *(MessageNote(message_id, fields) for message_id, fields in handled.items())]
    return Outcome(outgoing, writes=writes, answered=batch)
