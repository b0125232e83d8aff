"""Queries on ``message`` (the transcript) and the outbox rows that send our side of it, keyed: a repeat is a no-op."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Integer, bindparam, exists, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.conversation import HistoryEntry
from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.domain.text import clean_for_storage
from promptpipe.storage.commit_hooks import note_queued
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.prepared import Prepared, insert_row, run_sql
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus

__all__ = ["HIDDEN_FROM_MODEL", "ToSend", "add_inbound_message", "annotate_message", "history_before", "never_greeted",
           "queue_messages", "queue_outgoing"]

HIDDEN_FROM_MODEL = ("apology", "questionnaire", "questionnaire_poll")
"""Transcript kinds the model does not see in its history."""

_MESSAGE = table_of(Message)
_OUTBOX = table_of(OutboxItem)
_INBOX = table_of(InboxItem)
_INSERT_MESSAGE = Prepared(insert(_MESSAGE).returning(_MESSAGE.c.id))
_INSERT_OUTBOX = Prepared(insert(_OUTBOX))


def add_inbound_message(
    session: Session, *, participant_id: str, text: str, now: datetime, wa_message_id: str | None,
    payload: dict[str, Any] | None = None, kind: str = "text", sent_at: datetime | None = None,
) -> int:
    """The transcript row of an inbound message; returns its id. ``kind``: ``text``, what came without words
    (``voice``…), ``reaction`` or ``poll_vote``; ``sent_at``: when sent by their WhatsApp's clock."""
    return int(_INSERT_MESSAGE.one_value(session.connection(), {
        "participant_id": participant_id, "direction": "in", "role": "user", "kind": kind,
        "text": clean_for_storage(text),  # the last guard: any text, from anywhere
        "payload": payload or {}, "wa_message_id": wa_message_id, "status": MessageStatus.RECEIVED,
        "created_at": now, "sent_at": sent_at}))


@dataclass(frozen=True)
class ToSend:
    """A message to queue: its outbox key (a repeat is a no-op), text, transcript kind, payload."""

    key: str
    text: str
    kind: MessageKind = MessageKind.TEXT
    payload: dict[str, Any] = field(default_factory=dict)
    not_before: datetime | None = None
    """Held until then (the participant's quiet hours); None: goes at once."""


def _held(m: ToSend, now: datetime) -> datetime | None:
    return m.not_before if m.not_before is not None and m.not_before > now else None


def queue_messages(
    session: Session, participant_id: str, messages: Sequence[ToSend], now: datetime
) -> dict[str, int | None]:
    """The transcript rows plus their outbox rows; returns the transcript id by key (None: queued before). One message
    (most turns) takes two statements, its transcript row written only if its key is new; more look keys up first."""
    connection = session.connection()
    first: dict[str, ToSend] = {}
    for m in messages:
        first.setdefault(m.key, m)  # a key twice in one call: the first one is the message
    ids: dict[str, int | None] = {}
    if first and connection.dialect.name == "postgresql":
        queued = _queue_in_one_statement(connection, participant_id, list(first.values()), now)
        if queued is not None:
            note_queued(session, participant_id, list(queued))
            return {key: queued.get(key) for key in first}
    if len(first) == 1:
        (only,) = first.values()
        values = {f"v_{name}": value for name, value in _transcript_row(participant_id, only, now).items()}
        message_id = _INSERT_IF_NEW.one_value(connection, {**values, "outbox_key": only.key})
        if message_id is None:
            return {only.key: None}
        new, message_ids = [only], [int(message_id)]
        note_queued(session, participant_id, [only.key])
    else:
        ids = dict.fromkeys(key for (key,) in _QUEUED_KEYS.rows(connection, {"keys": list(first)}))
        new = [m for m in first.values() if m.key not in ids]
        if not new:
            return ids
        note_queued(session, participant_id, [m.key for m in new])
        # One multi-row INSERT (once per row, a sixth of a daily prompt's commit): its ids come back in no set order,
        # but are handed out in the rows' order, so sorted they pair up.
        message_ids = sorted(message_id for (message_id,) in _INSERT_MESSAGE.many(
            connection, [_transcript_row(participant_id, m, now) for m in new], any_order=True))
    _INSERT_OUTBOX.many(connection, [_outbox_row(participant_id, m, message_id, now)
                                     for m, message_id in zip(new, message_ids, strict=True)])
    ids.update({m.key: message_id for m, message_id in zip(new, message_ids, strict=True)})
    return ids


