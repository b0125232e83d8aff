"""What a commit that changed schedules or timers tells another service's alarm clock (scheduling.alarm_notices)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.orm import Session

__all__ = ["CHANNEL", "notify_alarms"]

CHANNEL = "promptpipe_alarms"
_NOTIFY = text("SELECT pg_notify(:channel, :ids)")


def notify_alarms(session: Session, participant_ids: Sequence[str]) -> None:
    """PostgreSQL delivers it when (and only if) the transaction commits."""
    session.connection().execute(_NOTIFY, {"channel": CHANNEL, "ids": ",".join(participant_ids)})
