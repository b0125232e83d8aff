"""Per-participant lanes: inbox rows run strictly in order for one participant, and
concurrently (bounded by one semaphore) across participants.

A lane drains its participant's pending rows batch by batch. Consecutive text messages fold into
one batch, so messages that arrive while a turn runs are answered together by the next turn.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.errors import LLMUnavailable
from promptpipe.logging import get_logger
from promptpipe.storage.conversations import VersionConflict
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import InboxRow, participants_with_due_inbox, pending_inbox

log = get_logger("promptpipe.pipeline.lanes")

TURN_TIMEOUT = timedelta(minutes=5)
FOLDABLE_KINDS = ("message",)

C = TypeVar("C")


class TurnRunner(Protocol[C]):
    """What a lane hands its batches to (the conversation flow)."""

    def load(self, session: Session, participant_id: str, batch: list[InboxRow]) -> C:
        """Read what the turn needs, inside the same transaction that picked the batch."""

    async def run(self, participant_id: str, batch: list[InboxRow], context: C) -> bool:
        """Run the batch; True when part of it is still pending and should run at once."""

    async def record_failure(self, participant_id: str, batch: list[InboxRow], error: BaseException) -> None:
        """The batch failed: keep it for a retry."""

    def blocked(self, session: Session, participant_id: str, rows: list[InboxRow], now: datetime) -> None:
        """Rows are pending but none can run yet (the first waits for its retry); called in the
        same transaction, it may write (tell a participant whose message waits behind it)."""


def select_batch(rows: list[InboxRow], now: datetime) -> list[InboxRow]:
    """The next batch to run: the leading run of messages (due if any of them is due), or the
    first other row alone (if due). Empty when nothing is due yet."""
    if not rows:
        return []
    first = rows[0]
    if first.kind not in FOLDABLE_KINDS:
        return [first] if first.available_at <= now else []
    run: list[InboxRow] = []
    for row in rows:
        if row.kind not in FOLDABLE_KINDS:
            break
        run.append(row)
    return run if any(row.available_at <= now for row in run) else []


class Lanes(Generic[C]):
    def __init__(
        self, db: Database, clock: Clock, runner: TurnRunner[C], *, concurrency: int,
        turn_timeout: timedelta = TURN_TIMEOUT, on_batch_done: Callable[[], None] | None = None,
    ) -> None:
        self.db, self.clock, self.runner = db, clock, runner
        self._semaphore = asyncio.Semaphore(concurrency)
        self._concurrency = concurrency
        self._turn_timeout_s = turn_timeout.total_seconds()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._rerun: set[str] = set()
        self._on_batch_done = on_batch_done
        self.batches = 0

    def __repr__(self) -> str:
        return f"<Lanes running={len(self._tasks)} batches={self.batches}>"

    @property
    def running(self) -> int:
        return len(self._tasks)

    def wake(self, participant_id: str) -> None:
        """Make sure a lane looks at this participant soon (now, or right after its current pass)."""
        if participant_id in self._tasks:
            self._rerun.add(participant_id)
            return
        task = asyncio.create_task(self._lane(participant_id), name=f"lane:{participant_id}")
        self._tasks[participant_id] = task
        task.add_done_callback(functools.partial(self._reap, participant_id))

    async def poll_once(self) -> int:
        """Wake lanes for every participant with due rows (written here, by another process, or
        due for a retry). Returns how many lanes were started."""
        now, limit = self.clock.now(), self._concurrency * 4
        due = await self.db.run(lambda session: participants_with_due_inbox(session, now, limit))
        started = 0
        for participant_id in due:
            if participant_id not in self._tasks:
                self.wake(participant_id)
                started += 1
        return started

    async def wait_idle(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    def _reap(self, participant_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(participant_id) is task:
            del self._tasks[participant_id]
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("lane_crashed", participant_id=participant_id, error=repr(exc))
        if participant_id in self._rerun:
            self._rerun.discard(participant_id)
            self.wake(participant_id)

    async def _lane(self, participant_id: str) -> None:
        async with self._semaphore:
            while True:
                self._rerun.discard(participant_id)
                now = self.clock.now()
                found = await self.db.run(functools.partial(self._next_batch, participant_id=participant_id, now=now))
                if found is None:
                    return
                batch, waiting, context = found
                again = await self._run_batch(participant_id, batch, context)
                # Look again only if something may be waiting: rows beyond this batch, a message
                # that arrived during the turn, or a turn to repeat. (Rows written by another
                # process are found by the poller.)
                if not (again or waiting > len(batch) or participant_id in self._rerun):
                    return

    def _next_batch(self, session: Session, participant_id: str, now: datetime) -> tuple[list[InboxRow], int, C] | None:
        """One transaction: the pending rows, the batch to run, and the context of its turn."""
        rows = pending_inbox(session, participant_id)
        batch = select_batch(rows, now)
        if not batch:
            if rows:
                self.runner.blocked(session, participant_id, rows, now)
            return None
        return batch, len(rows), self.runner.load(session, participant_id, batch)

    async def _run_batch(self, participant_id: str, batch: list[InboxRow], context: C) -> bool:
        """Run one batch; True when it should run again at once (a version conflict)."""
        self.batches += 1
        again = False
        try:
            again = bool(await asyncio.wait_for(self.runner.run(participant_id, batch, context), self._turn_timeout_s))
        except VersionConflict:
            log.info("turn_conflict_retry", participant_id=participant_id)
            return True
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            await self.runner.record_failure(participant_id, batch, LLMUnavailable("the turn took too long"))
        except Exception as exc:
            await self.runner.record_failure(participant_id, batch, exc)
        if self._on_batch_done is not None:
            self._on_batch_done()
        return again