def _outbox_row(participant_id: str, m: ToSend, message_id: int | None, now: datetime) -> dict[str, object]:
    return {"key": m.key, "participant_id": participant_id, "message_id": message_id, "status": OutboxStatus.PENDING,
            "attempts": 0, "available_at": _held(m, now) or now, "held_until": _held(m, now), "created_at": now,
            "claimed_at": None, "sent_at": None, "wa_message_id": None, "last_error": None}


_MESSAGE_IDS = "message_id_seq"
"""PostgreSQL's sequence of transcript ids (the id column's own)."""


def _queue_in_one_statement(connection: Connection, participant_id: str, new: list[ToSend],
                            now: datetime) -> dict[str, int] | None:
    """PostgreSQL: the outbox rows whose key is new and their transcript rows in one statement (two or three round
    trips before, each ~40 µs of psycopg's CPU). Each outbox row takes its transcript id from the id column's sequence,
    in the messages' order; a key queued before is skipped by the outbox's unique index (``ON CONFLICT DO NOTHING``)
    and so is its transcript row. No look-up by key that a plan could turn into a scan of the outbox (one kept from
    when the table was small read it whole for each turn). Returns the transcript id by key of those queued now
    (None: not built here, the statements one by one)."""
    parts = [(insert_row(_INSERT_MESSAGE, connection, _transcript_row(participant_id, m, now)),
              insert_row(_INSERT_OUTBOX, connection, _outbox_row(participant_id, m, None, now))) for m in new]
    message, outbox = parts[0]
    if message is None or outbox is None or "message_id" not in outbox.columns or "id" in message.columns:
        return None
    linked = outbox.columns.index("message_id")
    outbox_columns = [name for name in outbox.columns if name != "message_id"]
    row = "(" + ", ".join([*message.placeholders, *(p for n, p in enumerate(outbox.placeholders) if n != linked),
                           "%s::INTEGER"]) + ")"
    names = [*(f"m_{name}" for name in message.columns), *(f"o_{name}" for name in outbox_columns), "n"]
    # nextval is taken after the ORDER BY (PostgreSQL evaluates volatile output columns after sorting)
    outbox_values = [f"nextval('{_MESSAGE_IDS}')" if name == "message_id" else f"o_{name}" for name in outbox.columns]
    sql = (
        f"WITH v ({', '.join(names)}) AS (VALUES {', '.join([row] * len(new))}), "
        f"o AS (INSERT INTO outbox ({', '.join(outbox.columns)}) "
        f"SELECT {', '.join(outbox_values)} "
        "FROM v ORDER BY n ON CONFLICT (key) DO NOTHING RETURNING key, message_id), "
        f"m AS (INSERT INTO message (id, {', '.join(message.columns)}) "
        f"SELECT o.message_id, {', '.join(f'v.m_{name}' for name in message.columns)} "
        "FROM o JOIN v ON v.o_key = o.key) "
        "SELECT key, message_id FROM o")
    values: list[Any] = []
    for n, (message_row, outbox_row) in enumerate(parts):
        if message_row is None or outbox_row is None:
            return None
        values += [*message_row.values, *(v for i, v in enumerate(outbox_row.values) if i != linked), n]
    return {key: int(message_id) for key, message_id in run_sql(connection, sql, values)}


def _transcript_row(participant_id: str, m: ToSend, now: datetime) -> dict[str, object]:
    return {"participant_id": participant_id, "direction": "out", "role": "assistant", "kind": m.kind,
            "text": clean_for_storage(m.text), "payload": m.payload or {}, "wa_message_id": None,
            "status": MessageStatus.QUEUED, "created_at": now, "sent_at": None}


