"""One participant's study day, as a heatmap cell opens it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.adherence import best_outcome
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.questionnaires.store.reads import InstanceRow
from promptpipe.research._common import get_participant
from promptpipe.research.monitoring import DeliveryView, deliveries
from promptpipe.storage.db import Database
from promptpipe.study.rules.days import study_day
from promptpipe.study.store.day import DayDecision, DayMessage, day_decisions, day_messages, day_questionnaires

__all__ = ["MESSAGES_SHOWN", "StudyDay", "read_day"]

MESSAGES_SHOWN = 100
"""The day's first messages shown; the transcript and the export have every one."""


@dataclass(frozen=True)
class StudyDay:
    participant_id: str
    name: str
    timezone: str
    status: str
    stage: str
    paused_by: str | None
    day: str
    """YYYY-MM-DD, the participant's local date."""
    study_day: int | None
    outcome: str
    """The heatmap cell's word (see :data:`promptpipe.domain.adherence.CELL_OUTCOMES`)."""
    decisions: list[DayDecision]
    prompts: list[DeliveryView]
    messages: list[DayMessage]
    more_messages: bool
    questionnaires: list[InstanceRow]


async def read_day(db: Database, clock: Clock, participant_id: str, day: date, *,
                   receipt_window: timedelta = timedelta(hours=12)) -> StudyDay:
    """What happened on ``day`` (the participant's local date); NotFound for no such participant."""
    participant, conversation = await get_participant(db, participant_id)
    zone = zone_or_utc(participant.timezone)
    start = datetime.combine(day, time(0, 0), zone)
    end = datetime.combine(day + timedelta(days=1), time(0, 0), zone)
    local_date = day.isoformat()

    def read(session: Session) -> tuple[list[DayDecision], tuple[list[DayMessage], bool], list[InstanceRow]]:
        return (day_decisions(session, participant.id, local_date),
                day_messages(session, participant.id, start, end, limit=MESSAGES_SHOWN),
                day_questionnaires(session, participant.id, local_date))

    decisions, (messages, more), questionnaires = await db.run(read)
    _, sent = await deliveries(db, clock, participant.id, receipt_window=receipt_window)
    prompts = [prompt for prompt in sent if prompt.local_date == local_date]
    first = date.fromisoformat(participant.day_one) if participant.day_one else None
    return StudyDay(participant_id=participant.id, name=participant.name, timezone=participant.timezone,
                    status=participant.status, stage=conversation.sub_state, paused_by=participant.paused_by,
                    day=local_date, study_day=study_day(first, day),
                    outcome=best_outcome(prompt.outcome for prompt in prompts), decisions=decisions, prompts=prompts,
                    messages=messages, more_messages=more, questionnaires=questionnaires)
