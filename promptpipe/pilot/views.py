"""What a page reads of a pilot: a snapshot of its conversation, its clock and where they stand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.domain.states import Stage, Status

__all__ = ["PilotMessage", "PilotView", "SkipTo", "Skipped"]


class SkipTo(StrEnum):
    PROMPT = "prompt"
    REMINDER = "reminder"
    """The next reminder (of an unanswered prompt, or of an intake on hold)."""
    SELF_REPORT = "self_report"

    @property
    def words(self) -> str:
        return {SkipTo.PROMPT: "the next prompt", SkipTo.REMINDER: "the next reminder",
                SkipTo.SELF_REPORT: "the next self-report"}[self]


@dataclass(frozen=True)
class PilotMessage:
    id: int
    at: datetime
    incoming: bool
    kind: MessageKind
    status: MessageStatus
    text: str
    options: tuple[str, ...] = ()
    multiple: bool = False
    """A poll that takes several options at once."""
    tappable: bool = False
    """A poll that reached the sandbox participant."""


@dataclass(frozen=True)
class PilotView:
    owner: str
    """The researcher's token's name."""
    name: str
    zone: str
    started_at: datetime
    now: datetime
    """The pilot's own clock."""
    status: Status
    stage: Stage
    messages: tuple[PilotMessage, ...]
    waiting: int
    """Their messages and alarms not answered yet (the model did not answer: tried again later)."""
    unsent: int


@dataclass(frozen=True)
class Skipped:
    at: datetime
    """Where the pilot's clock went."""
    alarms: int
    """Alarms fired on the way (the one skipped to included)."""
    sent: int
    """Messages the study sent meanwhile (none: e.g. its decision at that prompt was not to send one)."""


def in_sent_order(messages: Sequence[PilotMessage], sent_at: Mapping[int, datetime]) -> tuple[PilotMessage, ...]:
    """Each message at the time it went (``sent_at``, by id), those not sent yet last, in the order written."""
    def when(message: PilotMessage) -> tuple[bool, datetime]:
        went = message.at if message.incoming else sent_at.get(message.id)
        return (went is None, went or message.at)
    return tuple(sorted(messages, key=when))
