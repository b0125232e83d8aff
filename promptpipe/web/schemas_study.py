"""The API's bodies for the study as a whole (``/api/v1/broadcast``, ``/stats``, ``/status``,
``/tokens``, ``/flags``, ``/report``): requests and responses of :mod:`promptpipe.web.api_study`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from promptpipe.domain.access import TOKEN_NAME, Role
from promptpipe.domain.limits import REASON_CHARS
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.participant_filter import MAX_SILENT_DAYS
from promptpipe.domain.safety import FlagSource, FlagStatus, Severity
from promptpipe.domain.states import Stage, Status
from promptpipe.web.schemas import MESSAGE_CHARS, VISIBLE_LINE, VISIBLE_TEXT, StrictBody

__all__ = ["BroadcastRequest", "BroadcastResult", "DayStats", "FlagDetailOut", "FlagMessageOut", "FlagOut", "ReportOut",
           "ReportTableOut", "ResolveRequest", "ServiceStatus", "Stats", "TokenCreated", "TokenOut", "TokenRequest",
           "ViewerServiceStatus"]

TOKEN_NAME_PATTERN = f"^{TOKEN_NAME.pattern}$"
MAX_TOKEN_DAYS = 3650
"""The longest expiry a token made through the API may have (ten years)."""


class BroadcastRequest(StrictBody):
    model_config = ConfigDict(json_schema_extra={"anyOf": [
        {"properties": {"dry_run": {"const": True}}, "required": ["dry_run"]},
        {"properties": {"expected_count": {"type": "integer"}}, "required": ["expected_count"]}]})

    text: str = Field(min_length=1, max_length=MESSAGE_CHARS, pattern=VISIBLE_TEXT)
    status: Status | None = Field(Status.ACTIVE, description="only participants with this status (null: any)")
    stage: Stage | None = None
    arm: str | None = Field(None, max_length=100, pattern=VISIBLE_LINE)
    silent_days: int | None = Field(None, ge=1, le=MAX_SILENT_DAYS,
                                    description="only those who have not written for this many days")
    dry_run: bool = Field(False, strict=True, description="only count who would get it")
    expected_count: int | None = Field(None, ge=0, le=2**31 - 1,
                                       description="required to send (unless dry_run): the count a dry run gave; "
                                                   "the broadcast is refused (409) if the filter now matches "
                                                   "another number")
    anyway: bool = Field(False, strict=True,
                         description="send at once even to those inside the study's quiet hours (by "
                                     "default they get it when their quiet hours end)")

    @model_validator(mode="after")
    def _counted_first(self) -> BroadcastRequest:
        if not self.dry_run and self.expected_count is None:
            raise ValueError("expected_count: count first (dry_run true), then send with the count it gave")
        return self

    @field_validator("silent_days", "expected_count", mode="before")
    @classmethod
    def _counts_are_numbers(cls, value: object) -> object:
        if isinstance(value, bool):  # pydantic would read true as 1
            raise ValueError("a whole number, not true or false")
        return value


class BroadcastResult(BaseModel):
    recipients: int
    dry_run: bool
    broadcast_id: str | None = None
    queued: int = 0
    skipped: int = 0


class ViewerServiceStatus(BaseModel):
    """What a viewer reads of the service's state: counts and the connection, no free text."""

    whatsapp: dict[str, Any] | None
    whatsapp_recorded_at: str | None
    outbox_backlog: int
    uncertain_sends: int
    inbox_backlog: int
    stuck_inputs: int
    number_states: list[dict[str, Any]] = Field(
        [], description="with several WhatsApp numbers: each one's name, state and participants")
    services: list[dict[str, Any]] = Field(
        [], description="with several services on the database: each number's (and the alarm clock's) lease holder")
    summary: list[str]


class ServiceStatus(ViewerServiceStatus):
    """A researcher's view adds the last model error and which inputs were given up on."""

    last_model_error: dict[str, Any] | None
    stuck_input_ids: list[int]


class DayStats(BaseModel):
    date: str
    arm: str | None
    sent: int
    delivered: int
    read: int
    answered: int
    done: int


class Stats(BaseModel):
    from_: str = Field(alias="from")
    to: str
    days: list[DayStats]
    arms: dict[str, dict[str, int]]

    model_config = ConfigDict(populate_by_name=True)


class TokenRequest(StrictBody):
    name: str = Field(min_length=1, max_length=64, pattern=TOKEN_NAME_PATTERN,
                      description="letters, digits and . _ @ - (starting with a letter or digit)")
    role: Role
    expires_in_days: int | None = Field(default=None, ge=1, le=MAX_TOKEN_DAYS,
                                        description="the token stops working this many days from now; "
                                                    "left out: it works until revoked")


class TokenOut(BaseModel):
    name: str
    role: Role
    created_at: str | None
    created_by: str
    revoked_at: str | None
    revoked_by: str | None
    expires_at: str | None = Field(default=None, description="when it stops working (UTC); null: never")
    last_used_at: str | None = Field(default=None, description="its last use, noted at most once a minute")


class TokenCreated(TokenOut):
    token: str = Field(description="the secret: shown this once, stored only as a hash")


class FlagOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: int
    participant_id: str
    severity: Severity
    source: FlagSource
    status: FlagStatus


class FlagMessageOut(BaseModel):
    id: int
    at: str
    direction: Literal["in", "out"]
    kind: MessageKind
    status: str
    text: str
    flagged: bool = Field(description="the message that raised the flag (for the model's flags: the participant's "
                                      "last message before it)")


class FlagDetailOut(FlagOut):
    at: str
    trigger: str
    alert_attempts: int
    alerted_at: str | None
    resolved_at: str | None
    resolved_by: str | None
    note: str | None
    messages: list[FlagMessageOut]


class ResolveRequest(StrictBody):
    note: str = Field(min_length=1, max_length=REASON_CHARS, pattern=VISIBLE_TEXT)


class ReportTableOut(BaseModel):
    key: str = Field(description="its name: the page's anchor and /report/{key}.csv")
    title: str
    columns: list[str]
    rows: list[list[int | float | str | None]]
    share_columns: list[int] = Field(description="the columns (by index) holding a share from 0 to 1")


class ReportOut(BaseModel):
    study: str
    generated_at: str = Field(description="when it was counted (UTC)")
    tables: list[ReportTableOut]
