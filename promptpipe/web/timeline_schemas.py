"""The API's bodies for a participant's timeline (``GET /api/v1/participants/{id}/timeline``)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from promptpipe.domain.timeline import TimelineKind

__all__ = ["TimelineEntryOut", "TimelinePageOut"]


class TimelineEntryOut(BaseModel):
    at: str = Field(description="when (ISO 8601, UTC)")
    kind: TimelineKind
    summary: str = Field(description="one line in plain words (no phone, name or words of the participant for "
                                     "viewers, nor the team's names)")
    text: str | None = Field(description="the words behind it: a message's text, a prompt, an answer as typed, a "
                                         "reason or a note; null for viewers and where there are none")
    due_at: str | None = Field(description="a timer's due time (ISO 8601, UTC); null for other kinds")
    ref: str = Field(description="the row it comes from, table:id")


class TimelinePageOut(BaseModel):
    participant_id: str
    timezone: str = Field(description="the participant's zone: from and to are their local days")
    kinds: list[TimelineKind] = Field(description="the kinds read (all the role may read when none were asked for)")
    entries: list[TimelineEntryOut] = Field(description="newest first")
    older: str | None = Field(description="pass as cursor for the next older page (null: none)")
    newer: str | None = Field(description="pass as cursor for the next newer page (null: none)")
