"""The researchers' daily-prompt statistics come from a rollup the database keeps with triggers:
after every kind of write that changes a count (a prompt queued, sent, delivered, read, answered,
voted on, changed, withdrawn, a receipt that arrives before the send is recorded, an arm change,
an erasure, a deleted row), the rollup says exactly what a scan of the rows says."""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from promptpipe.storage import rollup
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import mark_first_reply, record_delivery, set_vote
from promptpipe.storage.erasure import erase_texts
from promptpipe.storage.models import Message, Participant, Receipt, table_of
from promptpipe.storage.participants import NewParticipant, create_participant
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.receipts import record_receipt
from promptpipe.storage.transcript import queue_outgoing
from promptpipe.storage.urls import sync_url
from promptpipe.study.store.stats import DayCounts, day_counts, prompt_counts

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
DAYS = ("2026-03-02", "2026-03-03", "2026-03-04")
PHONES = ("+14165550140", "+14165550141", "+14165550142", "+14165550143")
_D, _M, _P, _R = (table_of(model) for model in (PromptDelivery, Message, Participant, Receipt))


def scanned(session: Session) -> list[DayCounts]:
    """The statistics as a scan of every delivery and its receipts finds them (in the rollup's
    order: no arm first, where PostgreSQL's scan puts NULL last)."""
    return sorted(prompt_counts(session, first_day=DAYS[0], last_day=DAYS[-1]),
                  key=lambda day: (day.local_date, day.arm or ""))


def rolled_up(session: Session) -> list[DayCounts]:
    return day_counts(session, first_day=DAYS[0], last_day=DAYS[-1])


class Study:
    """Participants, prompts and what becomes of them, written as the service writes them."""

    def __init__(self, db: Database, seed: int) -> None:
        self.db, self.random = db, random.Random(seed)
        self.now = T0
        self.participants: list[str] = []
        self.sent: list[tuple[str, int, str]] = []
        """(participant, prompt message id, WhatsApp id) of prompts sent."""
        self.unsent: list[tuple[str, int]] = []
        self.serial = 0

    def _next(self) -> int:
        self.serial += 1
        self.now += timedelta(minutes=1)
        return self.serial

    def enroll(self, session: Session) -> None:
        phone = PHONES[len(self.participants)]
        created = create_participant(session, NewParticipant(phone=phone, name="P", timezone="America/Toronto",
                                                             background="", reason="test"), self.now)
        session.execute(update(_P).where(_P.c.id == created.id).values(arm=self.random.choice(["a", "b", None])))
        self.participants.append(created.id)

    def prompt(self, session: Session) -> None:
        pid, n = self.random.choice(self.participants), self._next()
        message_id = queue_outgoing(session, participant_id=pid, key=f"prompt:{n}", text="Stretch", now=self.now)
        assert message_id is not None
        record_delivery(session, participant_id=pid, inbox_id=n, schedule_id=None, local_date=self.random.choice(DAYS),
                        prompt_text="Time to stretch", prompt_message_id=message_id, poll_message_id=None, now=self.now)
        self.unsent.append((pid, message_id))

    def send(self, session: Session) -> None:
        if self.unsent:
            pid, message_id = self.unsent.pop(self.random.randrange(len(self.unsent)))
            wa_id = f"WA{self._next()}"
            if self.random.random() < 0.3:  # WhatsApp's receipt comes before our send is recorded
                record_receipt(self.db, session, [wa_id], "delivered", self.now, self.now)
            session.execute(update(_M).where(_M.c.id == message_id).values(wa_message_id=wa_id))
            self.sent.append((pid, message_id, wa_id))

    def receipt(self, session: Session) -> None:
        if self.sent:
            _, _, wa_id = self.random.choice(self.sent)
            record_receipt(self.db, session, [wa_id], self.random.choice(["delivered", "read", "played"]),
                           self.now, self.now)

    def vote(self, session: Session) -> None:
        rows = session.execute(select(_D.c.id)).scalars().all()
        if rows:
            set_vote(session, self.random.choice(rows), self.random.choice(["done", "not_this_time", None]),
                     self._now(), changed=True)

    def reply(self, session: Session) -> None:
        mark_first_reply(session, self.random.choice(self.participants), self._now())

    def move_arm(self, session: Session) -> None:
        session.execute(update(_P).where(_P.c.id == self.random.choice(self.participants))
                        .values(arm=self.random.choice(["a", "b", None])))

    def move_day(self, session: Session) -> None:
        rows = session.execute(select(_D.c.id)).scalars().all()
        if rows:
            session.execute(update(_D).where(_D.c.id == self.random.choice(rows))
                            .values(local_date=self.random.choice(DAYS)))

    def erase(self, session: Session) -> None:
        erase_texts(session, self.random.choice(self.participants), self._now())

    def delete_one(self, session: Session) -> None:
        rows = session.execute(select(_D.c.id)).scalars().all()
        if rows:
            session.execute(delete(_D).where(_D.c.id == self.random.choice(rows)))

    def _now(self) -> datetime:
        self._next()
        return self.now


