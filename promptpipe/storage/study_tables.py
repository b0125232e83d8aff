"""The study's tables: the protocol as run, its secret seed, the allocation sequence and the
decision points (see :mod:`promptpipe.domain.study`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from promptpipe.storage.models import UTCDateTime

__all__ = ["AllocationRow", "Decision", "SelfReportRow", "StudyProtocol", "StudySecret"]


class StudyProtocol(SQLModel, table=True):
    """The study file as run: one row when the service first ran with it, one more for every
    change a researcher allowed (``--allow-protocol-change``). The newest row is in force."""

    __tablename__ = "study_protocol"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    hash: str
    """SHA-256 of the file's bytes."""
    contents: str = Field(sa_column=Column(Text, nullable=False))
    previous_hash: str | None = None
    adopted_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    adopted_by: str = ""
    """first start | allowed change (with who ran it)."""


class StudySecret(SQLModel, table=True):
    """Server-side secrets of the study (the allocation and decision seed). Never shown to
    researchers, never exported: allocation stays concealed until a participant is assigned."""

    __tablename__ = "study_secret"

    name: str = Field(primary_key=True)
    value: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class AllocationRow(SQLModel, table=True):
    """A participant's place in the allocation sequence of their stratum (unique, so two
    enrollments at once can never take the same place)."""

    __tablename__ = "allocation"
    __table_args__ = (UniqueConstraint("stratum", "sequence", name="uq_allocation_stratum_sequence"),)

    participant_id: str = Field(primary_key=True, foreign_key="participant.id")
    stratum: str
    """``field=value|field=value`` ("" without strata)."""
    sequence: int
    """1 for the stratum's first enrollment, 2 for the next …"""
    arm: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class Decision(SQLModel, table=True):
    """One decision point: a daily prompt time, whether the participant was available, what was
    drawn and with which probability, and what was sent. The proximal outcome (vote, reply,
    receipts) is on the ``prompt_delivery`` row of the same inbox event, filled in as it happens."""

    __table_args__ = (Index("ix_decision_participant_id", "participant_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    inbox_id: int = Field(unique=True)
    """The daily_prompt event: one decision per event, however often it runs."""
    schedule_id: str | None = None
    arm: str | None = None
    study_day: int | None = None
    local_date: str
    """YYYY-MM-DD: the day the prompt is for, in the participant's zone."""
    scheduled_for: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    decided_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    local_time: str
    """``decided_at`` on the participant's wall clock, ISO 8601 with its offset."""
    timezone: str
    available: bool
    unavailable_reason: str | None = None
    """not_in_study | paused | baseline | quiet_hours | already_answered (None when available)."""
    probability: float | None = None
    """Probability of the treatment (first) action; None without a decision rule."""
    action: str
    """send | no_send | personalised | fixed, or none (unavailable)."""
    draw: float | None = None
    """The uniform number the action was drawn with (also at an unavailable point, never acted on)."""
    seed_ref: str = ""
    """What the draw is keyed by (with the study's secret seed it reproduces the draw)."""
    prompt_message_id: int | None = Field(default=None, foreign_key="message.id")
    prompt_style: str | None = None
    """personalised | fixed (None: nothing sent)."""
    model: str | None = None
    """The model that wrote a personalised prompt."""
    system_prompt_hash: str | None = None
    """SHA-256 of the prompt generator's system prompt (personalised prompts)."""
    protocol_hash: str | None = None
    """SHA-256 of the study file in force when the decision was made (None without one)."""
    not_sent_reason: str | None = None
    """model_outage: the drawn prompt could not be written before its day ended or quiet hours began."""


class SelfReportRow(SQLModel, table=True):
    """One end-of-day self-report: the question asked on a participant's local day and the
    answer, if one came within the protocol's window (one row per participant and day)."""

    __tablename__ = "self_report"
    __table_args__ = (UniqueConstraint("participant_id", "local_date", name="uq_self_report_day"),)

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    local_date: str
    poll_message_id: int | None = Field(default=None, foreign_key="message.id", index=True)
    asked_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    answer: str | None = None
    """yes | no (None: not answered within the window)."""
    answered_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
