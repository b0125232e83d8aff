"""How the service is doing, for `promptpipe check` and `promptpipe-admin status`: WhatsApp's state as last recorded
(each number's, with several), the backlogs, sends that may or may not have arrived, and the last model error."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TypedDict

from sqlalchemy.orm import Session

from promptpipe.domain.numbers import ONE_NUMBER, NumberPlan
from promptpipe.pipeline.sharing import ALARMS_ROLE
from promptpipe.research.views import counted, iso
from promptpipe.storage.db import Database
from promptpipe.storage.lease_moves import MovesOf, moves_since
from promptpipe.storage.leases import LeaseRow, every_lease
from promptpipe.storage.participants import number_counts
from promptpipe.storage.service_status import LAST_MODEL_ERROR, WHATSAPP, StatusRow, backlog, number_rows, read_statuses
from promptpipe.transport.connection_state import NEEDS_THE_TEAM, ConnectionState

__all__ = ["ModelErrorNote", "NumberState", "ServedBy", "StatusReport", "number_states", "read_number_states",
           "read_status", "served_by"]


@dataclass(frozen=True)
class ModelErrorNote:
    """The model server's last error (the provider's own message only under PROMPTPIPE_DEBUG: it may quote anyone)."""

    at: str
    type: str
    error: str

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> ModelErrorNote:
        return cls(str(value.get("at", "?")), str(value.get("type", "")), str(value.get("error", "")))


class NumberStateJson(TypedDict):
    name: str
    participants: int
    state: Mapping[str, object] | None
    recorded_at: str | None


class StatusJson(TypedDict):
    """What ``promptpipe-admin status --json`` prints and the API's service status carries."""

    whatsapp: Mapping[str, object] | None
    whatsapp_recorded_at: str | None
    outbox_backlog: int
    uncertain_sends: int
    inbox_backlog: int
    stuck_inputs: int
    stuck_input_ids: list[int]
    numbers: dict[str, int]
    number_states: list[NumberStateJson]
    services: list[dict[str, object]]
    last_model_error: dict[str, object] | None


@dataclass(frozen=True)
class NumberState:
    """One of the deployment's WhatsApp numbers: its last recorded state and its participants."""

    name: str
    participants: int
    """Participants still in the study (not withdrawn, completed or erased) who have it."""
    state: ConnectionState | None  # None: the service has not used it on this database
    recorded_at: datetime | None = None

    @property
    def needs_the_team(self) -> bool:
        """Banned or logged out: it stays so until the team links it again (or moves its participants)."""
        return self.state is not None and self.state.name in NEEDS_THE_TEAM

    def describe(self) -> str:
        state = self.state.describe() if self.state else "no state recorded yet"
        return f"{state}; {counted(self.participants, 'participant')} in the study"

    def to_json(self) -> NumberStateJson:
        return {"name": self.name, "participants": self.participants,
                "state": self.state.to_json() if self.state else None,
                "recorded_at": iso(self.recorded_at)}


@dataclass(frozen=True)
class StatusReport:
    whatsapp: ConnectionState | None
    whatsapp_recorded_at: datetime | None
    outbox_backlog: int
    uncertain_sends: int
    inbox_backlog: int
    last_model_error: ModelErrorNote | None
    stuck_inputs: int = 0
    stuck_input_ids: tuple[int, ...] = ()
    numbers: tuple[tuple[str, int], ...] = ()  # several numbers: each with its participants still in the study
    number_states: tuple[NumberState, ...] = ()
    services: tuple[ServedBy, ...] = ()  # several services: who serves each number (and the alarm clock) now

    def lines(self, *, model_error: bool = True) -> list[str]:
        """One line per fact; ``model_error=False`` leaves out the last model error (free text)."""
        if self.whatsapp is None and self.number_states:
            whatsapp = "each number has its own state (below)"
        elif self.whatsapp is None:
            whatsapp = "no state recorded (the service has not run with WhatsApp on this database)"
        else:
            whatsapp = self.whatsapp.describe()
        model = ("none recorded" if not self.last_model_error
                 else f"{self.last_model_error.at[:19]} {self.last_model_error.error}")
        return [
            f"whatsapp: {whatsapp}",
            f"outbox backlog: {counted(self.outbox_backlog, 'message')} waiting to be sent",
            f"uncertain sends: {self.uncertain_sends}"
            + (" (they may or may not have arrived; `promptpipe-admin transcript` shows them)"
               if self.uncertain_sends else ""),
            f"inbox backlog: {counted(self.inbox_backlog, 'input')} waiting for a turn",
            f"stuck inputs: {self.stuck_inputs} given up"
            + (f" (ids {', '.join(map(str, self.stuck_input_ids))}"
               f"{' …' if self.stuck_inputs > len(self.stuck_input_ids) else ''};"
               " `promptpipe-admin inbox --stuck` shows them)" if self.stuck_inputs else ""),
            *([f"last model error: {model}"] if model_error else []),
            *(["numbers: " + ", ".join(f"{name} {counted(count, 'participant')}" for name, count in self.numbers)
               + " in the study"] if self.numbers else []),
            *(f"number {number.name}: {number.describe()}"
              + (" (move them to another number, or link it again)" if number.needs_the_team else "")
              for number in self.number_states),
            *(f"served by: {served.describe()}" for served in self.services),
        ]

    def to_json(self) -> StatusJson:
        return {"whatsapp": self.whatsapp.to_json() if self.whatsapp else None,
                "whatsapp_recorded_at": iso(self.whatsapp_recorded_at),
                "outbox_backlog": self.outbox_backlog, "uncertain_sends": self.uncertain_sends,
                "inbox_backlog": self.inbox_backlog, "stuck_inputs": self.stuck_inputs,
                "stuck_input_ids": list(self.stuck_input_ids), "numbers": dict(self.numbers),
                "number_states": [number.to_json() for number in self.number_states],
                "services": [dataclasses.asdict(served) for served in self.services],
                "last_model_error": dataclasses.asdict(self.last_model_error) if self.last_model_error else None}


