"""The transcript says what became of each message, though the database writes that part itself
(storage/mirrors.py): answered once its input is done, sent (with its WhatsApp id and whether
receipts will come) once its outbox row is; not answered when the input was closed for another
reason. On a new database and on one brought up to date revision by revision alike."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from promptpipe.clock import ManualClock
from promptpipe.domain.messages import MessageStatus
from promptpipe.research import admin
from promptpipe.storage import schema
from promptpipe.storage.db import Database
from promptpipe.storage.erasure import stop_everything
from promptpipe.storage.inbox_rows import (
    NewInput,
    add_input,
    close_input,
    mark_inbox_done,
    pending_inbox,
    record_attempt,
)
from promptpipe.storage.models import Message
from promptpipe.storage.outbox_rows import record_sends
from promptpipe.storage.queue_tables import InboxItem, OutboxItem, OutboxStatus
from promptpipe.storage.transcript import add_inbound_message, queue_outgoing
from promptpipe.storage.urls import sync_url

NOW = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)


@pytest.fixture(params=["new", "upgraded"])
async def mirrored(request: pytest.FixtureRequest, database_url: str) -> Database:
    """A database made at once from the models, or one whose schema went through every revision."""
    if request.param == "upgraded":
        _empty(database_url)
        await asyncio.to_thread(schema.upgrade, database_url)
    database = Database(database_url)
    await database.connect()
    return database


def _empty(database_url: str) -> None:
    """Drop every table, trigger and function the test's database was made with."""
    engine = sa.create_engine(sync_url(database_url))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("DROP SCHEMA public CASCADE"))
            conn.execute(sa.text("CREATE SCHEMA public"))
        else:
            meta = sa.MetaData()
            meta.reflect(conn)
            for table in reversed(meta.sorted_tables):
                conn.execute(sa.text(f'DROP TABLE "{table.name}"'))
    engine.dispose()


def _statuses(session: Session, *message_ids: int) -> list[str]:
    rows = dict(session.execute(sa.select(Message.id, Message.status)  # type: ignore[call-overload]
                                .where(Message.id.in_(message_ids))).all())  # type: ignore[union-attr]
    return [rows[message_id] for message_id in message_ids]


async def test_inputs_done_answer_their_messages_unless_closed_for_another_reason(mirrored: Database) -> None:
    db = mirrored
    ana = await admin.enroll(db, ManualClock(NOW), admin.Enrolment(phone="+14165550151", name="Ana", timezone="UTC"))

    def write(session: Session) -> list[str]:
        ids = [add_inbound_message(session, participant_id=ana.id, text=f"message {n}", now=NOW,
                                   wa_message_id=f"in-{n}") for n in range(4)]
        for n, message_id in enumerate(ids):
            add_input(db, session, NewInput(f"wa:in-{n}", ana.id, "message", message_id=message_id), NOW)
        rows = {row.message_id: row for row in pending_inbox(session, ana.id)}
        mark_inbox_done(session, [rows[ids[0]]], NOW)  # answered by a turn
        mark_inbox_done(session, [rows[ids[1]]], NOW, message_status=MessageStatus.KEPT)  # kept (paused, say)
        close_input(session, rows[ids[2]].id, NOW, why="skipped by the team")
        stop_everything(session, ana.id, NOW)  # the last one still waits when their data is erased
        return _statuses(session, *ids)

    assert await db.run(write) == ["answered", "kept", "skipped", "received"]
    await db.close()


async def test_a_send_recorded_marks_its_message_sent_with_its_whatsapp_id(mirrored: Database) -> None:
    db = mirrored
    ana = await admin.enroll(db, ManualClock(NOW), admin.Enrolment(phone="+14165550152", name="Ana", timezone="UTC"))

    def write(session: Session) -> list[tuple[object, ...]]:
        ids = [queue_outgoing(session, participant_id=ana.id, key=f"reply-{n}", text=f"reply {n}", now=NOW)
               for n in range(2)]
        outbox = dict(session.execute(sa.select(OutboxItem.message_id, OutboxItem.id)).all())  # type: ignore[call-overload]
        record_sends(session, [
            (outbox[ids[0]], ids[0], {"status": OutboxStatus.SENT, "sent_at": NOW, "wa_message_id": "out-1",
                                      "last_error": None, "receipts_expected": True}, {}),
            (outbox[ids[1]], ids[1], {"status": OutboxStatus.FAILED, "last_error": "refused"},
             {"status": MessageStatus.FAILED}),
        ])
        return [tuple(row) for row in session.execute(
            sa.select(Message.status, Message.wa_message_id, Message.sent_at, Message.receipts_expected)  # type: ignore[call-overload]
            .where(Message.id.in_(ids)).order_by(Message.id)).all()]  # type: ignore[union-attr]

    sent, failed = await db.run(write)
    assert sent[:2] == ("sent", "out-1") and sent[2] is not None and sent[3] is True
    assert failed == ("failed", None, None, False)
    await db.close()


async def test_a_failed_try_recorded_late_leaves_an_input_done_elsewhere_done(db: Database) -> None:
    """Another service answered the input while this one's try failed: the failure's record
    (attempts, error, retry time) does not put it back in the queue to run again."""
    ana = await admin.enroll(db, ManualClock(NOW), admin.Enrolment(phone="+14165550153", name="Ana", timezone="UTC"))

    def write(session: Session) -> str:
        message_id = add_inbound_message(session, participant_id=ana.id, text="hello", now=NOW, wa_message_id="in-9")
        add_input(db, session, NewInput("wa:in-9", ana.id, "message", message_id=message_id), NOW)
        [row] = [r for r in pending_inbox(session, ana.id) if r.message_id == message_id]
        mark_inbox_done(session, [row], NOW)  # done by the turn that won
        row.attempts, row.last_error = 1, "DuplicateKey"
        record_attempt(session, row)  # the losing turn's failure, recorded afterwards
        status: str = session.execute(sa.select(InboxItem.status).where(InboxItem.id == row.id)).scalar_one()
        return status

    assert await db.run(write) == "done"
