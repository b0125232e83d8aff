"""The daily prompts: schedules, every prompt that went out and what became of it, and the triggers' per-day counts."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from promptpipe.storage.models import UTCDateTime

__all__ = ["PromptDayCounts", "PromptDelivery", "Schedule"]


class Schedule(SQLModel, table=True):
    """A participant's daily prompt: a fixed habit time or a random time inside a window, in their time zone, sent
    ``prep_minutes`` before. Deleting one sets ``active`` to false (its past prompts keep pointing at it)."""

    __table_args__ = (Index("ix_schedule_participant_active", "participant_id", "active"),)

    id: str = Field(primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    kind: str
    """fixed | random"""
    habit_time: str | None = None
    """HH:MM (fixed)"""
    window_start: str | None = None
    window_end: str | None = None
    prep_minutes: int = 10
    active: bool = True
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class PromptDelivery(SQLModel, table=True):
    """One daily prompt that went out: the vote on its poll (the latest counts), the first reply, the reminder. The
    profile's counters are recomputed from these rows, so a changed vote never counts twice."""

    __tablename__ = "prompt_delivery"
    __table_args__ = (
        # a participant's prompts and answers (the sort by adherence reads the answered share off the index alone)
        Index("ix_prompt_delivery_participant_answers", "participant_id", "id", "vote", "replied_at"),
        # researchers' statistics: prompts of a day range (covering what the counts read), prompts sent today
        Index("ix_prompt_delivery_day_counts", "local_date", "participant_id", "vote", "replied_at",
              "prompt_message_id"),
        Index("ix_prompt_delivery_sent_at", "sent_at"),
        Index("ix_prompt_delivery_prompt_message_id", "prompt_message_id"),  # a receipt finds its prompt
    )

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    inbox_id: int = Field(unique=True)
    """The daily_prompt event that produced it."""
    schedule_id: str | None = None
    """None for a prompt a researcher sent by hand."""
    local_date: str
    """YYYY-MM-DD in the participant's zone: the day the prompt is for."""
    prompt_text: str = Field(sa_column=Column(Text, nullable=False))
    prompt_message_id: int | None = Field(default=None, foreign_key="message.id")
    poll_message_id: int | None = Field(default=None, foreign_key="message.id", index=True)
    sent_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When it was handed to the outbox (the transcript has the moment WhatsApp took it)."""
    vote: str | None = None
    """done | not_this_time | None (no vote, or withdrawn)"""
    voted_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    vote_changes: int = 0
    """How often a vote was changed or withdrawn after the first."""
    vote_source: str | None = None
    """How the standing vote was given: tap (on the poll), typed ("done", "2", "yes") or reaction (👍); None: none."""
    replied_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """The participant's first written message after the prompt."""
    reminder_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    receipt_level: int | None = None
    """What WhatsApp's receipts say: None nothing yet, 0 delivered, 1 read. Kept by :mod:`.rollup`'s triggers alone."""


class PromptDayCounts(SQLModel, table=True):
    """One shard of the daily prompts of one participant-local day and arm ('' for none): how many went out, were
    delivered, read, answered and done. Kept by :mod:`.rollup`'s triggers; readers sum a day and arm's shards."""

    __tablename__ = "prompt_day_counts"

    local_date: str = Field(primary_key=True)
    arm: str = Field(primary_key=True)
    shard: int = Field(default=0, primary_key=True, sa_column_kwargs={"server_default": "0", "autoincrement": False})
    """The row a connection adds to (so concurrent commits do not queue on one row); alone it means nothing."""
    sent: int
    delivered: int
    read: int
    answered: int
    done: int
