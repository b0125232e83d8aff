"""Which of a participant's pending inbox rows their lane runs together next, and what it hands the batch to."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.orm import Session

from promptpipe.pipeline.events import InboxKind
from promptpipe.questionnaires.rules.definition import QUESTIONNAIRE_PURPOSE
from promptpipe.storage.inbox_rows import InboxRow

FOLDABLE_KINDS = (InboxKind.MESSAGE,)
FIRST_KINDS = (InboxKind.TEAM_CHANGE,)
"""Rows that run first and set aside a turn under way: a pause wins over the answer the model is writing."""

NO_MODEL_TIMERS = ("questionnaire",)


def needs_no_model(row: InboxRow) -> bool:
    """A questionnaire's timer or tap, or a fixed-text arm's prompt: the server answers it alone, on time (no model)."""
    if row.kind == InboxKind.TIMER and row.payload.get("timer_kind") in NO_MODEL_TIMERS:
        return True
    if row.kind in (InboxKind.DAILY_PROMPT, InboxKind.TIMER):
        return bool(row.payload.get("model_free"))  # a fixed-text arm's prompt (held for quiet hours, or not)
    return row.kind == InboxKind.POLL_VOTE and row.payload.get("purpose") == QUESTIONNAIRE_PURPOSE


def select_batch(
    rows: list[InboxRow], now: datetime, urgent: set[int] | frozenset[int] = frozenset()
) -> list[InboxRow]:
    """The next batch (empty: none due): a team change first; with an urgent message, all pending messages; past a row
    waiting for its retry, what needs no model; else the leading run of messages (folded into one batch)."""
    if not rows:
        return []
    if first_of_all := [row for row in rows if row.kind in FIRST_KINDS and row.available_at <= now]:
        return first_of_all[:1]
    if urgent:
        return [row for row in rows if row.kind in FOLDABLE_KINDS]
    first = rows[0]
    if first.available_at > now:  # waiting for its retry (the model is down): what needs no model goes by
        passing = next((row for row in rows if row.available_at <= now and needs_no_model(row)), None)
        if passing is not None:
            return [passing]
    if first.kind not in FOLDABLE_KINDS:
        return [first] if first.available_at <= now else []
    run = list(itertools.takewhile(lambda row: row.kind in FOLDABLE_KINDS, rows))
    return run if any(row.available_at <= now for row in run) else []


C = TypeVar("C")


@dataclass(frozen=True)
class FirstLook(Generic[C]):
    """What an idle lane would read first, read as their input was stored (see :meth:`Lanes.first_look`)."""

    found: tuple[list[InboxRow], int, C, bool] | None


class TurnRunner(Protocol[C]):
    """What a lane hands its batches to (the conversation flow)."""

    def load(self, session: Session, participant_id: str, batch: list[InboxRow]) -> C:
        """Read what the turn needs, inside the same transaction that picked the batch."""

    def number(self, context: C) -> str | None:
        """The number the participant was given (None: the default one), as :meth:`load` read it."""

    def urgent(self, session: Session, rows: list[InboxRow]) -> set[int]:
        """The ids of the message rows among ``rows`` that must not wait for the model."""

    async def decide(self, participant_id: str, batch: list[InboxRow], context: C) -> Any:
        """What the batch comes to (the model is asked here); writes nothing, so it can be cancelled at any point."""

    async def commit(self, participant_id: str, batch: list[InboxRow], context: C, outcome: Any) -> bool:
        """Write what :meth:`decide` came to; True when part of the batch is still pending and should run at once."""

    async def record_failure(self, participant_id: str, batch: list[InboxRow], error: BaseException) -> None:
        """The batch failed: keep it for a retry."""

    def blocked(self, session: Session, participant_id: str, rows: list[InboxRow], now: datetime) -> None:
        """Rows are pending but none can run yet; in the same transaction, it may write."""