STEPS: dict[str, Callable[[Study, Session], None]] = {
    "prompt": Study.prompt, "send": Study.send, "receipt": Study.receipt, "vote": Study.vote,
    "reply": Study.reply, "move_arm": Study.move_arm, "move_day": Study.move_day, "erase": Study.erase,
    "delete": Study.delete_one,
}
WEIGHTS = {"prompt": 6, "send": 5, "receipt": 6, "vote": 4, "reply": 3, "move_arm": 1, "move_day": 1, "erase": 1,
           "delete": 1}


async def test_the_rollup_says_what_a_scan_of_the_rows_says_after_every_write(db: Database) -> None:
    study = Study(db, seed=26)
    for _ in PHONES:
        await db.run(study.enroll)
    kinds = list(WEIGHTS)
    seen: set[str] = set()
    for step in range(160):
        kind = study.random.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
        await db.run(lambda session, kind=kind: STEPS[kind](study, session))  # type: ignore[misc]
        seen.add(kind)
        expected, found = await db.run(lambda session: (scanned(session), rolled_up(session)))
        assert found == expected, f"after step {step} ({kind})"
    assert seen == set(kinds)
    totals = await db.run(rolled_up)
    assert sum(day.sent for day in totals) > 10 and sum(day.read for day in totals) > 0
    assert sum(day.done for day in totals) > 0 and sum(day.answered for day in totals) > 0


async def test_the_rollup_a_refill_makes_is_the_one_the_triggers_kept(db: Database) -> None:
    study = Study(db, seed=7)
    for _ in PHONES[:2]:
        await db.run(study.enroll)
    for kind in ("prompt", "prompt", "send", "send", "receipt", "vote", "reply") * 3:
        await db.run(lambda session, kind=kind: STEPS[kind](study, session))  # type: ignore[misc]
    kept = await db.run(rolled_up)

    def refilled(session: Session) -> list[DayCounts]:
        rollup.refill(session.connection())
        return rolled_up(session)

    assert await db.run(refilled) == kept and kept


async def test_a_refill_repairs_wrong_receipt_levels_and_counts_them_once(db: Database) -> None:
    """The refill is the reference the tests and revision 0003 rebuild the rollup from: where the
    stored receipt levels disagree with the receipts, it sets them right and counts each prompt once
    (on PostgreSQL the level changes were counted again at commit, after the refill had counted them)."""
    study = Study(db, seed=7)
    for _ in PHONES[:2]:
        await db.run(study.enroll)
    for kind in ("prompt", "prompt", "send", "send", "receipt", "receipt", "vote") * 3:
        await db.run(lambda session, kind=kind: STEPS[kind](study, session))  # type: ignore[misc]
    right = await db.run(scanned)
    assert sum(day.delivered for day in right) > 0
    await db.run(lambda session: session.execute(update(_D).values(receipt_level=None)))
    assert await db.run(rolled_up) != right  # the levels are wrong now, and the rollup follows them
    await db.run(lambda session: rollup.refill(session.connection()))
    assert await db.run(rolled_up) == right


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_turn_under_way_does_not_hold_its_days_counts_for_the_others(db: Database, database_url: str) -> None:
    """Every prompt of a day and arm adds to one row of the rollup. A turn that has written its
    delivery but not yet committed (it still writes its messages, timers, its claim) must not
    keep that row from the other turns: on PostgreSQL the count is taken at commit. Before, each
    turn held the row from its delivery to its commit, and a burst's turns queued on it, one by one."""
    study = Study(db, seed=3)
    for _ in PHONES[:2]:
        await db.run(study.enroll)
    first, second = study.participants[:2]
    def deliver(session: Session, pid: str, inbox: int) -> None:
        record_delivery(session, participant_id=pid, inbox_id=inbox, schedule_id=None, local_date="2026-03-02",
                        prompt_text="Time to stretch", prompt_message_id=None, poll_message_id=None, now=T0)

    await db.run(lambda session: session.execute(update(_P).values(arm=None)))
    engine = sa.create_engine(sync_url(database_url))
    try:
        with Session(engine) as under_way, Session(engine) as other:
            deliver(under_way, first, 1)  # its commit comes later
            under_way.flush()
            other.execute(sa.text("SET lock_timeout = '3s'"))
            deliver(other, second, 2)
            other.commit()  # before: "canceling statement due to lock timeout"
            under_way.commit()
    finally:
        engine.dispose()
    [day] = await db.run(lambda session: day_counts(session, first_day="2026-03-02", last_day="2026-03-02"))
    assert (day.local_date, day.arm, day.sent) == ("2026-03-02", None, 2)


