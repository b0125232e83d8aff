"""The rows of one participant's timeline (see :mod:`promptpipe.domain.timeline`), read for the
API and the dashboard: each stream is one query for that participant, past the cursor and inside
the day range, newest (or, paging back, oldest) first, at most a page and one; the streams are
then merged by their key. A page costs one query per stream asked for, however long the study.

Messages, the bulk of a long study, are read by their (participant, direction, time) index; the
other streams by their participant index, and hold a few rows per study day."""

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
_MESSAGE, _DELIVERY, _DECISION = table_of(Message), table_of(PromptDelivery), table_of(Decision)
_INSTANCE, _ANSWER, _TIMER = table_of(QuestionnaireInstance), table_of(QuestionnaireAnswer), table_of(Timer)
_CONSENT, _TRANSITION, _FLAG = table_of(ConsentEvent), table_of(Transition), table_of(Flag)
_AUDIT = table_of(AuditEntry)


@dataclass(frozen=True)
class Hit:
    """One entry's row, with the stream it came from and its time."""

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


@dataclass(frozen=True)
class _Spec:
    model: type[Row]
    time: ColumnElement[datetime]
    id: ColumnElement[int]
    where: tuple[ColumnElement[bool], ...]


def _spec(stream: Stream, participant_id: str) -> _Spec:
    time: ColumnElement[datetime]
    match stream:
        case Stream.MESSAGE_IN | Stream.MESSAGE_OUT:
            direction = "in" if stream is Stream.MESSAGE_IN else "out"
            return _Spec(Message, _MESSAGE.c.created_at, _MESSAGE.c.id,
                         (_MESSAGE.c.participant_id == participant_id, _MESSAGE.c.direction == direction))
        case Stream.PROMPT | Stream.POLL_ANSWER:
            time = _DELIVERY.c.sent_at if stream is Stream.PROMPT else _DELIVERY.c.voted_at
            return _Spec(PromptDelivery, time, _DELIVERY.c.id, (_DELIVERY.c.participant_id == participant_id,))
        case Stream.DECISION:
            return _Spec(Decision, _DECISION.c.decided_at, _DECISION.c.id,
                         (_DECISION.c.participant_id == participant_id,))
        case Stream.QUESTIONNAIRE_SENT | Stream.QUESTIONNAIRE_ENDED:
            time = _INSTANCE.c.sent_at if stream is Stream.QUESTIONNAIRE_SENT else _INSTANCE.c.ended_at
            return _Spec(QuestionnaireInstance, time, _INSTANCE.c.id, (_INSTANCE.c.participant_id == participant_id,))
        case Stream.ANSWER:
            return _Spec(QuestionnaireAnswer, _ANSWER.c.answered_at, _ANSWER.c.id,
                         (_ANSWER.c.participant_id == participant_id,))
        case Stream.TIMER:  # set, until it fires, is missed or is cancelled
            time = type_coerce(func.coalesce(_TIMER.c.settled_at, _TIMER.c.created_at), UTCDateTime())
            return _Spec(Timer, time, _TIMER.c.id, (_TIMER.c.participant_id == participant_id,))
        case Stream.CONSENT:
            return _Spec(ConsentEvent, _CONSENT.c.created_at, _CONSENT.c.id,
                         (_CONSENT.c.participant_id == participant_id,))
        case Stream.STAGE:
            return _Spec(Transition, _TRANSITION.c.created_at, _TRANSITION.c.id,
                         (_TRANSITION.c.participant_id == participant_id,))
        case Stream.FLAG_RAISED | Stream.FLAG_RESOLVED:
            time = _FLAG.c.created_at if stream is Stream.FLAG_RAISED else _FLAG.c.resolved_at
            return _Spec(Flag, time, _FLAG.c.id, (_FLAG.c.participant_id == participant_id,))
        case Stream.TEAM_ACTION:
            return _Spec(AuditEntry, _AUDIT.c.created_at, _AUDIT.c.id, (_AUDIT.c.participant_id == participant_id,))
    raise ValueError(stream)


def _time_of(stream: Stream, row: Any) -> datetime:
    """The entry's time, as its stream's query compares it."""
    match stream:
        case Stream.PROMPT:
            return row.sent_at  # type: ignore[no-any-return]
        case Stream.POLL_ANSWER:
            return row.voted_at  # type: ignore[no-any-return]
        case Stream.DECISION:
            return row.decided_at  # type: ignore[no-any-return]
        case Stream.QUESTIONNAIRE_SENT:
            return row.sent_at  # type: ignore[no-any-return]
        case Stream.QUESTIONNAIRE_ENDED:
            return row.ended_at  # type: ignore[no-any-return]
        case Stream.ANSWER:
            return row.answered_at  # type: ignore[no-any-return]
        case Stream.TIMER:
            return row.settled_at or row.created_at  # type: ignore[no-any-return]
        case Stream.FLAG_RESOLVED:
            return row.resolved_at  # type: ignore[no-any-return]
    return row.created_at  # type: ignore[no-any-return]


def _past(spec: _Spec, stream: Stream, cursor: Cursor) -> ColumnElement[bool]:
    """This stream's rows whose key (time, stream, id) lies beyond the cursor's, said so that the
    time's bound is a plain range an index can take."""
    time, at = spec.time, cursor.at
    beyond: Callable[[Any, Any], Any] = operator.lt if cursor.older else operator.gt
    up_to: Callable[[Any, Any], Any] = operator.le if cursor.older else operator.ge
    if stream.rank == cursor.rank:
        return and_(up_to(time, at), or_(beyond(time, at), beyond(spec.id, cursor.row)))
    if beyond(stream.rank, cursor.rank):
        return up_to(time, at)  # type: ignore[no-any-return]
    return beyond(time, at)  # type: ignore[no-any-return]


def _query(stream: Stream, participant_id: str, since: datetime | None, until: datetime | None,
           cursor: Cursor | None, limit: int) -> Select[Any]:
    spec = _spec(stream, participant_id)
    conditions = [*spec.where, spec.time.is_not(None)]
    if since is not None:
        conditions.append(spec.time >= since)
    if until is not None:
        conditions.append(spec.time < until)
    if cursor is not None:
        conditions.append(_past(spec, stream, cursor))
    newest_first = cursor is None or cursor.older
    order = (spec.time.desc(), spec.id.desc()) if newest_first else (spec.time.asc(), spec.id.asc())
    columns: tuple[Any, ...] = (spec.model,)
    query = select(*columns)
    if stream is Stream.ANSWER:
        query = select(QuestionnaireAnswer, _INSTANCE.c.questionnaire_id).join(
            QuestionnaireInstance, _INSTANCE.c.id == _ANSWER.c.instance_id)
    return query.where(*conditions).order_by(*order).limit(limit)


def timeline_rows(session: Session, participant_id: str, streams: Collection[Stream], *, since: datetime | None,
                  until: datetime | None, cursor: Cursor | None, limit: int) -> list[Hit]:
    """Up to ``limit`` entries of these streams in ``[since, until)``, past ``cursor`` (None: the
    newest), newest first: the ``limit`` next to the cursor on its side."""
    hits: list[Hit] = []
    for stream in streams:
        for found in session.execute(_query(stream, participant_id, since, until, cursor, limit)).all():
            row = found[0]
            hits.append(Hit(stream, _time_of(stream, row), row, found[1] if stream is Stream.ANSWER else None))
    newest_first = cursor is None or cursor.older
    hits.sort(key=lambda hit: hit.key, reverse=newest_first)
    page = hits[:limit]
    return page if newest_first else page[::-1]
