"""The two largest export files, ``messages`` and ``deliveries``: read with times as stored and receipts apart, and a
whole chunk's rows built directly (no dict per row, each time formatted once per chunk)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from json import loads
from typing import Any

from sqlalchemy import String, select, type_coerce
from sqlalchemy.orm import Session

from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.export.cells import NO_TIME, Cells, as_list, stamps, stored_time
from promptpipe.export.codebook_entries import DELIVERIES, MESSAGES
from promptpipe.export.pseudonyms import People
from promptpipe.export.receipts import NO_RECEIPTS, Chunk, delivery_receipts, driver_rows, receipt_times, stored_status
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.prompt_tables import PromptDelivery

_MESSAGE, _DELIVERY = table_of(Message), table_of(PromptDelivery)
_EMPTY: dict[str, object] = {}
"""An empty payload's cell (read only)."""

MESSAGE_COLUMNS = MESSAGES.columns
DELIVERY_COLUMNS = DELIVERIES.columns


def message_chunk(after: int, ceiling: int, limit: int, cutoff: datetime) -> Callable[[Session], Chunk]:
    m = _MESSAGE
    query = (select(m.c.id, m.c.participant_id, m.c.direction, m.c.role, m.c.kind, m.c.status, m.c.text,
                    stored_time(m.c.created_at), stored_time(m.c.sent_at), m.c.wa_message_id, m.c.receipts_expected,
                    type_coerce(m.c.payload, String()))  # decoded only when not empty (json.loads: 2 µs a row)
             .where(m.c.id > after, m.c.id <= ceiling).order_by(m.c.id).limit(limit))

    def read(session: Session) -> Chunk:
        conn = session.connection()
        rows = driver_rows(conn, query)
        receipts = receipt_times(conn, m.c.id, m, m, m.c.id >= rows[0][0], m.c.id <= rows[-1][0]) if rows else {}
        return Chunk(rows, receipts, cutoff, json_text=conn.dialect.name == "sqlite")
    return read


def message_csv(rows: Chunk, people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``messages`` rows in ``MESSAGE_COLUMNS`` order; only cells that may hold text go through ``cell``."""
    receipts, cutoff, json_text = rows.receipts, rows.cutoff, rows.json_text
    scrub, scrub_value = people.scrub, people.scrub_value
    stamp = stamps(people)
    ids, words = Cells(cell), Cells(cell)
    plain = (cell(None), None, None, cell(None), cell(None))
    """The poll and vote cells of an empty payload."""
    out = []
    for mid, pid, direction, role, kind, status, text, created_at, sent_at, wa_id, expected, stored in rows:
        delivered_at, read_at, played_at = receipts.get(mid, NO_RECEIPTS)
        created = stamp(created_at, pid)
        sent = NO_TIME if sent_at is None else stamp(sent_at, pid)
        delivered = NO_TIME if delivered_at is None else stamp(delivered_at, pid)
        read = NO_TIME if read_at is None else stamp(read_at, pid)
        played = NO_TIME if played_at is None else stamp(played_at, pid)
        if (stored == "{}" and json_text) or (stored.__class__ is dict and not stored):
            poll, payload_cell = plain, _EMPTY
        else:
            stored = scrub_value(pid, loads(stored) if json_text else stored)
            payload = stored if isinstance(stored, dict) else {}
            options, chosen = as_list(payload.get("options")), as_list(payload.get("selected"))
            poll = (cell(payload.get("purpose")), None if options is None else cell(options),
                    None if chosen is None else cell(chosen),
                    cell(payload.get("vote_source") or ("tap" if "poll_message_id" in payload else None)),
                    cell(payload.get("handled_as")))
            payload_cell = stored if stored.__class__ is dict and not stored else cell(stored)
        out.append((
            mid, ids[pid], words[direction], words[role], words[kind], words[status], cell(scrub(pid, text)),
            created[0], created[1], sent[0], sent[1], cell(wa_id),
            stored_status(sent_at, delivered_at, read_at, expected, cutoff) if direction == "out" else None,
            delivered[0], delivered[1], read[0], read[1], played[0], played[1], *poll, payload_cell,
        ))
    return out


def delivery_chunk(after: int, ceiling: int, limit: int, cutoff: datetime) -> Callable[[Session], Chunk]:
    d, prompt = _DELIVERY, _MESSAGE.alias("prompt")
    query = (select(d.c.id, d.c.participant_id, d.c.schedule_id, d.c.local_date, d.c.prompt_text,
                    d.c.prompt_message_id, d.c.poll_message_id, stored_time(d.c.sent_at), d.c.vote, d.c.vote_source,
                    stored_time(d.c.voted_at), d.c.vote_changes, stored_time(d.c.replied_at),
                    stored_time(d.c.reminder_at), prompt.c.receipts_expected)
             .select_from(d.outerjoin(prompt, prompt.c.id == d.c.prompt_message_id))
             .where(d.c.id > after, d.c.id <= ceiling).order_by(d.c.id).limit(limit))

    def read(session: Session) -> Chunk:
        conn = session.connection()
        rows = driver_rows(conn, query)
        receipts = delivery_receipts(conn, d.c.id >= rows[0][0], d.c.id <= rows[-1][0]) if rows else {}
        return Chunk(rows, receipts, cutoff)
    return read


def delivery_csv(rows: Chunk, people: People, cell: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
    """A chunk's ``deliveries`` rows in ``DELIVERY_COLUMNS`` order (as :func:`message_csv`)."""
    receipts, cutoff = rows.receipts, rows.cutoff
    scrub, stamp = people.scrub, stamps(people)
    ids, words, outcomes = Cells(cell), Cells(cell), Cells(cell)
    out = []
    for (did, pid, schedule_id, local_date, prompt_text, prompt_id, poll_id, sent_at, vote, vote_source, voted_at,
         vote_changes, replied_at, reminder_at, expected) in rows:
        delivered_at, read_at, _ = receipts.get(did, NO_RECEIPTS)
        sent = stamp(sent_at, pid)
        delivered = NO_TIME if delivered_at is None else stamp(delivered_at, pid)
        read = NO_TIME if read_at is None else stamp(read_at, pid)
        voted = NO_TIME if voted_at is None else stamp(voted_at, pid)
        replied = NO_TIME if replied_at is None else stamp(replied_at, pid)
        reminder = NO_TIME if reminder_at is None else stamp(reminder_at, pid)
        status = stored_status(sent_at, delivered_at, read_at, expected, cutoff)
        out.append((
            did, ids[pid], words[schedule_id], words[local_date], cell(scrub(pid, prompt_text)), cell(prompt_id),
            cell(poll_id), sent[0], sent[1], delivered[0], delivered[1], read[0], read[1], words[vote],
            words[vote_source], voted[0], voted[1], cell(vote_changes), replied[0], replied[1], reminder[0],
            reminder[1], cell(reminder_at is not None),
            outcomes[delivery_outcome(vote, replied_at, reminder_at, not_delivered=status == Outcome.NOT_DELIVERED)],
        ))
    return out
