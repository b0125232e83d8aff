"""The end-of-day self-report on each exported decision point: which day's question measures it (that day's before its
time, the next day's after, so the question always follows the decision) and what became of it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from operator import itemgetter
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.export.cells import from_stored
from promptpipe.questionnaires.rules.definition import EndReason, InstanceStatus
from promptpipe.storage.models import table_of
from promptpipe.study.rules.protocol import SELF_REPORT_ID, SELF_REPORT_ITEM
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance

__all__ = ["SelfReportDay", "outcome_date", "self_report_days", "self_reports"]


STATUS = {"completed": "answered", "expired": "expired", "stopped": "stopped", "not_sent": "not_asked",
          "scheduled": "scheduled", "sent": "open", "started": "open"}
ANSWERS = {"1": "yes", "0": "no"}

_INSTANCE, _ANSWER = table_of(QuestionnaireInstance), table_of(QuestionnaireAnswer)


@dataclass(frozen=True)
class SelfReportDay:
    status: str
    reason: str | None
    answer: str | None
    answered_at: datetime | None


def outcome_date(local_date: str, scheduled: datetime | None, timezone: str | None, report_at: time) -> str:
    """The local date of the question that measures a decision point of ``local_date``."""
    if scheduled is None:
        return local_date
    local = scheduled.astimezone(zone_or_utc(timezone or "UTC"))
    day = date.fromisoformat(local_date)
    return (day + timedelta(days=1)).isoformat() if local.time() >= report_at else day.isoformat()


def self_report_days(session: Session, first: str, last: str) -> dict[tuple[str, str], SelfReportDay]:
    i, a = _INSTANCE, _ANSWER
    rows = session.connection().execute(
        select(i.c.participant_id, i.c.local_date, i.c.status, i.c.reason, a.c.coded, a.c.answered_at)
        .select_from(i.outerjoin(a, and_(a.c.instance_id == i.c.id, a.c.item_id == SELF_REPORT_ITEM)))
        .where(i.c.questionnaire_id == SELF_REPORT_ID, i.c.participant_id >= first, i.c.participant_id <= last))
    days = {}
    for pid, local_date, status, reason, coded, answered_at in rows:
        answer = ANSWERS.get(coded or "") if status == InstanceStatus.COMPLETED else None
        days[(pid, local_date)] = SelfReportDay(STATUS.get(status, status), reason, answer,
                                                answered_at if answer else None)
    return days


def self_reports(rows: Iterable[Any], columns: Sequence[str], days: dict[tuple[str, str], SelfReportDay],
                 report_at: time) -> list[tuple[str, str | None, str, str | None, datetime | None]]:
    """Each decision row's self-report (rows: tuples of ``columns``): the question's date, the answer, its status and
    reason, when it was answered."""
    fields = itemgetter(*(columns.index(name) for name in
                          ("participant_id", "local_date", "scheduled_for", "decided_at", "timezone")))
    found = []
    for row in rows:
        pid, local_date, scheduled_for, decided_at, zone = fields(row)
        when = outcome_date(local_date, from_stored(scheduled_for or decided_at), zone, report_at)
        day = days.get((pid, when)) or _NOT_ASKED
        found.append((when, day.answer, day.status, day.reason, day.answered_at))
    return found


_NOT_ASKED = SelfReportDay("not_asked", EndReason.NOT_PLANNED, None, None)
