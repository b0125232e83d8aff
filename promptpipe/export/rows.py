"""The export's tables: their columns and how a stored row is exported (messages and deliveries: :mod:`.transcript`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.domain.outcomes import COUNTER_DATES, COUNTER_INTS
from promptpipe.domain.profile import HABIT_FIELDS, Profile
from promptpipe.export import codebook_entries as events
from promptpipe.export import codebook_study as study
from promptpipe.export.cells import Row, Stamp, as_dict, as_list, stamped, utc_iso
from promptpipe.export.items import typed_code
from promptpipe.export.pseudonyms import People
from promptpipe.export.study_part import DECISION_COLUMNS, decision_csv, strata_columns, withdrawn_at
from promptpipe.export.transcript import DELIVERY_COLUMNS, MESSAGE_COLUMNS, delivery_csv, message_csv
from promptpipe.questionnaires.rules.answers import AnswerSource
from promptpipe.storage import models
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

IDENTIFIERS = "identifiers"
"""The key file (participant_id, phone, name): written only on request."""

PARTICIPANT_COLUMNS = events.PARTICIPANTS.columns


def participant_chunk(after: str | None, limit: int) -> Callable[[Session], list[Any]]:
    p, c = models.table_of(models.Participant), models.table_of(models.Conversation)
    query = (
        select(p.c.id, p.c.phone, p.c.name, p.c.timezone, p.c.status, p.c.paused_by, p.c.opted_out,
               p.c.researcher_paused, p.c.enrolled_at, p.c.erased_at, withdrawn_at(p.c.id).label("withdrawn_at"),
               p.c.arm, p.c.number, p.c.strata, p.c.day_one, p.c.extra_days, p.c.completed_at, c.c.sub_state,
               c.c.profile, c.c.tone)
        .select_from(p.outerjoin(c, c.c.participant_id == p.c.id))
        .order_by(p.c.id).limit(limit)
    )
    if after is not None:
        query = query.where(p.c.id > after)
    return lambda session: list(session.execute(query))


# ---------------------------------------------------------------- one row per event

def _when(people: People, participant_id: str, name: str, value: datetime | None) -> dict[str, Stamp]:
    """The ``<name>_utc`` and ``<name>_local`` cells, ``_local`` in the zone they were in at that moment."""
    return stamped(name, value, people.zone_at(participant_id, value))


def _participant_row(row: Any, people: People, strata: Sequence[str] = ()) -> Row:
    profile = Profile.from_json(as_dict(row.profile))
    counters = profile.record.counters
    tone = as_dict(row.tone)
    out: Row = {
        "id": row.id, "timezone": row.timezone, "status": row.status, "paused_by": row.paused_by,
        "opted_out": bool(row.opted_out), "researcher_paused": bool(row.researcher_paused),
        "sub_state": row.sub_state, "arm": row.arm, "number": row.number, "day_one": row.day_one,
        "extra_days": row.extra_days or 0,
    }
    for name in ("enrolled_at", "completed_at", "erased_at", "withdrawn_at"):
        out |= _when(people, row.id, name, getattr(row, name))
    for name in HABIT_FIELDS:
        out[name] = people.scrub(row.id, profile.habit.value(name) or None)
    out["intensity"] = profile.record.intensity
    for name in COUNTER_INTS:
        value = counters.get(name)
        out[name] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    for name in COUNTER_DATES:
        out[name] = counters.get(name) or None
    out["tone_active"] = as_list(tone.get("active")) or []
    enrolled_with = as_dict(row.strata)
    for name in strata:
        given = enrolled_with.get(name)
        out[f"stratum_{name}"] = None if given is None else str(given)
    return out


def _identifier_row(row: Any, people: People) -> Row:
    return {"participant_id": row.id, "phone": row.phone, "name": row.name}


def _transition_row(row: Any, people: People) -> Row:
    return {
        "id": row.id, "participant_id": row.participant_id, "kind": row.kind, "name": row.name, "actor": row.actor,
        "from_value": row.from_value, "to_value": row.to_value, "reason": people.scrub(row.participant_id, row.reason),
        **_when(people, row.participant_id, "at", row.created_at),
    }


def _tone_row(row: Any, people: People) -> Row:
    return {
        "id": row.id, "participant_id": row.participant_id, "source": row.source,
        "proposed": as_list(row.proposed), "stripped": as_list(row.stripped), "outcome": row.outcome,
        "active_before": as_list(row.active_before), "active_after": as_list(row.active_after),
        "scores": row.scores, **_when(people, row.participant_id, "at", row.created_at),
    }


def _consent_row(row: Any, people: People) -> Row:
    pid = row.participant_id
    return {
        "id": row.id, "participant_id": pid, "event": row.event, "source": row.source,
        "actor": row.actor, "words": people.scrub(row.participant_id, row.words),
        "reconstructed": bool(row.reconstructed), **_when(people, pid, "at", row.created_at),
        **_when(people, pid, "said_at", row.said_at),
    }


def _flag_row(row: Any, people: People) -> Row:
    pid = row.participant_id
    return {
        "id": row.id, "participant_id": pid, "source": row.source, "severity": row.severity,
        "trigger": people.scrub(pid, row.trigger), "status": row.status, **_when(people, pid, "at", row.created_at),
        **_when(people, pid, "resolved_at", row.resolved_at), "resolved_by": row.resolved_by,
        "resolution_note": people.scrub(pid, row.resolution_note), "alert_status": row.alert_status,
    }


def _questionnaire_instance_row(row: Any, people: People) -> Row:
    pid = row.participant_id
    return {
        "id": row.id, "participant_id": pid, "questionnaire_id": row.questionnaire_id,
        "occasion": row.occasion, "schedule_kind": row.schedule_kind, "study_day": row.study_day,
        "local_date": row.local_date, "status": row.status, "reason": row.reason,
        **_when(people, pid, "scheduled_at", row.scheduled_at), "window_start_utc": utc_iso(row.window_start),
        "window_end_utc": utc_iso(row.window_end), **_when(people, pid, "sent_at", row.sent_at),
        **_when(people, pid, "first_answer_at", row.first_answer_at), **_when(people, pid, "ended_at", row.ended_at),
        "expires_at_utc": utc_iso(row.expires_at), "reminders_sent": row.reminders_sent,
        "protocol_hash": row.protocol_hash,
    }


def _questionnaire_answer_row(row: Any, people: People) -> Row:
    pid = row.participant_id
    multiple = (row.protocol_hash, row.questionnaire_id, row.item_id) in people.multiple_choice
    latency = (None if row.asked_at is None or row.answered_at is None
               else round((row.answered_at - row.asked_at).total_seconds(), 3))
    return {
        "id": row.id, "participant_id": pid, "instance_id": row.instance_id,
        "questionnaire_id": row.questionnaire_id, "occasion": row.occasion, "item_id": row.item_id,
        "raw": people.scrub(pid, row.raw) if row.source == AnswerSource.TYPED else row.raw,
        "coded": typed_code(row.coded, multiple),
        "source": row.source, "missing": row.missing, "tries": row.tries,
        **_when(people, pid, "asked_at", row.asked_at), **_when(people, pid, "answered_at", row.answered_at),
        "latency_s": latency, "protocol_hash": row.protocol_hash,
    }


@dataclass(frozen=True)
class _Table:
    name: str
    model: Any
    columns: Sequence[str]
    build: Callable[[Any, People], Mapping[str, object]] | None = None
    chunk_rows: Callable[[Any, People, Callable[[Any], Any]], list[tuple[Any, ...]]] | None = None
    """Instead of ``build`` (the large files): a chunk's rows (a :class:`.receipts.Chunk`) in column order, text through
    the cell function."""


TABLES: tuple[_Table, ...] = (
    _Table("participants", models.Participant, PARTICIPANT_COLUMNS, _participant_row),
    _Table("messages", models.Message, MESSAGE_COLUMNS, chunk_rows=message_csv),
    _Table("deliveries", PromptDelivery, DELIVERY_COLUMNS, chunk_rows=delivery_csv),
    _Table("decisions", Decision, DECISION_COLUMNS, chunk_rows=decision_csv),
    _Table("transitions", models.Transition, events.TRANSITIONS.columns, _transition_row),
    _Table("tone_changes", models.ToneEvent, events.TONE_CHANGES.columns, _tone_row),
    _Table("consent", models.ConsentEvent, events.CONSENT.columns, _consent_row),
    _Table("flags", models.Flag, events.FLAGS.columns, _flag_row),
    _Table("questionnaire_instances", QuestionnaireInstance, study.QUESTIONNAIRE_INSTANCES.columns,
           _questionnaire_instance_row),
    _Table("questionnaire_answers", QuestionnaireAnswer, study.QUESTIONNAIRE_ANSWERS.columns,
           _questionnaire_answer_row),
)
FILE_NAMES = tuple(table.name for table in TABLES)
IDENTIFIER_TABLE = _Table(IDENTIFIERS, models.Participant, events.IDENTIFIERS.columns, _identifier_row)


def participants_table(strata: Sequence[str]) -> _Table:
    return _Table("participants", models.Participant, (*PARTICIPANT_COLUMNS, *strata_columns(strata)),
                  partial(_participant_row, strata=tuple(strata)))
