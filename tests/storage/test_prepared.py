"""Statements run straight on the driver's cursor (storage/prepared.py: SQLite's, and psycopg's on
PostgreSQL) must store and read exactly what SQLAlchemy's own execution would: the same times,
payloads and defaults, the same errors, and every statement heard by the listeners the message
budget counts with. Each test runs on both databases, with the same expectations."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from sqlalchemy import DateTime, bindparam, event
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from promptpipe.errors import DuplicateKey
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, Participant, UTCDateTime, table_of
from promptpipe.storage.prepared import Prepared

NOW = datetime(2026, 1, 5, 12, 30, 15, 250_000, tzinfo=timezone.utc)
_MESSAGE, _PARTICIPANT = table_of(Message), table_of(Participant)
INSERT = Prepared(sa.insert(_MESSAGE).returning(_MESSAGE.c.id))
READ = Prepared(sa.select(_MESSAGE.c.id, _MESSAGE.c.text, _MESSAGE.c.payload, _MESSAGE.c.created_at,
                          _MESSAGE.c.sent_at, _MESSAGE.c.receipts_expected)
                .where(_MESSAGE.c.participant_id == bindparam("pid"), _MESSAGE.c.kind.in_(bindparam("kinds")))
                .order_by(_MESSAGE.c.id))
MARK_SENT = Prepared(sa.update(_MESSAGE).where(_MESSAGE.c.id.in_(bindparam("ids", expanding=True)))
                     .values(status="sent", sent_at=bindparam("at")))


def message(text: str, kind: str = "text", **extra: Any) -> dict[str, Any]:
    return {"participant_id": "p1", "direction": "out", "role": "assistant", "kind": kind, "text": text,
            "payload": {"options": ["Yes", "No"], "emoji": "🎉"}, "status": "queued", "created_at": NOW, **extra}


@pytest.fixture
async def enrolled(db: Database) -> Database:
    await db.run(lambda s: s.connection().execute(sa.insert(_PARTICIPANT), {
        "id": "p1", "phone": "+14165550123", "name": "Ana", "timezone": "UTC", "status": "active",
        "enrolled_at": NOW, "updated_at": NOW}))
    return db


async def test_what_is_written_reads_back_as_sqlalchemy_reads_it(enrolled: Database) -> None:
    """Times come back as UTC-aware datetimes, payloads as dicts, a column left out gets its
    default; the same rows through SQLAlchemy's own execution are equal."""
    def write_and_read(session: Session) -> tuple[list[Any], list[Any]]:
        connection = session.connection()
        INSERT.rows(connection, message("Time for a walk?"))
        INSERT.rows(connection, message("Did you do it?", kind="poll"))
        INSERT.rows(connection, message("Not to be read", kind="apology"))
        quick = READ.rows(connection, {"pid": "p1", "kinds": ["text", "poll"]})
        slow = [tuple(row) for row in connection.execute(READ.statement, {"pid": "p1", "kinds": ["text", "poll"]})]
        return quick, slow

    quick, slow = await enrolled.run(write_and_read)
    assert quick == slow
    assert [(text, payload, created, sent, receipts) for _, text, payload, created, sent, receipts in quick] == [
        ("Time for a walk?", {"options": ["Yes", "No"], "emoji": "🎉"}, NOW, None, False),
        ("Did you do it?", {"options": ["Yes", "No"], "emoji": "🎉"}, NOW, None, False)]
    assert quick[0][3].tzinfo is not None


async def test_a_change_counts_its_rows_and_an_empty_list_changes_nothing(enrolled: Database) -> None:
    later = NOW + timedelta(seconds=3)

    def change(session: Session) -> tuple[int, int, list[Any]]:
        connection = session.connection()
        ids = [INSERT.one_value(connection, message(f"Message {n}")) for n in range(3)]
        changed = MARK_SENT.changed(connection, {"ids": ids[:2], "at": later})
        none = MARK_SENT.changed(connection, {"ids": [], "at": later})
        return changed, none, READ.rows(connection, {"pid": "p1", "kinds": ["text"]})

    changed, none, rows = await enrolled.run(change)
    assert (changed, none) == (2, 0)
    assert [row[4] for row in rows] == [later, later, None]


