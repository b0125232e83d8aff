"""Consent events: what the ledger records, and who can cause each."""

from __future__ import annotations

from dataclasses import dataclass

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
