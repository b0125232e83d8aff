"""Queries on ``service_status`` (connection state per number, the last model error) and the status's backlog counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.storage.models import ServiceStatus, table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus

__all__ = ["LAST_MODEL_ERROR", "WHATSAPP", "Backlog", "ModelError", "StatusRow", "backlog", "model_error_value",
           "number_rows", "read_statuses", "save_status", "state_row_name"]

WHATSAPP = "whatsapp"
"""The connection state of a transport serving one number (and of every deployment before numbers)."""
LAST_MODEL_ERROR = "last_model_error"
MODEL_ERROR_CHARS = 300
_STATUS = table_of(ServiceStatus)
_OUTBOX = table_of(OutboxItem)
_INBOX = table_of(InboxItem)


def save_status(session: Session, name: str, value: Mapping[str, object], now: datetime) -> None:
    """Overwrite one status row (only the one running service writes these)."""
    conn = session.connection()
    changed = conn.execute(update(_STATUS).where(_STATUS.c.name == name).values(value=value, updated_at=now)).rowcount
    if not changed:
        conn.execute(insert(_STATUS).values(name=name, value=value, updated_at=now))


class ModelError(TypedDict):
    """The last model error's row: when (ISO time), its text (cut short) and its kind."""

    at: str | None
    error: str
    type: str | None


def model_error_value(error: BaseException, now: datetime) -> ModelError:
    return {"at": now.isoformat(), "error": str(error)[:MODEL_ERROR_CHARS], "type": type(error).__name__}


@dataclass(frozen=True)
class StatusRow:
    value: dict[str, Any]
    updated_at: datetime


def read_statuses(session: Session) -> dict[str, StatusRow]:
    rows = session.connection().execute(select(_STATUS.c.name, _STATUS.c.value, _STATUS.c.updated_at)).all()
    return {name: StatusRow(dict(value or {}), updated_at) for name, value, updated_at in rows}


def state_row_name(number: str | None) -> str:
    """The row a number's connection state is kept in: ``whatsapp:<name>`` (``whatsapp``: a transport's only one)."""
    return WHATSAPP if number is None else f"{WHATSAPP}:{number}"


def number_rows(rows: Mapping[str, StatusRow], numbers: Sequence[str]) -> dict[str, StatusRow | None]:
    """Each number's state row among ``rows`` (None: none). The default number's ``whatsapp`` row (from when one
    number was served) counts if newer."""
    found: dict[str, StatusRow | None] = {}
    for index, name in enumerate(numbers):
        candidates = [row for row in (rows.get(state_row_name(name)), rows.get(WHATSAPP) if index == 0 else None)
                      if row is not None and row.value.get("since")]
        found[name] = max(candidates, key=lambda row: row.updated_at) if candidates else None
    return found


@dataclass(frozen=True)
class Backlog:
    outbox: int
    """Messages waiting to be sent (or being sent)."""
    uncertain: int
    """Sends a crash interrupted: they may or may not have arrived."""
    inbox: int
    """Inputs waiting for a turn."""
    stuck: int = 0
    """Inputs given up on (a bug, a request the model refuses, a conversation too long)."""
    stuck_ids: tuple[int, ...] = ()
    """The oldest of them (at most :data:`STUCK_IDS_SHOWN`)."""


STUCK_IDS_SHOWN = 20


def backlog(session: Session) -> Backlog:
    conn = session.connection()

    def count(table: Any, *where: Any) -> int:
        return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())

    stuck = count(_INBOX, _INBOX.c.status == InboxStatus.FAILED)
    stuck_ids = conn.execute(select(_INBOX.c.id).where(_INBOX.c.status == InboxStatus.FAILED).order_by(_INBOX.c.id)
                             .limit(STUCK_IDS_SHOWN)).scalars().all() if stuck else []
    return Backlog(count(_OUTBOX, _OUTBOX.c.status.in_((OutboxStatus.PENDING, OutboxStatus.SENDING))),
                   count(_OUTBOX, _OUTBOX.c.status == OutboxStatus.UNCERTAIN),
                   count(_INBOX, _INBOX.c.status == InboxStatus.PENDING), stuck, tuple(stuck_ids))
