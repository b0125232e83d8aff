"""The two largest export files, ``messages`` and ``deliveries``: a whole chunk's rows built directly (no dict per
row, each time formatted once per chunk)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.export.cells import as_list, stamps
from promptpipe.export.codebook_entries import DELIVERIES, MESSAGES
from promptpipe.export.pseudonyms import People
from promptpipe.storage.receipts import delivery_status

MESSAGE_COLUMNS = MESSAGES.columns
DELIVERY_COLUMNS = DELIVERIES.columns
_MESSAGE_READ = (
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at", "sent_at", "wa_message_id",
    "receipts_expected", "receipt_cutoff", "delivered_at", "read_at", "played_at", "payload",
)


def _reader(rows: Sequence[Any], names: Sequence[str]) -> Callable[[Any], Any]:
    """The values of ``names`` taken from a row in one step (the rows of a chunk share their fields)."""
    return itemgetter(*(rows[0]._fields.index(name) for name in names)) if rows else itemgetter(0)


def message_csv(rows: Sequence[Any], people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``messages`` rows in ``MESSAGE_COLUMNS`` order; only cells that may hold text go through ``cell``."""
    values = _reader(rows, _MESSAGE_READ)
    scrub, scrub_value = people.scrub, people.scrub_value
    status_of = delivery_status
    stamp = stamps(people.zone_at)
    out = []
    for row in rows:
        (mid, pid, direction, role, kind, status, text, created_at, sent_at, wa_id, expected, cutoff, delivered_at,
         read_at, played_at, stored) = values(row)
        stored = scrub_value(pid, stored)
        payload = stored if isinstance(stored, dict) else {}
        created, sent = stamp(created_at, pid), stamp(sent_at, pid)
        delivered, read, played = stamp(delivered_at, pid), stamp(read_at, pid), stamp(played_at, pid)
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
            cell(payload.get("handled_as")), stored if stored.__class__ is dict and not stored else cell(stored),
        ))
    return out


_DELIVERY_READ = (
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at", "delivered_at", "read_at", "vote", "vote_source", "voted_at", "vote_changes", "replied_at",
    "reminder_at", "receipts_expected", "receipt_cutoff",
)


def delivery_csv(rows: Sequence[Any], people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``deliveries`` rows in ``DELIVERY_COLUMNS`` order (as :func:`message_csv`)."""
    values = _reader(rows, _DELIVERY_READ)
    scrub, stamp = people.scrub, stamps(people.zone_at)
    out = []
    for row in rows:
        (did, pid, schedule_id, local_date, prompt_text, prompt_id, poll_id, sent_at, delivered_at, read_at, vote,
         vote_source, voted_at, vote_changes, replied_at, reminder_at, expected, cutoff) = values(row)
        sent, delivered, read = stamp(sent_at, pid), stamp(delivered_at, pid), stamp(read_at, pid)
        voted, replied, reminder = stamp(voted_at, pid), stamp(replied_at, pid), stamp(reminder_at, pid)
        out.append((
            did, cell(pid), cell(schedule_id), cell(local_date), cell(scrub(pid, prompt_text)), cell(prompt_id),
            cell(poll_id), sent[0], sent[1], delivered[0], delivered[1], read[0], read[1], cell(vote),
            cell(vote_source), voted[0], voted[1], cell(vote_changes), replied[0], replied[1], reminder[0],
            reminder[1], cell(reminder_at is not None),
            cell(delivery_outcome(vote, replied_at, reminder_at, not_delivered=delivery_status(
                sent_at, delivered_at, read_at, receipts_expected=bool(expected),
                cutoff=cutoff) == Outcome.NOT_DELIVERED)),
        ))
    return out