_QUEUED_KEYS = Prepared(select(_OUTBOX.c.key).where(_OUTBOX.c.key.in_(bindparam("keys", expanding=True))))
_OUT_COLUMNS = ("participant_id", "direction", "role", "kind", "text", "payload", "wa_message_id", "status",
                "created_at", "sent_at")
_INSERT_IF_NEW = Prepared(
    insert(_MESSAGE).from_select(list(_OUT_COLUMNS), select(
        *(bindparam(f"v_{name}", type_=_MESSAGE.c[name].type).label(name) for name in _OUT_COLUMNS))
        .where(~exists().where(_OUTBOX.c.key == bindparam("outbox_key"))))
    .returning(_MESSAGE.c.id)
)
"""INSERT INTO message … SELECT the values WHERE no outbox row has the key, RETURNING id."""


def queue_outgoing(
    session: Session, *, participant_id: str, key: str, text: str, now: datetime, kind: MessageKind = MessageKind.TEXT,
    payload: dict[str, Any] | None = None,
) -> int | None:
    """One message through :func:`queue_messages`: its transcript id, or None when its key was queued before."""
    return queue_messages(session, participant_id, [ToSend(key, text, kind, payload or {})], now)[key]


_NO_ID_ABOVE = 2**31 - 1  # the largest id an INTEGER column holds (PostgreSQL)
_HISTORY = Prepared(select(_MESSAGE.c.id, _MESSAGE.c.role, _MESSAGE.c.kind, _MESSAGE.c.text, _MESSAGE.c.status)
            .where(_MESSAGE.c.participant_id == bindparam("pid"), _MESSAGE.c.kind.not_in(HIDDEN_FROM_MODEL),
                   _MESSAGE.c.id < bindparam("before"), _MESSAGE.c.id > bindparam("after"))
            .order_by(_MESSAGE.c.id.desc()).limit(bindparam("limit", type_=Integer)))
"""Every turn reads it: built once."""


def history_before(
    session: Session, participant_id: str, before_id: int | None, limit: int, *, after_id: int = 0
) -> list[HistoryEntry]:
    """The last ``limit`` messages older than ``before_id`` and newer than ``after_id`` (summarised), oldest first."""
    if limit <= 0:
        return []
    rows = _HISTORY.rows(session.connection(), {
        "pid": participant_id, "before": before_id if before_id is not None else _NO_ID_ABOVE, "after": after_id,
        "limit": limit})
    return HistoryEntry.from_rows(reversed(rows))


def set_kind(session: Session, message_ids: list[int], kind: str) -> None:
    """File transcript messages under another kind (a questionnaire's answers, hidden from the model)."""
    session.connection().execute(update(_MESSAGE).where(_MESSAGE.c.id.in_(message_ids)).values(kind=kind))


def annotate_message(session: Session, message_id: int, **fields: Any) -> None:
    """Add keys to a transcript message's payload (e.g. how a vote was handled)."""
    payload = session.connection().execute(
        select(_MESSAGE.c.payload).where(_MESSAGE.c.id == message_id)).scalar_one_or_none()
    if payload is None:
        return
    session.connection().execute(
        update(_MESSAGE).where(_MESSAGE.c.id == message_id).values(payload={**payload, **fields}))


GREETED_BY = ("greeting", "text")
"""Outbound kinds that greet: the greeting, or the model answering the participant's first words."""


def never_greeted(session: Session, participant_id: str, *, greeting_key: str) -> bool:
    """Whether nothing the model wrote went (or is queued) to them, and no greeting input (``greeting_key``) waits."""
    greeted = select(_MESSAGE.c.id).where(
        _MESSAGE.c.participant_id == participant_id, _MESSAGE.c.direction == "out",
        _MESSAGE.c.kind.in_(GREETED_BY), _MESSAGE.c.status != MessageStatus.CANCELLED).limit(1)
    waiting = select(_INBOX.c.id).where(_INBOX.c.participant_id == participant_id,
                                        _INBOX.c.status == InboxStatus.PENDING,
                                        _INBOX.c.key.startswith(greeting_key, autoescape=True)).limit(1)
    connection = session.connection()
    return connection.execute(greeted).first() is None and connection.execute(waiting).first() is None
