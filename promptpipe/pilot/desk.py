"""The pilots running in this process: one per researcher, at most :data:`MOST_PILOTS` at once, each ended after
:data:`IDLE_LIMIT` without use and all of them when the web server stops."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from promptpipe.clock import Clock
from promptpipe.config import Settings
from promptpipe.errors import Conflict
from promptpipe.pilot.engine import Compose, Pilot, checked_name

__all__ = ["IDLE_LIMIT", "MOST_PILOTS", "PilotDesk"]

MOST_PILOTS = 4
"""Each pilot holds a database thread and its turns share the service's loop: a few at most."""
IDLE_LIMIT = timedelta(minutes=30)
CHECK_EVERY_S = 60.0


class PilotDesk:
    def __init__(self, settings: Settings, clock: Clock, compose: Compose, *, most: int = MOST_PILOTS,
                 idle: timedelta = IDLE_LIMIT) -> None:
        self.settings, self.clock, self.compose = settings, clock, compose
        self.most, self.idle = most, idle
        self._pilots: dict[str, Pilot] = {}
        self._starting = 0
        self._lock = asyncio.Lock()
        self._watch: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def running(self) -> int:
        return len(self._pilots)

    def find(self, owner: str) -> Pilot | None:
        pilot = self._pilots.get(owner)
        return pilot if pilot is not None and not pilot.closed else None

    async def start(self, owner: str, *, name: str, zone: str) -> Pilot:
        """A new pilot for ``owner`` (their earlier one ends). The desk is held only to take a place: another
        researcher's start does not wait for this one's greeting."""
        checked_name(name)  # before the earlier one ends: a typo does not cost it
        async with self._lock:
            self._refuse_if_closed()
            earlier = self._pilots.pop(owner, None)
            if earlier is not None:
                await earlier.stop()
            await self._end_idle()
            if len(self._pilots) + self._starting >= self.most:
                raise Conflict(f"Pilot mode is full ({self.most} at once at most): try again when one ends (a pilot "
                               f"ends after {_minutes(self.idle)} without use).")
            self._starting += 1
        try:
            pilot = await Pilot.start(self.settings, self.compose, self.clock, owner=owner, name=name, zone=zone)
        finally:
            self._starting -= 1
        async with self._lock:
            try:
                self._refuse_if_closed()  # the web server stopped meanwhile
            except Conflict:
                await pilot.stop()
                raise
            replaced = self._pilots.pop(owner, None)  # started at the same moment (two tabs)
            self._pilots[owner] = pilot
            if replaced is not None:
                await replaced.stop()
            if self._watch is None or self._watch.done():
                self._watch = asyncio.create_task(self._end_idle_ones(), name="pilot-idle-check")
        return pilot

    async def end(self, owner: str) -> bool:
        """False if none ran."""
        async with self._lock:
            pilot = self._pilots.pop(owner, None)
            if pilot is None:
                return False
            await pilot.stop()
            return True

    async def end_idle(self) -> int:
        """Returns how many ended."""
        async with self._lock:
            return await self._end_idle()

    async def close(self) -> None:
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        async with self._lock:
            pilots, self._pilots = list(self._pilots.values()), {}
            for pilot in pilots:
                await pilot.stop()

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise Conflict("Pilot mode has stopped with the web server.")

    async def _end_idle(self) -> int:
        now = self.clock.now()
        idle = [owner for owner, pilot in self._pilots.items() if pilot.closed or now - pilot.last_used >= self.idle]
        for owner in idle:
            await self._pilots.pop(owner).stop()
        return len(idle)

    async def _end_idle_ones(self) -> None:
        while self._pilots:
            await asyncio.sleep(CHECK_EVERY_S)
            await self.end_idle()


def _minutes(delta: timedelta) -> str:
    minutes = round(delta.total_seconds() / 60)
    return f"{minutes} minute{'' if minutes == 1 else 's'}"
