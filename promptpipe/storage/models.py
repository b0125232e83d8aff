"""SQLModel tables: participants, conversations, transcript, ledgers, and the column types every table module uses
(the other tables: the ``*_tables`` modules). Datetimes are stored as UTC and always come back aware
(:class:`UTCDateTime` adds back the offset SQLite drops). JSON columns are replaced whole, never mutated in place.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, Index, Integer, Table, Text, TypeDecorator, UniqueConstraint
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import BigInteger
from sqlmodel import Field, SQLModel

from promptpipe.domain.safety import FlagStatus
from promptpipe.domain.states import Stage, Status

JSONType = JSON().with_variant(JSONB(), "postgresql")

UTC_TEXT_LENGTH = len("2026-01-05 12:30:15.250000")
"""A UTC time as SQLite stores it; ``isoformat`` adds ``+00:00`` to an aware one."""


class UTCDateTime(TypeDecorator[datetime]):
    """Aware datetimes in, aware UTC datetimes out, on every backend."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)

    def bind_processor(self, dialect: Any) -> Any:
        """On SQLite, one step to the text SQLAlchemy stores (``2026-01-05 12:30:15.250000``) instead of two: every
        message writes half a dozen times, and the two steps were a tenth of the statements' own cost."""
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        def as_text(value: datetime | None) -> str | None:
            if value is not None and value.tzinfo is timezone.utc:  # the clock's own times: no conversion
                return value.isoformat(" ", "microseconds")[:UTC_TEXT_LENGTH]
            utc = self.process_bind_param(value, dialect)
            return None if utc is None else utc.isoformat(" ", "microseconds")
        return as_text

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        """On SQLite, the stored text read straight into an aware UTC time (see above)."""
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)

        def as_time(value: str | None) -> datetime | None:
            return None if value is None else self.process_result_value(datetime.fromisoformat(value), dialect)
        return as_time


def json_field() -> Any:
    """A JSON object column, empty by default."""
    return Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))


class Participant(SQLModel, table=True):
    id: str = Field(primary_key=True)
    phone: str = Field(unique=True, index=True)
    """E.164 with a leading +."""
    lid: str | None = Field(default=None, index=True)
    name: str = ""
    timezone: str = "UTC"
    status: str = Status.ACTIVE
    """active | paused (either reason below holds) | withdrawn | completed; derived on every change."""
    opted_out: bool = False
    """The participant withdrew consent to messages (STOP, or asked the model); only they lift it."""
    researcher_paused: bool = False
    """A researcher paused them; only a researcher lifts it. Independent of ``opted_out``."""
    paused_by: str | None = None
    """For people reading the table, derived from the flags above: participant | researcher | participant+researcher."""
    background: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    enrolled_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    erased_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """When the participant's personal data was erased (the row stays as a pseudonymous tombstone)."""
    erased_by: str | None = None
    arm: str | None = None
    """The study arm the allocation gave them (None: enrolled before the study had arms)."""
    strata: dict[str, str] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    """The enrollment fields the allocation is stratified by (``--stratum site=A``); None: enrolled before strata."""
    day_one: str | None = None
    """Study day 1, the participant's local YYYY-MM-DD (None until known: intake not complete, or no study file)."""
    extra_days: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    """Days a researcher added to this participant's study length (``extend``)."""
    completed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """When they completed the study (status ``completed``); None otherwise."""
    number: str | None = Field(default=None, index=True)
    """The deployment's WhatsApp number everything to them goes from; None: the first, default number."""
    own_consent_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """When they sent (by their clock) their latest applied opt-out or opt-in: one sent earlier changes nothing."""

    # The participant list's default order: a page is read off this index instead of sorting everyone.
    __table_args__ = (Index("ix_participant_enrolled", "enrolled_at", "id"),)


