"""Questionnaire instances and their items' answers, in the caller's transaction: an instance is scheduled once per
participant, questionnaire and occasion (an alarm that fires twice sends nothing twice)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, insert, literal, select, update
from sqlalchemy.orm import Session

from promptpipe.questionnaires.rules.answers import Answer, AnswerSource, Missing
from promptpipe.questionnaires.rules.definition import InstanceStatus
from promptpipe.storage.models import UTCDateTime, table_of
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance

__all__ = ["Scheduled", "end_instance", "erase_typed_answers", "record_answer", "record_asked",
           "record_late_answer", "record_tries", "reschedule_instance", "schedule_instance"]

_INSTANCE = table_of(QuestionnaireInstance)
_ANSWER = table_of(QuestionnaireAnswer)


@dataclass(frozen=True)
class Scheduled:
    """A questionnaire due for a participant on one occasion, as its schedule decided."""

    participant_id: str
    questionnaire_id: str
    occasion: str
    schedule_kind: str
    scheduled_at: datetime
    protocol_hash: str | None = None
    study_day: int | None = None
    local_date: str | None = None
    window: tuple[datetime, datetime] | None = None


def _kept_or(column: Any, value: datetime | None) -> Any:
    """The column's time if it has one, else ``value``, stored as the column stores times (a bare value in COALESCE
    would skip the column's type: on SQLite an aware time not in UTC would be kept as its wall-clock reading)."""
    return func.coalesce(column, literal(value, UTCDateTime()))


def schedule_instance(session: Session, due: Scheduled) -> int | None:
    """Write the instance; its id, or None when that occasion was scheduled before."""
    known = session.execute(select(_INSTANCE.c.id).where(
        _INSTANCE.c.participant_id == due.participant_id, _INSTANCE.c.questionnaire_id == due.questionnaire_id,
        _INSTANCE.c.occasion == due.occasion)).scalar()
    if known is not None:
        return None
    window = due.window or (None, None)
    return int(session.execute(insert(_INSTANCE).values(
        participant_id=due.participant_id, questionnaire_id=due.questionnaire_id, occasion=due.occasion,
        schedule_kind=due.schedule_kind, protocol_hash=due.protocol_hash, study_day=due.study_day,
        local_date=due.local_date, scheduled_at=due.scheduled_at, window_start=window[0], window_end=window[1],
        status=InstanceStatus.SCHEDULED, tries=0, reminders_sent=0).returning(_INSTANCE.c.id)).scalar_one())


def record_asked(session: Session, instance_id: int, participant_id: str, item_id: str, message_id: int | None,
                 now: datetime, *, reminded: bool = False, expires_at: datetime | None = None,
                 after_answer: bool = False) -> None:
    """The item becomes the instance's current item (a reminder asks it again and counts); ``after_answer``: the turn
    answered the item before it (``progress=False``), so the instance is started."""
    if reminded:  # the first time it was asked stays
        session.execute(update(_ANSWER).where(_ANSWER.c.instance_id == instance_id, _ANSWER.c.item_id == item_id)
                        .values(message_id=message_id))
    else:
        session.execute(insert(_ANSWER).values(instance_id=instance_id, participant_id=participant_id,
                                               item_id=item_id, message_id=message_id, asked_at=now, tries=0))
    started = {"status": InstanceStatus.STARTED, "first_answer_at": _kept_or(_INSTANCE.c.first_answer_at, now)} \
        if after_answer else {"status": case((_INSTANCE.c.status == InstanceStatus.SCHEDULED, InstanceStatus.SENT),
                                             else_=_INSTANCE.c.status)}
    session.execute(update(_INSTANCE).where(_INSTANCE.c.id == instance_id).values(
        current_item=item_id, sent_at=_kept_or(_INSTANCE.c.sent_at, now),
        tries=case((_INSTANCE.c.current_item == item_id, _INSTANCE.c.tries), else_=0),
        reminders_sent=_INSTANCE.c.reminders_sent + (1 if reminded else 0),
        expires_at=_kept_or(_INSTANCE.c.expires_at, expires_at), **started))


