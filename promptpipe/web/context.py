"""What the HTTP API and dashboard work with, built by ``promptpipe serve`` (and by tests) around a running service."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from promptpipe.clock import Clock
from promptpipe.config import Settings
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.pilot import PilotDesk
from promptpipe.storage.db import Database
from promptpipe.web.ratelimit import FailedAttempts

__all__ = ["WebContext"]


@dataclass
class WebContext:
    settings: Settings
    db: Database
    """The service's own database: every write goes through it (and so through the inbox)."""
    reader: Database
    """Read-only connections."""
    clock: Clock
    failures: FailedAttempts = field(default_factory=FailedAttempts)
    system_prompts: dict[str, str] = field(default_factory=dict)
    """The system prompts as the model gets them (their hashes go into an export's study.json)."""
    uses_noted: dict[int, datetime] = field(default_factory=dict)
    """When this process last noted each token's use (:func:`promptpipe.web.identity.note_use`)."""
    session_key: bytes = b""
    """Signs dashboard session cookies; loaded from the database when the server starts."""
    pilots: PilotDesk | None = None
    """The sandbox pilots (``/pilot``), built on the service's own composition; None: not offered."""

    @property
    def researcher_zone(self) -> ZoneInfo:
        return zone_or_utc(self.settings.researcher_timezone)