class Conversation(SQLModel, table=True):
    participant_id: str = Field(primary_key=True, foreign_key="participant.id")
    sub_state: str = Stage.INTAKE
    profile: dict[str, Any] = json_field()
    tone: dict[str, Any] = json_field()
    summary: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    """The older conversation folded into a few paragraphs, so the model remembers past its window."""
    summary_through: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    """The last transcript message id the summary covers (0: none yet)."""
    turns_since_summary: int = Field(default=0, sa_column=Column(Integer, nullable=False, default=0))
    questionnaire: dict[str, Any] | None = Field(default=None, sa_column=Column(JSONType, nullable=True))
    """The questionnaire under way, if any (:class:`promptpipe.questionnaires.rules.definition.OpenQuestionnaire`)."""
    version: int = 1
    """Bumped by every write; a write that expects an older version is a conflict."""
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class Message(SQLModel, table=True):
    """The transcript: every inbound and outbound message with its status."""

    __table_args__ = (
        Index("ix_message_participant_id_id", "participant_id", "id"),
        # the last message in / out of each participant, and who has been silent (researchers' lists)
        Index("ix_message_participant_direction_created", "participant_id", "direction", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id")
    direction: str
    """in | out"""
    role: str
    """user | assistant"""
    kind: str = "text"
    """text | poll | greeting | apology (and, later, prompt | reminder …)"""
    text: str = Field(sa_column=Column(Text, nullable=False))
    payload: dict[str, Any] = json_field()
    wa_message_id: str | None = Field(default=None, index=True)
    status: str
    """in: received | answered | failed; out: queued | sent | failed | uncertain"""
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    sent_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    receipts_expected: bool = False
    """Sent through a transport that reports receipts: only then does a missing one mean it did not reach the phone."""


class Receipt(SQLModel, table=True):
    """WhatsApp's word that a message we sent was delivered, read or played: one row per message and kind, earliest
    time kept. Matched by WhatsApp id when read, so one arriving before the send, twice or out of order is harmless."""

    __table_args__ = (UniqueConstraint("wa_message_id", "kind", name="uq_receipt_message_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    wa_message_id: str = Field(index=True)
    kind: str
    """delivered | read | played"""
    at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When WhatsApp says it happened."""
    received_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class ServiceStatus(SQLModel, table=True):
    """What the service knows about itself (connection state, last model error): one row per name, overwritten."""

    __tablename__ = "service_status"

    name: str = Field(primary_key=True)
    value: dict[str, Any] = json_field()
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class Transition(SQLModel, table=True):
    """Audit log: every sub-state, status or time-zone change (promptpipe.domain.transitions), by whom and why."""

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id", index=True)
    kind: str
    """sub_state | status | timezone"""
    name: str
    from_value: str | None = None
    to_value: str
    reason: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    actor: str | None = None
    """participant | model | researcher | timer | server (None on rows older than this column)"""
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class LidMapping(SQLModel, table=True):
    """WhatsApp hidden user id (LID digits) to E.164 phone, learned from inbound messages. The phone index has the
    table's old name on purpose: a release from before versioned migrations, creating a missing ``lid_mapping``
    at start, stops there instead of running on a schema it does not know."""

    __tablename__ = "whatsapp_lid"
    __table_args__ = (Index("lid_mapping", "phone"),)

    lid: str = Field(primary_key=True)
    phone: str
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class ToneEvent(SQLModel, table=True):
    """Every tone proposal the model made: what was stripped, whether it was applied, the active tags around it."""

    __tablename__ = "tone_event"

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id", index=True)
    source: str
    """explicit | implicit"""
    proposed: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    stripped: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    """Proposed tags that are not on the whitelist (dropped)."""
    outcome: str
    """applied | rate_limited | no_change"""
    active_before: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    active_after: list[str] = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    scores: dict[str, float] = json_field()
    """Scores after the update."""
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class Suppression(SQLModel, table=True):
    """A number whose owner had opted out when erased, as a keyed hash (:mod:`.suppression`): re-enrolled, opted out."""

    number_hash: str = Field(primary_key=True)
    opted_out_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When they sent the STOP that held at the erasure (their clock, where known)."""
    erased_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class ConsentEvent(SQLModel, table=True):
    """The consent ledger: every consent-relevant event, who caused it and the words that did."""

    __tablename__ = "consent"

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id", index=True)
    event: str
    """enrolled | opted_out | opted_in | paused | resumed | withdrawn | erased, or an opt-out or opt-in that changed
    nothing because the participant sent it before their latest one (opt_out_superseded | opt_in_superseded)"""
    source: str
    """participant | model (on the participant's words) | researcher | server"""
    actor: str = ""
    """The researcher's name (source researcher); empty otherwise."""
    words: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    """What caused it: the participant's message, or the researcher's reason."""
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When the service recorded it (for the participant's own: when their message was received)."""
    said_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """The participant's own opt-out or opt-in: when they sent it, by their WhatsApp's clock."""
    reconstructed: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, default=False))
    """Rebuilt at an upgrade from the transition log of a release that kept no ledger (so no words)."""


class Flag(SQLModel, table=True):
    """A safety concern about a participant: raised by the crisis screen or by the model."""

    __table_args__ = (Index("ix_flag_status_id", "status", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    participant_id: str = Field(foreign_key="participant.id", index=True)
    source: str
    """screen (the server's phrase list) | model (the flag_concern tool)"""
    severity: str
    """low | medium | high"""
    trigger: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    """The phrase the screen matched, or the model's reason."""
    message_id: int | None = Field(default=None, foreign_key="message.id")
    """The participant's message that raised it."""
    status: str = FlagStatus.OPEN
    resolved_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    resolved_by: str | None = None
    resolution_note: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    alert_status: str = "none"
    """none (no webhook set) | pending | sent"""
    alert_attempts: int = 0
    alerted_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class NumberLease(SQLModel, table=True):
    """Which ``serve`` process holds a WhatsApp number (or a role such as ``@alarms``): see :mod:`.leases`."""

    __tablename__ = "number_lease"

    name: str = Field(sa_column=Column(Text, primary_key=True))
    """A number's name, a role (``@alarms``) or a process's presence (``@live:{group}:{holder}``)."""
    holder: str = Field(sa_column=Column(Text, nullable=False))
    """The holding process's id (``host:pid:random``); empty once released."""
    token: int = Field(sa_column=Column(BigInteger, nullable=False))
    """The fencing token: one more each time the lease goes to another holder."""
    expires_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    heartbeat_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    acquired_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    """When the current holder took it."""
    service: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    """The holder's service (SERVICE_NAME: a name that survives its restarts); kept once released."""
    preferred: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    """A number's (or role's) preferred service: PREFERRED_SERVICES, or the first service that held it."""
    move_to: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    """An operator asked for the number to move to this service (empty: nothing asked)."""


class LeaseMove(SQLModel, table=True):
    """A number (or the ``@alarms`` role) that went from one service to another, and why; written by the taker."""

    __tablename__ = "lease_move"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(Text, nullable=False))
    from_service: str = Field(sa_column=Column(Text, nullable=False))
    to_service: str = Field(sa_column=Column(Text, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    moved_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False, index=True))


def table_of(model: type[SQLModel]) -> Table:
    """The Core table behind a model (SQLModel does not declare ``__table__`` to type checkers)."""
    table = sa_inspect(model).local_table
    assert isinstance(table, Table)
    return table
