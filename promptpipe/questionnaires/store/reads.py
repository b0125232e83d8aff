"""Questionnaire reads for the API and dashboard. For compliance each instance counts once under an *outcome*:
``under_way`` (sent or started), ``partial`` (expired or stopped after an answer), or its status."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, case, func, select
from sqlalchemy.orm import Session

from promptpipe.questionnaires.rules.definition import InstanceStatus
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance

__all__ = ["INSTANCE_COLUMNS", "OUTCOMES", "UNFINISHED", "AnswerRow", "EndCount", "InstanceCount", "InstanceRow",
           "Reason", "Tally", "by_questionnaire", "end_counts", "instance_page", "instances_with_answers",
           "outcome_of", "participants_with_instances", "responses_page", "status_counts", "tally"]

_INSTANCE = table_of(QuestionnaireInstance)
_ANSWER = table_of(QuestionnaireAnswer)

OUTCOMES = ("planned", "under_way", "completed", "partial", "expired", "stopped", "not_sent")
UNFINISHED = ("partial", "expired", "stopped", "not_sent")
"""The outcomes whose reasons are counted."""
_NOT_SENT_YET = ("planned", "not_sent")


def outcome_of(status: str, answered: bool) -> str:
    """The compliance outcome of an instance with this stored status; ``answered``: at least one item was answered."""
    if status in (InstanceStatus.EXPIRED, InstanceStatus.STOPPED) and answered:
        return "partial"
    if status == InstanceStatus.SCHEDULED:
        return "planned"
    if status in (InstanceStatus.SENT, InstanceStatus.STARTED):
        return "under_way"
    return status


@dataclass(frozen=True)
class EndCount:
    """How many instances share a questionnaire, a status, a reason, whether answered (and maybe a participant)."""

    questionnaire_id: str
    status: str
    reason: str | None
    answered: bool
    count: int
    participant_id: str | None = None


@dataclass(frozen=True)
class Reason:
    outcome: str
    reason: str | None
    count: int


@dataclass(frozen=True)
class Tally:
    """Instances counted by status and outcome, with the unfinished ones' reasons (most frequent first)."""

    by_status: dict[str, int]
    by_outcome: dict[str, int]
    reasons: tuple[Reason, ...]

    @property
    def sent(self) -> int:
        """Instances whose first item went out (whatever came of them)."""
        return sum(count for outcome, count in self.by_outcome.items() if outcome not in _NOT_SENT_YET)

    @property
    def completion_rate(self) -> float | None:
        """Completed of those sent (those still open count as not completed yet); None: none sent."""
        return self.by_outcome["completed"] / self.sent if self.sent else None


def tally(counts: Iterable[EndCount]) -> Tally:
    by_status: Counter[str] = Counter()
    by_outcome: Counter[str] = Counter(dict.fromkeys(OUTCOMES, 0))
    reasons: Counter[tuple[str, str | None]] = Counter()
    for row in counts:
        outcome = outcome_of(row.status, row.answered)
        by_status[row.status] += row.count
        by_outcome[outcome] += row.count
        if outcome in UNFINISHED:
            reasons[outcome, row.reason] += row.count
    ordered = sorted(reasons.items(), key=lambda item: (UNFINISHED.index(item[0][0]), -item[1], item[0][1] or ""))
    return Tally(dict(sorted(by_status.items())), dict(by_outcome),
                 tuple(Reason(outcome, reason, count) for (outcome, reason), count in ordered))


def by_questionnaire(rows: Iterable[EndCount], first: Sequence[str]) -> list[tuple[str, list[EndCount]]]:
    """The counts of each questionnaire named in ``first``, in its order, then any other's by id."""
    groups: dict[str, list[EndCount]] = {questionnaire_id: [] for questionnaire_id in first}
    earlier: dict[str, list[EndCount]] = {}
    for row in rows:
        (groups if row.questionnaire_id in groups else earlier).setdefault(row.questionnaire_id, []).append(row)
    return [*groups.items(), *sorted(earlier.items())]


def end_counts(session: Session, participant_ids: Sequence[str] | None = None) -> list[EndCount]:
    """Instances grouped by questionnaire, status, reason and answered; per participant of ``participant_ids``."""
    answered = _INSTANCE.c.first_answer_at.is_not(None).label("answered")
    keys = [_INSTANCE.c.questionnaire_id, _INSTANCE.c.status, _INSTANCE.c.reason, answered]
    if participant_ids is None:
        return [_end_count(row) for row in session.execute(select(*keys, func.count().label("n")).group_by(*keys))]
    found: list[EndCount] = []
    keys.append(_INSTANCE.c.participant_id)
    for chunk in Database.chunks(participant_ids):
        rows = session.execute(select(*keys, func.count().label("n")).where(_INSTANCE.c.participant_id.in_(chunk))
                               .group_by(*keys))
        found += [_end_count(row, row.participant_id) for row in rows]
    return found


def _end_count(row: Any, participant_id: str | None = None) -> EndCount:
    return EndCount(row.questionnaire_id, row.status, row.reason, bool(row.answered), int(row.n), participant_id)


