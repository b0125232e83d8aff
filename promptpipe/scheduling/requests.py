"""Requests to bring alarms in line, batched: a turn or an admin change asks, the alarm loop does. Most turns hand over
just the changed timers, applied together after up to :data:`TIMER_BATCH_DELAY_S` (a timer is due minutes or hours
later, and many small job-store commits slowed every turn of a prompt burst)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from promptpipe.domain.conversation import TimerChange

__all__ = ["TIMER_BATCH", "TIMER_BATCH_DELAY_S", "ChangeRequests", "Taken"]

TIMER_BATCH_DELAY_S = 1.0
TIMER_BATCH = 2000


@dataclass(frozen=True)
class Taken:
    participants: list[str]
    """Participants to re-sync in full."""
    timer_changes: list[TimerChange]
    """The last change per (participant, timer kind), for participants not re-synced in full."""


class ChangeRequests:
    def __init__(self, wake: Callable[[], None], *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._wake, self._monotonic = wake, monotonic
        self._participants: set[str] = set()
        self._timer_changes: list[TimerChange] = []
        self._since = 0.0

    def __bool__(self) -> bool:
        return bool(self._participants or self._timer_changes)

    def sync(self, participant_ids: Iterable[str]) -> None:
        self._participants.update(participant_ids)
        self._wake()

    def timers(self, changes: list[TimerChange]) -> None:
        """Arm or disarm these timers soon, in order; the loop is woken on the first change and on a full batch."""
        if first := not self._timer_changes:
            self._since = self._monotonic()
        self._timer_changes.extend(changes)
        if first or len(self._timer_changes) >= TIMER_BATCH:
            self._wake()

    def wait_s(self) -> float | None:
        """Seconds until the queued timer changes should be applied (None: none queued)."""
        if not self._timer_changes:
            return None
        return max(0.0, self._since + TIMER_BATCH_DELAY_S - self._monotonic())

    def take(self, *, wait_for_more: bool = False) -> Taken | None:
        """What to apply now (None: nothing, or only a young, small batch ``wait_for_more`` leaves for later)."""
        hold = wait_for_more and len(self._timer_changes) < TIMER_BATCH and bool(self.wait_s())
        if not self or (hold and not self._participants):
            return None
        wanted, self._participants = sorted(self._participants), set()
        synced = set(wanted)
        if hold:  # a full sync reads the latest state of its participants: their queued changes are moot
            changes, self._timer_changes = [], [c for c in self._timer_changes if c.participant_id not in synced]
        else:
            changes, self._timer_changes = self._timer_changes, []
        latest = {(c.participant_id, c.kind): c for c in changes if c.participant_id not in synced}
        return Taken(wanted, list(latest.values()))
