"""The study's tables: the protocol as run, its secrets, the allocation sequence, decision points, questionnaires."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from promptpipe.questionnaires.rules.definition import InstanceStatus
from promptpipe.storage.models import UTCDateTime

__all__ = ["AllocationRow", "Decision", "QuestionnaireAnswer", "QuestionnaireInstance", "StudyProtocol", "StudySecret"]


class StudyProtocol(SQLModel, table=True):
    """The study file as run: a row at first use and for every allowed change; the newest is in force."""

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
    """Server-side secrets of the study: never shown to researchers, never exported (allocation stays concealed)."""

    __tablename__ = "study_secret"

    name: str = Field(primary_key=True)
    value: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class AllocationRow(SQLModel, table=True):
    """A participant's place in their stratum's allocation sequence (unique: never two at once)."""

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
    """One decision point; its proximal outcome is on the ``prompt_delivery`` row of the same inbox event."""

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
    """Why a drawn prompt did not go out (:class:`~promptpipe.study.rules.protocol.NotSent`)."""


class QuestionnaireInstance(SQLModel, table=True):
    """One questionnaire sent (or due) to one participant on one occasion: its schedule, progress and end."""

    __tablename__ = "questionnaire_instance"
    __table_args__ = (
        UniqueConstraint("participant_id", "questionnaire_id", "occasion", name="uq_questionnaire_occasion"),
        Index("ix_questionnaire_instance_participant_status", "participant_id", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    questionnaire_id: str
    occasion: str
    """What it is sent for, once per participant: an event, a local date or a piloting send (``manual:…``)."""
    schedule_kind: str
    """event | fixed | random | manual"""
    protocol_hash: str | None = None
    """SHA-256 of the study file in force when it was scheduled."""
    study_day: int | None = None
    local_date: str | None = None
    scheduled_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When it is due (a random time as drawn)."""
    window_start: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    window_end: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """A random-time questionnaire's window that day, as the draw saw it."""
    status: str = InstanceStatus.SCHEDULED
    """An :class:`~promptpipe.questionnaires.rules.definition.InstanceStatus`."""
    reason: str | None = None
    """Why it ended unfinished, or was never sent: an EndReason."""
    current_item: str | None = None
    """The item asked and not yet answered."""
    tries: int = 0
    """Replies to the current item that did not fit."""
    reminders_sent: int = 0
    sent_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    first_answer_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    ended_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    expires_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))


class QuestionnaireAnswer(SQLModel, table=True):
    """One item of one questionnaire instance: asked, answered or missed (with the missingness code)."""

    __tablename__ = "questionnaire_answer"
    __table_args__ = (UniqueConstraint("instance_id", "item_id", name="uq_questionnaire_answer_item"),)

    id: int | None = Field(default=None, primary_key=True)
    instance_id: int = Field(foreign_key="questionnaire_instance.id", index=True)
    participant_id: str = Field(foreign_key="participant.id", index=True)
    item_id: str
    message_id: int | None = Field(default=None, foreign_key="message.id")
    """The message (or poll) that asked it."""
    asked_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    answered_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    raw: str | None = None
    """The reply as given (the option tapped, or the words typed)."""
    coded: str | None = None
    """The coded value: a code, codes joined by ";", a number; empty for a text or a skip."""
    source: str | None = None
    """tap | typed"""
    missing: str | None = None
    """skipped | invalid | not_shown | expired | stopped | not_sent (None: answered)."""
    tries: int = 0
