"""Consent events: what the ledger records, and who can cause each."""

from __future__ import annotations

from dataclasses import dataclass

from promptpipe.domain.states import WITHDRAWN

CONSENT_EVENTS = ("enrolled", "opted_out", "opted_in", "paused", "resumed", "withdrawn", "erased")
CONSENT_SOURCES = ("participant", "model", "researcher", "server")
"""``model``: on the participant's own words (the opt_out tool)."""


@dataclass(frozen=True)
class ConsentRecord:
    """A consent event waiting to be written with the change it records."""

    event: str
    source: str
    words: str = ""
    actor: str = ""

    def __post_init__(self) -> None:
        if self.event not in CONSENT_EVENTS:
            raise ValueError(f"unknown consent event {self.event!r}")
        if self.source not in CONSENT_SOURCES:
            raise ValueError(f"unknown consent source {self.source!r}")


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
