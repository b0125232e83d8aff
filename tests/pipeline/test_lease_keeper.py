"""The lease keeper, several of them on one database as several ``serve`` processes would be: what
a keeper holds stays with it while it renews (a joining keeper takes only free numbers, each
number's preferred service takes it whatever the order of their starts), one that stops
heart-beating loses its numbers to the others within its lease's time to live (and gets nothing
back when it returns), a database that is away costs nothing until the leases run out, a keeper
that stops gives its numbers back for its service to find again within a lease's time, and every
move from one service to another is recorded with its reason. Rounds are driven one by one on a
manual clock (``step``), as the running loop does each heartbeat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest
from sqlalchemy import select

from promptpipe.clock import ManualClock
from promptpipe.domain.numbers import NumberPlan
from promptpipe.errors import AdminError, StorageError
from promptpipe.pipeline.leases import LeaseKeeper, Preferences, group_of, plan_round
from promptpipe.research.handovers import hand_over
from promptpipe.storage import leases
from promptpipe.storage.db import Database
from promptpipe.storage.lease_moves import MoveReason
from promptpipe.storage.leases import LeaseRow
from promptpipe.storage.models import LeaseMove

NAMES = ("toronto", "montreal", "vancouver")
TTL, HEARTBEAT = timedelta(seconds=15), timedelta(seconds=5)


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, frozenset[str]]] = []

    def gained(self, names: frozenset[str]) -> None:
        self.seen.append(("gained", names))

    async def lost(self, names: frozenset[str]) -> None:
        self.seen.append(("lost", names))


def _keeper(db: Database, clock: ManualClock, holder: str, events: Events | None = None, *, service: str = "",
            homes: dict[str, str] | None = None) -> LeaseKeeper:
    return LeaseKeeper(db, clock, holder, NAMES, preferences=Preferences(service, homes or {}), ttl=TTL,
                       heartbeat=HEARTBEAT, on_gained=events.gained if events else None,
                       on_lost=events.lost if events else None)


async def _moves(db: Database) -> list[tuple[str, str, str, MoveReason]]:
    """Every recorded move, as (name, from, to, reason), oldest first."""
    rows = await db.run(lambda session: session.execute(
        select(LeaseMove.name, LeaseMove.from_service, LeaseMove.to_service, LeaseMove.reason)  # type: ignore[call-overload]
        .order_by(LeaseMove.id)).all())
    return [(name, source, target, MoveReason(reason)) for name, source, target, reason in rows]


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


async def test_a_joining_keeper_takes_no_number_another_holds(db: Database, clock: ManualClock) -> None:
    events = [Events() for _ in range(3)]
    first, second, third = keepers = [_keeper(db, clock, f"host-{i}:10{i}:abcd", events[i]) for i in range(3)]
    await first.step()
    assert first.held == frozenset(NAMES)  # alone, it takes every number
    await _rounds(clock, keepers, 6)  # two more join and heart-beat beside it for 30 s
    assert first.held == frozenset(NAMES) and second.held == third.held == frozenset()
    assert events[0].seen == [("gained", frozenset(NAMES))] and events[1].seen == events[2].seen == []
    assert await _in_database(db) == {name: (first.holder, 1) for name in NAMES}
    assert await _moves(db) == []


async def test_each_number_goes_to_its_preferred_service_whatever_the_order_of_their_starts(
        db: Database, clock: ManualClock) -> None:
    """PREFERRED_SERVICES names a service for each number: a service that starts before the others
    takes only its own (the others' wait for them: each shows its own QR code)."""
    homes = {"toronto": "clinic-a", "montreal": "clinic-b", "vancouver": "clinic-c"}
    a, b, c = keepers = [_keeper(db, clock, f"host-{n}:10{n}:abcd", service=f"clinic-{n}", homes=homes)
                         for n in "abc"]
    await b.step()
    await _rounds(clock, [b], 3)
    assert b.held == {"montreal"}
    await _rounds(clock, [c, b, a], 2)
    assert (a.held, b.held, c.held) == ({"toronto"}, {"montreal"}, {"vancouver"})
    await _rounds(clock, keepers, 3)
    assert (a.held, b.held, c.held) == ({"toronto"}, {"montreal"}, {"vancouver"}) and await _moves(db) == []


@pytest.mark.parametrize(("case", "row", "kept", "homes", "takes"), [
    ("free, nobody prefers it", None, (), {}, True),
    ("held by another", ("host-b:2:x", "clinic-b", "", ""), (), {}, False),
    ("released; its preferred service is up", ("", "clinic-b", "clinic-b", ""), (), {}, False),
    ("run out; its preferred service is up again", ("host-b:0:dead", "clinic-b", "clinic-b", ""), (), {}, False),
    ("run out; its preferred service is down", ("host-c:0:dead", "clinic-c", "clinic-c", ""), (), {}, True),
    ("released; its preferred service is us", ("", "clinic-b", "clinic-a", ""), (), {}, True),
    ("released; its preferred service is down", ("", "clinic-c", "clinic-c", ""), (), {}, True),
    ("never held, configured for a service that is down", None, (), {"toronto": "clinic-c"}, False),
    ("held before, configured for a service that is down", ("", "clinic-c", "clinic-c", ""), (),
     {"toronto": "clinic-c"}, True),
    ("released, an operator moves it to another service that is up", ("", "clinic-c", "", "clinic-b"), (), {},
     False),
    ("released, an operator moves it to us", ("", "clinic-b", "clinic-b", "clinic-a"), (), {}, True),
])
def test_what_a_keeper_takes(case: str, row: tuple[str, str, str, str] | None, kept: tuple[str, ...],
                             homes: dict[str, str], takes: bool) -> None:
    """clinic-a plans its round: clinic-b is up, clinic-c is not."""
    now = ManualClock().now()
    group = group_of(["toronto"])
    presence = [LeaseRow(leases.presence_name(group, f"host-{n}:1:x"), f"host-{n}:1:x", 1, now + TTL, now, now,
                         f"clinic-{n}") for n in "ab"]
    holder, service, preferred, move_to = row or ("", "", "", "")
    expires_at = now - timedelta(seconds=1) if not holder or holder.endswith(":dead") else now + TTL
    rows = [*presence, *([LeaseRow("toronto", holder, 3, expires_at, now, now, service, preferred, move_to)]
                         if row else [])]
    plan = plan_round(["toronto"], "host-a:1:x", "clinic-a", kept, rows, now, group, homes)
    assert [take.name for take in plan.take] == (["toronto"] if takes else []), case
    assert plan.release == ()


async def test_an_operator_moves_one_number_at_a_time_to_a_running_service(db: Database, clock: ManualClock) -> None:
    numbers = NumberPlan(NAMES)
    first, second, third = keepers = [_keeper(db, clock, f"host-{n}:1:x", service=f"clinic-{n}") for n in "abc"]
    await _rounds(clock, keepers, 2)
    assert first.held == frozenset(NAMES)
    with pytest.raises(AdminError, match="no service named 'clinic-x' is running"):
        await hand_over(db, clock, number="toronto", to="clinic-x", numbers=numbers)
    said = await hand_over(db, clock, number="toronto", to="clinic-b", numbers=numbers, by="Mo")
    assert said.startswith("number toronto moves from clinic-a to clinic-b at clinic-a's next heartbeat")
    with pytest.raises(AdminError, match="toronto is still moving to clinic-b: one number at a time"):
        await hand_over(db, clock, number="montreal", to="clinic-c", numbers=numbers)
    await third.step()  # only the service asked for takes it
    await _rounds(clock, [first, third, second], 1)
    assert (first.held, second.held, third.held) == ({"montreal", "vancouver"}, {"toronto"}, set())
    assert await _moves(db) == [("toronto", "clinic-a", "clinic-b", MoveReason.OPERATOR)]
    await hand_over(db, clock, number="montreal", to="clinic-c", numbers=numbers)  # the next one may go now
    await _rounds(clock, keepers, 2)
    assert (first.held, second.held, third.held) == ({"vancouver"}, {"toronto"}, {"montreal"})
    await _rounds(clock, keepers, 3)  # and they stay where they are
    assert [move[:3] for move in await _moves(db)] == [("toronto", "clinic-a", "clinic-b"),
                                                         ("montreal", "clinic-a", "clinic-c")]


HOMES = {"toronto": "clinic-0", "montreal": "clinic-1", "vancouver": "clinic-2"}


async def test_a_keeper_that_stops_heart_beating_loses_its_number_within_the_ttl_for_good(
        db: Database, clock: ManualClock) -> None:
    events = Events()
    gone, *others = keepers = [_keeper(db, clock, f"host-{i}:10{i}:abcd", events if i == 0 else None,
                                       service=f"clinic-{i}", homes=HOMES) for i in range(3)]
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
    [taker] = [keeper for keeper in others if number in keeper.held]
    assert await _moves(db) == [(number, "clinic-0", taker.service, MoveReason.EXPIRED)]
    # It comes back: it holds nothing, says so, and cannot write under its old token.
    assert gone.held == frozenset() and gone.token(number) is None
    now = clock.now()
    fenced = await db.run(lambda s: s.connection().execute(
        select(leases.held_by(number, gone.holder, old_token, now))).scalar_one())
    assert not fenced
    await gone.step()
    assert events.seen[-1] == ("lost", frozenset({number}))
    await _rounds(clock, keepers, 3)  # its number stays where it went (its preferred service though it is)
    assert gone.held == frozenset() and number in taker.held and len(await _moves(db)) == 1


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


async def test_a_stopped_keeper_s_numbers_wait_a_lease_for_its_service_then_move(
        db: Database, clock: ManualClock) -> None:
    """A service that stops gives its numbers back, and they wait a lease's time for it: a restart
    (a new process of the same service) takes them back at once and nothing moves; when it does not
    come back, another service takes them, and each move is recorded as its service having stopped."""
    events = Events()
    leaving = _keeper(db, clock, "host-a:101:abcd", events, service="clinic-a")
    staying = _keeper(db, clock, "host-b:202:abcd", service="clinic-b")
    started = clock.now()
    await leaving.start()
    assert leaving.held == frozenset(NAMES)
    await asyncio.wait_for(_rounds_done(leaving, 4), timeout=5)  # its loop beats on the manual clock
    assert clock.now() - started >= 3 * HEARTBEAT and leaving.held == frozenset(NAMES)
    await leaving.stop()
    assert events.seen == [("gained", frozenset(NAMES)), ("lost", frozenset(NAMES))]
    assert leaving.held == frozenset() and await _in_database(db) == {}
    await staying.step()
    assert staying.held == frozenset()  # its service may be back in a moment
    restarted = _keeper(db, clock, "host-a:303:abcd", service="clinic-a")
    await restarted.step()
    assert restarted.held == frozenset(NAMES)
    assert {name: restarted.token(name) for name in NAMES} == dict.fromkeys(NAMES, 2)

    await restarted.stop()  # and now for good
    await leaving.step()  # a stopped keeper takes nothing again
    assert leaving.held == frozenset() and len(events.seen) == 2
    for _ in range(2):
        clock.advance(HEARTBEAT)
        await staying.step()
        assert staying.held == frozenset()
    clock.advance(HEARTBEAT)  # a lease's time since its last heartbeat
    await staying.step()
    assert staying.held == frozenset(NAMES)
    assert await _moves(db) == [(name, "clinic-a", "clinic-b", MoveReason.RELEASED) for name in sorted(NAMES)]
    await staying.stop()
