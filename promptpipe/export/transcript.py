"""The two largest export files, ``messages`` (the transcript) and ``deliveries`` (the daily
prompts and what became of them): a row per event for JSONL, and for CSV the cells of a whole
chunk built directly (no dict per row, each time formatted once per chunk)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.export.cells import Row, as_dict, as_list, csv_cell, stamped, stamps
from promptpipe.export.codebook_entries import DELIVERIES, MESSAGES
from promptpipe.export.pseudonyms import People
from promptpipe.storage.receipts import delivery_status

MESSAGE_COLUMNS = MESSAGES.columns
DELIVERY_COLUMNS = DELIVERIES.columns


def message_row(row: Any, people: People) -> Row:
    pid, zone = row.participant_id, people.zone(row.participant_id)
    stored = people.scrub_value(pid, row.payload)
    payload = as_dict(stored)
    return {
        "id": row.id, "participant_id": pid, "direction": row.direction, "role": row.role,
        "kind": row.kind, "status": row.status, "text": people.scrub(pid, row.text),
        **stamped("created_at", row.created_at, zone), **stamped("sent_at", row.sent_at, zone),
        "wa_message_id": row.wa_message_id,
        "delivery": delivery_status(row.sent_at, row.delivered_at, row.read_at, receipts_expected=bool(
            row.receipts_expected), cutoff=row.receipt_cutoff) if row.direction == "out" else None,
        **stamped("delivered_at", row.delivered_at, zone), **stamped("read_at", row.read_at, zone),
        **stamped("played_at", row.played_at, zone),
        "poll_purpose": payload.get("purpose"),
        "poll_options": as_list(payload.get("options")),
        "vote_chosen": as_list(payload.get("selected")),
        "vote_source": payload.get("vote_source") or ("tap" if "poll_message_id" in payload else None),
        "handled_as": payload.get("handled_as"),
        "payload": stored,
    }


_MESSAGE_READ = (
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at", "sent_at", "wa_message_id",
    "receipts_expected", "receipt_cutoff", "delivered_at", "read_at", "played_at", "payload",
)


def message_csv(rows: Sequence[Any], people: People) -> list[tuple[Any, ...]]:
    """:func:`message_row` as CSV cells, in ``MESSAGE_COLUMNS`` order: the transcript is the
    largest file, so no dict per row, the values taken from each row in one step, every time
    formatted once per chunk (a prompt and its poll share theirs), and only cells that may hold
    text go through :func:`csv_cell` (ids, times and the delivery status never need it)."""
    if not rows:
        return []
    fields = rows[0]._fields
    values = itemgetter(*(fields.index(name) for name in _MESSAGE_READ))
    cell, zone_of, scrub, scrub_value = csv_cell, people.zone, people.scrub, people.scrub_value
    status_of = delivery_status
    stamp = stamps()
    out = []
    for row in rows:
        (mid, pid, direction, role, kind, status, text, created_at, sent_at, wa_id, expected, cutoff, delivered_at,
         read_at, played_at, stored) = values(row)
        zone = zone_of(pid)
        stored = scrub_value(pid, stored)
        payload = stored if isinstance(stored, dict) else {}
        created, sent = stamp(created_at, zone), stamp(sent_at, zone)
        delivered, read, played = stamp(delivered_at, zone), stamp(read_at, zone), stamp(played_at, zone)
        options, chosen = as_list(payload.get("options")), as_list(payload.get("selected"))
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


def delivery_row(row: Any, people: People) -> Row:
    pid, zone = row.participant_id, people.zone(row.participant_id)
    return {
        "id": row.id, "participant_id": pid, "schedule_id": row.schedule_id,
        "local_date": row.local_date, "prompt_text": people.scrub(pid, row.prompt_text),
        "prompt_message_id": row.prompt_message_id, "poll_message_id": row.poll_message_id,
        **stamped("sent_at", row.sent_at, zone), **stamped("delivered_at", row.delivered_at, zone),
        **stamped("read_at", row.read_at, zone), "vote": row.vote, "vote_source": row.vote_source,
        **stamped("voted_at", row.voted_at, zone), "vote_changes": row.vote_changes,
        **stamped("replied_at", row.replied_at, zone), **stamped("reminder_at", row.reminder_at, zone),
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


def delivery_csv(rows: Sequence[Any], people: People) -> list[tuple[Any, ...]]:
    """:func:`delivery_row` as CSV cells, in ``DELIVERY_COLUMNS`` order (as :func:`message_csv`)."""
    if not rows:
        return []
    fields = rows[0]._fields
    values = itemgetter(*(fields.index(name) for name in _DELIVERY_READ))
    cell, zone_of, scrub, stamp = csv_cell, people.zone, people.scrub, stamps()
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
