"""Leases on the deployment's numbers, held where they stay put (a restarted service finds its numbers again); ``ttl``
after the last good round all is treated as lost, since another process may have taken it."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import zlib
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.logging import get_logger
from promptpipe.storage import leases
from promptpipe.storage.db import Database
from promptpipe.storage.lease_moves import Move, MoveReason, record_moves
from promptpipe.storage.leases import LeaseRow

__all__ = ["DEFAULT_HEARTBEAT", "DEFAULT_TTL", "LeaseCallback", "LeaseKeeper", "Preferences", "RoundPlan", "Take",
           "group_of", "plan_round", "services_up"]

log = get_logger("promptpipe.pipeline.leases")

LeaseCallback = Callable[[frozenset[str]], Awaitable[None] | None]
"""Called with the names gained or lost in a round (may be a coroutine function)."""
DEFAULT_TTL = timedelta(seconds=15)
DEFAULT_HEARTBEAT = timedelta(seconds=5)


@dataclass(frozen=True)
class Preferences:
    """A keeper's service and what prefers it."""

    service: str = ""
    """The keeper's service: a name that survives restarts (empty: the process's holder id)."""
    homes: Mapping[str, str] = field(default_factory=dict)
    """The preferred service of some names by configuration (PREFERRED_SERVICES), over the one recorded."""


@dataclass(frozen=True)
class Take:
    """A free or expired lease a keeper tries to take."""

    name: str
    preferred: str
    """The preferred service to record with it."""
    moved_from: str = ""
    """The service it moves from (empty: no move, e.g. the first take, or its own service's after a restart)."""
    reason: MoveReason | None = None


@dataclass(frozen=True)
class RoundPlan:
    release: tuple[str, ...]
    """Held, but an operator asked for them to move to another service that is up: given back for it to take."""
    take: tuple[Take, ...]


def group_of(names: Iterable[str]) -> str:
    """Who competes with whom: the keepers that want the same names."""
    return f"{zlib.crc32(chr(10).join(sorted(set(names))).encode()):08x}"


def services_up(rows: Sequence[LeaseRow], now: datetime, group: str) -> frozenset[str]:
    """The services with a live presence among the keepers of ``group`` (one without a name: its process id)."""
    prefix = leases.presence_name(group, "")
    return frozenset(row.service or row.holder for row in rows if row.name.startswith(prefix) and row.live(now))


def plan_round(names: Collection[str], holder: str, service: str, kept: Collection[str], rows: Sequence[LeaseRow],
               now: datetime, group: str, homes: Mapping[str, str] | None = None) -> RoundPlan:
    """What a keeper gives back and tries to take, from every lease as read in this round."""
    homes = homes or {}
    by_name = {row.name: row for row in rows}
    up = services_up(rows, now, group) | {service}
    release = tuple(sorted(name for name in kept if (row := by_name.get(name)) is not None
                           and row.move_to and row.move_to != service and row.move_to in up))
    take = []
    for name in sorted(names):
        row = by_name.get(name)
        if name in kept or (row is not None and row.live(now) and row.holder != holder):
            continue
        if _reserved_for(name, row, homes, up) in ("", service):
            take.append(_take(name, row, service, homes))
    return RoundPlan(release, tuple(take))


def _reserved_for(name: str, row: LeaseRow | None, homes: Mapping[str, str], up: frozenset[str]) -> str:
    """Who alone may take the free lease ``name`` now (empty: anyone); a configured home is waited for, however late."""
    if row is not None and row.move_to and row.move_to in up:
        return row.move_to
    home = homes.get(name) or (row.preferred if row is not None else "")
    if home and (home in up or (name in homes and (row is None or not row.service))):
        return home
    return ""


