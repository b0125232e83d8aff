"""Leases on the deployment's numbers, shared fairly by the ``serve`` processes on one database.

:class:`LeaseKeeper` runs one round per heartbeat, in one transaction: renew its leases and presence, read every lease,
give back what exceeds its fair share ``ceil(len(names) / live holders)`` and take free or expired ones up to it. A
dead process's numbers go to the others once its leases expire (within ``ttl`` plus one heartbeat). A failed round
loses nothing at once, but ``ttl`` after the last good one everything held is treated as lost (``on_lost``), since
another process may have taken it; writes are fenced by :meth:`LeaseKeeper.token`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
import zlib
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.logging import get_logger
from promptpipe.storage import leases
from promptpipe.storage.db import Database
from promptpipe.storage.leases import LeaseRow

__all__ = ["DEFAULT_HEARTBEAT", "DEFAULT_TTL", "LeaseCallback", "LeaseKeeper", "RoundPlan", "group_of", "plan_round"]

log = get_logger("promptpipe.pipeline.leases")

LeaseCallback = Callable[[frozenset[str]], Awaitable[None] | None]
"""Called with the names gained or lost in a round (may be a coroutine function)."""
DEFAULT_TTL = timedelta(seconds=15)
DEFAULT_HEARTBEAT = timedelta(seconds=5)


@dataclass(frozen=True)
class RoundPlan:
    share: int
    release: tuple[str, ...]
    """Held beyond the share: given back for another process to take."""
    take: tuple[str, ...]
    """Free or expired, within the share: to try to take."""


def _rank(holder: str, name: str) -> int:
    """Each holder prefers the names in its own order, so newcomers rarely race for the same one."""
    return zlib.crc32(f"{holder}\n{name}".encode())


def group_of(names: Iterable[str]) -> str:
    """Who competes with whom: the keepers that want the same names."""
    return f"{zlib.crc32(chr(10).join(sorted(set(names))).encode()):08x}"


def plan_round(names: Collection[str], holder: str, kept: Collection[str], rows: Sequence[LeaseRow],
               now: datetime, group: str) -> RoundPlan:
    """What a keeper gives back and tries to take, from every lease as read in this round."""
    live = [row for row in rows if row.live(now)]
    presence = leases.presence_name(group, "")
    others = {row.holder for row in live
              if row.holder != holder and (row.name in names or row.name.startswith(presence))}
    share = math.ceil(len(names) / (len(others) + 1))
    taken = {row.name for row in live if row.name in names and row.holder != holder}
    ranked = sorted(names, key=lambda name: (_rank(holder, name), name))
    mine = [name for name in ranked if name in kept]
    room = max(share - len(mine), 0)
    take = [name for name in ranked if name not in kept and name not in taken][:room]
    return RoundPlan(share, tuple(mine[share:]), tuple(take))


@dataclass(frozen=True)
class _Outcome:
    now: datetime
    kept: dict[str, int]
    released: tuple[str, ...]
    gained: dict[str, int]


class LeaseKeeper:
    """Holds a fair share of ``names`` for this process (``holder``: e.g. ``host:pid:random``)."""

    def __init__(self, db: Database, clock: Clock, holder: str, names: Iterable[str], *,
                 ttl: timedelta = DEFAULT_TTL, heartbeat: timedelta = DEFAULT_HEARTBEAT,
                 on_gained: LeaseCallback | None = None, on_lost: LeaseCallback | None = None) -> None:
        if not holder:
            raise ValueError("a lease holder needs an id")
        if heartbeat <= timedelta(0) or heartbeat >= ttl:
            raise ValueError("the heartbeat must be positive and shorter than the lease's time to live")
        self.names = frozenset(names)
        self.holder, self.ttl, self.heartbeat = holder, ttl, heartbeat
        self._db, self._clock = db, clock
        self._on_gained, self._on_lost = on_gained, on_lost
        self._group = group_of(self.names)
        self._presence = leases.presence_name(self._group, holder)
        self._tokens: dict[str, int] = {}
        self._valid_until = clock.now()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopped = False
        self.rounds = self.failed_rounds = self.gained = self.lost = 0

    def __repr__(self) -> str:
        return (f"<LeaseKeeper holder={self.holder!r} held={sorted(self.held)} rounds={self.rounds} "
                f"failed={self.failed_rounds} gained={self.gained} lost={self.lost}>")

    @property
    def held(self) -> frozenset[str]:
        """The names held now (nothing once ``ttl`` has passed since the last successful round)."""
        return frozenset(self._tokens) if self._clock.now() < self._valid_until else frozenset()

    def token(self, name: str) -> int | None:
        """The fencing token of a lease held now (for :func:`~promptpipe.storage.leases.held_by`)."""
        return self._tokens.get(name) if name in self.held else None

    async def start(self) -> None:
        """One round at once (what this process holds is known when this returns), then one per heartbeat."""
        if self._task is not None or self._stopped:
            return
        await self.step()
        self._task = asyncio.create_task(self._run(), name="lease-keeper")

    async def stop(self) -> None:
        """Stop the rounds, tell ``on_lost`` about what was held, then give it all back so another
        process may take it at once (if the database is away, it expires by itself)."""
        task, self._task, self._stopped = self._task, None, True
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        async with self._lock:
            held, self._tokens = frozenset(self._tokens), {}
            await self._notify(self._on_lost, held, "lease_lost", reason="stopped")
            everything = [*self.names, self._presence]  # a round cut short may have taken some unseen
            try:
                await self._db.run(lambda session: leases.release(session, everything, self.holder))
            except Exception as exc:  # nothing more to do: the leases expire by themselves
                log.warning("lease_release_failed", holder=self.holder, error=str(exc))

    async def _run(self) -> None:
        while True:
            await self._clock.sleep(self._delay_s())
            try:
                await self.step()
            except Exception:  # a bug in a round: log it and keep beating (what is held runs out meanwhile)
                log.exception("lease_round_crashed", holder=self.holder)

    def _delay_s(self) -> float:
        """A heartbeat, or less when what is held runs out before it (so it is given up on time)."""
        if not self._tokens:
            return self.heartbeat.total_seconds()
        return min(self.heartbeat.total_seconds(), max((self._valid_until - self._clock.now()).total_seconds(), 0.01))

    async def step(self) -> None:
        """One round: renew, rebalance, take; then ``on_lost`` and ``on_gained`` with what changed."""
        async with self._lock:
            if self._stopped:
                return
            self.rounds += 1
            if self._tokens and self._clock.now() >= self._valid_until:
                expired, self._tokens = frozenset(self._tokens), {}
                await self._notify(self._on_lost, expired, "lease_lost", reason="not renewed in time")
            held = dict(self._tokens)
            try:
                outcome = await self._db.run(lambda session: self._round(session, held), urgent=True)
            except Exception as exc:  # the database is away: keep what is held until it runs out
                self.failed_rounds += 1
                log.warning("lease_round_failed", holder=self.holder, held=sorted(held), error=str(exc))
                return
            kept = {name: token for name, token in outcome.kept.items() if name not in outcome.released}
            self._tokens = {**kept, **outcome.gained}
            self._valid_until = outcome.now + self.ttl
            await self._notify(self._on_lost, frozenset(held) - frozenset(outcome.kept), "lease_lost",
                               reason="taken by another process")
            await self._notify(self._on_lost, frozenset(outcome.released), "lease_lost", reason="over the fair share")
            await self._notify(self._on_gained, frozenset(outcome.gained), "lease_gained", reason="")

    def _round(self, session: Session, held: Mapping[str, int]) -> _Outcome:
        """On the database thread, in one transaction."""
        now = self._clock.now()
        kept = leases.renew(session, held, self.holder, now, self.ttl)
        leases.acquire(session, [self._presence], self.holder, now, self.ttl)
        rows = leases.holders(session)
        plan = plan_round(self.names, self.holder, kept, rows, now, self._group)
        released = tuple(leases.release(session, plan.release, self.holder)) if plan.release else ()
        gained = leases.acquire(session, plan.take, self.holder, now, self.ttl) if plan.take else {}
        if any(row.is_presence and not row.live(now) for row in rows):
            leases.forget_absent(session, now)
        return _Outcome(now, kept, released, gained)

    async def _notify(self, callback: LeaseCallback | None, names: frozenset[str], event: str, *, reason: str) -> None:
        if not names:
            return
        if event == "lease_lost":
            self.lost += len(names)
        else:
            self.gained += len(names)
        log.info(event, holder=self.holder, names=sorted(names), reason=reason or None)
        if callback is None:
            return
        try:
            result = callback(names)
            if inspect.isawaitable(result):
                await result
        except Exception:  # a consumer's bug must not stop the heartbeat
            log.exception("lease_callback_failed", holder=self.holder, event=event, names=sorted(names))