@dataclass(frozen=True)
class InstanceCount:
    questionnaire_id: str
    status: str
    count: int


def status_counts(session: Session) -> list[InstanceCount]:
    rows = session.execute(select(_INSTANCE.c.questionnaire_id, _INSTANCE.c.status, func.count())
                           .group_by(_INSTANCE.c.questionnaire_id, _INSTANCE.c.status)
                           .order_by(_INSTANCE.c.questionnaire_id, _INSTANCE.c.status))
    return [InstanceCount(questionnaire_id, status, count) for questionnaire_id, status, count in rows]


def participants_with_instances(session: Session, *, limit: int, offset: int) -> tuple[int, list[str]]:
    """How many participants have any questionnaire instance, and a page of their ids in order."""
    pid = _INSTANCE.c.participant_id
    total = session.execute(select(func.count(pid.distinct()))).scalar_one()
    ids = session.execute(select(pid).distinct().order_by(pid).limit(limit).offset(offset)).scalars().all()
    return int(total), list(ids)


@dataclass(frozen=True)
class AnswerRow:
    """One item of an instance: asked, answered or missed."""

    item_id: str
    asked_at: datetime | None
    answered_at: datetime | None
    raw: str | None
    """The reply as given: the option tapped or the participant's words."""
    coded: str | None
    source: str | None
    missing: str | None
    tries: int


@dataclass(frozen=True)
class InstanceRow:
    id: int
    participant_id: str
    questionnaire_id: str
    occasion: str
    schedule_kind: str
    study_day: int | None
    local_date: str | None
    status: str
    reason: str | None
    scheduled_at: datetime
    sent_at: datetime | None
    first_answer_at: datetime | None
    ended_at: datetime | None
    expires_at: datetime | None
    reminders_sent: int
    answers: tuple[AnswerRow, ...]

    @property
    def outcome(self) -> str:
        return outcome_of(self.status, self.first_answer_at is not None)


INSTANCE_COLUMNS = tuple(spec.name for spec in fields(InstanceRow) if spec.name != "answers")
"""What an :class:`InstanceRow` is made of (a query for :func:`instances_with_answers` selects these)."""
_ANSWER_COLUMNS = tuple(spec.name for spec in fields(AnswerRow))


def instance_page(session: Session, participant_id: str, *, limit: int, offset: int
                  ) -> tuple[int, list[InstanceRow]]:
    """How many instances the participant has, and a page of them, newest first but the planned ones last."""
    planned_last = case((_INSTANCE.c.status == InstanceStatus.SCHEDULED, 1), else_=0)
    return _page(session, _INSTANCE.c.participant_id == participant_id, planned_last, limit, offset)


_RESPONSES_ORDER = case(
    (_INSTANCE.c.status == InstanceStatus.COMPLETED, 0), (_INSTANCE.c.first_answer_at.is_not(None), 1),
    (_INSTANCE.c.status.in_((InstanceStatus.SENT, InstanceStatus.STARTED)), 2),
    (_INSTANCE.c.status.in_((InstanceStatus.EXPIRED, InstanceStatus.STOPPED)), 3),
    (_INSTANCE.c.status == InstanceStatus.NOT_SENT, 4), else_=5)
"""Completed first, then partly answered, under way, unanswered, never sent; planned last."""


def responses_page(session: Session, questionnaire_id: str, *, limit: int | None, offset: int = 0
                   ) -> tuple[int, list[InstanceRow]]:
    """How many instances the questionnaire has, and a page of them (``limit`` None: all)."""
    return _page(session, _INSTANCE.c.questionnaire_id == questionnaire_id, _RESPONSES_ORDER, limit, offset)


def _page(session: Session, mine: ColumnElement[bool], order: ColumnElement[int], limit: int | None,
          offset: int) -> tuple[int, list[InstanceRow]]:
    total = session.execute(select(func.count()).select_from(_INSTANCE).where(mine)).scalar_one()
    query = (select(*(_INSTANCE.c[name] for name in INSTANCE_COLUMNS)).where(mine)
             .order_by(order, _INSTANCE.c.scheduled_at.desc(), _INSTANCE.c.id.desc()).limit(limit).offset(offset))
    return int(total), instances_with_answers(session, query)


def instances_with_answers(session: Session, query: Select[Any]) -> list[InstanceRow]:
    """The instances ``query`` selects (:data:`INSTANCE_COLUMNS`), each with its items in the order asked."""
    rows = session.execute(query).all()
    answers: dict[int, list[AnswerRow]] = {row.id: [] for row in rows}
    if answers:
        found = session.execute(select(_ANSWER.c.instance_id, *(_ANSWER.c[name] for name in _ANSWER_COLUMNS))
                                .where(_ANSWER.c.instance_id.in_(list(answers)))
                                .order_by(_ANSWER.c.instance_id, _ANSWER.c.id)).all()
        for answer in found:
            answers[answer.instance_id].append(AnswerRow(*(getattr(answer, name) for name in _ANSWER_COLUMNS)))
    return [InstanceRow(**row._asdict(), answers=tuple(answers[row.id])) for row in rows]