def record_tries(session: Session, instance_id: int, item_id: str, tries: int) -> None:
    """Replies to the item under way that did not fit, so far."""
    session.execute(update(_ANSWER).where(_ANSWER.c.instance_id == instance_id, _ANSWER.c.item_id == item_id)
                    .values(tries=tries))
    session.execute(update(_INSTANCE).where(_INSTANCE.c.id == instance_id).values(tries=tries))


def reschedule_instance(session: Session, instance_id: int, scheduled_at: datetime,
                        window: tuple[datetime, datetime] | None) -> None:
    """A planned instance moved (the participant's time zone changed)."""
    start, end = window or (None, None)
    session.execute(update(_INSTANCE)
                    .where(_INSTANCE.c.id == instance_id, _INSTANCE.c.status == InstanceStatus.SCHEDULED)
                    .values(scheduled_at=scheduled_at, window_start=start, window_end=end))


def end_instance(session: Session, instance_id: int, status: InstanceStatus, reason: str | None,
                 now: datetime) -> None:
    """completed, expired, stopped or not_sent; the instance has no current item any more."""
    session.execute(update(_INSTANCE).where(_INSTANCE.c.id == instance_id).values(
        status=status, reason=reason, ended_at=now, current_item=None))


def record_answer(session: Session, instance_id: int, item_id: str, outcome: Answer | Missing, now: datetime,
                  tries: int = 0, *, progress: bool = True) -> None:
    """The item's answer, or why it has none; with ``progress`` an answer also marks the instance started."""
    if isinstance(outcome, Answer):
        values = {"raw": outcome.raw, "coded": outcome.coded if not outcome.skipped else "",
                  "source": outcome.source.value, "answered_at": now,
                  "missing": Missing.SKIPPED.value if outcome.skipped else None}
    else:
        values = {"missing": outcome.value}
    changed = session.connection().execute(update(_ANSWER).where(_ANSWER.c.instance_id == instance_id,
                                                    _ANSWER.c.item_id == item_id).values(tries=tries, **values))
    if not changed.rowcount:
        participant = session.execute(select(_INSTANCE.c.participant_id)
                                      .where(_INSTANCE.c.id == instance_id)).scalar_one()
        session.execute(insert(_ANSWER).values(instance_id=instance_id, participant_id=participant, item_id=item_id,
                                               tries=tries, **values))
    if progress and isinstance(outcome, Answer):
        session.execute(update(_INSTANCE).where(_INSTANCE.c.id == instance_id).values(
            first_answer_at=_kept_or(_INSTANCE.c.first_answer_at, now), status=InstanceStatus.STARTED,
            current_item=None))


def record_late_answer(session: Session, instance_id: int, item_id: str, answer: Answer, at: datetime) -> bool:
    """An answer given at ``at``, before the window closed, to an item coded expired counts after all."""
    instance = session.execute(select(_INSTANCE.c.status, _INSTANCE.c.expires_at)
                               .where(_INSTANCE.c.id == instance_id)).first()
    if instance is None or instance.status != InstanceStatus.EXPIRED or instance.expires_at is None \
            or at > instance.expires_at:
        return False
    changed = session.connection().execute(update(_ANSWER).where(
        _ANSWER.c.instance_id == instance_id, _ANSWER.c.item_id == item_id, _ANSWER.c.missing == Missing.EXPIRED)
        .values(raw=answer.raw, coded=answer.coded, source=answer.source.value, answered_at=at, missing=None))
    if not changed.rowcount:
        return False
    left = session.execute(select(func.count()).where(
        _ANSWER.c.instance_id == instance_id, _ANSWER.c.missing == Missing.EXPIRED)).scalar_one()
    values = {"status": InstanceStatus.COMPLETED, "reason": None, "ended_at": at} if not left else {}
    session.execute(update(_INSTANCE).where(_INSTANCE.c.id == instance_id).values(
        first_answer_at=_kept_or(_INSTANCE.c.first_answer_at, at), **values))
    return True


def erase_typed_answers(session: Session, participant_id: str) -> None:
    """An erasure: the words they typed go; what a statistician analyses stays (a tapped label is ours)."""
    session.execute(update(_ANSWER).where(_ANSWER.c.participant_id == participant_id,
                                          _ANSWER.c.source != AnswerSource.TAP, _ANSWER.c.raw.is_not(None))
                    .values(raw=""))
