"""Queries on ``inbox``: every input waits here, keyed, until its effects are committed.
:func:`add_inputs` is the one way a row gets in: a key already there is skipped (a repeat is a no-op)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.messages import MessageStatus
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.numbers_served import number_filter, of_numbers
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.queue_tables import InboxItem, InboxStatus

__all__ = ["WA_ID", "DueInputs", "InboxRow", "InputValues", "NewInput", "add_input", "add_input_values", "add_inputs",
           "as_written", "close_input", "count_keyed", "due_inputs", "get_input", "input_values", "mark_inbox_done",
           "merge_inbox_payload", "message_words", "pending_inbox", "pending_messages", "reopen_input"]

WA_ID = "wa_message_id"
"""Inbox payload key: the transport's id of the inbound message (for read receipts)."""


_INBOX = table_of(InboxItem)
_MESSAGE = table_of(Message)
_PENDING_ROWS = (  # with the words of the message behind each row: the lane and the turn need them
    select(_INBOX.c.id, _INBOX.c.participant_id, _INBOX.c.kind, _INBOX.c.payload, _INBOX.c.message_id,
           _INBOX.c.attempts, _INBOX.c.available_at, _INBOX.c.status, _INBOX.c.last_error, _MESSAGE.c.text)
    .select_from(_INBOX.outerjoin(_MESSAGE, _MESSAGE.c.id == _INBOX.c.message_id))
    .where(_INBOX.c.status == InboxStatus.PENDING)
)
_PENDING_INBOX = Prepared(
    _PENDING_ROWS.where(_INBOX.c.participant_id == bindparam("pid")).order_by(_INBOX.c.id).limit(bindparam("limit"))
)


@dataclass
class InboxRow:
    """An inbox row as the lanes and the flow use it (a plain value, not an ORM object)."""

    id: int
    participant_id: str
    kind: str
    payload: dict[str, Any]
    message_id: int | None
    attempts: int
    available_at: datetime
    status: str = InboxStatus.PENDING
    last_error: str | None = None
    text: str | None = field(default=None, repr=False)
    """The participant's words, when read with the row (never in a repr: it may end up in a log)."""

    @property
    def wa_message_id(self) -> str | None:
        """The WhatsApp id of the participant's message behind this row, if it came from WhatsApp."""
        value = self.payload.get(WA_ID) if isinstance(self.payload, dict) else None
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class NewInput:
    """An inbox row to write; a ``status`` other than pending records one that must not run (a prompt too late)."""

    key: str
    participant_id: str
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    message_id: int | None = None
    status: str = InboxStatus.PENDING


def add_inputs(db: Database, session: Session, inputs: Sequence[NewInput], now: datetime) -> dict[str, int]:
    """Write the rows whose key is new (one statement per 500); returns their ids by key."""
    unique = list({row.key: row for row in reversed(inputs)}.values())[::-1]
    return add_input_values(db, session, [input_values(row) for row in unique], now)


class InputValues(TypedDict):
    """An inbox row's values but its times (:func:`input_values`)."""

    key: str
    participant_id: str
    kind: str
    payload: object
    message_id: int | None
    status: str
    attempts: int
    processed_at: None
    last_error: None


def input_values(row: NewInput) -> InputValues:
    """A row's values but its times, for :func:`add_input_values` (worked out ahead of a burst)."""
    return {"key": row.key, "participant_id": row.participant_id, "kind": row.kind, "payload": row.payload,
            "message_id": row.message_id, "status": row.status, "attempts": 0, "processed_at": None,
            "last_error": None}


def add_input_values(db: Database, session: Session, values: Sequence[InputValues], now: datetime) -> dict[str, int]:
    """:func:`add_inputs` of rows given as :func:`input_values` (no two with one key), written at ``now``."""
    written: dict[str, int] = {}
    statement = db.insert_ignore(InboxItem, ("key",), returning=("id", "key"))
    for chunk in db.chunks(values):
        timed = [{**row, "available_at": now, "created_at": now} for row in chunk]
        written.update({key: row_id for row_id, key in statement.many(session.connection(), timed, any_order=True)})
    return written


