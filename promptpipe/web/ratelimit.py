"""Failed sign-ins and bad tokens, counted per client address: past the limit the address is
refused for a while (429), so nobody can try tokens at speed."""

from __future__ import annotations

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

    def reserve(self, address: str) -> float | None:
        """Count an attempt as a failure from the moment it starts (so attempts running at the
        same time cannot overrun the limit); :meth:`release` takes it back when it succeeds.
        None when the address is blocked."""
        if self.blocked_for(address) > 0:
            return None
        self.record(address)
        return self._failures[address][-1]

    def release(self, address: str, stamp: float) -> None:
        """The attempt reserved at ``stamp`` succeeded: it no longer counts."""
        times = self._failures.get(address)
        if times is not None and stamp in times:
            times.remove(stamp)
            if not times:
                del self._failures[address]

    def record(self, address: str) -> None:
        if len(self._failures) >= MAX_ADDRESSES and address not in self._failures:
            self._failures.pop(next(iter(self._failures)))  # the oldest address makes room
        self._failures.setdefault(address, deque()).append(self._now())