def _take(name: str, row: LeaseRow | None, service: str, homes: Mapping[str, str]) -> Take:
    asked = row is not None and row.move_to == service
    preferred = homes.get(name) or (service if asked or row is None or not row.preferred else row.preferred)
    if row is None or not row.service or row.service == service:
        return Take(name, preferred)
    reason = MoveReason.OPERATOR if asked else MoveReason.RELEASED if row.released else MoveReason.EXPIRED
    return Take(name, preferred, row.service, reason)


@dataclass(frozen=True)
class _Outcome:
    now: datetime
    kept: dict[str, int]
    released: dict[str, str]
    """Given back, each to the service an operator asked for."""
    gained: dict[str, int]
    moves: tuple[Move, ...]


class LeaseKeeper:
    """Holds what it may of ``names`` for this process (``holder``: e.g. ``host:pid:random``) of its service."""

    def __init__(self, db: Database, clock: Clock, holder: str, names: Iterable[str], *,
                 preferences: Preferences | None = None, ttl: timedelta = DEFAULT_TTL,
                 heartbeat: timedelta = DEFAULT_HEARTBEAT, on_gained: LeaseCallback | None = None,
                 on_lost: LeaseCallback | None = None) -> None:
        if not holder:
            raise ValueError("a lease holder needs an id")
        if heartbeat <= timedelta(0) or heartbeat >= ttl:
            raise ValueError("the heartbeat must be positive and shorter than the lease's time to live")
        self.names = frozenset(names)
        self.holder, self.ttl, self.heartbeat = holder, ttl, heartbeat
        preferences = preferences or Preferences()
        self.service, self.homes = preferences.service or holder, dict(preferences.homes)
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
        return (f"<LeaseKeeper service={self.service!r} holder={self.holder!r} held={sorted(self.held)} "
                f"rounds={self.rounds} failed={self.failed_rounds} gained={self.gained} lost={self.lost}>")

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
        """Stop and give everything back; the presence stays until it runs out, so a restart finds its numbers again."""
        task, self._task, self._stopped = self._task, None, True
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        async with self._lock:
            held, self._tokens = frozenset(self._tokens), {}
            await self._notify(self._on_lost, held, "lease_lost", reason="stopped")
            everything = list(self.names)  # a round cut short may have taken some unseen
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
        """One round, then ``on_lost`` and ``on_gained`` with what changed."""
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
            for name, to in outcome.released.items():
                log.warning("lease_handed_over", name=name, from_service=self.service, to_service=to,
                            reason=MoveReason.OPERATOR.value)
            await self._notify(self._on_lost, frozenset(outcome.released), "lease_lost",
                               reason="an operator asked for it to move")
            for move in outcome.moves:
                log.warning("lease_moved", name=move.name, from_service=move.from_service, to_service=move.to_service,
                            reason=move.reason.value)
            await self._notify(self._on_gained, frozenset(outcome.gained), "lease_gained", reason="")

    def _round(self, session: Session, held: Mapping[str, int]) -> _Outcome:
        """On the database thread, in one transaction."""
        now = self._clock.now()
        kept = leases.renew(session, held, self.holder, now, self.ttl)
        leases.acquire(session, [self._presence], self.holder, now, self.ttl, service=self.service)
        rows = leases.every_lease(session)
        plan = plan_round(self.names, self.holder, self.service, kept, rows, now, self._group, self.homes)
        asked = {row.name: row.move_to for row in rows}
        released = {name: asked[name] for name in leases.release(session, plan.release, self.holder)}
        gained = (leases.acquire(session, [take.name for take in plan.take], self.holder, now, self.ttl,
                                 service=self.service, preferred={take.name: take.preferred for take in plan.take})
                  if plan.take else {})
        moves = tuple(Move(take.name, take.moved_from, self.service, take.reason, now)
                      for take in plan.take if take.name in gained and take.reason is not None)
        record_moves(session, moves)
        if any(row.is_presence and not row.live(now) for row in rows):
            leases.forget_absent(session, now)
        return _Outcome(now, kept, released, gained, moves)

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
