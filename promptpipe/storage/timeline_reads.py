"""One participant's timeline rows (:mod:`promptpipe.domain.timeline`) for the API and the dashboard: each stream is
one query past the cursor and inside the day range, at most a page, merged by key, so a page costs one query per stream
however long the study."""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select, type_coerce
from sqlalchemy.orm import Session

from promptpipe.domain.timeline import Cursor, Stream
from promptpipe.storage.access_tables import AuditEntry
from promptpipe.storage.models import ConsentEvent, Flag, Message, Transition, UTCDateTime, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.queue_tables import Timer
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

__all__ = ["Hit", "Row", "timeline_rows"]

Row = (Message | PromptDelivery | Decision | QuestionnaireInstance | QuestionnaireAnswer | Timer | ConsentEvent
       | Transition | Flag | AuditEntry)
_INSTANCE, _ANSWER = table_of(QuestionnaireInstance), table_of(QuestionnaireAnswer)
_STREAMS: dict[Stream, tuple[type[Row], str]] = {
    Stream.MESSAGE_IN: (Message, "created_at"), Stream.MESSAGE_OUT: (Message, "created_at"),
    Stream.PROMPT: (PromptDelivery, "sent_at"), Stream.POLL_ANSWER: (PromptDelivery, "voted_at"),
    Stream.QUESTIONNAIRE_SENT: (QuestionnaireInstance, "sent_at"), Stream.DECISION: (Decision, "decided_at"),
    Stream.QUESTIONNAIRE_ENDED: (QuestionnaireInstance, "ended_at"), Stream.TIMER: (Timer, "settled_at"),
    Stream.ANSWER: (QuestionnaireAnswer, "answered_at"), Stream.CONSENT: (ConsentEvent, "created_at"),
    Stream.STAGE: (Transition, "created_at"), Stream.FLAG_RAISED: (Flag, "created_at"),
    Stream.FLAG_RESOLVED: (Flag, "resolved_at"), Stream.TEAM_ACTION: (AuditEntry, "created_at"),
}
"""Each stream's table and the column that times its entries."""


@dataclass(frozen=True)
class Hit:
    stream: Stream
    at: datetime
    row: Row
    questionnaire_id: str | None = None
    """For an answer: the questionnaire it belongs to."""

    @property
    def row_id(self) -> int:
        return int(self.row.id or 0)

    @property
    def key(self) -> tuple[datetime, int, int]:
        return self.at, self.stream.rank, self.row_id


def _time_of(stream: Stream, row: Any) -> datetime:
    """The entry's time, as its stream's query compares it."""
    if stream is Stream.TIMER:
        return row.settled_at or row.created_at  # type: ignore[no-any-return]
    return getattr(row, _STREAMS[stream][1])  # type: ignore[no-any-return]


def _past(time: ColumnElement[datetime], row_id: ColumnElement[int], stream: Stream,
          cursor: Cursor) -> ColumnElement[bool]:
    """This stream's rows whose key (time, stream, id) lies beyond the cursor's, the time's bound a plain range."""
    at = cursor.at
    beyond: Callable[[Any, Any], Any] = operator.lt if cursor.older else operator.gt
    up_to: Callable[[Any, Any], Any] = operator.le if cursor.older else operator.ge
    if stream.rank == cursor.rank:
        return and_(up_to(time, at), or_(beyond(time, at), beyond(row_id, cursor.row)))
    if beyond(stream.rank, cursor.rank):
        return up_to(time, at)  # type: ignore[no-any-return]
    return beyond(time, at)  # type: ignore[no-any-return]


def _query(stream: Stream, participant_id: str, since: datetime | None, until: datetime | None,
           cursor: Cursor | None, limit: int) -> Select[Any]:
    model, column = _STREAMS[stream]
    table = table_of(model)
    time: ColumnElement[datetime] = table.c[column]
    if stream is Stream.TIMER:  # set, until it fires, is missed or is cancelled
        time = type_coerce(func.coalesce(table.c.settled_at, table.c.created_at), UTCDateTime())
    conditions = [table.c.participant_id == participant_id]
    if model is Message:
        conditions.append(table.c.direction == ("in" if stream is Stream.MESSAGE_IN else "out"))
    conditions.append(time.is_not(None))
    if since is not None:
        conditions.append(time >= since)
    if until is not None:
        conditions.append(time < until)
    if cursor is not None:
        conditions.append(_past(time, table.c.id, stream, cursor))
    newest_first = cursor is None or cursor.older
    order = (time.desc(), table.c.id.desc()) if newest_first else (time.asc(), table.c.id.asc())
    query: Select[Any] = select(model)
    if stream is Stream.ANSWER:
        query = select(QuestionnaireAnswer, _INSTANCE.c.questionnaire_id).join(
            QuestionnaireInstance, _INSTANCE.c.id == _ANSWER.c.instance_id)
    return query.where(*conditions).order_by(*order).limit(limit)


def timeline_rows(session: Session, participant_id: str, streams: Collection[Stream], *, since: datetime | None,
                  until: datetime | None, cursor: Cursor | None, limit: int) -> list[Hit]:
    """Up to ``limit`` entries of these streams in ``[since, until)`` next to ``cursor`` (None: the newest)."""
    hits = [Hit(stream, _time_of(stream, row), row, *questionnaire_id) for stream in streams
            for row, *questionnaire_id in session.execute(_query(stream, participant_id, since, until, cursor, limit))]
    newest_first = cursor is None or cursor.older
    hits.sort(key=lambda hit: hit.key, reverse=newest_first)
    page = hits[:limit]
    return page if newest_first else page[::-1]
