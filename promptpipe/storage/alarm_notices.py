"""What a commit that changed schedules or timers tells another service's alarm clock (scheduling.alarm_notices)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Text, bindparam, func, select
from sqlalchemy.orm import Session

from promptpipe.storage.prepared import Prepared

__all__ = ["CHANNEL", "notify_alarms"]

CHANNEL = "promptpipe_alarms"
_NOTIFY = Prepared(select(func.pg_notify(bindparam("channel", type_=Text), bindparam("ids", type_=Text))))
"""Built once and run straight on the driver: SQLAlchemy's execution cost a tenth of a commit's CPU."""


def notify_alarms(session: Session, participant_ids: Sequence[str]) -> None:
    """PostgreSQL delivers it when (and only if) the transaction commits."""
    _NOTIFY.rows(session.connection(), {"channel": CHANNEL, "ids": ",".join(participant_ids)})
