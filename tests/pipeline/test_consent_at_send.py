"""Consent is checked when a message leaves, not only when it was queued: nothing queued before
STOP, a withdrawal or a team pause reaches the phone afterwards (the reply to the STOP itself and
the safety message do)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.errors import NotConnected
from promptpipe.flow.commands import PAUSED_BY_TEAM, STOPPED
from promptpipe.research import admin, erasure
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, Participant
from promptpipe.storage.queue_tables import InboxItem, OutboxItem
from promptpipe.storage.transcript import ToSend, queue_messages
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory

ANA = "+14165550101"
QUEUED = [  # one of each kind a participant gets without writing first
    ToSend("t:prompt", "Time for your walk after lunch", "prompt"),
    ToSend("t:poll", "Did you do it?", "poll", {"options": ["Done", "Not this time"]}),
    ToSend("t:reminder", "A gentle reminder about today's step", "reminder"),
    ToSend("t:team", "A note from the research team", "researcher"),
    ToSend("t:closing", "The study is over, thank you", "closing"),
]


async def offline_with_queue(make_app: AppFactory):  # type: ignore[no-untyped-def]
    """Ana is enrolled, five messages are queued for her and the first send attempt failed (the
    phone link is down), so all five wait in the outbox."""
    transport = MemoryTransport(fail_next=[NotConnected("offline")])
    app = await make_app(transport)
    row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))

    def write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))  # no greeting turn
        queue_messages(session, row.id, QUEUED, app.clock.now())

    await app.db.run(write)
    await app.run_until_idle()
    assert transport.sent == []
    return app, transport, row.id


async def outbox_statuses(app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    def read(session: Session) -> dict[str, str]:
        return dict(session.execute(select(OutboxItem.key, OutboxItem.status)).all())  # type: ignore[arg-type]
    return await app.db.run(read)


async def back_online(app) -> None:  # type: ignore[no-untyped-def]
    app.clock.advance(timedelta(minutes=10))
    await app.run_until_idle()


async def test_nothing_queued_before_stop_is_sent_after_it(make_app: AppFactory) -> None:
    app, transport, _ = await offline_with_queue(make_app)
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    await back_online(app)

    assert transport.texts_to(ANA) == [STOPPED]
    statuses = await outbox_statuses(app)
    assert {statuses[m.key] for m in QUEUED} == {"cancelled"}
    transcript = await admin.transcript(app.db, ANA)
    assert [m.status for m in transcript if m.direction == "out"][:len(QUEUED)] == ["cancelled"] * len(QUEUED)


@pytest.mark.parametrize("action", ["pause", "withdraw"])
async def test_nothing_queued_before_a_team_pause_or_withdrawal_is_sent_after_it(
    make_app: AppFactory, action: str
) -> None:
    app, transport, _ = await offline_with_queue(make_app)
    await admin.set_status(app.db, app.clock, phone=ANA, action=action)
    await back_online(app)
    assert transport.texts_to(ANA) == []
    assert set((await outbox_statuses(app)).values()) == {"cancelled"}


async def test_a_paused_participant_still_gets_the_reply_to_their_own_message(make_app: AppFactory) -> None:
    app, transport, _ = await offline_with_queue(make_app)
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    await transport.inject(ANA, "hello?")
    await back_online(app)
    assert transport.texts_to(ANA) == [PAUSED_BY_TEAM]


async def test_a_row_queued_by_a_writer_that_had_not_seen_the_stop_yet_is_not_sent(make_app: AppFactory) -> None:
    """A broadcast written from a participant list read just before STOP committed: the claim
    itself checks consent, and settles the row as cancelled so it blocks nothing behind it."""
    transport = MemoryTransport()
    app = await make_app(transport)
    row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))

    def stop_then_late_write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))
        session.execute(update(Participant).values(opted_out=True, status="paused", paused_by="participant"))
        late = [ToSend("t:late", "A broadcast", "researcher"),
                ToSend(keys.command_reply(999), "Reply to their command", "command")]
        queue_messages(session, row.id, late, app.clock.now())

    await app.db.run(stop_then_late_write)
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["Reply to their command"]
    assert (await outbox_statuses(app))["t:late"] == "cancelled"

    def message_status(session: Session) -> str:
        return session.execute(select(Message.status).where(Message.text == "A broadcast")).scalar_one()
    assert await app.db.run(message_status) == "cancelled"


# ------------------------------------------------------------------ claimed before, sent after

PEOPLE = [f"+1416555{121 + n:04d}" for n in range(4)]  # A, B, C, D
BROADCAST = "A note from the team"


async def claimed_broadcast(make_app: AppFactory):  # type: ignore[no-untyped-def]
    """Four participants with a copy of a team broadcast each, at a quarter of a send a second:
    the dispatcher has claimed all four, and all but the first wait for the pace."""
    transport = MemoryTransport()
    app = await make_app(transport, SEND_RATE_PER_SECOND="0.25", SEND_JITTER="0")
    rows = [await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=f"P{n}", timezone="UTC"))
            for n, phone in enumerate(PEOPLE)]

    def write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))  # no greeting turns
        for n, row in enumerate(rows):
            queue_messages(session, row.id, [ToSend(keys.researcher_outgoing(1000 + n), BROADCAST, "researcher")],
                           app.clock.now())

    await app.db.run(write)
    claimed = []
    while batch := await app.db.run(app.outbox._claim):
        claimed.extend(batch)
    assert sorted(item.phone for item in claimed) == PEOPLE
    return app, transport, claimed


async def send_claimed(app, claimed) -> None:  # type: ignore[no-untyped-def]
    await asyncio.gather(*(app.outbox._send_all([item]) for item in claimed))
    await app.run_until_idle()


async def broadcast_statuses(app) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Each participant's copy of the broadcast: (outbox status, transcript status)."""
    def read(session: Session) -> dict[str, tuple[str, str]]:
        rows = session.execute(select(Participant.phone, OutboxItem.status, Message.status)
                               .join(OutboxItem, OutboxItem.participant_id == Participant.id)
                               .join(Message, Message.id == OutboxItem.message_id)
                               .where(OutboxItem.key.startswith(keys.RESEARCHER_MESSAGE))).all()
        return {phone: (outbox, message) for phone, outbox, message in rows}
    return await app.db.run(read)


