"""Queries on ``lease_move``: each time a number (or the ``@alarms`` role) went from one service to another, and why,
written by the taker in the transaction that took it. A service taking back what it held before its own restart is no
move (the linked phone stays on the same machine); nor is the first take of a lease nobody held.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from promptpipe.storage.models import LeaseMove, table_of

__all__ = ["Move", "MoveReason", "MovesOf", "moves_since", "record_moves"]

_MOVE = table_of(LeaseMove)


class MoveReason(StrEnum):
    """Why a lease went to another service."""

    RELEASED = "released"
    """Its service stopped (or gave it back) and did not come back within a lease's time."""
    EXPIRED = "expired"
    """Its service stopped renewing it (killed, hung, or cut off from the database)."""
    OPERATOR = "operator"
    """An operator asked for it to move (``promptpipe-admin hand-over``)."""

    def describe(self) -> str:
        return _WORDS[self]


_WORDS = {MoveReason.RELEASED: "its service stopped", MoveReason.EXPIRED: "its lease ran out",
          MoveReason.OPERATOR: "an operator asked"}


@dataclass(frozen=True)
class Move:
    name: str
    from_service: str
    to_service: str
    reason: MoveReason
    moved_at: datetime


def record_moves(session: Session, moves: Iterable[Move]) -> None:
    rows = [{"name": move.name, "from_service": move.from_service, "to_service": move.to_service,
             "reason": move.reason.value, "moved_at": move.moved_at} for move in moves]
    if rows:
        session.connection().execute(insert(_MOVE), rows)


@dataclass(frozen=True)
class MovesOf:
    """The moves of one lease since a moment: how many, and the last."""

    count: int
    last: Move


def moves_since(session: Session, since: datetime) -> dict[str, MovesOf]:
    """Each lease that moved at or after ``since``: how many times, and its last move."""
    counted = select(_MOVE.c.name, func.count().label("moves"), func.max(_MOVE.c.id).label("last_id")).where(
        _MOVE.c.moved_at >= since).group_by(_MOVE.c.name).subquery()
    rows = session.connection().execute(
        select(counted.c.moves, _MOVE.c.name, _MOVE.c.from_service, _MOVE.c.to_service, _MOVE.c.reason,
               _MOVE.c.moved_at).join(counted, _MOVE.c.id == counted.c.last_id))
    return {row.name: MovesOf(int(row.moves), Move(row.name, row.from_service, row.to_service,
                                                   MoveReason(row.reason), row.moved_at)) for row in rows}