def count_keyed(session: Session, prefix: str) -> int:
    """How many inputs have a key starting with ``prefix`` (rare reads). A LIKE, not a range on the key's index: a
    range compares by the database's collation, which on PostgreSQL need not follow code points."""
    return int(session.execute(select(func.count()).select_from(_INBOX).where(
        _INBOX.c.key.startswith(prefix, autoescape=True))).scalar_one())


def add_input(db: Database, session: Session, new: NewInput, now: datetime) -> int | None:
    """One row through :func:`add_inputs`; its id, or None when the key was there already."""
    return add_inputs(db, session, [new], now).get(new.key)


def as_written(new: NewInput, inbox_id: int, now: datetime, text: str | None) -> InboxRow:
    """The row just written, as :func:`pending_inbox` would read it back (the payload through JSON), unread."""
    return InboxRow(inbox_id, new.participant_id, new.kind, json.loads(json.dumps(new.payload)), new.message_id,
                    attempts=0, available_at=now, status=new.status, text=text)


def pending_inbox(session: Session, participant_id: str, limit: int = 50) -> list[InboxRow]:
    rows = _PENDING_INBOX.rows(session.connection(), {"pid": participant_id, "limit": limit})
    return [InboxRow(*row) for row in rows]  # as _PENDING_ROWS reads it, the message's words last


def message_words(session: Session, rows: Sequence[InboxRow]) -> dict[int, str]:
    """The words behind these rows, by message id: as read with them, the others from the transcript (one statement)."""
    words = {row.message_id: row.text for row in rows if row.message_id is not None and row.text is not None}
    missing = [row.message_id for row in rows if row.message_id is not None and row.text is None]
    if missing:
        found = session.connection().execute(select(_MESSAGE.c.id, _MESSAGE.c.text).where(_MESSAGE.c.id.in_(missing)))
        words.update({row_id: text for row_id, text in found.all()})
    return words


_PENDING_OF = Prepared(_PENDING_ROWS.where(_INBOX.c.participant_id.in_(bindparam("pids", expanding=True)),
                                           _INBOX.c.kind.in_(bindparam("kinds", expanding=True))).order_by(_INBOX.c.id))
"""Built once: the lanes look each poll that found rows of participants whose turns run (through SQLAlchemy's
execution, compiling its ``IN`` lists each time, 8 % of a PostgreSQL burst's Python CPU). An ``IN`` list, not one
array (``= ANY``): psycopg dumps an array of 500 ids in Python, 381 µs of CPU against 94."""


def pending_messages(session: Session, participant_ids: Sequence[str], kinds: Sequence[str]) -> list[InboxRow]:
    """The pending rows of these kinds of several participants (for a look at what arrived while their turns run)."""
    connection = session.connection()
    return [InboxRow(*row) for chunk in Database.chunks(participant_ids)
            for row in _PENDING_OF.rows(connection, {"pids": list(chunk), "kinds": list(kinds)})]


_DUE_ROWS = (select(_INBOX.c.participant_id, _INBOX.c.id)
             .where(_INBOX.c.status == InboxStatus.PENDING, _INBOX.c.available_at <= bindparam("now"))
             .order_by(_INBOX.c.status, _INBOX.c.available_at).limit(bindparam("rows")))
"""Due rows, soonest first, straight off the (status, available_at) index: grouping by participant in SQL sorted every
pending row on each poll (4.5 ms with 10,000 waiting, twice a second, on the thread every commit waits for)."""


@dataclass(frozen=True)
class DueInputs:
    """What the lanes' poll found: participants with a due row, soonest due first, and the due row ids read for each."""

    participants: list[str]
    row_ids: dict[str, list[int]]
    complete: bool
    """Every due row was read (False: the poll stopped at its limit of participants)."""


_DUE_ROWS_OF_NUMBERS = Prepared(_DUE_ROWS.where(of_numbers(_INBOX.c.participant_id)))
"""The same, for the participants of some of the deployment's numbers (a service among several)."""
_DUE_ROWS_ANY = Prepared(_DUE_ROWS)


