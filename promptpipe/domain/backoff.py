"""How long to wait before trying again: the first delay, doubled on every further failure, capped."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

__all__ = ["Backoff"]


@dataclass(frozen=True)
class Backoff:
    first_s: float
    max_s: float

    def delay_s(self, failures: int) -> float:
        """After ``failures`` failures in a row (1: the first): first, 2×, 4× … at most ``max_s``."""
        return float(min(self.first_s * 2 ** max(failures - 1, 0), self.max_s))

    def delay(self, failures: int) -> timedelta:
        return timedelta(seconds=self.delay_s(failures))
