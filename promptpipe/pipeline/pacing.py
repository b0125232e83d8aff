"""The pace of sends: a token bucket per WhatsApp number (``SEND_RATE_PER_SECOND``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable
from datetime import datetime

from promptpipe.clock import Clock


class RateLimiter:
    """Token bucket (``rate_per_s == 0``: no limit); waits are longer by up to ``jitter``, never shorter."""

    def __init__(self, rate_per_s: float, clock: Clock, burst: float | None = None, *, jitter: float = 0.0,
                 rng: random.Random | None = None) -> None:
        self.rate = rate_per_s
        self.capacity = burst if burst is not None else max(1.0, rate_per_s)
        self.clock = clock
        self.jitter, self._rng = jitter, rng or random.Random()
        self._tokens = self.capacity
        self._stamp: datetime | None = None
        self._lock = asyncio.Lock()

    async def acquire(self) -> bool:
        """Take a send's place in the pace; True when that meant waiting."""
        if self.rate <= 0:
            return False
        waited = False
        async with self._lock:
            while True:
                now = self.clock.now()
                self._tokens, self._stamp = self._tokens_at(now), now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return waited
                wait_s = (1 - self._tokens) / self.rate
                waited = True
                await self.clock.sleep(wait_s * (1 + self._rng.uniform(0, self.jitter)) if self.jitter else wait_s)

    def give_back(self) -> None:
        """A place taken by a send that did not happen (refused at the last moment)."""
        if self.rate > 0:
            self._tokens = min(self.capacity, self._tokens + 1)

    def sends_within(self, seconds: float) -> int | None:
        """How many sends the pace lets go in the next ``seconds`` (at least one); None: no limit."""
        if self.rate <= 0:
            return None
        return max(1, int(self._tokens_at(self.clock.now()) + seconds * self.rate))

    def _tokens_at(self, now: datetime) -> float:
        """The bucket at ``now``: what it held at the last look, refilled at the rate since."""
        if self._stamp is None:
            return self._tokens
        return min(self.capacity, self._tokens + (now - self._stamp).total_seconds() * self.rate)


class Paces:
    """Each of the deployment's numbers' pace (the first is the default, for participants without a number)."""

    def __init__(self, numbers: tuple[str, ...], rate_per_s: float, clock: Clock, *, jitter: float = 0.0) -> None:
        self._default = numbers[0]
        self._limiters = {number: RateLimiter(rate_per_s, clock, jitter=jitter) for number in numbers}

    def of(self, number: str | None) -> RateLimiter:
        """The pace of the number a message goes from (one no longer in the deployment's: the default's)."""
        return self._limiters.get(number or self._default, self._limiters[self._default])

    def sends_within(self, seconds: float, numbers: Iterable[str]) -> int | None:
        """What ``numbers`` may send together within ``seconds`` (None: no limit)."""
        paced = [self.of(number).sends_within(seconds) for number in numbers] or [0]
        return None if any(count is None for count in paced) else sum(count or 0 for count in paced)