def due_inputs(session: Session, now: datetime, limit: int,
               numbers: tuple[tuple[str, ...], str] | None = None) -> DueInputs:
    """Up to ``limit`` participants with a due inbox row, with the ids of their due rows; ``numbers``: only theirs."""
    rows = limit
    statement, extra = _DUE_ROWS_ANY, {}
    if numbers is not None:
        if not numbers[0]:
            return DueInputs([], {}, complete=True)
        statement, extra = _DUE_ROWS_OF_NUMBERS, number_filter(numbers)
    while True:
        due = statement.rows(session.connection(), {"now": now, "rows": rows, **extra})
        found: dict[str, list[int]] = {}
        for participant_id, row_id in due:
            found.setdefault(participant_id, []).append(row_id)
        if len(found) >= limit or len(due) < rows:  # enough participants, or every due row read
            return DueInputs(list(found)[:limit], found, complete=len(due) < rows)
        rows *= 4  # some have several rows waiting: read further


_INBOX_DONE = Prepared(update(_INBOX).where(_INBOX.c.id.in_(bindparam("ids", expanding=True)))
               .values(status=InboxStatus.DONE, processed_at=bindparam("now"), last_error=None))
_MESSAGES_HANDLED = Prepared(update(_MESSAGE).where(_MESSAGE.c.id.in_(bindparam("ids", expanding=True)))
                     .values(status=bindparam("handled")))


def mark_inbox_done(session: Session, items: list[InboxRow], now: datetime, *,
                    message_status: str = MessageStatus.ANSWERED) -> None:
    """The inputs are done; their messages answered (by a trigger, :mod:`.mirrors`) or set to ``message_status``."""
    if not items:
        return
    _INBOX_DONE.rows(session.connection(), {"ids": [item.id for item in items], "now": now})
    message_ids = [item.message_id for item in items if item.message_id is not None]
    if message_ids and message_status != MessageStatus.ANSWERED:
        _MESSAGES_HANDLED.rows(session.connection(), {"ids": message_ids, "handled": message_status})


def merge_inbox_payload(session: Session, item: InboxRow, **fields: Any) -> None:
    """Add keys to an inbox row's payload (e.g. that the safety screen flagged it)."""
    item.payload = {**item.payload, **fields}
    session.connection().execute(update(_INBOX).where(_INBOX.c.id == item.id).values(payload=item.payload))


def record_attempt(session: Session, item: InboxRow) -> None:
    """Write a failed try's count, error, retry time and status (as on ``item``) if the row is still pending."""
    changed = session.connection().execute(
        update(_INBOX).where(_INBOX.c.id == item.id, _INBOX.c.status == InboxStatus.PENDING)
        .values(attempts=item.attempts, last_error=item.last_error, available_at=item.available_at,
                status=item.status)).rowcount
    if changed and item.status == InboxStatus.FAILED and item.message_id is not None:
        session.connection().execute(
            update(_MESSAGE).where(_MESSAGE.c.id == item.message_id).values(status=MessageStatus.FAILED))


def get_input(session: Session, inbox_id: int) -> InboxItem | None:
    return session.get(InboxItem, inbox_id)


def reopen_input(session: Session, inbox_id: int, now: datetime) -> None:
    """A failed or waiting input is tried again from scratch, now."""
    _change(session, inbox_id, MessageStatus.RECEIVED, status=InboxStatus.PENDING, attempts=0, available_at=now,
            last_error=None)


def close_input(session: Session, inbox_id: int, now: datetime, *, why: str) -> None:
    """An input is given up on for good (it stays in the transcript, marked skipped)."""
    _change(session, inbox_id, MessageStatus.SKIPPED, status=InboxStatus.DONE, processed_at=now, last_error=why)


def _change(session: Session, inbox_id: int, message_status: str, **values: Any) -> None:
    message_id = session.connection().execute(update(_INBOX).where(_INBOX.c.id == inbox_id).values(**values)
                                              .returning(_INBOX.c.message_id)).scalar_one_or_none()
    if message_id is not None:
        session.connection().execute(update(_MESSAGE).where(_MESSAGE.c.id == message_id).values(status=message_status))
