"""Consent events: what the ledger records, and who can cause each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from promptpipe.domain import keys
from promptpipe.domain.states import Status


class ConsentKind(StrEnum):
    """What a consent ledger row records."""

    ENROLLED = "enrolled"
    OPTED_OUT = "opted_out"
    OPTED_IN = "opted_in"
    PAUSED = "paused"
    """by the research team (``resumed`` lifts it)"""
    RESUMED = "resumed"
    WITHDRAWN = "withdrawn"
    ERASED = "erased"
    OPT_OUT_SUPERSEDED = "opt_out_superseded"
    """the participant's STOP changed nothing: they had sent a later START (by their clock)"""
    OPT_IN_SUPERSEDED = "opt_in_superseded"
    """the participant's START changed nothing: they had sent a later STOP (by their clock)"""


class ConsentSource(StrEnum):
    """Who caused a consent event; ``model``: on the participant's own words (the opt_out tool)."""

    PARTICIPANT = "participant"
    MODEL = "model"
    RESEARCHER = "researcher"
    SERVER = "server"
    """an auto-enrolment on a first message"""


@dataclass(frozen=True)
class ConsentRecord:
    """A consent event waiting to be written with the change it records."""

    event: ConsentKind
    source: ConsentSource
    words: str = ""
    actor: str = ""
    said_at: datetime | None = None
    """The participant's own: when they sent it, by their WhatsApp's clock."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "event", ConsentKind(self.event))  # a wrong value raises ValueError
        object.__setattr__(self, "source", ConsentSource(self.source))


NOT_WRITABLE = {
    "opted_out": "they sent STOP, withdrawing their consent to messages; only they can lift it, by sending START",
    "withdrawn": "they were withdrawn from the study, so nothing is sent to them any more",
    "erased": "their personal data was erased, so nothing is sent to them any more",
}
"""Why the research team may not write to someone, by reason (said in one line to the researcher)."""


def why_not_writable(status: str, *, opted_out: bool, erased: bool = False) -> str | None:
    """None if the team may write to them, else why (a :data:`NOT_WRITABLE` key); their own STOP bars it regardless."""
    holds = (("erased", erased), ("withdrawn", status == Status.WITHDRAWN), ("opted_out", opted_out))
    return next((reason for reason, holding in holds if holding), None)


# ------------------------------------------------------------------ what still goes, and when

class Outgoing(StrEnum):
    """What a queued message is, as far as consent is concerned (read from its outbox key)."""

    REPLY = "reply"
    """The server's own answer to a participant's message: a command's reply, a paused person's note."""
    SAFETY = "safety"
    TEAM = "team"
    OTHER = "other"
    """Everything the study sends of its own accord: prompts, reminders, the coach's turns, polls."""


_OUTGOING_BY_PREFIX = ((keys.COMMAND_REPLY, Outgoing.REPLY), (keys.SAFETY, Outgoing.SAFETY),
                       (keys.RESEARCHER_MESSAGE, Outgoing.TEAM))


HOLDS = (ConsentKind.OPTED_OUT, ConsentKind.PAUSED, ConsentKind.WITHDRAWN, ConsentKind.ERASED)
"""The consent events that stop messages; ``LIFTED_BY`` says which event ends each (none: for good)."""
LIFTED_BY = {ConsentKind.OPTED_IN: ConsentKind.OPTED_OUT, ConsentKind.RESUMED: ConsentKind.PAUSED}

SENT_WHILE_HELD: dict[ConsentKind, frozenset[Outgoing]] = {
    ConsentKind.OPTED_OUT: frozenset({Outgoing.REPLY, Outgoing.SAFETY}),
    ConsentKind.PAUSED: frozenset({Outgoing.REPLY, Outgoing.SAFETY, Outgoing.TEAM}),
    ConsentKind.WITHDRAWN: frozenset({Outgoing.SAFETY}),
    ConsentKind.ERASED: frozenset(),
}
"""What may still be queued and sent while a hold is on: answers to what the participant writes, the safety message
whenever crisis words come, and the team's own messages while only the team pauses them."""

SENT_FROM_BEFORE: dict[ConsentKind, frozenset[Outgoing]] = {
    ConsentKind.OPTED_OUT: frozenset({Outgoing.SAFETY}),
    ConsentKind.PAUSED: frozenset({Outgoing.REPLY, Outgoing.SAFETY}),
    ConsentKind.WITHDRAWN: frozenset({Outgoing.SAFETY}),
    ConsentKind.ERASED: frozenset(),
}
"""What still goes of the messages queued (or claimed, or held for quiet hours) before a hold came: after a STOP
nothing but the safety message (the STOP's own confirmation is queued by the hold's commit, under SENT_WHILE_HELD)."""


def refusal(holds: frozenset[ConsentKind], key: str, *, from_before: bool) -> ConsentKind | None:
    """The hold that stops this message (None: it may go); ``from_before``: queued or claimed before the holds came."""
    rules = SENT_FROM_BEFORE if from_before else SENT_WHILE_HELD
    kind = next((kind for prefix, kind in _OUTGOING_BY_PREFIX if key.startswith(prefix)), Outgoing.OTHER)
    return next((hold for hold in HOLDS if hold in holds and kind not in rules[hold]), None)


CANCELLED_BECAUSE = {
    ConsentKind.OPTED_OUT: "cancelled: the participant sent STOP before it went",
    ConsentKind.PAUSED: "cancelled: the research team paused the participant before it went",
    ConsentKind.WITHDRAWN: "cancelled: the participant was withdrawn before it went",
    ConsentKind.ERASED: "cancelled: the participant's data was erased before it went",
}
"""What an outbox row cancelled by a hold says (``last_error``)."""


def overtaken(said_at: datetime | None, own_latest: datetime | None) -> bool:
    """Whether their own opt-out or opt-in sent at ``said_at`` (their clock) was overtaken by ``own_latest``."""
    return said_at is not None and own_latest is not None and said_at < own_latest
