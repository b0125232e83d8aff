"""Consent events: what the ledger records, and who can cause each."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from promptpipe.domain.states import WITHDRAWN


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


class ConsentSource(StrEnum):
    """Who caused a consent event; ``model``: on the participant's own words (the opt_out tool)."""

    PARTICIPANT = "participant"
    MODEL = "model"
    RESEARCHER = "researcher"
    SERVER = "server"
    """an auto-enrolment on a first message"""


CONSENT_EVENTS = tuple(ConsentKind)
CONSENT_SOURCES = tuple(ConsentSource)


@dataclass(frozen=True)
class ConsentRecord:
    """A consent event waiting to be written with the change it records."""

    event: ConsentKind
    source: ConsentSource
    words: str = ""
    actor: str = ""

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
    """Whether the research team may write to this participant: None when it may (active,
    completed, or paused by the team alone), otherwise the reason (a key of :data:`NOT_WRITABLE`).
    Consent is never overridden: a participant's own STOP holds whatever else is true."""
    if erased:
        return "erased"
    if status == WITHDRAWN:
        return "withdrawn"
    if opted_out:
        return "opted_out"
    return None
