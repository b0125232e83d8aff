"""Safety flags followed up: one with the messages around it, the lists, and the alert settings in force. For
researchers only (see ``domain.access``): the flag quotes the participant."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from promptpipe.config import Settings
from promptpipe.domain.safety import FlagStatus
from promptpipe.errors import NotFound
from promptpipe.storage import flags as flag_rows
from promptpipe.storage.db import Database

__all__ = ["AROUND", "AlertSettings", "FlagDetail", "FlagList", "alert_settings", "flag_detail", "flag_list"]

AROUND = 5
"""Messages shown before and after the one that raised a flag."""


@dataclass(frozen=True)
class FlagDetail:
    record: flag_rows.FlagRecord
    messages: list[flag_rows.AroundMessage]
    """Oldest first: up to :data:`AROUND` before the flagged message, it, up to :data:`AROUND` after."""

    @property
    def flagged_id(self) -> int | None:
        """The message that raised it; for a flag of the model's, the last one in before it was raised."""
        if self.record.message_id is not None:
            return self.record.message_id
        return max((m.id for m in self.messages if m.direction == "in" and m.at <= self.record.entry.at),
                   default=None)


@dataclass(frozen=True)
class FlagList:
    flags: list[flag_rows.FlagEntry]
    total: int
    """How many flags match (``flags`` holds at most :data:`MAX_LISTED`)."""


async def flag_detail(db: Database, flag_id: int, *, around: int = AROUND) -> FlagDetail:
    """The flag and the messages around it, read in one transaction."""

    def read(session: Session) -> FlagDetail | None:
        record = flag_rows.flag_record(session, flag_id)
        if record is None:
            return None
        return FlagDetail(record, flag_rows.messages_around(session, record, before=around, after=around))

    found = await db.run(read)
    if found is None:
        raise NotFound(f"there is no flag {flag_id}")
    return found


async def flag_list(db: Database, status: FlagStatus | None, *, limit: int = flag_rows.MAX_LISTED) -> FlagList:
    """Open flags oldest first, resolved (or all) newest first."""
    flags, total = await db.run(lambda session: flag_rows.flags_by_status(session, status, limit=limit))
    return FlagList(flags, total)


@dataclass(frozen=True)
class AlertSettings:
    """How the team hears of a new flag, as the settings in force say."""

    webhook_host: str | None
    """Where ALERT_WEBHOOK_URL posts (scheme and host only: the rest may hold a secret); None: no alerts."""
    own_safety_message: bool
    """SAFETY_MESSAGE_FILE is set: participants get the study's own safety message, not ours."""
    extra_phrases: bool
    """SAFETY_PHRASES_FILE adds phrases to the built-in screen."""


def alert_settings(settings: Settings) -> AlertSettings:
    host = None
    if settings.alert_webhook_url:
        parts = urlsplit(settings.alert_webhook_url)
        host = f"{parts.scheme}://{parts.hostname or ''}"
    return AlertSettings(host, settings.safety_message_file is not None, settings.safety_phrases_file is not None)
