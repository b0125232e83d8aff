"""Leases on numbers: a free one is taken, a held one is refused, an expired one is taken over with
a higher fencing token, renewing keeps it until another process has taken it, a released one is
free at once, and a write guarded by ``held_by`` does nothing once the lease has moved on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from promptpipe.storage import leases
from promptpipe.storage.db import Database
from promptpipe.storage.models import ServiceStatus, table_of

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
TTL = timedelta(seconds=15)
A, B = "host-a:101:aaaa", "host-b:202:bbbb"
_STATUS = table_of(ServiceStatus)


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


async def _acquire(db: Database, names: list[str], holder: str, seconds: float) -> dict[str, int]:
    return await db.run(lambda s: leases.acquire(s, names, holder, _at(seconds), TTL))


async def test_a_free_lease_is_taken_and_a_held_one_refused(db: Database) -> None:
    assert await _acquire(db, ["toronto", "montreal"], A, 0) == {"montreal": 1, "toronto": 1}
    assert await _acquire(db, ["toronto", "vancouver"], B, 14.9) == {"vancouver": 1}
    rows = await db.run(leases.holders)
    assert [(r.name, r.holder, r.token, r.live(_at(14.9))) for r in rows] == [
        ("montreal", A, 1, True), ("toronto", A, 1, True), ("vancouver", B, 1, True)]
    assert rows[1].expires_at == _at(15) and rows[1].acquired_at == _at(0)


async def test_acquiring_again_what_is_ours_renews_it_with_the_same_token(db: Database) -> None:
    await _acquire(db, ["toronto"], A, 0)
    assert await _acquire(db, ["toronto"], A, 10) == {"toronto": 1}
    assert await _acquire(db, ["toronto"], B, 20) == {}  # renewed until 25
    [row] = await db.run(leases.holders)
    assert (row.holder, row.acquired_at, row.heartbeat_at, row.expires_at) == (A, _at(0), _at(10), _at(25))


async def test_an_expired_lease_is_taken_over_with_a_higher_token(db: Database) -> None:
    await _acquire(db, ["toronto"], A, 0)
    assert await _acquire(db, ["toronto"], B, 15) == {"toronto": 2}
    [row] = await db.run(leases.holders)
    assert (row.holder, row.token, row.acquired_at) == (B, 2, _at(15))
    assert await _acquire(db, ["toronto"], A, 31) == {"toronto": 3}  # and back: the token only grows


async def test_renewing_keeps_a_lease_until_another_process_has_taken_it(db: Database) -> None:
    await _acquire(db, ["toronto", "montreal"], A, 0)
    kept = await db.run(lambda s: leases.renew(s, {"toronto": 1, "montreal": 1}, A, _at(10), TTL))
    assert kept == {"toronto": 1, "montreal": 1}
    assert await _acquire(db, ["toronto", "montreal"], B, 20) == {}
    # A stalls: its leases expire at 25 and B takes one of them; renewing then keeps only the other.
    assert await _acquire(db, ["toronto"], B, 26) == {"toronto": 2}
    kept = await db.run(lambda s: leases.renew(s, {"toronto": 1, "montreal": 1}, A, _at(27), TTL))
    assert kept == {"montreal": 1}
    # A renewal under an old token is refused even by the same holder.
    assert await db.run(lambda s: leases.renew(s, {"montreal": 0}, A, _at(28), TTL)) == {}


async def test_a_released_lease_is_free_at_once_and_only_its_holder_releases_it(db: Database) -> None:
    await _acquire(db, ["toronto", "montreal"], A, 0)
    presence = leases.presence_name("numbers", A)
    await _acquire(db, [presence], A, 0)
    assert await db.run(lambda s: leases.release(s, ["toronto"], B)) == []
    assert await db.run(lambda s: leases.release(s, ["toronto", presence], A)) == [presence, "toronto"]
    assert [row.name for row in await db.run(leases.holders)] == ["montreal"]  # the presence row is gone
    assert await _acquire(db, ["toronto"], B, 1) == {"toronto": 2}


async def test_expired_presence_rows_are_forgotten_and_number_leases_kept(db: Database) -> None:
    await _acquire(db, [leases.presence_name("g", A), "toronto"], A, 0)
    await _acquire(db, [leases.presence_name("g", B)], B, 10)
    assert await db.run(lambda s: leases.forget_absent(s, _at(16))) == 1
    rows = await db.run(leases.holders)
    assert [(r.name, r.is_presence) for r in rows] == [(leases.presence_name("g", B), True), ("toronto", False)]


async def test_a_write_guarded_by_held_by_does_nothing_after_the_lease_moved(db: Database) -> None:
    """The fencing a claim or a send's record uses: the guard names the lease by a column of the
    row written (here the status row's name stands for a participant's number)."""
    tokens = await _acquire(db, ["toronto"], A, 0)
    await db.run(lambda s: s.connection().execute(insert(_STATUS).values(name="toronto", value={}, updated_at=T0)))

    def touch(holder: str, token: int, seconds: float) -> Callable[[Session], int]:
        def write(session: Session) -> int:
            guarded = update(_STATUS).where(_STATUS.c.name == "toronto",
                                            leases.held_by(_STATUS.c.name, holder, token, _at(seconds)))
            return int(session.connection().execute(guarded.values(updated_at=_at(seconds))).rowcount)
        return write

    assert await db.run(touch(A, tokens["toronto"], 5)) == 1
    assert await db.run(touch(A, tokens["toronto"], 15)) == 0  # expired: even before anyone took it
    taken = await _acquire(db, ["toronto"], B, 16)
    assert await db.run(touch(A, tokens["toronto"], 16)) == 0
    assert await db.run(touch(B, tokens["toronto"], 16)) == 0  # the old token, even by the new holder
    assert await db.run(touch(B, taken["toronto"], 17)) == 1
    when = await db.run(lambda s: s.connection().execute(select(_STATUS.c.updated_at)).scalar_one())
    assert when == _at(17)


async def test_two_processes_racing_for_a_free_lease_one_gets_it(db: Database) -> None:
    got = await asyncio.gather(*(_acquire(db, ["toronto", "montreal"], holder, 0) for holder in (A, B)))
    assert not set(got[0]) & set(got[1])
    held = {name: holder for (holder, names) in zip((A, B), got, strict=True) for name in names}
    assert sorted(held) == ["montreal", "toronto"]
    assert {(r.name, r.holder, r.token) for r in await db.run(leases.holders)} == {
        (name, holder, 1) for name, holder in held.items()}
