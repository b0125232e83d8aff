"""Decision points an outage cost: a daily prompt alarm that came too late (the service was down
past MISFIRE_GRACE) still gets its ``decision`` row, unavailable with the reason
``missed_service_down``, written in the transaction that records the alarm as missed. Without it
the analysis could not tell a day the service was down from a day with no decision point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.study import Unavailable
from promptpipe.domain.study_days import study_day
from promptpipe.storage.models import Participant, table_of
from promptpipe.storage.study_tables import Decision, StudyProtocol

__all__ = ["MISSED_SERVICE_DOWN", "MissedPoint", "record_missed_decisions"]

MISSED_SERVICE_DOWN = Unavailable.MISSED_SERVICE_DOWN
_P, _DECISION, _PROTOCOL = table_of(Participant), table_of(Decision), table_of(StudyProtocol)


@dataclass(frozen=True)
class MissedPoint:
    participant_id: str
    inbox_id: int
    schedule_id: str | None
    local_date: str
    scheduled_for: datetime


def record_missed_decisions(session: Session, points: Sequence[MissedPoint], now: datetime) -> None:
    if not points:
        return
    people = {pid: (arm, tz, day_one) for pid, arm, tz, day_one in session.connection().execute(
        select(_P.c.id, _P.c.arm, _P.c.timezone, _P.c.day_one).where(_P.c.id.in_({p.participant_id for p in points})))}
    in_force = session.connection().execute(
        select(_PROTOCOL.c.hash).order_by(_PROTOCOL.c.id.desc()).limit(1)).scalar_one_or_none()
    rows = []
    for point in points:
        arm, tz, day_one = people.get(point.participant_id, (None, "UTC", None))
        zone = zone_or_utc(tz)
        rows.append({
            "participant_id": point.participant_id, "inbox_id": point.inbox_id, "schedule_id": point.schedule_id,
            "arm": arm, "local_date": point.local_date, "scheduled_for": point.scheduled_for, "decided_at": now,
            "study_day": study_day(date.fromisoformat(day_one) if day_one else None,
                                   date.fromisoformat(point.local_date)),
            "local_time": now.astimezone(zone).isoformat(timespec="seconds"), "timezone": zone.key,
            "available": False, "unavailable_reason": MISSED_SERVICE_DOWN, "probability": None, "action": "none",
            "draw": None, "seed_ref": "", "protocol_hash": in_force or None,
        })
    session.connection().execute(insert(_DECISION), rows)
