"""Who may use the HTTP API and the dashboard (tokens, stored only as a hash), and the audit log of their writes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column, Index
from sqlmodel import Field, SQLModel

from promptpipe.storage.models import JSONType, UTCDateTime

__all__ = ["ApiToken", "AuditEntry"]


class ApiToken(SQLModel, table=True):
    """A bearer token: its name, its role and the SHA-256 of its secret (shown once when created, never stored)."""

    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    role: str
    """viewer | researcher | admin"""
    token_hash: str = Field(unique=True)
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    created_by: str = ""
    revoked_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    revoked_by: str | None = None
    expires_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """From then on it is refused like a revoked token (None: it does not expire)."""
    last_used_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))
    """Its last use, to the minute (written at most once a minute per token)."""


class AuditEntry(SQLModel, table=True):
    """One write made through the API or the dashboard (never a participant's words or phone in ``detail``)."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_participant", "participant_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    actor: str
    role: str
    action: str
    """enroll | update | pause | resume | withdraw | erase | send | broadcast | prompt_now | resolve_flag | sign_in …"""
    participant_id: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
    via: str = "api"
    """api | dashboard | cli"""
    address: str | None = None
    """The caller's address (as the sign-in limit counts it), where there was one."""
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
