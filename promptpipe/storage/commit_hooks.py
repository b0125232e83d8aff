"""What a transaction asks to happen once it has ended, and the process's :class:`.consent_board.ConsentBoard`. Hooks
run on the database thread right after the COMMIT (before any caller hears back) or the rollback; one that raises is
logged and skipped: the transaction's outcome stands.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from promptpipe.logging import get_logger
from promptpipe.storage.consent_board import ConsentBoard

__all__ = ["Ending", "after_commit", "after_rollback", "consent_board", "join_board", "note_queued", "queued_in"]

log = get_logger("promptpipe.storage")

_COMMITTED, _ROLLED_BACK, _BOARD = "promptpipe.committed", "promptpipe.rolled_back", "promptpipe.consent_board"
_QUEUED = "promptpipe.queued"


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    session.info.setdefault(_COMMITTED, []).append(fn)


def after_rollback(session: Session, fn: Callable[[], None]) -> None:
    session.info.setdefault(_ROLLED_BACK, []).append(fn)


def join_board(session: Session, board: ConsentBoard | None) -> Session:
    """Hand the session the process's consent board (none: a session made outside a Database)."""
    if board is not None:
        session.info[_BOARD] = board
    return session


def consent_board(session: Session) -> ConsentBoard | None:
    board: ConsentBoard | None = session.info.get(_BOARD)
    return board


def note_queued(session: Session, participant_id: str, keys: list[str]) -> None:
    """Outbox rows this transaction queued for the participant (knowing their consent: its own hold spares them)."""
    if keys:
        session.info.setdefault(_QUEUED, {}).setdefault(participant_id, set()).update(keys)


def queued_in(session: Session, participant_id: str) -> frozenset[str]:
    return frozenset(session.info.get(_QUEUED, {}).get(participant_id, ()))


class Ending:
    """What sessions registered, run once their transaction has ended (a context manager: committed unless raised)."""

    def __init__(self) -> None:
        self._committed: list[Callable[[], None]] = []
        self._rolled_back: list[Callable[[], None]] = []

    def take(self, session: Session) -> None:
        """Collect what ``session`` registered (call before it closes)."""
        self._committed += session.info.pop(_COMMITTED, [])
        self._rolled_back += session.info.pop(_ROLLED_BACK, [])
        session.info.pop(_QUEUED, None)

    def add(self, other: Ending) -> None:
        self._committed += other._committed
        self._rolled_back += other._rolled_back

    def __enter__(self) -> Ending:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        self.ended(committed=error is None)

    def ended(self, *, committed: bool) -> None:
        for fn in self._committed if committed else self._rolled_back:
            try:
                fn()
            except Exception as exc:  # the transaction's outcome stands whatever a hook does
                log.error("commit_hook_failed", error=repr(exc)[:300], committed=committed)
        self._committed, self._rolled_back = [], []