def _on_distinct_shards(engine: sa.Engine, stack: ExitStack, count: int) -> list[Session]:
    """``count`` sessions whose connections add to different shards of the rollup (PostgreSQL: the
    backend's pid modulo the shards; a connection whose pid collides is kept open and passed over)."""
    found: dict[int, sa.Connection] = {}
    while len(found) < count:
        conn = stack.enter_context(engine.connect())
        found.setdefault(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() % rollup.SHARDS, conn)
        conn.commit()
    return [stack.enter_context(Session(bind=conn)) for conn in found.values()]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_two_commits_of_a_days_prompts_do_not_wait_for_each_other(db: Database, database_url: str) -> None:
    """Every prompt of a day and arm added to one row of the rollup at its commit, so each commit
    waited for the other commits of that day and arm under way, across connections and services.
    Here the first transaction's count is taken (as in its commit) and it stays open: the second
    must commit without waiting for it."""
    study = Study(db, seed=5)
    for _ in PHONES[:2]:
        await db.run(study.enroll)
    await db.run(lambda session: session.execute(update(_P).values(arm="a")))
    engine = sa.create_engine(sync_url(database_url), poolclass=sa.NullPool)
    try:
        with ExitStack() as stack:
            first, second = _on_distinct_shards(engine, stack, 2)
            for session, pid, inbox in ((first, study.participants[0], 1), (second, study.participants[1], 2)):
                record_delivery(session, participant_id=pid, inbox_id=inbox, schedule_id=None,
                                local_date="2026-03-02", prompt_text="Time to stretch", prompt_message_id=None,
                                poll_message_id=None, now=T0)
                session.flush()
            first.execute(sa.text("SET CONSTRAINTS ALL IMMEDIATE"))  # its commit under way: counted, not ended
            second.execute(sa.text("SET LOCAL lock_timeout = '2s'"))
            second.commit()  # before: "canceling statement due to lock timeout"
            first.commit()
    finally:
        engine.dispose()
    [day] = await db.run(lambda session: day_counts(session, first_day="2026-03-02", last_day="2026-03-02"))
    assert (day.local_date, day.arm, day.sent) == ("2026-03-02", "a", 2)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_the_rollup_says_what_a_scan_says_after_writes_from_several_connections(
    db: Database, database_url: str,
) -> None:
    """Each connection adds to its own shard (a prompt counted on one, changed or deleted on
    another): the statistics, summed over the shards, are still what a scan and a refill find."""
    study = Study(db, seed=11)
    for _ in PHONES:
        await db.run(study.enroll)
    kinds = list(WEIGHTS)
    engine = sa.create_engine(sync_url(database_url), poolclass=sa.NullPool)
    try:
        with ExitStack() as stack:
            sessions = _on_distinct_shards(engine, stack, 3)
            for _ in range(120):
                kind = study.random.choices(kinds, weights=[WEIGHTS[k] for k in kinds])[0]
                session = study.random.choice(sessions)
                STEPS[kind](study, session)
                session.commit()
    finally:
        engine.dispose()
    shards = await db.run(lambda session: session.execute(sa.text(
        "SELECT count(DISTINCT shard) FROM prompt_day_counts")).scalar_one())
    assert shards == 3  # the writes were counted on several shards
    expected, found = await db.run(lambda session: (scanned(session), rolled_up(session)))
    assert found == expected and sum(day.sent for day in found) > 10

    def refilled(session: Session) -> list[DayCounts]:
        rollup.refill(session.connection())
        return rolled_up(session)

    assert await db.run(refilled) == found
