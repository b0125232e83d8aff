"""A participant's timeline: its entry kinds, those a viewer may not read, and the cursor that pages it. Entries are
ordered by time, *stream*, then row id: a key no two share, so a cursor pages without gaps or repeats."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum

__all__ = ["CURSOR_PATTERN", "KIND_LABELS", "MAX_TIMELINE_PAGE", "RESEARCHER_ONLY", "Cursor", "Stream", "TimelineKind"]


class TimelineKind(StrEnum):
    MESSAGE_IN = "message_in"
    MESSAGE_OUT = "message_out"
    PROMPT = "prompt"
    DECISION = "decision"
    POLL_ANSWER = "poll_answer"
    """a vote on a daily prompt's poll"""
    QUESTIONNAIRE = "questionnaire"
    """a questionnaire sent, or how it ended"""
    ANSWER = "answer"
    TIMER = "timer"
    CONSENT = "consent"
    STAGE = "stage"
    """a change of stage, status, time zone or study days (the transition log)"""
    FLAG = "flag"
    """a safety flag raised or resolved (researchers only)"""
    TEAM_ACTION = "team_action"
    """a write by the research team through the API or the dashboard (the audit log)"""


KIND_LABELS: dict[TimelineKind, str] = {
    TimelineKind.MESSAGE_IN: "messages in", TimelineKind.MESSAGE_OUT: "messages out",
    TimelineKind.PROMPT: "daily prompts", TimelineKind.DECISION: "decision points",
    TimelineKind.POLL_ANSWER: "poll answers", TimelineKind.QUESTIONNAIRE: "questionnaires",
    TimelineKind.ANSWER: "questionnaire answers", TimelineKind.TIMER: "timers", TimelineKind.CONSENT: "consent",
    TimelineKind.STAGE: "stage and status", TimelineKind.FLAG: "safety flags",
    TimelineKind.TEAM_ACTION: "team actions",
}
"""Each kind in plain words (the dashboard's filter)."""
RESEARCHER_ONLY = frozenset({TimelineKind.FLAG})
"""Kinds a viewer never reads, not even their time: that someone is in crisis is health data."""
MAX_TIMELINE_PAGE = 200


class Stream(StrEnum):
    """Where entries come from, in the order entries of the same instant are listed (what is sent before its answer)."""

    DECISION = "decision"
    PROMPT = "prompt"
    QUESTIONNAIRE_SENT = "questionnaire_sent"
    MESSAGE_OUT = "message_out"
    TIMER = "timer"
    MESSAGE_IN = "message_in"
    POLL_ANSWER = "poll_answer"
    ANSWER = "answer"
    FLAG_RAISED = "flag_raised"
    QUESTIONNAIRE_ENDED = "questionnaire_ended"
    STAGE = "stage"
    CONSENT = "consent"
    TEAM_ACTION = "team_action"
    FLAG_RESOLVED = "flag_resolved"

    @property
    def rank(self) -> int:
        return list(Stream).index(self)

    @property
    def kind(self) -> TimelineKind:
        return _KIND_OF.get(self) or TimelineKind(self.value)


_KIND_OF = {Stream.FLAG_RAISED: TimelineKind.FLAG, Stream.FLAG_RESOLVED: TimelineKind.FLAG,
            Stream.QUESTIONNAIRE_SENT: TimelineKind.QUESTIONNAIRE,
            Stream.QUESTIONNAIRE_ENDED: TimelineKind.QUESTIONNAIRE}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_RANKS = "|".join(str(rank) for rank in reversed(range(len(Stream))))
CURSOR_PATTERN = rf"^[on][0-9]{{1,16}}-(?:{_RANKS})-[0-9]{{1,18}}$"
"""``o`` (older) or ``n`` (newer), the entry's time in microseconds since 1970, its stream's rank and row id."""
_CURSOR = re.compile(CURSOR_PATTERN)


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: entries strictly older (or newer) than the entry with this key."""

    older: bool
    at: datetime
    rank: int
    row: int

    @classmethod
    def parse(cls, text: str) -> Cursor:
        """A cursor the API or a page handed out; ValueError if it is not one."""
        if not _CURSOR.fullmatch(text):
            raise ValueError("it is not a cursor this timeline handed out")
        micros, rank, row = (int(part) for part in text[1:].split("-"))
        if rank >= len(Stream):
            raise ValueError("it is not a cursor this timeline handed out")
        return cls(text[0] == "o", _EPOCH + timedelta(microseconds=micros), rank, row)

    @classmethod
    def of(cls, older: bool, at: datetime, stream: Stream, row: int) -> Cursor:
        return cls(older, at, stream.rank, row)

    def __str__(self) -> str:
        micros = (self.at - _EPOCH) // timedelta(microseconds=1)
        return f"{'o' if self.older else 'n'}{max(micros, 0)}-{self.rank}-{self.row}"

