"""The durable queues: inputs waiting for their participant's lane (``inbox``), messages to send, future events."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Index, Text, text
from sqlmodel import Field, SQLModel

from promptpipe.storage.models import UTCDateTime, json_field

__all__ = ["UNSENT", "InboxItem", "InboxStatus", "OutboxItem", "OutboxStatus", "Timer", "TimerStatus"]


class InboxStatus(StrEnum):
    """Where an input stands: pending → done | failed (given up on)."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class OutboxStatus(StrEnum):
    """pending → sending → sent | failed | uncertain (a crash interrupted it) | cancelled (consent changed)."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    UNCERTAIN = "uncertain"
    CANCELLED = "cancelled"


class TimerStatus(StrEnum):
    """Where a timer stands: pending → fired | missed (came due too late) | cancelled."""

    PENDING = "pending"
    FIRED = "fired"
    MISSED = "missed"
    CANCELLED = "cancelled"


class InboxItem(SQLModel, table=True):
    """A durable input waiting for its participant's lane; ``key`` makes a repeat a no-op."""

    __tablename__ = "inbox"
    __table_args__ = (
        Index("ix_inbox_status_available", "status", "available_at"),
        Index("ix_inbox_participant_status", "participant_id", "status", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)
    participant_id: str = Field(foreign_key="participant.id")
    kind: str
    """message | enroll (and, later, timer and admin kinds)"""
    payload: dict[str, Any] = json_field()
    message_id: int | None = Field(default=None, foreign_key="message.id")
    status: str = InboxStatus.PENDING
    attempts: int = 0
    available_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    processed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


UNSENT = f"status IN ('{OutboxStatus.PENDING}', '{OutboxStatus.SENDING}')"
"""The outbox rows not sent (nor given up on) yet."""


class OutboxItem(SQLModel, table=True):
    """A message to send, written in the same transaction as the state change behind it."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_status_available", "status", "available_at"),
        Index("ix_outbox_participant_id", "participant_id", "id"),
        # a commit's claim of what it queued (one participant's due rows; revision 0004)
        Index("ix_outbox_participant_status", "participant_id", "status", "available_at"),
        # a claim's look for an earlier unsent row (revision 0013): a participant's few, whatever the planner knows
        Index("ix_outbox_unsent", "participant_id", "id", postgresql_where=text(UNSENT),
              sqlite_where=text(UNSENT)),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)
    participant_id: str = Field(foreign_key="participant.id")
    message_id: int = Field(foreign_key="message.id")
    status: str = OutboxStatus.PENDING
    attempts: int = 0
    available_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    claimed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    sent_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    wa_message_id: str | None = None
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    held_until: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """Held for the participant's quiet hours: until then it neither goes nor holds back later rows."""
    receipts_expected: bool | None = None
    """Set with the send: the transport reports receipts (copied to the transcript row by a :mod:`.mirrors` trigger)."""


class Timer(SQLModel, table=True):
    """One future event for one participant, one pending per kind; this row, not its alarm's job, says if it counts."""

    __table_args__ = (
        Index("ix_timer_participant_status", "participant_id", "status"),
        Index("ix_timer_status_due", "status", "due_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    kind: str
    due_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    payload: dict[str, Any] = json_field()
    status: str = TimerStatus.PENDING
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    settled_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
