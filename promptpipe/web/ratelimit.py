"""Failed sign-ins and bad tokens per client address: past the limit refused a while (429); no fast token guessing."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

__all__ = ["FailedAttempts"]

MAX_FAILURES = 10
WINDOW_S = 300.0
MAX_ADDRESSES = 10_000


class FailedAttempts:
    """At most ``limit`` failures per address in any ``window_s`` seconds (monotonic clock)."""

    def __init__(self, limit: int = MAX_FAILURES, window_s: float = WINDOW_S,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self._now = limit, window_s, now
        self._failures: dict[str, deque[float]] = {}
        self._checking: dict[str, int] = {}
        self._settled = asyncio.Event()
        """Set (and replaced) whenever an attempt is settled: what waiting attempts wait for."""

    def _recent(self, address: str) -> deque[float]:
        times = self._failures.get(address)
        if times is None:
            return deque()
        horizon = self._now() - self.window_s
        while times and times[0] <= horizon:
            times.popleft()
        if not times:
            del self._failures[address]
        return times

    def blocked_for(self, address: str) -> float:
        """Seconds until ``address`` may try again (0: it may now)."""
        times = self._recent(address)
        if len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + self.window_s - self._now())

    async def begin(self, address: str) -> bool:
        """Start checking an attempt (False: the address is blocked). It counts as a failure until :meth:`end`, so
        concurrent guesses cannot overrun the limit; one that finds it reached only by attempts under way waits."""
        while True:
            if self.blocked_for(address) > 0:
                return False
            checking = self._checking.get(address, 0)
            if len(self._recent(address)) + checking < self.limit:
                self._checking[address] = checking + 1
                return True
            await self._settled.wait()

    def end(self, address: str, *, failed: bool) -> None:
        """The attempt :meth:`begin` started is settled: a failure counts from now on."""
        checking = self._checking.pop(address, 0) - 1
        if checking > 0:
            self._checking[address] = checking
        if failed:
            self.record(address)
        settled, self._settled = self._settled, asyncio.Event()
        settled.set()

    def record(self, address: str) -> None:
        if len(self._failures) >= MAX_ADDRESSES and address not in self._failures:
            self._failures.pop(next(iter(self._failures)))  # the oldest address makes room
        self._failures.setdefault(address, deque()).append(self._now())