async def test_several_rows_come_back_in_the_order_given(enrolled: Database) -> None:
    def write(session: Session) -> tuple[list[Any], list[Any]]:
        connection = session.connection()
        ordered = INSERT.many(connection, [message("first"), message("second"), message("third")])
        texts = {row[0]: row[1] for row in READ.rows(connection, {"pid": "p1", "kinds": ["text"]})}
        loose = Prepared(sa.insert(_MESSAGE).returning(_MESSAGE.c.id, _MESSAGE.c.text)).many(
            connection, [message("fourth"), message("fifth")], any_order=True)
        return [texts[message_id] for (message_id,) in ordered], sorted(text for _, text in loose)

    ordered, loose = await enrolled.run(write)
    assert ordered == ["first", "second", "third"]
    assert loose == ["fifth", "fourth"]


async def test_a_duplicate_key_is_still_a_duplicate_key(enrolled: Database) -> None:
    """The caller's handling of a repeat (an input stored twice) depends on it."""
    insert_participant = Prepared(sa.insert(_PARTICIPANT))
    with pytest.raises(DuplicateKey):
        await enrolled.run(lambda s: insert_participant.rows(s.connection(), {
            "id": "p1", "phone": "+14165550124", "name": "Ben", "timezone": "UTC", "status": "active",
            "enrolled_at": NOW, "updated_at": NOW}))


async def test_the_statement_listeners_hear_every_statement(enrolled: Database) -> None:
    """The message budget test and the benchmarks count statements with them."""
    heard: list[tuple[str, bool]] = []
    event.listen(enrolled.engine, "after_cursor_execute",
                 lambda _conn, _cursor, statement, _params, _context, many: heard.append((statement.split()[0], many)))

    def write(session: Session) -> None:
        connection = session.connection()
        INSERT.many(connection, [message("one"), message("two")])
        Prepared(sa.insert(_MESSAGE)).many(connection, [message("three"), message("four")])
        READ.rows(connection, {"pid": "p1", "kinds": ["text"]})

    await enrolled.run(write)
    heard = [(statement, many) for statement, many in heard if statement != "BEGIN"]
    if enrolled.is_sqlite:  # rows in order: one statement each; no rows back: one executemany
        assert heard == [("INSERT", False), ("INSERT", False), ("INSERT", True), ("SELECT", False)]
    else:  # rows in order: SQLAlchemy's execution, which sends them as one statement; no rows back: one statement
        assert heard == [("INSERT", True), ("INSERT", False), ("SELECT", False)]


async def test_rows_written_together_read_back_as_written_one_by_one(enrolled: Database) -> None:
    """Several rows with no rows back (one multi-row INSERT on PostgreSQL), and one row alone, store
    what SQLAlchemy's own execution stores: times, payloads, defaults, a value left None."""
    insert = Prepared(sa.insert(_MESSAGE))
    rows = [message("first", sent_at=NOW), message("second", sent_at=None), message("third", sent_at=NOW)]

    def write(session: Session) -> tuple[list[Any], list[Any]]:
        connection = session.connection()
        insert.many(connection, rows)
        insert.many(connection, [message("alone", kind="poll", sent_at=NOW)])
        connection.execute(sa.insert(_MESSAGE), [{**row, "kind": "apology"} for row in rows])
        ours = READ.rows(connection, {"pid": "p1", "kinds": ["text", "poll"]})
        theirs = READ.rows(connection, {"pid": "p1", "kinds": ["apology"]})
        return ours, theirs

    ours, theirs = await enrolled.run(write)
    assert [row[1:] for row in ours[:3]] == [row[1:] for row in theirs]
    assert [(text, sent) for _, text, _, _, sent, _ in ours] == [
        ("first", NOW), ("second", None), ("third", NOW), ("alone", NOW)]