@pytest.mark.parametrize("door", ["STOP", "withdraw", "pause", "erase", "erase elsewhere"])
async def test_a_copy_claimed_before_the_change_is_cancelled_at_its_send(
    make_app: AppFactory, database_url: str, door: str
) -> None:
    """Issue 46, 1: what the dispatcher claimed before B's STOP (or the team's withdrawal, pause or
    erasure of B, by this process or by the admin script's) waits for the pace and must not go
    once it is B's turn; C is withdrawn too."""
    app, transport, claimed = await claimed_broadcast(make_app)
    b, c, d = PEOPLE[1:]
    if door == "STOP":
        await transport.inject(b, "STOP")
        await app.lanes.poll_once()
        await app.lanes.wait_idle()
    elif door == "erase":
        await erasure.erase(app.db, app.clock, study=app.settings.study, phone=b)
    elif door == "erase elsewhere":  # another process's database: nothing of it reaches this one's memory
        elsewhere = Database(database_url)
        await elsewhere.connect()
        await erasure.erase(elsewhere, app.clock, study=app.settings.study, phone=b)
        await elsewhere.close()
    else:
        await admin.set_status(app.db, app.clock, phone=b, action=door)
    await admin.set_status(app.db, app.clock, phone=c, action="withdraw")

    await send_claimed(app, claimed)

    assert transport.texts_to(PEOPLE[0]) == transport.texts_to(d) == [BROADCAST]
    assert transport.texts_to(b) == ([STOPPED] if door == "STOP" else [])
    assert transport.texts_to(c) == []
    statuses = await broadcast_statuses(app)
    assert statuses[c] == ("cancelled", "cancelled")
    if not door.startswith("erase"):  # an erased participant's phone is gone from the row
        assert statuses[b] == ("cancelled", "cancelled")
