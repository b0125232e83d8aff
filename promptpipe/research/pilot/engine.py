"""One pilot: a private engine with one sandbox participant, and what the team does with it (write as
them, tap a poll, skip ahead, read the conversation, end it).

The engine is the service's own parts (inbox, lanes, flow, outbox), built by the composition root
(``App.build``, handed in as :class:`Compose`: research may not import the app) from the service's
settings with everything that could reach outside turned inward (:func:`sandbox_settings`): a
temporary SQLite database of its own, a memory transport, no alert webhook, a study seed of its
own. Its clock is a manual one that follows the real time between the team's actions (so a pause
in the chat is a pause for the participant too) and jumps when they skip ahead; the alarms that
come due on the way are fired in order (:mod:`.alarms`). Nothing runs between actions: each one
ends when everything it set off is done (the model's answers included).

It never registers its lanes as the process's (:meth:`Lanes.serve_here`), never starts the
service's alarm clock, and logs with ``pilot`` bound, so it cannot take the service's work."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session
from structlog.contextvars import bound_contextvars

from promptpipe.clock import Clock, ManualClock
from promptpipe.config import Settings
from promptpipe.domain.limits import INBOUND_CHARS, NAME_CHARS
from promptpipe.domain.messages import POLL_KINDS, MessageStatus
from promptpipe.errors import AdminError, Conflict, NotFound
from promptpipe.flow.turn import TurnContext
from promptpipe.llm import LLM
from promptpipe.logging import get_logger
from promptpipe.pipeline.inbox import Inbox
from promptpipe.pipeline.lanes import Lanes
from promptpipe.pipeline.outbox import Outbox
from promptpipe.research import reports
from promptpipe.research._common import validate_text
from promptpipe.research.changes import enroll
from promptpipe.research.pilot.alarms import REMINDER_KINDS, Due, due_alarms, next_self_report, plan_of
from promptpipe.research.pilot.views import PilotMessage, PilotView, Skipped, SkipTo
from promptpipe.scheduling.deliver import deliver_alarms
from promptpipe.scheduling.jobs import DAILY
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.study import adopt_protocol
from promptpipe.transport import PollVote, Transport, poll_option_hash
from promptpipe.transport.memory import MemoryTransport

__all__ = ["PILOT_PHONE", "Compose", "Engine", "Pilot", "sandbox_settings"]

log = get_logger("promptpipe.research.pilot")

PILOT_PHONE = "+14165550100"
"""The sandbox participant's number: a fictional line (555-01xx), only ever in the pilot's database."""
PILOT_BY = "pilot mode"
MOST_ALARMS = 50
"""The most alarms one action fires (a skip of a day or two fires a handful)."""
MOST_SHOWN = 300
"""The newest messages a page shows."""
STOP_GRACE_S = 5.0
"""How long ending a pilot waits for an action under way (a model's answer) before cutting it."""
_MESSAGE = table_of(Message)
_ZERO = timedelta(0)


class Engine(Protocol):
    """The parts of the service a pilot runs (what ``App.build`` makes)."""

    @property
    def inbox(self) -> Inbox: ...

    @property
    def lanes(self) -> Lanes[TurnContext]: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def llm(self) -> LLM: ...


class Compose(Protocol):
    """Builds the service's parts from settings on the given database, clock and transport."""

    def __call__(self, settings: Settings, *, transport: Transport, clock: Clock, db: Database) -> Engine: ...


def sandbox_settings(settings: Settings, directory: Path) -> Settings:
    """The service's settings (protocol, prompts, model) with everything that could reach outside
    the sandbox turned inward: the database and state directory (its spool) in ``directory``, no
    alert webhook, no pacing (nothing goes to WhatsApp), the study's seed kept in its database
    (the study's own seed and allocation sequence stay untouched)."""
    return replace(settings, database_url=f"sqlite:///{directory / 'pilot.db'}", state_dir=directory,
                   alert_webhook_url=None, send_rate_per_s=0.0, send_jitter=0.0, api_listen="",
                   study=replace(settings.study, outside_seed=None))


def checked_name(name: str) -> str:
    if not name.strip():
        raise AdminError("Give the sandbox participant a name: the study greets them by it.")
    if "\n" in name.strip() or "\r" in name.strip():
        raise AdminError("The name is one line.")
    return validate_text("The name", name, NAME_CHARS, required=True)


def checked_text(text: str) -> str:
    """What a browser sent (its line breaks are CR LF) as the participant's message."""
    if not text.strip():
        raise AdminError("The message is empty: write what the sandbox participant says.")
    return validate_text("The message", text.replace("\r\n", "\n"), INBOUND_CHARS, required=True)


class Pilot:
    """A running pilot. Its actions run one at a time; each returns once everything it set off is done."""

    def __init__(self, *, owner: str, name: str, zone: str, settings: Settings, outer: Clock, clock: ManualClock,
                 db: Database, transport: MemoryTransport, engine: Engine, directory: Path,
                 participant_id: str) -> None:
        self.owner, self.name, self.zone, self.participant_id = owner, name, zone, participant_id
        self.settings, self.outer, self.clock = settings, outer, clock
        self.db, self.transport, self.engine, self.directory = db, transport, engine, directory
        self.started_at = clock.now()
        self.last_used = outer.now()
        """When the team last looked or acted (the outer clock): the desk ends pilots left idle."""
        self.closed = False
        self._mark = outer.now()
        self._fired: dict[str, datetime] = {}
        """When each daily schedule last fired here."""
        self._lock = asyncio.Lock()

    @classmethod
    async def start(cls, settings: Settings, compose: Compose, outer: Clock, *, owner: str, name: str,
                    zone: str) -> Pilot:
        """A new sandbox with its participant enrolled and greeted."""
        name = checked_name(name)
        directory = Path(tempfile.mkdtemp(prefix="promptpipe-pilot-"))
        sandbox = sandbox_settings(settings, directory)
        db, clock, transport = Database(sandbox.database_url), ManualClock(outer.now()), MemoryTransport()
        engine: Engine | None = None
        with bound_contextvars(pilot=owner):
            try:
                await db.connect()
                now = clock.now()
                await db.run(lambda session: adopt_protocol(session, sandbox.study, allow_change=False, now=now,
                                                            by=PILOT_BY))
                engine = compose(sandbox, transport=transport, clock=clock, db=db)
                await transport.start(engine.inbox.ingest)
                enrolled = await enroll(db, clock, phone=PILOT_PHONE, name=name, timezone=zone, by=PILOT_BY,
                                        study=sandbox.study)
                pilot = cls(owner=owner, name=name, zone=zone, settings=sandbox, outer=outer, clock=clock, db=db,
                            transport=transport, engine=engine, directory=directory, participant_id=enrolled.id)
                async with pilot._lock:
                    await pilot._settle()  # the greeting
            except BaseException:
                await _close(db, engine, transport, directory)
                raise
        log.info("pilot_started", pilot=owner)
        return pilot

    # -- what the team does ------------------------------------------------------------------------
    async def say(self, text: str) -> None:
        """Send ``text`` as the sandbox participant; returns once the study has answered."""
        text = checked_text(text)
        async with self._acting():
            await self.transport.inject(PILOT_PHONE, text, timestamp=self.clock.now())
            await self._settle()

    async def tap(self, message_id: int, options: Sequence[str]) -> None:
        """Tap ``options`` of the poll ``message_id`` (all of them at once on a poll that takes several)."""
        async with self._acting():
            poll = await self.db.run(lambda session: _poll(session, message_id))
            offered = tuple(str(option) for option in (poll.payload or {}).get("options", ()))
            chosen = tuple(dict.fromkeys(options))
            if not chosen or any(option not in offered for option in chosen):
                raise AdminError("Choose one of the options of this poll.")
            if len(chosen) > 1 and not (poll.payload or {}).get("multiple"):
                raise AdminError("This poll takes one option.")
            if poll.wa_message_id is None:
                raise Conflict("That poll has not reached the sandbox participant yet.")
            vote = PollVote(poll.wa_message_id, tuple(poll_option_hash(option) for option in chosen))
            await self.transport.inject(PILOT_PHONE, "", vote=vote, timestamp=self.clock.now())
            await self._settle()

    async def skip(self, what: SkipTo) -> Skipped:
        """Move the clock to ``what``, firing everything due on the way."""
        async with self._acting():
            target = await self._target(what)
            sent = len(self.transport.sent)
            fired = await self._advance(target)
            log.info("pilot_skipped", to=what.value, alarms=fired)
            return Skipped(target, fired, len(self.transport.sent) - sent)

    async def view(self) -> PilotView:
        """The conversation and the clock as they are now (the clock as it would read if they acted now)."""
        if self.closed:
            raise Conflict("This pilot has ended; start a new one.")
        self.last_used = self.outer.now()
        detail = await reports.show(self.db, PILOT_PHONE)
        rows = await reports.transcript(self.db, PILOT_PHONE, limit=MOST_SHOWN)
        messages = []
        for row in rows:
            options = tuple(str(option) for option in row.payload.get("options", ())) if row.kind in POLL_KINDS else ()
            messages.append(PilotMessage(
                id=row.id, at=datetime.fromisoformat(row.at), incoming=row.direction == "in", kind=row.kind,
                status=row.status, text=row.text, options=options, multiple=bool(row.payload.get("multiple")),
                tappable=bool(options) and row.whatsapp_id is not None and row.status == MessageStatus.SENT))
        return PilotView(owner=self.owner, name=self.name, zone=self.zone, started_at=self.started_at,
                         now=self.clock.now() + max(self.outer.now() - self._mark, _ZERO), status=detail.status,
                         stage=detail.sub_state, messages=tuple(messages), waiting=detail.inputs_waiting,
                         unsent=detail.replies_unsent)

    async def stop(self) -> None:
        """End it: stop its work, close its database and delete it."""
        if self.closed:
            return
        self.closed = True
        waited = False
        with contextlib.suppress(TimeoutError):  # else an answer still coming is cut off
            await asyncio.wait_for(self._lock.acquire(), STOP_GRACE_S)
            waited = True
        try:
            await _close(self.db, self.engine, self.transport, self.directory)
        finally:
            if waited:
                self._lock.release()
        log.info("pilot_ended", pilot=self.owner)

    # -- the clock ---------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _acting(self) -> AsyncIterator[None]:
        """One action at a time, logged as the pilot's, after the clock caught up with the real time."""
        if self.closed:
            raise Conflict("This pilot has ended; start a new one.")
        async with self._lock:
            if self.closed:
                raise Conflict("This pilot has ended; start a new one.")
            self.last_used = self.outer.now()
            with bound_contextvars(pilot=self.owner):
                elapsed = self.outer.now() - self._mark
                self._mark = self.outer.now()
                if elapsed > _ZERO:
                    await self._advance(self.clock.now() + elapsed)
                yield

    async def _target(self, what: SkipTo) -> datetime:
        if what is SkipTo.SELF_REPORT:
            if self.settings.study.self_report is None:
                raise NotFound("This study has no end-of-day self-report.")
            when = await self.db.run(lambda session: next_self_report(session, self.participant_id))
            if when is None:
                raise NotFound("No self-report is planned yet: they are planned from the first study day on.")
            return max(when, self.clock.now())
        due = await self._due()
        wanted = [d.at for d in due if (d.kind == DAILY if what is SkipTo.PROMPT else d.kind in REMINDER_KINDS)]
        if not wanted:
            raise NotFound("No daily prompt is scheduled yet: one is, once the sandbox participant has chosen a "
                           "time in the conversation." if what is SkipTo.PROMPT else
                           "No reminder is waiting: one is set when a daily prompt goes unanswered (if the study "
                           "sends reminders), or when an unfinished intake was put on hold.")
        return max(wanted[0], self.clock.now())

    async def _due(self) -> list[Due]:
        plan = await self.db.run(lambda session: plan_of(session, self.participant_id))
        return due_alarms(plan, self._fired, self.started_at, self.clock.now())

    async def _advance(self, until: datetime) -> int:
        """Fire, in order, each alarm due up to ``until`` at its own time (letting all it sets off
        happen), then set the clock to ``until``. Returns how many were fired."""
        fired = 0
        while fired < MOST_ALARMS:
            due = [d for d in await self._due() if d.at <= until]
            if not due:
                break
            await self._fire(due[0])
            await self._settle()
            fired += 1
        if self.clock.now() < until:
            self.clock.set(until)
        return fired

    async def _fire(self, due: Due) -> None:
        """Fire one alarm at its own time, as the service's alarm clock would."""
        if due.at > self.clock.now():
            self.clock.set(due.at)
        now = self.clock.now()
        delivered = await self.db.run(lambda session: deliver_alarms(
            self.db, session, [due.alarm], now, study=self.settings.study), urgent=True)
        if due.kind == DAILY:
            self._fired[due.alarm.ref] = due.at
        for participant_id in delivered.queued:
            self.engine.lanes.wake(participant_id)

    async def _settle(self, most_passes: int = 100) -> None:
        """Run every turn and send everything that is due now (the service's loops, done once)."""
        lanes, outbox = self.engine.lanes, self.engine.outbox
        for _ in range(most_passes):
            batches = lanes.batches
            await lanes.poll_once()
            await lanes.wait_idle()
            sent = await outbox.settle_handed_over() + await outbox.dispatch_once()
            if lanes.batches == batches and sent == 0 and lanes.running == 0:
                return
        log.warning("pilot_did_not_settle", passes=most_passes)



def _poll(session: Session, message_id: int) -> Message:
    poll = session.execute(select(Message).where(_MESSAGE.c.id == message_id)).scalars().first()
    if poll is None or poll.kind not in POLL_KINDS or poll.direction != "out":
        raise NotFound("There is no such poll in this pilot's conversation.")
    return poll


async def _close(db: Database, engine: Engine | None, transport: MemoryTransport, directory: Path) -> None:
    """Stop the engine's work and close its database (each step even if one before failed), then
    delete the pilot's files."""
    if engine is not None:
        with contextlib.suppress(Exception):
            await engine.lanes.stop()
        with contextlib.suppress(Exception):
            await engine.outbox.settle_handed_over(STOP_GRACE_S)
        closer = getattr(engine.llm, "close", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
    with contextlib.suppress(Exception):
        await transport.stop()
    with contextlib.suppress(Exception):
        await db.close()
    shutil.rmtree(directory, ignore_errors=True)