async def test_sends_recorded_together_each_keep_their_own_outcome(enrolled: Database) -> None:
    """A burst's send results are written together (one statement per table on PostgreSQL): each
    row gets its own status, time, WhatsApp id and error, and the rows not in it are untouched."""
    from promptpipe.storage.outbox_rows import record_sends
    from promptpipe.storage.queue_tables import OutboxItem
    outbox = table_of(OutboxItem)
    later = NOW + timedelta(seconds=7)

    def write(session: Session) -> list[Any]:
        connection = session.connection()
        ids = [INSERT.one_value(connection, message(f"Message {n}")) for n in range(5)]
        for n, message_id in enumerate(ids):
            connection.execute(sa.insert(outbox), {
                "key": f"k{n}", "participant_id": "p1", "message_id": message_id, "status": "sending",
                "attempts": 1, "available_at": NOW, "created_at": NOW})
        outbox_ids = dict(connection.execute(sa.select(outbox.c.key, outbox.c.id)).all())
        sent = {"status": "sent", "last_error": None, "sent_at": later, "receipts_expected": True}
        record_sends(session, [
            (outbox_ids["k0"], ids[0], {**sent, "wa_message_id": "wa-0"}, {}),
            (outbox_ids["k1"], ids[1], {**sent, "wa_message_id": "wa-1", "receipts_expected": False}, {}),
            (outbox_ids["k2"], ids[2], {"status": "failed", "last_error": "no such number"}, {"status": "failed"}),
            (outbox_ids["k3"], ids[3], {"status": "uncertain", "last_error": "timeout"}, {"status": "uncertain"}),
        ])
        return list(connection.execute(
            sa.select(outbox.c.key, outbox.c.status, outbox.c.sent_at, outbox.c.wa_message_id, outbox.c.last_error,
                      outbox.c.receipts_expected, _MESSAGE.c.status)
            .join(_MESSAGE, _MESSAGE.c.id == outbox.c.message_id).order_by(outbox.c.key)).all())

    rows = [tuple(row) for row in await enrolled.run(write)]
    assert rows == [
        ("k0", "sent", later, "wa-0", None, True, "sent"),
        ("k1", "sent", later, "wa-1", None, False, "sent"),
        ("k2", "failed", None, None, "no such number", None, "failed"),
        ("k3", "uncertain", None, None, "timeout", None, "uncertain"),
        ("k4", "sending", None, None, None, None, "queued"),
    ]


@pytest.mark.parametrize("written", [
    datetime(2026, 1, 5, 12, 30, 15, tzinfo=timezone.utc),
    datetime(2026, 11, 27, 2, 3, 4, 567_890, tzinfo=timezone.utc),
    datetime(999, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc),
    datetime(2026, 1, 5, 7, 30, 15, 250_000, tzinfo=timezone(timedelta(hours=-5))),
    datetime(2026, 3, 29, 1, 59, 59, 999_999, tzinfo=ZoneInfo("Europe/Berlin")),
    datetime(999, 12, 31, 23, 0, 0, 1, tzinfo=timezone(timedelta(hours=5, minutes=30))),
])
def test_a_time_is_stored_as_the_text_earlier_releases_wrote(written: datetime) -> None:
    """On SQLite times are text, compared as text in every query (what is due, what came first):
    the one-step conversion must write exactly what SQLAlchemy's DATETIME wrote before, and read
    that text back as the same instant."""
    dialect = sqlite.dialect()
    ours, earlier = UTCDateTime().bind_processor(dialect), DateTime().dialect_impl(dialect).bind_processor(dialect)
    stored = ours(written)
    assert stored == earlier(written.astimezone(timezone.utc).replace(tzinfo=None))
    assert UTCDateTime().result_processor(dialect, None)(stored) == written
    with pytest.raises(ValueError, match="naive"):
        ours(written.replace(tzinfo=None))
