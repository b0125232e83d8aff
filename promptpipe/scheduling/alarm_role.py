"""The alarm clock as a role one of several services holds at a time (``SEVERAL_SERVICES``): the gainer listens for
other services' changes (:mod:`.alarm_notices`), reconciles every job, then drives the clock. The loser stops at once;
what it may still have fired is keyed inbox rows, so the next holder's second firing writes nothing twice.
"""

from __future__ import annotations

import asyncio
import contextlib

from promptpipe.logging import get_logger
from promptpipe.scheduling.alarm_notices import AlarmNotices
from promptpipe.scheduling.driver import AlarmClock

__all__ = ["AlarmRole"]

log = get_logger("promptpipe.scheduling.alarm_role")


class AlarmRole:
    def __init__(self, alarms: AlarmClock, database_url: str) -> None:
        self.alarms, self.database_url = alarms, database_url
        self.alarms.passive = True
        self._notices: AlarmNotices | None = None
        self._drive: asyncio.Task[None] | None = None
        self._repairs: set[asyncio.Task[object]] = set()
        self.gained = 0

    @property
    def running(self) -> bool:
        return self._drive is not None

    @property
    def notices_heard(self) -> int:
        return self._notices.heard if self._notices is not None else 0

    async def gain(self) -> None:
        if self._drive is not None:
            return
        loop = asyncio.get_running_loop()  # the listener's thread hands what it hears to this loop
        self._notices = AlarmNotices(
            self.database_url,
            lambda ids: loop.call_soon_threadsafe(self.alarms.request_sync, ids),
            lambda: loop.call_soon_threadsafe(self._reconcile_again),
        )
        await loop.run_in_executor(None, self._notices.start)  # listening before the reconcile reads
        await self.alarms.start()
        await self.alarms.reconcile()
        self._drive = asyncio.create_task(self.alarms.drive(), name="alarm-clock")
        self.gained += 1

    async def lose(self) -> None:
        drive, self._drive = self._drive, None
        if drive is not None:
            drive.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await drive
        for repair in list(self._repairs):
            repair.cancel()
        notices, self._notices = self._notices, None
        if notices is not None:
            await asyncio.get_running_loop().run_in_executor(None, notices.stop)
        await self.alarms.pause()

    def _reconcile_again(self) -> None:
        """Notices may have been lost while the listening connection was down: reconcile."""
        if self._drive is None:
            return
        task: asyncio.Task[object] = asyncio.create_task(self.alarms.reconcile())
        self._repairs.add(task)
        task.add_done_callback(self._repairs.discard)
