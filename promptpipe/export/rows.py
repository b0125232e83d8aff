"""The export's tables: their columns, and how one stored row becomes one exported row (times in
UTC and local, free texts pseudonymised, CSV cells made safe for spreadsheets)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from operator import itemgetter
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.domain.outcomes import COUNTER_DATES, COUNTER_INTS, Outcome, delivery_outcome
from promptpipe.domain.profile import HABIT_FIELDS, Profile
from promptpipe.domain.questionnaire_answers import AnswerSource
from promptpipe.export.pseudonyms import People
from promptpipe.export.study_part import (
    DECISION_COLUMNS,
    decision_csv,
    decision_row,
    strata_columns,
    utc_iso,
    withdrawn_at,
)
from promptpipe.storage.models import (
    ConsentEvent,
    Conversation,
    Flag,
    Message,
    Participant,
    ToneEvent,
    Transition,
    table_of,
)
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.receipts import delivery_status
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

IDENTIFIERS = "identifiers"
"""The key file (participant_id, phone, name): written only on request."""

PARTICIPANT_COLUMNS = (
    "id", "timezone", "status", "paused_by", "opted_out", "researcher_paused", "sub_state",
    "arm", "number", "day_one", "extra_days", "enrolled_at_utc", "enrolled_at_local", "completed_at_utc",
    "completed_at_local",
    "erased_at_utc", "erased_at_local", "withdrawn_at_utc", "withdrawn_at_local", *HABIT_FIELDS, "intensity",
    *COUNTER_INTS, *COUNTER_DATES, "tone_active",
)
"""Followed by one ``stratum_<field>`` column per enrollment field (see :func:`participants_table`)."""
MESSAGE_COLUMNS = (
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at_utc", "created_at_local",
    "sent_at_utc", "sent_at_local", "wa_message_id", "delivery", "delivered_at_utc", "delivered_at_local",
    "read_at_utc", "read_at_local", "played_at_utc", "played_at_local",
    "poll_purpose", "poll_options", "vote_chosen", "vote_source", "handled_as", "payload",
)
DELIVERY_COLUMNS = (
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at_utc", "sent_at_local", "delivered_at_utc", "delivered_at_local", "read_at_utc", "read_at_local",
    "vote", "vote_source", "voted_at_utc", "voted_at_local", "vote_changes",
    "replied_at_utc", "replied_at_local", "reminder_at_utc", "reminder_at_local", "reminder_sent", "outcome",
)
TRANSITION_COLUMNS = (
    "id", "participant_id", "kind", "name", "actor", "from_value", "to_value", "reason", "at_utc", "at_local",
)
TONE_COLUMNS = (
    "id", "participant_id", "source", "proposed", "stripped", "outcome", "active_before", "active_after", "scores",
    "at_utc", "at_local",
)
CONSENT_COLUMNS = ("id", "participant_id", "event", "source", "actor", "words", "reconstructed", "at_utc", "at_local",
                   "said_at_utc", "said_at_local")
FLAG_COLUMNS = (
    "id", "participant_id", "source", "severity", "trigger", "status", "at_utc", "at_local",
    "resolved_at_utc", "resolved_at_local", "resolved_by", "resolution_note", "alert_status",
)
IDENTIFIER_COLUMNS = ("participant_id", "phone", "name")
QUESTIONNAIRE_INSTANCE_COLUMNS = (
    "id", "participant_id", "questionnaire_id", "occasion", "schedule_kind", "study_day", "local_date", "status",
    "reason", "scheduled_at_utc", "scheduled_at_local", "window_start_utc", "window_end_utc", "sent_at_utc",
    "sent_at_local", "first_answer_at_utc", "first_answer_at_local", "ended_at_utc", "ended_at_local",
    "expires_at_utc", "reminders_sent", "protocol_hash",
)
QUESTIONNAIRE_ANSWER_COLUMNS = (
    "id", "participant_id", "instance_id", "questionnaire_id", "occasion", "item_id", "raw", "coded", "source",
    "missing", "tries", "asked_at_utc", "asked_at_local", "answered_at_utc", "answered_at_local", "latency_s",
    "protocol_hash",
)


# ---------------------------------------------------------------- values

def _times(prefix: str, value: datetime | None, zone: ZoneInfo) -> dict[str, str | None]:
    """``{prefix}_utc`` and ``{prefix}_local``: ISO 8601 to the second, with the offset."""
    names = _TIME_NAMES.get(prefix) or _TIME_NAMES.setdefault(prefix, (f"{prefix}_utc", f"{prefix}_local"))
    utc, local = _stamp(value, zone)
    return {names[0]: utc, names[1]: local}


_TIME_NAMES: dict[str, tuple[str, str]] = {}
_NO_TIME: tuple[str | None, str | None] = (None, None)


def _stamp(value: datetime | None, zone: ZoneInfo) -> tuple[str | None, str | None]:
    """A time in UTC and in ``zone``, as :func:`_times` writes them (the large files' rows call
    this directly: a dict per time, unpacked into the row, cost more than formatting it)."""
    if value is None:
        return _NO_TIME
    return utc_iso(value), value.astimezone(zone).isoformat(timespec="seconds")


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _as_list(value: Any) -> list[Any] | None:
    """A list as stored; a lone value becomes a one-item list; absent stays None."""
    if value is None:
        return None
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


FORMULA_STARTS = frozenset("=+-@\t\r")
"""A CSV cell starting with one of these is run as a formula by Excel, LibreOffice or Google
Sheets (``=HYPERLINK(…)``, ``=cmd|…``, ``@SUM(…)``); OWASP: prefix such a cell with ``'``."""


