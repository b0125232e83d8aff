"""Votes on the "did you do it?" poll: handled by the server, never by the model.

Only the poll of the participant's newest prompt counts; a vote on an older one is kept in the
transcript and answered as outdated. WhatsApp sends the whole current selection with every
change, so a changed vote replaces the earlier one and an empty selection withdraws it; the
counters are recomputed from the delivery rows, so nothing is ever counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from promptpipe.delivery_store import VoteTarget
from promptpipe.flow.daily_prompt import POLL_OPTIONS
from promptpipe.models import VOTE_DONE, VOTE_NOT_THIS_TIME

PURPOSE = "done"
VOTE_BY_OPTION = dict(zip(POLL_OPTIONS, (VOTE_DONE, VOTE_NOT_THIS_TIME), strict=True))

COUNTED, CHANGED, WITHDRAWN, REPEATED, OUTDATED, UNKNOWN = (
    "counted", "changed", "withdrawn", "repeated", "outdated", "unknown_poll")
"""How a vote was handled (kept on its transcript message)."""

FIRST_REPLY = {
    VOTE_DONE: "Well done, that one counts! If you like, tell me in a few words what made it work today.",
    VOTE_NOT_THIS_TIME: ("Thanks for telling me; that happens to everyone. If you like, tell me what got in "
                         "the way, and we can make the next one easier."),
}
CHANGED_REPLY = {
    VOTE_DONE: "Got it, I've changed your answer to done. Nice one!",
    VOTE_NOT_THIS_TIME: "Got it, I've changed your answer to not this time.",
}
WITHDRAWN_REPLY = "Okay, I've cleared your answer. You can vote again whenever you like."
OUTDATED_REPLY = ("Thanks! That poll was for {day}, so I've noted your answer but it doesn't change anything: "
                  "only the poll of your newest prompt counts.")


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
