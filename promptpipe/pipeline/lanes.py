"""Per-participant lanes: one participant's inbox rows strictly in order, participants concurrently. An urgent message
(STOP, crisis words) never waits for the model: a turn still waiting on it is set aside (it has written nothing yet)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from datetime import datetime, timedelta
from typing import Any, Generic

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.errors import LLMUnavailable
from promptpipe.logging import get_logger
from promptpipe.pipeline.batches import (
    FIRST_KINDS,
    FOLDABLE_KINDS,
    C,
    FirstLook,
    TurnRunner,
    needs_no_model,
    select_batch,
)
from promptpipe.pipeline.sharing import Sharing
from promptpipe.storage.conversations import VersionConflict
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import DueInputs, InboxRow, due_inputs, pending_inbox, pending_messages
from promptpipe.storage.participants import number_of

log = get_logger("promptpipe.pipeline.lanes")

TURN_TIMEOUT = timedelta(minutes=5)
TURN_SLOTS_PER_MODEL_CALL = 2
"""Turns under way per model call allowed at once: a turn's read and commit overlap others' calls."""

_here: tuple[Lanes[Any], asyncio.AbstractEventLoop] | None = None
_BLOCKED: tuple[list[InboxRow], int, Any, bool] = ([], 0, None, False)
"""What a first look found (this very object): rows pending, none can run yet (the lane looks itself, and may write)."""


def lanes_here() -> Lanes[Any] | None:
    """The lanes of the service running in this event loop, if any (the API and the dashboard share serve's loop)."""
    if _here is None:
        return None
    lanes, loop = _here
    try:
        return lanes if asyncio.get_running_loop() is loop else None
    except RuntimeError:
        return None


class Lanes(Generic[C]):
    def __init__(
        self, db: Database, clock: Clock, runner: TurnRunner[C], *, concurrency: int,
        turn_timeout: timedelta = TURN_TIMEOUT,
    ) -> None:
        self.db, self.clock, self.runner = db, clock, runner
        self._semaphore = asyncio.Semaphore(concurrency)
        self._free_slots = concurrency * TURN_SLOTS_PER_MODEL_CALL
        """Bounds turns under way, else a burst of due prompts reads every context at once (urgent work takes none)."""
        self._parked: dict[str, None] = {}
        """Lanes waiting for a slot, in order: ids, not tasks (10,000 waiting tasks made each full garbage collection
        stall the event loop for ~100 ms)."""
        self._slot_waiters: dict[str, asyncio.Future[bool]] = {}
        """Running lanes waiting for a slot: served before parked ones; False lets them go without one."""
        self._go_first: set[str] = set()
        """Lanes whose turn was set aside for an urgent input: their next read takes no slot."""
        self._stopping = False
        self._concurrency = concurrency
        self._turn_timeout_s = turn_timeout.total_seconds()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._rerun: set[str] = set()
        self._deciding: dict[str, tuple[asyncio.Task[Any], set[int]]] = {}
        self._interrupted: set[str] = set()
        self._checks: set[asyncio.Task[None]] = set()
        self._seen_up_to: dict[str, int] = {}
        """Per running lane, the newest due row the poll has had checked for urgency."""
        self._ended_since_poll: set[str] = set()
        """Lanes that ended since the poll's last read began (it must not wake them for rows it saw)."""
        self.sharing: Sharing | None = None
        """Several services: only participants of the numbers this one holds have their turns here."""
        self.batches = 0

    def __repr__(self) -> str:
        return f"<Lanes running={len(self._tasks)} batches={self.batches}>"

    @property
    def running(self) -> int:
        return len(self._tasks)

    def serve_here(self, serving: bool = True) -> None:
        global _here
        if serving:
            _here = (self, asyncio.get_running_loop())
        elif _here is not None and _here[0] is self:
            _here = None

    def first_look(self, session: Session, participant_id: str, now: datetime,
                   pending: list[InboxRow] | None = None) -> FirstLook[C] | None:
        """What an idle lane reads first, read as the input is stored (a failed look, in a savepoint, keeps it)."""
        if self._has_lane(participant_id) or not self._free_slots:  # read on the database thread: a
            return None  # stale answer costs a look; with every slot taken, the lane reads once it has one
        try:
            # The look writes nothing (rows that cannot run yet: the lane looks itself). A failed read leaves SQLite's
            # transaction as it was, so only PostgreSQL's needs the savepoint (~17 µs through SQLAlchemy).
            with contextlib.nullcontext() if self.db.is_sqlite else session.begin_nested():
                found = self._next_batch(session, participant_id, now, pending, looking=True)
        except Exception as exc:
            log.warning("first_look_failed", participant_id=participant_id, error=repr(exc)[:200])
            return None
        return None if found is _BLOCKED else FirstLook(found)

    def wake(self, participant_id: str, looked: FirstLook[C] | None = None) -> None:
        """Make sure a lane looks at this participant soon; ``looked``: what :meth:`first_look` read."""
        if self._has_lane(participant_id):
            if participant_id in self._tasks:
                self._rerun.add(participant_id)
            if participant_id in self._deciding or self._waits_for_slot(participant_id):
                check = asyncio.create_task(self._interrupt_if_urgent(participant_id))
                self._checks.add(check)
                check.add_done_callback(self._checks.discard)
            return
        if looked is not None and looked.found is None:
            return
        first = looked.found if looked is not None else None
        if first is not None and first[3]:  # urgent: its lane needs no slot
            self._start(participant_id, first, holding=False)
        elif self._free_slots:
            self._free_slots -= 1
            self._start(participant_id, first, holding=True)
        else:
            self._parked[participant_id] = None  # what was looked at is read again once a slot frees

    async def poll_once(self) -> int:
        """Wake lanes for every participant with due rows; returns how many lanes were started."""
        now, limit = self.clock.now(), self._concurrency * 4
        self._ended_since_poll.clear()
        numbers = self.sharing.numbers() if self.sharing is not None else None
        due = await self.db.run(lambda session: due_inputs(session, now, limit, numbers))
        started = 0
        for participant_id in due.participants:
            # a lane that ended while the poll read ran has committed the rows the poll saw pending
            if not self._has_lane(participant_id) and participant_id not in self._ended_since_poll:
                self.wake(participant_id)
                started += 1
        # A STOP another process stored: look only at lanes with a due row not looked at yet (not all each cycle)
        waiting = [pid for pid in dict.fromkeys([*self._deciding, *self._slot_waiters, *self._parked])
                   if self._unseen_rows(pid, due)]
        if waiting:
            await self._interrupt_if_urgent(*waiting)  # wakes no lane
        return started

    def _unseen_rows(self, participant_id: str, due: DueInputs) -> bool:
        """Whether the poll found a due row of theirs unseen since their lane began (yes if it could not read all)."""
        if not due.complete:
            return True
        in_batch = self._deciding[participant_id][1] if participant_id in self._deciding else set()
        seen = self._seen_up_to.get(participant_id, 0)
        unseen = [row_id for row_id in due.row_ids.get(participant_id, ()) if row_id not in in_batch and row_id > seen]
        if unseen:
            self._seen_up_to[participant_id] = max(unseen)
        return bool(unseen)

    async def wait_idle(self) -> None:
        while self._tasks:  # a parked lane starts when a running one frees its slot
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def stop(self) -> None:
        self._stopping = True
        self._parked.clear()
        for task in [*self._checks, *self._tasks.values()]:
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    def _has_lane(self, participant_id: str) -> bool:
        return participant_id in self._tasks or participant_id in self._parked

    def _waits_for_slot(self, participant_id: str) -> bool:
        return participant_id in self._parked or participant_id in self._slot_waiters

    def _start(self, participant_id: str, first: tuple[list[InboxRow], int, C, bool] | None, *,
               holding: bool) -> None:
        task = asyncio.create_task(self._lane(participant_id, first, holding), name=f"lane:{participant_id}")
        self._tasks[participant_id] = task
        task.add_done_callback(functools.partial(self._reap, participant_id))

    def _reap(self, participant_id: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(participant_id) is task:
            del self._tasks[participant_id]
            self._seen_up_to.pop(participant_id, None)
            self._ended_since_poll.add(participant_id)
        if task.cancelled():
            return
        if (exc := task.exception()) is not None:
            log.error("lane_crashed", participant_id=participant_id, error=repr(exc))
        if participant_id in self._rerun:
            self._rerun.discard(participant_id)
            self.wake(participant_id)

    async def _lane(self, participant_id: str, first: tuple[list[InboxRow], int, C, bool] | None = None,
                    holding: bool = False) -> None:
        try:
            while True:
                self._rerun.discard(participant_id)
                found: tuple[list[InboxRow], int, C, bool] | None = None
                go_first = participant_id in self._go_first  # its turn was set aside for an urgent input
                self._go_first.discard(participant_id)
                if first is not None:
                    found, first = first, None
                    if not found[3] and not holding and not go_first:
                        holding = await self._take_slot(participant_id)
                        if not holding:  # let go for an urgent input, which the batch read earlier lacks
                            found, go_first = None, True
                if found is None:
                    if not holding and not go_first:
                        holding = await self._take_slot(participant_id)
                    found = await self.db.run(functools.partial(self._next_batch, participant_id=participant_id,
                                                                now=self.clock.now()))
                if found is None:
                    return
                batch, waiting, context, urgent = found
                again = await self._run_batch(participant_id, batch, context, urgent=urgent)
                # Look again only if something may be waiting (rows written by another process: the poller finds them)
                if not (again or waiting > len(batch) or participant_id in self._rerun):
                    return
        finally:
            if holding:
                self._release_slot()

    async def _take_slot(self, participant_id: str) -> bool:
        """Take a turn slot (True), or go without one for an urgent input (False): a STOP waits for nobody's turn."""
        if self._free_slots:
            self._free_slots -= 1
            return True
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._slot_waiters[participant_id] = waiter
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.result():
                self._release_slot()  # handed over as the lane was cancelled
            raise
        finally:
            if self._slot_waiters.get(participant_id) is waiter:
                del self._slot_waiters[participant_id]

    def _release_slot(self) -> None:
        """Hand a freed slot to a waiting running lane, else to the first parked lane, else keep it free."""
        while self._slot_waiters:
            participant_id = next(iter(self._slot_waiters))
            waiter = self._slot_waiters.pop(participant_id)
            if not waiter.done():
                waiter.set_result(True)
                return
        if self._parked and not self._stopping:
            participant_id = next(iter(self._parked))
            del self._parked[participant_id]
            self._start(participant_id, None, holding=True)
            return
        self._free_slots += 1

    def _next_batch(
        self, session: Session, participant_id: str, now: datetime, pending: list[InboxRow] | None = None, *,
        looking: bool = False,
    ) -> tuple[list[InboxRow], int, C, bool] | None:
        """One transaction: the batch, how many rows are pending, its context and whether it is urgent. ``looking``
        (:meth:`first_look`): write nothing; rows pending that cannot run yet come back as ``_BLOCKED``. Nothing for
        a participant whose number is not served here (read with the turn's context: no round trip of its own)."""
        rows = pending_inbox(session, participant_id) if pending is None else pending
        messages = [row for row in rows if row.kind in FOLDABLE_KINDS]
        urgent = self.runner.urgent(session, messages) if messages else set()
        batch = select_batch(rows, now, urgent)
        if not batch:
            if rows and looking:
                return _BLOCKED
            if rows and (self.sharing is None or self.sharing.owns(number_of(session, participant_id))):
                self.runner.blocked(session, participant_id, rows, now)
            return None
        context = self.runner.load(session, participant_id, batch)
        if self.sharing is not None and not self.sharing.owns(self.runner.number(context)):
            return None
        return batch, len(rows), context, bool(urgent) or batch[0].kind in FIRST_KINDS

    async def _interrupt_if_urgent(self, *participant_ids: str) -> None:
        """Set aside each of these participants' turns that an urgent message arrived behind."""
        deciding = {pid: self._deciding[pid] for pid in participant_ids if pid in self._deciding}
        queued = {pid for pid in participant_ids if self._waits_for_slot(pid) and pid not in deciding}
        if not deciding and not queued:
            return

        def urgent_waiting(session: Session) -> set[str]:
            rows = [row for row in pending_messages(session, [*deciding, *queued], FOLDABLE_KINDS + FIRST_KINDS)
                    if row.participant_id not in deciding or row.id not in deciding[row.participant_id][1]]
            messages = [row for row in rows if row.kind in FOLDABLE_KINDS]
            urgent = self.runner.urgent(session, messages) if messages else set()
            return {row.participant_id for row in rows if row.id in urgent or row.kind in FIRST_KINDS}

        for participant_id in await self.db.run(urgent_waiting):
            if participant_id in queued:  # waiting for a turn slot: it goes at once instead
                self._go_without_slot(participant_id)
                continue
            task = deciding[participant_id][0]
            if self._deciding.get(participant_id) == deciding[participant_id] and not task.done():
                self._interrupted.add(participant_id)
                task.cancel()

    def _go_without_slot(self, participant_id: str) -> None:
        """An urgent input waits behind a lane waiting for a slot: that lane goes at once."""
        waiter = self._slot_waiters.pop(participant_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(False)
        elif participant_id in self._parked and participant_id not in self._tasks:
            del self._parked[participant_id]
            self._go_first.add(participant_id)
            self._start(participant_id, None, holding=False)

    async def _decide(self, participant_id: str, batch: list[InboxRow], context: C, *, urgent: bool) -> Any:
        # a command or crisis words, and what needs no model, do not queue behind other participants' model calls
        async with contextlib.nullcontext() if urgent or all(map(needs_no_model, batch)) else self._semaphore:
            return await self.runner.decide(participant_id, batch, context)

    async def _run_batch(self, participant_id: str, batch: list[InboxRow], context: C, *, urgent: bool) -> bool:
        """Run one batch; True when it should run again at once (a version conflict, or set aside)."""
        self.batches += 1
        again = False
        deciding = asyncio.create_task(self._decide(participant_id, batch, context, urgent=urgent))
        self._deciding[participant_id] = (deciding, {row.id for row in batch})
        try:
            try:
                outcome = await asyncio.wait_for(deciding, self._turn_timeout_s)
            finally:
                self._deciding.pop(participant_id, None)
            again = bool(await self.runner.commit(participant_id, batch, context, outcome))
        except VersionConflict:
            log.info("turn_conflict_retry", participant_id=participant_id)
            return True
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if participant_id in self._interrupted and (current is None or not current.cancelling()):
                self._interrupted.discard(participant_id)
                self._go_first.add(participant_id)  # the urgent input waits for no turn slot
                log.info("turn_set_aside_for_urgent_message", participant_id=participant_id)
                return True
            raise
        except TimeoutError:
            await self.runner.record_failure(participant_id, batch, LLMUnavailable("the turn took too long"))
        except Exception as exc:
            await self.runner.record_failure(participant_id, batch, exc)
        return again