def _csv_text(text: str) -> str:
    """A text made safe for a spreadsheet: NULs removed, a would-be formula prefixed with ``'``."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text and text[0] in FORMULA_STARTS:
        return "'" + text
    return text


def _csv_cell(value: Any) -> Any:
    cls = value.__class__
    if cls is str:  # nearly every cell: two cheap checks
        if (value and value[0] in FORMULA_STARTS) or "\x00" in value:
            return _csv_text(value)
        return value
    if cls is int or cls is float:  # numbers stay numbers, a minus sign included
        return value
    if value is None:
        return ""
    if cls is bool:
        return "true" if value else "false"
    if cls is list or cls is tuple:
        return _csv_text(";".join("" if item is None else _json_text(item) if isinstance(item, (dict, list))
                                  else str(item) for item in value))
    if cls is dict:
        return _json_text(value)  # starts with "{"; json.dumps escapes NUL as \u0000
    return _csv_text(str(value))


def participant_chunk(after: str | None, limit: int) -> Callable[[Session], list[Any]]:
    """The next ``limit`` participants after id ``after``, with their conversation."""
    p, c = table_of(Participant), table_of(Conversation)
    query = (
        select(p.c.id, p.c.phone, p.c.name, p.c.timezone, p.c.status, p.c.paused_by, p.c.opted_out,
               p.c.researcher_paused, p.c.enrolled_at, p.c.erased_at, withdrawn_at(p.c.id).label("withdrawn_at"),
               p.c.arm, p.c.number, p.c.strata, p.c.day_one, p.c.extra_days, p.c.completed_at, c.c.sub_state,
               c.c.profile,
               c.c.tone)
        .select_from(p.outerjoin(c, c.c.participant_id == p.c.id))
        .order_by(p.c.id).limit(limit)
    )
    if after is not None:
        query = query.where(p.c.id > after)
    return lambda session: list(session.execute(query))


# ---------------------------------------------------------------- one row per event

def _participant_row(row: Any, people: People, strata: Sequence[str] = ()) -> dict[str, Any]:
    profile = Profile.from_json(_as_dict(row.profile))
    counters = profile.record.counters
    tone = _as_dict(row.tone)
    zone = people.zone(row.id)
    out: dict[str, Any] = {
        "id": row.id, "timezone": row.timezone, "status": row.status, "paused_by": row.paused_by,
        "opted_out": bool(row.opted_out), "researcher_paused": bool(row.researcher_paused),
        "sub_state": row.sub_state, "arm": row.arm, "number": row.number, "day_one": row.day_one,
        "extra_days": row.extra_days or 0,
        **_times("enrolled_at", row.enrolled_at, zone), **_times("completed_at", row.completed_at, zone),
        **_times("erased_at", row.erased_at, zone), **_times("withdrawn_at", row.withdrawn_at, zone),
    }
    for name in HABIT_FIELDS:
        out[name] = people.scrub(row.id, profile.habit.value(name) or None)
    out["intensity"] = profile.record.intensity
    for name in COUNTER_INTS:
        value = counters.get(name)
        out[name] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    for name in COUNTER_DATES:
        out[name] = counters.get(name) or None
    out["tone_active"] = _as_list(tone.get("active")) or []
    enrolled_with = _as_dict(row.strata)
    for name in strata:
        value = enrolled_with.get(name)
        out[f"stratum_{name}"] = None if value is None else str(value)
    return out


def _identifier_row(row: Any, people: People) -> dict[str, Any]:
    return {"participant_id": row.id, "phone": row.phone, "name": row.name}


def _message_row(row: Any, people: People) -> dict[str, Any]:
    pid, zone = row.participant_id, people.zone(row.participant_id)
    stored = people.scrub_value(pid, row.payload)
    payload = _as_dict(stored)
    created, sent, delivered, read, played = (_stamp(row.created_at, zone), _stamp(row.sent_at, zone),
                                              _stamp(row.delivered_at, zone), _stamp(row.read_at, zone),
                                              _stamp(row.played_at, zone))
    return {
        "id": row.id, "participant_id": pid, "direction": row.direction, "role": row.role,
        "kind": row.kind, "status": row.status, "text": people.scrub(pid, row.text),
        "created_at_utc": created[0], "created_at_local": created[1], "sent_at_utc": sent[0], "sent_at_local": sent[1],
        "wa_message_id": row.wa_message_id,
        "delivery": delivery_status(row.sent_at, row.delivered_at, row.read_at, receipts_expected=bool(
            row.receipts_expected), cutoff=row.receipt_cutoff) if row.direction == "out" else None,
        "delivered_at_utc": delivered[0], "delivered_at_local": delivered[1], "read_at_utc": read[0],
        "read_at_local": read[1], "played_at_utc": played[0], "played_at_local": played[1],
        "poll_purpose": payload.get("purpose"),
        "poll_options": _as_list(payload.get("options")),
        "vote_chosen": _as_list(payload.get("selected")),
        "vote_source": payload.get("vote_source") or ("tap" if "poll_message_id" in payload else None),
        "handled_as": payload.get("handled_as"),
        "payload": stored,
    }


def _stamps() -> Callable[[datetime | None, ZoneInfo], tuple[str | None, str | None]]:
    """:func:`_stamp` remembering what it formatted (for one chunk): many rows of a chunk share a
    time (a prompt and its poll, their receipts)."""
    stamps: dict[tuple[datetime, ZoneInfo], tuple[str | None, str | None]] = {}

    def stamp(value: datetime | None, zone: ZoneInfo) -> tuple[str | None, str | None]:
        if value is None:
            return _NO_TIME
        key = (value, zone)
        found = stamps.get(key)
        if found is None:
            found = stamps[key] = _stamp(value, zone)
        return found
    return stamp


_MESSAGE_READ = (
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at", "sent_at", "wa_message_id",
    "receipts_expected", "receipt_cutoff", "delivered_at", "read_at", "played_at", "payload",
)


def _message_csv(rows: Sequence[Any], people: People) -> list[tuple[Any, ...]]:
    """:func:`_message_row` as CSV cells, in ``MESSAGE_COLUMNS`` order: the transcript is the
    largest file, so no dict per row, the values taken from each row in one step, every time
    formatted once per chunk (a prompt and its poll share theirs), and only cells that may hold
    text go through :func:`_csv_cell` (ids, times and the delivery status never need it)."""
    if not rows:
        return []
    fields = rows[0]._fields
    values = itemgetter(*(fields.index(name) for name in _MESSAGE_READ))
    cell, zone_of, scrub, scrub_value = _csv_cell, people.zone, people.scrub, people.scrub_value
    status_of = delivery_status
    stamp = _stamps()
    out = []
    for row in rows:
        (mid, pid, direction, role, kind, status, text, created_at, sent_at, wa_id, expected, cutoff, delivered_at,
         read_at, played_at, stored) = values(row)
        zone = zone_of(pid)
        stored = scrub_value(pid, stored)
        payload = stored if isinstance(stored, dict) else {}
        created, sent = stamp(created_at, zone), stamp(sent_at, zone)
        delivered, read, played = stamp(delivered_at, zone), stamp(read_at, zone), stamp(played_at, zone)
        options, chosen = _as_list(payload.get("options")), _as_list(payload.get("selected"))
        out.append((
            mid, cell(pid), cell(direction), cell(role), cell(kind), cell(status), cell(scrub(pid, text)),
            created[0], created[1], sent[0], sent[1], cell(wa_id),
            status_of(sent_at, delivered_at, read_at, receipts_expected=bool(expected), cutoff=cutoff)
            if direction == "out" else None,
            delivered[0], delivered[1], read[0], read[1], played[0], played[1],
            cell(payload.get("purpose")), None if options is None else cell(options),
            None if chosen is None else cell(chosen),
            cell(payload.get("vote_source") or ("tap" if "poll_message_id" in payload else None)),
            cell(payload.get("handled_as")), "{}" if stored.__class__ is dict and not stored else cell(stored),
        ))
    return out


def _delivery_row(row: Any, people: People) -> dict[str, Any]:
    zone = people.zone(row.participant_id)
    return {
        "id": row.id, "participant_id": row.participant_id, "schedule_id": row.schedule_id,
        "local_date": row.local_date, "prompt_text": people.scrub(row.participant_id, row.prompt_text),
        "prompt_message_id": row.prompt_message_id, "poll_message_id": row.poll_message_id,
        **_times("sent_at", row.sent_at, zone),
        **_times("delivered_at", row.delivered_at, zone), **_times("read_at", row.read_at, zone),
        "vote": row.vote, "vote_source": row.vote_source, **_times("voted_at", row.voted_at, zone),
        "vote_changes": row.vote_changes,
        **_times("replied_at", row.replied_at, zone), **_times("reminder_at", row.reminder_at, zone),
        "reminder_sent": row.reminder_at is not None,
        "outcome": delivery_outcome(row.vote, row.replied_at, row.reminder_at, not_delivered=delivery_status(
            row.sent_at, row.delivered_at, row.read_at, receipts_expected=bool(row.receipts_expected),
            cutoff=row.receipt_cutoff) == Outcome.NOT_DELIVERED),
    }


_DELIVERY_READ = (
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at", "delivered_at", "read_at", "vote", "vote_source", "voted_at", "vote_changes", "replied_at",
    "reminder_at", "receipts_expected", "receipt_cutoff",
)


def _delivery_csv(rows: Sequence[Any], people: People) -> list[tuple[Any, ...]]:
    """:func:`_delivery_row` as CSV cells, in ``DELIVERY_COLUMNS`` order (as :func:`_message_csv`)."""
    if not rows:
        return []
    fields = rows[0]._fields
    values = itemgetter(*(fields.index(name) for name in _DELIVERY_READ))
    cell, zone_of, scrub, stamp = _csv_cell, people.zone, people.scrub, _stamps()
    out = []
    for row in rows:
        (did, pid, schedule_id, local_date, prompt_text, prompt_id, poll_id, sent_at, delivered_at, read_at, vote,
         vote_source, voted_at, vote_changes, replied_at, reminder_at, expected, cutoff) = values(row)
        zone = zone_of(pid)
        sent, delivered, read = stamp(sent_at, zone), stamp(delivered_at, zone), stamp(read_at, zone)
        voted, replied, reminder = stamp(voted_at, zone), stamp(replied_at, zone), stamp(reminder_at, zone)
        out.append((
            did, cell(pid), cell(schedule_id), cell(local_date), cell(scrub(pid, prompt_text)), cell(prompt_id),
            cell(poll_id), sent[0], sent[1], delivered[0], delivered[1], read[0], read[1], cell(vote),
            cell(vote_source), voted[0], voted[1], cell(vote_changes), replied[0], replied[1], reminder[0],
            reminder[1], "false" if reminder_at is None else "true",
            cell(delivery_outcome(vote, replied_at, reminder_at, not_delivered=delivery_status(
                sent_at, delivered_at, read_at, receipts_expected=bool(expected),
                cutoff=cutoff) == Outcome.NOT_DELIVERED)),
        ))
    return out


def _transition_row(row: Any, people: People) -> dict[str, Any]:
    return {
        "id": row.id, "participant_id": row.participant_id, "kind": row.kind, "name": row.name, "actor": row.actor,
        "from_value": row.from_value, "to_value": row.to_value, "reason": people.scrub(row.participant_id, row.reason),
        **_times("at", row.created_at, people.zone(row.participant_id)),
    }


def _tone_row(row: Any, people: People) -> dict[str, Any]:
    return {
        "id": row.id, "participant_id": row.participant_id, "source": row.source,
        "proposed": _as_list(row.proposed), "stripped": _as_list(row.stripped), "outcome": row.outcome,
        "active_before": _as_list(row.active_before), "active_after": _as_list(row.active_after),
        "scores": row.scores, **_times("at", row.created_at, people.zone(row.participant_id)),
    }


def _consent_row(row: Any, people: People) -> dict[str, Any]:
    return {
        "id": row.id, "participant_id": row.participant_id, "event": row.event, "source": row.source,
        "actor": row.actor, "words": people.scrub(row.participant_id, row.words),
        "reconstructed": bool(row.reconstructed), **_times("at", row.created_at, people.zone(row.participant_id)),
        **_times("said_at", row.said_at, people.zone(row.participant_id)),
    }


def _flag_row(row: Any, people: People) -> dict[str, Any]:
    pid, zone = row.participant_id, people.zone(row.participant_id)
    return {
        "id": row.id, "participant_id": pid, "source": row.source, "severity": row.severity,
        "trigger": people.scrub(pid, row.trigger), "status": row.status, **_times("at", row.created_at, zone),
        **_times("resolved_at", row.resolved_at, zone), "resolved_by": row.resolved_by,
        "resolution_note": people.scrub(pid, row.resolution_note), "alert_status": row.alert_status,
    }


def _questionnaire_instance_row(row: Any, people: People) -> dict[str, Any]:
    pid = row.participant_id
    zone = people.zone(pid)
    return {
        "id": row.id, "participant_id": pid, "questionnaire_id": row.questionnaire_id, "occasion": row.occasion,
        "schedule_kind": row.schedule_kind, "study_day": row.study_day, "local_date": row.local_date,
        "status": row.status, "reason": row.reason, **_times("scheduled_at", row.scheduled_at, zone),
        "window_start_utc": utc_iso(row.window_start), "window_end_utc": utc_iso(row.window_end),
        **_times("sent_at", row.sent_at, zone), **_times("first_answer_at", row.first_answer_at, zone),
        **_times("ended_at", row.ended_at, zone), "expires_at_utc": utc_iso(row.expires_at),
        "reminders_sent": row.reminders_sent, "protocol_hash": row.protocol_hash,
    }


def _questionnaire_answer_row(row: Any, people: People) -> dict[str, Any]:
    pid = row.participant_id
    zone = people.zone(pid)
    latency = (None if row.asked_at is None or row.answered_at is None
               else round((row.answered_at - row.asked_at).total_seconds(), 3))
    return {
        "id": row.id, "participant_id": pid, "instance_id": row.instance_id,
        "questionnaire_id": row.questionnaire_id, "occasion": row.occasion, "item_id": row.item_id,
        "raw": people.scrub(pid, row.raw) if row.source == AnswerSource.TYPED else row.raw, "coded": row.coded,
        "source": row.source, "missing": row.missing, "tries": row.tries, **_times("asked_at", row.asked_at, zone),
        **_times("answered_at", row.answered_at, zone), "latency_s": latency, "protocol_hash": row.protocol_hash,
    }


@dataclass(frozen=True)
class _Table:
    name: str
    model: Any
    columns: Sequence[str]
    build: Callable[[Any, People], dict[str, Any]]
    csv_rows: Callable[[Sequence[Any], People], list[tuple[Any, ...]]] | None = None
    """A chunk's CSV rows as :func:`build` and the CSV writer make them, built directly (the large files)."""


