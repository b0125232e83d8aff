"""How the team's changes reach a participant's lane: a :class:`TeamChange` row, then its outcome. With no service to
take it within :data:`WAIT_FOR_SERVICE_S`, the asker claims and applies it itself, exactly once."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.flow.lifecycle import greet_if_never_greeted
from promptpipe.flow.team_changes import TeamOutcome, apply_team_change
from promptpipe.pipeline.events import TeamChange, as_input
from promptpipe.pipeline.lanes import lanes_here
from promptpipe.pipeline.turn_writes import apply_writes
from promptpipe.questionnaires.conversation.queue import tend
from promptpipe.research._common import ask_for_alarm_sync
from promptpipe.scheduling.guard import service_holds
from promptpipe.storage.conversations import load_turn_state, save_turn_state
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import InboxRow, add_input, get_input, merge_inbox_payload
from promptpipe.storage.models import table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus
from promptpipe.study.rules.protocol import Study

__all__ = ["WAIT_FOR_SERVICE_S", "commit_here", "request_change"]

WAIT_FOR_SERVICE_S = 10.0
POLL_S = 0.05
FIRST_POLL_S = 0.002
"""A lane in this process applies a change in milliseconds, so the wait doubles from here up to :data:`POLL_S`."""
_INBOX = table_of(InboxItem)


async def request_change(db: Database, clock: Clock, participant_id: str, change: TeamChange, *,
                         study: Study) -> TeamOutcome:
    """Write the change for the participant's lane and wait for its outcome."""
    now = clock.now()
    key = keys.team_change(participant_id, secrets.token_hex(6))
    row_id = await db.run(lambda session: add_input(db, session, as_input(change, key=key,
                                                                          participant_id=participant_id), now))
    assert row_id is not None
    here = lanes_here()
    if here is not None:
        here.wake(participant_id)
    served = here is not None or await asyncio.to_thread(service_holds, db, db.engine)
    deadline = time.monotonic() + (WAIT_FOR_SERVICE_S if served else 0.0)
    pause = FIRST_POLL_S
    while True:
        outcome = await db.run(lambda session: _outcome(session, row_id))
        if outcome is not None:
            return outcome
        if time.monotonic() >= deadline:
            applied = await db.run(lambda session: _apply_here(db, session, row_id, participant_id, change, study,
                                                                clock.now()))
            if applied is not None:
                return applied
        await asyncio.sleep(pause)
        pause = min(pause * 2, POLL_S)


def commit_here(db: Database, session: Session, state: TurnState, study: Study, now: datetime) -> None:
    """Write a state the team changed outside the lane as the lane's commit would: questionnaires (unless
    ``OPEN_STUDY``), the state, a greeting it asks for and the alarms."""
    if study.questionnaires:
        apply_writes(session, tend(state, study, (), now), {})
    save_turn_state(session, state, now)
    greet_if_never_greeted(db, session, state, now)
    ask_for_alarm_sync(db, session, state.participant.id, now)


def _outcome(session: Session, row_id: int) -> TeamOutcome | None:
    row = get_input(session, row_id)
    if row is None or row.status != InboxStatus.DONE:
        return None
    return TeamOutcome.from_payload(dict(row.payload or {})) or TeamOutcome("{who}: the change was not applied "
                                                                             "(its input was closed)", "invalid")


def _apply_here(db: Database, session: Session, row_id: int, participant_id: str, change: TeamChange,
                study: Study, now: datetime) -> TeamOutcome | None:
    """One transaction: claim the row (None if a lane has it), apply the change, write it all."""
    claimed = session.connection().execute(
        update(_INBOX).where(_INBOX.c.id == row_id, _INBOX.c.status == InboxStatus.PENDING)
        .values(status=InboxStatus.DONE, processed_at=now)).rowcount
    if not claimed:
        return None
    state = load_turn_state(session, participant_id)
    outcome = apply_team_change(state, change, study, now)
    if outcome.refused is None:
        commit_here(db, session, state, study, now)
    item = InboxRow(row_id, participant_id, TeamChange.INBOX_KIND, change.to_payload(), None, 0, now)
    merge_inbox_payload(session, item, **outcome.to_payload())
    return outcome
