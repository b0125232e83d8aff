"""What this service serves when several share one database: some numbers (a participant's lane stays serial) and, one
at a time, the ``@alarms`` role (two schedulers must never share APScheduler's job store)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.numbers import NumberPlan
from promptpipe.logging import get_logger
from promptpipe.pipeline.leases import LeaseKeeper, Preferences
from promptpipe.storage.conversations import VersionConflict
from promptpipe.storage.db import Database
from promptpipe.storage.leases import still_held

__all__ = ["ALARMS_ROLE", "LeaseMoved", "Sharing", "holder_id"]

log = get_logger("promptpipe.pipeline.sharing")

ALARMS_ROLE = "@alarms"


def holder_id() -> str:
    """This process, as the leases name it: host, pid and a random part (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class LeaseMoved(VersionConflict):
    """The participant's number is no longer this service's: the turn writes nothing (the holder runs it)."""


NumbersCallback = Callable[[frozenset[str]], Awaitable[None]]
RoleCallback = Callable[[], Awaitable[None]]


class Sharing:
    """The numbers and the role this service holds now, and the keepers that hold them."""

    def __init__(self, db: Database, clock: Clock, plan: NumberPlan, *, ttl: timedelta, heartbeat: timedelta,
                 holder: str | None = None, service: str = "", homes: Mapping[str, str] | None = None) -> None:
        """``service``: a name that survives restarts; ``homes``: the numbers' preferred services by configuration."""
        self.plan, self.clock = plan, clock
        self.holder = holder or holder_id()
        self.service = service or self.holder
        self.on_numbers_gained: NumbersCallback | None = None
        self.on_numbers_lost: NumbersCallback | None = None
        self.on_alarms_gained: RoleCallback | None = None
        self.on_alarms_lost: RoleCallback | None = None
        self._taking_alarms: asyncio.Task[None] | None = None
        """The alarm clock's start (tens of seconds) runs beside the keepers' rounds: inside one, the lease ran out."""
        self.numbers_keeper = LeaseKeeper(db, clock, self.holder, plan.numbers,
                                          preferences=Preferences(self.service, dict(homes or {})), ttl=ttl,
                                          heartbeat=heartbeat, on_gained=self._numbers_gained,
                                          on_lost=self._numbers_lost)
        self.alarms_keeper = LeaseKeeper(db, clock, self.holder, (ALARMS_ROLE,), preferences=Preferences(self.service),
                                         ttl=ttl, heartbeat=heartbeat, on_gained=self._alarms_gained,
                                         on_lost=self._alarms_lost)

    def __repr__(self) -> str:
        return (f"<Sharing service={self.service!r} holder={self.holder!r} numbers={sorted(self.held())} "
                f"alarms={self.runs_alarms}>")

    def held(self) -> frozenset[str]:
        return self.numbers_keeper.held

    def numbers(self) -> tuple[tuple[str, ...], str]:
        """The numbers held now and the default number's name (a filter for the claims and the poll)."""
        return tuple(sorted(self.numbers_keeper.held)), self.plan.default

    def owns(self, number: str | None) -> bool:
        """Whether a participant of ``number`` (None: the default one) is served here now."""
        return (number or self.plan.default) in self.numbers_keeper.held

    def fence(self, session: Session, number: str | None, alarms: Sequence[str] = ()) -> None:
        """Last in a turn's commit: raise :class:`LeaseMoved` unless it still holds their number (locked to commit);
        ``alarms``: participants whose schedules or timers it changed, told to the alarm clock in the same statement."""
        name = number or self.plan.default
        token = self.numbers_keeper.token(name)
        if token is None or not still_held(session, name, self.holder, token, self.clock.now(), alarms):
            raise LeaseMoved(f"the number {name} is no longer served here")

    @property
    def runs_alarms(self) -> bool:
        return ALARMS_ROLE in self.alarms_keeper.held

    async def start(self, *, heartbeats: bool = True) -> None:
        """One round of each keeper now, then one per heartbeat (``heartbeats`` False: only at :meth:`step`)."""
        if heartbeats:
            await self.numbers_keeper.start()
            await self.alarms_keeper.start()
        else:
            await self.step()

    async def step(self) -> None:
        """One round of each keeper now."""
        await self.numbers_keeper.step()
        await self.alarms_keeper.step()

    async def stop(self) -> None:
        await self.alarms_keeper.stop()
        await self.numbers_keeper.stop()

    async def _numbers_gained(self, names: frozenset[str]) -> None:
        log.info("numbers_gained", service=self.service, holder=self.holder, numbers=sorted(names))
        if self.on_numbers_gained is not None:
            await self.on_numbers_gained(names)

    async def _numbers_lost(self, names: frozenset[str]) -> None:
        log.warning("numbers_lost", service=self.service, holder=self.holder, numbers=sorted(names))
        if self.on_numbers_lost is not None:
            await self.on_numbers_lost(names)

    async def alarm_clock_started(self) -> None:
        """Wait until the alarm clock this service has just gained runs (tests; nothing if none)."""
        if (task := self._taking_alarms) is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _alarms_gained(self, _: frozenset[str]) -> None:
        log.info("alarm_clock_gained", holder=self.holder)
        if self.on_alarms_gained is not None:
            self._taking_alarms = asyncio.create_task(self._start_alarms(self.on_alarms_gained), name="alarm-role")

    async def _start_alarms(self, start: RoleCallback) -> None:
        try:
            await start()
        except Exception:  # the role stays ours; its lease runs out if this service cannot serve it
            log.exception("alarm_clock_start_failed", holder=self.holder)

    async def _alarms_lost(self, _: frozenset[str]) -> None:
        log.warning("alarm_clock_lost", holder=self.holder)
        task, self._taking_alarms = self._taking_alarms, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.on_alarms_lost is not None:
            await self.on_alarms_lost()