TABLES: tuple[_Table, ...] = (
    _Table("participants", Participant, PARTICIPANT_COLUMNS, _participant_row),
    _Table("messages", Message, MESSAGE_COLUMNS, _message_row, _message_csv),
    _Table("deliveries", PromptDelivery, DELIVERY_COLUMNS, _delivery_row, _delivery_csv),
    _Table("decisions", Decision, DECISION_COLUMNS, decision_row, partial(decision_csv, cell=_csv_cell)),
    _Table("transitions", Transition, TRANSITION_COLUMNS, _transition_row),
    _Table("tone_changes", ToneEvent, TONE_COLUMNS, _tone_row),
    _Table("consent", ConsentEvent, CONSENT_COLUMNS, _consent_row),
    _Table("flags", Flag, FLAG_COLUMNS, _flag_row),
    _Table("questionnaire_instances", QuestionnaireInstance, QUESTIONNAIRE_INSTANCE_COLUMNS,
           _questionnaire_instance_row),
    _Table("questionnaire_answers", QuestionnaireAnswer, QUESTIONNAIRE_ANSWER_COLUMNS, _questionnaire_answer_row),
)
FILE_NAMES = tuple(table.name for table in TABLES)
IDENTIFIER_TABLE = _Table(IDENTIFIERS, Participant, IDENTIFIER_COLUMNS, _identifier_row)


def participants_table(strata: Sequence[str]) -> _Table:
    """The participants file with one ``stratum_<field>`` column per enrollment field."""
    return _Table("participants", Participant, (*PARTICIPANT_COLUMNS, *strata_columns(strata)),
                  partial(_participant_row, strata=tuple(strata)))
