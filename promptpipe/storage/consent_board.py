"""Consent at the moment of sending: the holds this process's commits made since a row was claimed. A hold counts once
written (taken back on rollback), a lifting once committed. A claim carries the board's sequence number, so a later hold
refuses the row at its send unless the hold's own commit queued it (the STOP's confirmation). Other processes' holds
are not here: the outbox checks a row that waited against the database again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from promptpipe.domain.consent import HOLDS, LIFTED_BY, ConsentKind, refusal

__all__ = ["ConsentBoard"]


@dataclass(frozen=True)
class _Hold:
    seq: int
    """The board's sequence number when it was written: claims stamped before it come before it."""
    queued_with_it: frozenset[str]
    """The outbox keys its own transaction queued (written knowing the hold)."""
    written_at: float
    """Monotonic seconds: a hold older than :data:`KEPT_FOR_S` is forgotten."""


KEPT_FOR_S = 3600.0
"""How long a hold is kept: a claimed row goes within seconds (one that waited is checked against the database)."""


class ConsentBoard:
    """The holds written through this process; one per database (thread-safe: sends check on the event loop)."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._seq = 0
        self._holds: dict[str, dict[ConsentKind, _Hold]] = {}
        self._monotonic = monotonic
        self._pruned_at = monotonic()

    def stamp(self) -> int:
        """The sequence number a claim carries: taken before it reads anything."""
        return self._seq

    def hold(self, participant_id: str, kind: ConsentKind, queued_with_it: Iterable[str]) -> _Hold:
        """A hold written (not yet committed); returns it, for :meth:`take_back`."""
        if kind not in HOLDS:
            raise ValueError(f"{kind} is not a hold")
        now = self._monotonic()
        with self._lock:
            self._seq += 1
            written = _Hold(self._seq, frozenset(queued_with_it), now)
            self._holds.setdefault(participant_id, {})[kind] = written
            if now - self._pruned_at > KEPT_FOR_S / 60:
                self._prune(now)
        return written

    def _prune(self, now: float) -> None:
        self._pruned_at = now
        for participant_id, holds in list(self._holds.items()):
            for kind, written in list(holds.items()):
                if now - written.written_at > KEPT_FOR_S:
                    del holds[kind]
            if not holds:
                del self._holds[participant_id]

    def take_back(self, participant_id: str, kind: ConsentKind, written: _Hold) -> None:
        """The transaction that wrote ``written`` rolled back."""
        with self._lock:
            holds = self._holds.get(participant_id, {})
            if holds.get(kind) is written:
                del holds[kind]
                if not holds:
                    self._holds.pop(participant_id, None)

    def lift(self, participant_id: str, event: ConsentKind, written_at: int) -> None:
        """An opt-in or a resume written when the board stood at ``written_at`` has committed: the hold it ends no
        longer refuses anything (unless that hold came later, in the same transaction: START then STOP in one batch)."""
        with self._lock:
            holds = self._holds.get(participant_id)
            ended = LIFTED_BY[event]
            if holds is not None and ended in holds and holds[ended].seq <= written_at:
                del holds[ended]
                if not holds:
                    del self._holds[participant_id]

    def refusal(self, participant_id: str, key: str, claimed_at: int) -> ConsentKind | None:
        """The hold written since the claim stamped ``claimed_at`` that stops this row, if any."""
        holds = self._holds.get(participant_id, {})
        later = frozenset(kind for kind, written in list(holds.items())
                          if written.seq > claimed_at and key not in written.queued_with_it)
        return refusal(later, key, from_before=True) if later else None
