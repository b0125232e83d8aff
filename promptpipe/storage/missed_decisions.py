"""Decision points an outage cost: a daily prompt alarm too late (the service down past MISFIRE_GRACE) still gets its
``decision`` row, unavailable (``missed_service_down``), so the analysis tells a day the service was down from one with
no decision point. It is drawn as the normal path draws the point (same key, the study's seed), never acted on, so an
auditor holding the seed checks it like any other; its probability comes from the protocol in force at its scheduled
time, not the file the service came back with. A day after the participant's last study day is no decision point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, insert, select, type_coerce
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.storage.models import Participant, UTCDateTime, table_of
from promptpipe.study.rules.days import study_day
from promptpipe.study.rules.decision_rule import NOT_DRAWN, draw_action
from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.rules.protocol import DecisionRule, Study, Unavailable
from promptpipe.study.store.protocol import ProtocolVersion, protocol_history
from promptpipe.study.store.seed import study_seed
from promptpipe.study.store.tables import Decision

__all__ = ["MissedPoint", "in_force_at", "record_missed_decisions"]

_P, _DECISION = table_of(Participant), table_of(Decision)


@dataclass(frozen=True)
class MissedPoint:
    participant_id: str
    inbox_id: int
    schedule_id: str | None
    local_date: str
    scheduled_for: datetime


def in_force_at(history: Sequence[ProtocolVersion], when: datetime | None) -> ProtocolVersion | None:
    """The protocol version in force at ``when``: the latest adopted at or before it, else the earliest (None: none)."""
    if not history:
        return None
    if when is None:
        return history[-1]
    adopted = [version for version in history if version.adopted_at <= when]
    return adopted[-1] if adopted else history[0]


def record_missed_decisions(session: Session, points: Sequence[MissedPoint], now: datetime, study: Study) -> None:
    """One unavailable ``decision`` row per missed point; ``study``: the protocol the service runs."""
    if not points:
        return
    people = {pid: (arm, tz, day_one, extra) for pid, arm, tz, day_one, extra in session.connection().execute(
        select(_P.c.id, _P.c.arm, _P.c.timezone, _P.c.day_one, _P.c.extra_days)
        .where(_P.c.id.in_({p.participant_id for p in points})))}
    history = protocol_history(session)
    rules: dict[str, DecisionRule | None] = {}
    seed: bytes | None = None
    rows = []
    for point in points:
        arm, tz, day_one, extra = people.get(point.participant_id, (None, "UTC", None, 0))
        number = study_day(date.fromisoformat(day_one) if day_one else None, date.fromisoformat(point.local_date))
        if number is not None and study.length_days is not None and number > study.length_days + (extra or 0):
            continue  # after their last study day: not a decision point (the end of the study completes them)
        zone = zone_or_utc(tz)
        version = in_force_at(history, point.scheduled_for)
        digest = version.hash if version is not None else ""
        if digest not in rules:
            rules[digest] = _rule(version, study)
        rule = rules[digest]
        if rule is not None and seed is None:
            seed = study_seed(session, now, study.outside_seed)
        drawn = draw_action(rule if point.schedule_id else None, seed or b"", _draw_key(point))
        rows.append({
            "participant_id": point.participant_id, "inbox_id": point.inbox_id, "schedule_id": point.schedule_id,
            "arm": arm, "local_date": point.local_date, "scheduled_for": point.scheduled_for, "decided_at": now,
            "study_day": number,
            "local_time": now.astimezone(zone).isoformat(timespec="seconds"), "timezone": zone.key,
            "available": False, "unavailable_reason": Unavailable.MISSED_SERVICE_DOWN, "probability": drawn.probability,
            "action": NOT_DRAWN, "draw": drawn.draw, "seed_ref": drawn.seed_ref, "protocol_hash": digest or None,
        })
    if rows:
        session.connection().execute(insert(_DECISION), rows)


def _draw_key(point: MissedPoint) -> str:
    """What the normal path (``flow/daily_prompt.py``) keys this point's draw by: its daily prompt."""
    return keys.decision_draw(keys.daily_prompt(point.participant_id, point.schedule_id or "",
                                                date.fromisoformat(point.local_date)))


def _rule(version: ProtocolVersion | None, study: Study) -> DecisionRule | None:
    """The decision rule of the protocol version in force at a point (None: no study file was in force)."""
    if version is None or version.hash == study.hash:
        return study.decision
    if not version.hash:
        return None
    try:
        return parse_study(version.contents.encode("utf-8"), "study_protocol").decision
    except StudyFileError:  # stored by an older release whose format this one no longer reads
        return study.decision


def latest_decision_points(session: Session) -> dict[str, datetime]:
    """The scheduled time of each schedule's latest decision point: where catching up after an outage starts."""
    rows = session.connection().execute(
        select(_DECISION.c.schedule_id, type_coerce(func.max(_DECISION.c.scheduled_for), UTCDateTime()))
        .where(_DECISION.c.schedule_id.is_not(None), _DECISION.c.scheduled_for.is_not(None))
        .group_by(_DECISION.c.schedule_id))
    return {schedule_id: when for schedule_id, when in rows if when is not None}
