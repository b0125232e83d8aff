"""The lease keeper, several of them on one database as several ``serve`` processes would be: they
share the numbers fairly, one that stops heart-beating loses its numbers to the others within its
lease's time to live (and comes back to nothing it could still send under), a database that is
away costs nothing until the leases run out, and a keeper that stops gives its numbers back at once.
Rounds are driven one by one on a manual clock (``step``), as the running loop does each heartbeat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest
from sqlalchemy import select

from promptpipe.clock import ManualClock
from promptpipe.errors import StorageError
from promptpipe.pipeline.leases import LeaseKeeper
from promptpipe.storage import leases
from promptpipe.storage.db import Database

NAMES = ("toronto", "montreal", "vancouver")
TTL, HEARTBEAT = timedelta(seconds=15), timedelta(seconds=5)


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, frozenset[str]]] = []

    def gained(self, names: frozenset[str]) -> None:
        self.seen.append(("gained", names))

    async def lost(self, names: frozenset[str]) -> None:
        self.seen.append(("lost", names))


def _keeper(db: Database, clock: ManualClock, holder: str, events: Events | None = None) -> LeaseKeeper:
    return LeaseKeeper(db, clock, holder, NAMES, ttl=TTL, heartbeat=HEARTBEAT,
                       on_gained=events.gained if events else None, on_lost=events.lost if events else None)


def _assert_never_shared(keepers: Sequence[LeaseKeeper]) -> None:
    seen = [name for keeper in keepers for name in keeper.held]
    assert len(seen) == len(set(seen)), [keeper.held for keeper in keepers]


async def _rounds(clock: ManualClock, keepers: Sequence[LeaseKeeper], count: int) -> None:
    for _ in range(count):
        clock.advance(HEARTBEAT)
        for keeper in keepers:
            await keeper.step()
            _assert_never_shared(keepers)


async def _rounds_done(keeper: LeaseKeeper, count: int) -> None:
    while keeper.rounds < count:
        await asyncio.sleep(0.001)


async def _in_database(db: Database) -> dict[str, tuple[str, int]]:
    return {row.name: (row.holder, row.token) for row in await db.run(leases.holders) if not row.is_presence}


async def test_three_keepers_end_with_one_number_each(db: Database, clock: ManualClock) -> None:
    events = [Events() for _ in range(3)]
    first, second, third = (_keeper(db, clock, f"host-{i}:10{i}:abcd", events[i]) for i in range(3))
    await first.step()
    assert first.held == frozenset(NAMES)  # alone, it takes every number
    await second.step()
    await third.step()
    assert second.held == third.held == frozenset()  # nothing is taken from a live holder
    await _rounds(clock, [first, second, third], 2)
    keepers = [first, second, third]
    assert [len(keeper.held) for keeper in keepers] == [1, 1, 1]
    assert await _in_database(db) == {name: (keeper.holder, keeper.token(name))
                                      for keeper in keepers for name in keeper.held}
    assert events[0].seen == [("gained", frozenset(NAMES)), ("lost", frozenset(NAMES) - first.held)]
    assert events[1].seen == [("gained", second.held)] and events[2].seen == [("gained", third.held)]
    await _rounds(clock, keepers, 3)  # balanced, it stays so
    assert all(len(event.seen) == 2 - (i > 0) for i, event in enumerate(events))


async def test_a_keeper_that_stops_heart_beating_loses_its_number_within_the_ttl(
        db: Database, clock: ManualClock) -> None:
    events = Events()
    gone, *others = keepers = [_keeper(db, clock, f"host-{i}:10{i}:abcd", events if i == 0 else None)
                               for i in range(3)]
    await _rounds(clock, keepers, 3)
    [number] = gone.held
    old_token = gone.token(number)
    assert old_token is not None
    last_beat = clock.now()
    while not any(number in keeper.held for keeper in others):
        await _rounds(clock, others, 1)
        _assert_never_shared(keepers)
        assert clock.now() - last_beat <= TTL + HEARTBEAT
    holder, token = (await _in_database(db))[number]
    assert holder != gone.holder and token > old_token
    assert sorted(len(keeper.held) for keeper in others) == [1, 2]  # the two live ones share three
    # It comes back: it holds nothing, says so, and cannot write under its old token.
    assert gone.held == frozenset() and gone.token(number) is None
    now = clock.now()
    fenced = await db.run(lambda s: s.connection().execute(
        select(leases.held_by(number, gone.holder, old_token, now))).scalar_one())
    assert not fenced
    await gone.step()
    assert events.seen[-1] == ("lost", frozenset({number}))
    await _rounds(clock, keepers, 3)  # and gets its share again
    assert [len(keeper.held) for keeper in keepers] == [1, 1, 1]


async def test_a_failed_round_loses_nothing_until_the_ttl_has_passed(
        db: Database, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    events = Events()
    keeper = _keeper(db, clock, "host-a:101:abcd", events)
    await keeper.step()
    tokens = {name: keeper.token(name) for name in NAMES}

    async def database_away(fn: Callable[..., object], *, urgent: bool = False) -> object:
        raise StorageError("database error: connection refused")

    with monkeypatch.context() as patched:
        patched.setattr(db, "run", database_away)
        for _ in range(2):
            clock.advance(HEARTBEAT)
            await keeper.step()
            assert keeper.held == frozenset(NAMES) and events.seen == [("gained", frozenset(NAMES))]
        clock.advance(HEARTBEAT)  # the ttl since the last round that worked
        assert keeper.held == frozenset()  # another process may have them now
        await keeper.step()
        assert events.seen[-1] == ("lost", frozenset(NAMES)) and keeper.failed_rounds == 3
    clock.advance(HEARTBEAT)
    await keeper.step()  # nobody took them meanwhile: taken again, with the same tokens
    assert events.seen[-1] == ("gained", frozenset(NAMES))
    assert {name: keeper.token(name) for name in NAMES} == tokens


async def test_a_keeper_that_stops_gives_its_numbers_back_at_once(db: Database, clock: ManualClock) -> None:
    events = Events()
    leaving, staying = _keeper(db, clock, "host-a:101:abcd", events), _keeper(db, clock, "host-b:202:abcd")
    started = clock.now()
    await leaving.start()
    assert leaving.held == frozenset(NAMES)
    await asyncio.wait_for(_rounds_done(leaving, 4), timeout=5)  # its loop beats on the manual clock
    assert clock.now() - started >= 3 * HEARTBEAT and leaving.held == frozenset(NAMES)
    await leaving.stop()
    assert events.seen == [("gained", frozenset(NAMES)), ("lost", frozenset(NAMES))]
    assert leaving.held == frozenset() and await _in_database(db) == {}
    await staying.step()  # no waiting for the ttl
    assert staying.held == frozenset(NAMES)
    assert {name: staying.token(name) for name in NAMES} == dict.fromkeys(NAMES, 2)
    await leaving.step()  # a stopped keeper takes nothing again
    assert leaving.held == frozenset() and len(events.seen) == 2
    await staying.stop()