MOVES_WINDOW = timedelta(days=1)


class LastMoveJson(TypedDict):
    at: str | None
    from_service: str
    to_service: str
    reason: str


@dataclass(frozen=True)
class ServedBy:
    """A number (or the alarm clock) and the service holding its lease, as the lease says."""

    name: str
    holder: str  # the holding process (``host:pid:random``); empty when given back
    live: bool  # False: the lease ran out or was given back (another service takes it soon)
    renewed_s_ago: float
    service: str = ""  # the holder's service (the last one's when nobody holds it)
    preferred: str = ""
    """The service it prefers (PREFERRED_SERVICES, or the first service that held it)."""
    moving_to: str = ""  # an operator asked for it to move to this service; it has not yet
    moves_24h: int = 0
    last_move: LastMoveJson | None = None

    def describe(self) -> str:
        what = "the alarm clock" if self.name == ALARMS_ROLE else f"number {self.name}"
        who = f"{self.service} ({self.holder})" if self.service and self.service != self.holder else self.holder
        if not self.holder:
            line = f"{what}: nobody now ({f'given back by {self.service}' if self.service else 'never held'})"
        elif not self.live:
            line = f"{what}: nobody now (the lease of {who}, last renewed {self.renewed_s_ago:.0f}s ago, ran out)"
        else:
            line = f"{what}: {who} (renewed {self.renewed_s_ago:.0f}s ago)"
        if self.preferred:
            line += f"; prefers {self.preferred}"
        if self.moving_to:
            line += f"; moving to {self.moving_to} (an operator asked)"
        line += f"; {counted(self.moves_24h, 'move')} in the last 24 h"
        if self.last_move is not None:
            last = self.last_move
            line += (f", the last {(last['at'] or '')[:16]} from {last['from_service']} to {last['to_service']} "
                     f"({last['reason']})")
        return line


def served_by(session: Session, now: datetime) -> tuple[ServedBy, ...]:
    """Who holds each number's lease and the alarm clock's, and how often each moved (none: one service)."""
    moved = moves_since(session, now - MOVES_WINDOW)
    return tuple(_served(row, moved.get(row.name), now) for row in every_lease(session) if not row.is_presence)


def _served(row: LeaseRow, moves: MovesOf | None, now: datetime) -> ServedBy:
    last: LastMoveJson | None = None
    if moves is not None:
        move = moves.last
        last = {"at": iso(move.moved_at), "from_service": move.from_service, "to_service": move.to_service,
                "reason": move.reason.describe()}
    return ServedBy(row.name, row.holder, row.live(now), max((now - row.heartbeat_at).total_seconds(), 0.0),
                    row.service, row.preferred, row.move_to, moves.count if moves else 0, last)


def number_states(session: Session, numbers: NumberPlan,
                  rows: dict[str, StatusRow] | None = None) -> tuple[NumberState, ...]:
    """Each number with its state and participants (none with one number: the service's WhatsApp state is its)."""
    if not numbers.several:
        return ()
    counts = number_counts(session, numbers)
    found = number_rows(read_statuses(session) if rows is None else rows, numbers.numbers)
    return tuple(NumberState(name, counts.get(name, 0), _state(row), row.updated_at if row else None)
                 for name, row in found.items())


async def read_number_states(db: Database, numbers: NumberPlan) -> tuple[NumberState, ...]:
    """:func:`number_states` in a transaction of its own (the overview's list of numbers)."""
    return await db.run(lambda session: number_states(session, numbers))


def _state(row: StatusRow | None) -> ConnectionState | None:
    return ConnectionState.from_json(row.value) if row and row.value.get("since") else None


async def read_status(db: Database, numbers: NumberPlan = ONE_NUMBER, now: datetime | None = None) -> StatusReport:
    """The service's state, each number's with several, and who serves what with several services."""
    def read(session: Session) -> StatusReport:
        rows = read_statuses(session)
        whatsapp = rows.get(WHATSAPP)
        counts = backlog(session)
        model = rows.get(LAST_MODEL_ERROR)
        states = number_states(session, numbers, rows)
        return StatusReport(_state(whatsapp), whatsapp.updated_at if whatsapp else None, counts.outbox,
                            counts.uncertain, counts.inbox, ModelErrorNote.from_json(model.value) if model else None,
                            counts.stuck, counts.stuck_ids, tuple((n.name, n.participants) for n in states), states,
                            served_by(session, now or datetime.now(timezone.utc)))

    return await db.run(read)
