"""A private engine on a manual clock: the service's parts, built by ``App.build`` handed in as :class:`Compose`, with
all that could reach outside turned inward (:func:`sandbox_settings`). It never registers its lanes as the process's
nor starts the service's alarm clock, so it cannot take the service's work."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock, ManualClock
from promptpipe.config import Settings
from promptpipe.domain.messages import POLL_KINDS
from promptpipe.errors import AdminError, Conflict, NotFound
from promptpipe.flow.turn import TurnContext
from promptpipe.llm import LLM
from promptpipe.logging import get_logger
from promptpipe.pilot.alarms import Due, due_alarms
from promptpipe.pipeline.inbox import Inbox
from promptpipe.pipeline.lanes import Lanes
from promptpipe.pipeline.outbox import Outbox
from promptpipe.research.changes import Enrolment, enroll
from promptpipe.scheduling.deliver import deliver_alarms
from promptpipe.scheduling.jobs import DAILY
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.outbox_rows import next_release
from promptpipe.storage.schedules import alarm_plans
from promptpipe.study.store.protocol import adopt_protocol
from promptpipe.transport import PollVote, Transport, poll_option_hash
from promptpipe.transport.memory import MemoryTransport

__all__ = ["ALARM", "MOST_ALARMS", "RELEASE", "STOP_GRACE_S", "Compose", "Engine", "Sandbox", "sandbox_settings"]

log = get_logger("promptpipe.research.sandbox")

ALARM, RELEASE = "alarm", "release"
MOST_ALARMS = 50
"""The most alarms one move of the clock fires (a skip of a day or two fires a handful)."""
STOP_GRACE_S = 5.0
_MESSAGE = table_of(Message)


class Engine(Protocol):
    @property
    def inbox(self) -> Inbox: ...

    @property
    def lanes(self) -> Lanes[TurnContext]: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def llm(self) -> LLM: ...


class Compose(Protocol):
    """Builds the service's parts (with the settings' own model when ``llm`` is None)."""

    def __call__(self, settings: Settings, *, transport: Transport, clock: Clock, db: Database,
                 llm: LLM | None = None) -> Engine: ...


def sandbox_settings(settings: Settings, directory: Path) -> Settings:
    """The service's settings with the database and state in ``directory``, no alert webhook, no pacing, and the seed
    kept in its database (the study's own seed and allocation sequence stay untouched)."""
    return replace(settings, database_url=f"sqlite:///{directory / 'pilot.db'}", state_dir=directory,
                   alert_webhook_url=None, send_rate_per_s=0.0, send_jitter=0.0, api_listen="",
                   study=replace(settings.study, outside_seed=None))


class Sandbox:
    """One private engine and its participants. Not safe for two actions at once: callers act one at a time."""

    def __init__(self, *, settings: Settings, clock: ManualClock, db: Database, transport: MemoryTransport,
                 engine: Engine, directory: Path) -> None:
        self.settings, self.clock, self.db = settings, clock, db
        self.transport, self.engine, self.directory = transport, engine, directory
        self.started_at = clock.now()
        self.participants: list[str] = []
        self.closed = False
        self._fired: dict[str, datetime] = {}
        """When each daily schedule last fired here, by schedule."""

    @classmethod
    async def open(cls, settings: Settings, compose: Compose, *, now: datetime, by: str, llm: LLM | None = None,
                   prefix: str = "promptpipe-sandbox-") -> Sandbox:
        """A new sandbox whose clock reads ``now``, its study protocol adopted (by ``by``)."""
        directory = Path(tempfile.mkdtemp(prefix=prefix))
        sandbox = sandbox_settings(settings, directory)
        db, clock, transport = Database(sandbox.database_url), ManualClock(now), MemoryTransport()
        engine: Engine | None = None
        try:
            await db.connect()
            await db.run(lambda session: adopt_protocol(session, sandbox.study, allow_change=False, now=now, by=by))
            engine = compose(sandbox, transport=transport, clock=clock, db=db, llm=llm)
            await transport.start(engine.inbox.ingest)
        except BaseException:
            await _close(db, engine, transport, directory)
            raise
        return cls(settings=sandbox, clock=clock, db=db, transport=transport, engine=engine, directory=directory)

    async def enroll(self, phone: str, *, name: str, zone: str, by: str, background: str = "", place: int = 0) -> str:
        """Enrol a participant (greeted once the sandbox settles); returns their id. ``place`` spreads participants over
        a stratified study's levels in turn (0: each factor's first level)."""
        strata = {factor: levels[place % len(levels)] for factor, levels in self.settings.study.allocation.strata
                  if levels}
        enrolled = await enroll(self.db, self.clock, Enrolment(
            phone=phone, name=name, timezone=zone, by=by, background=background, study=self.settings.study,
            strata=strata, numbers=self.settings.number_plan))
        self.participants.append(enrolled.id)
        return enrolled.id

    async def say(self, phone: str, text: str) -> None:
        """Returns once the study has answered."""
        await self.transport.inject(phone, text, timestamp=self.clock.now())
        await self.settle()

    async def tap(self, phone: str, message_id: int, options: Sequence[str]) -> None:
        """Tap ``options`` of the poll ``message_id`` (all of them at once on a poll that takes several)."""
        poll = await self.db.run(lambda session: _poll(session, message_id))
        offered = tuple(str(option) for option in (poll.payload or {}).get("options", ()))
        chosen = tuple(dict.fromkeys(options))
        if not chosen or any(option not in offered for option in chosen):
            raise AdminError("Choose one of the options of this poll.")
        if len(chosen) > 1 and not (poll.payload or {}).get("multiple"):
            raise AdminError("This poll takes one option.")
        if poll.wa_message_id is None:
            raise Conflict("That poll has not reached the participant yet.")
        vote = PollVote(poll.wa_message_id, tuple(poll_option_hash(option) for option in chosen))
        await self.transport.inject(phone, "", vote=vote, timestamp=self.clock.now())
        await self.settle()

    # -- the clock ---------------------------------------------------------------------------------
    async def due(self) -> list[Due]:
        """Every alarm the service would hold for the sandbox's participants, earliest first."""
        ids = list(self.participants)
        plans = await self.db.run(lambda session: alarm_plans(session, ids))
        found = [due for plan in plans.values() for due in due_alarms(plan, self._fired, self.started_at,
                                                                       self.clock.now())]
        return sorted(found, key=lambda due: due.at)

    async def advance(self, until: datetime, *, most: int = MOST_ALARMS) -> int:
        """Fire each alarm due up to ``until`` and send each held message, in order; returns how many alarms fired."""
        fired = 0
        while fired < most:
            happened = await self.step(until)
            if happened is None:
                break
            fired += happened == ALARM
        if self.clock.now() < until:
            self.clock.set(until)
        return fired

    async def step(self, until: datetime) -> str | None:
        """Move the clock to the next alarm (:data:`ALARM`) or held message's time (:data:`RELEASE`) up to ``until``
        and let it happen; None when nothing comes before ``until``."""
        due = [d for d in await self.due() if d.at <= until]
        now = self.clock.now()
        release = await self.db.run(lambda session: next_release(session, now))
        if release is not None and release <= until and (not due or release < due[0].at):
            self.clock.set(release)
            await self.settle()
            return RELEASE
        if due:
            await self.fire(due[0])
            return ALARM
        return None

    async def fire(self, due: Due) -> None:
        """Fire one alarm at its own time, as the service's alarm clock would, and let it run."""
        if due.at > self.clock.now():
            self.clock.set(due.at)
        now = self.clock.now()
        delivered = await self.db.run(lambda session: deliver_alarms(
            self.db, session, [due.alarm], now, study=self.settings.study), urgent=True)
        if due.kind == DAILY:
            self._fired[due.alarm.ref] = due.at
        for participant_id in delivered.queued:
            self.engine.lanes.wake(participant_id)
        await self.settle()

    async def settle(self, most_passes: int = 100) -> None:
        """Run every turn and send everything that is due now (the service's loops, done once)."""
        lanes, outbox = self.engine.lanes, self.engine.outbox
        for _ in range(most_passes):
            batches = lanes.batches
            await lanes.poll_once()
            await lanes.wait_idle()
            sent = await outbox.settle_handed_over() + await outbox.dispatch_once()
            if lanes.batches == batches and sent == 0 and lanes.running == 0:
                return
        log.warning("sandbox_did_not_settle", passes=most_passes)

    async def close(self) -> None:
        """Stop its work, close its database and delete its files (each step even if one failed)."""
        if self.closed:
            return
        self.closed = True
        await _close(self.db, self.engine, self.transport, self.directory)


def _poll(session: Session, message_id: int) -> Message:
    poll = session.execute(select(Message).where(_MESSAGE.c.id == message_id)).scalars().first()
    if poll is None or poll.kind not in POLL_KINDS or poll.direction != "out":
        raise NotFound("There is no such poll in this conversation.")
    return poll


async def _close(db: Database, engine: Engine | None, transport: MemoryTransport, directory: Path) -> None:
    steps: list[Callable[[], Awaitable[object]]] = []
    if engine is not None:
        closer = getattr(engine.llm, "close", None)
        steps += [engine.lanes.stop, partial(engine.outbox.settle_handed_over, STOP_GRACE_S)]
        steps += [closer] if closer is not None else []
    for step in (*steps, transport.stop, db.close):
        with contextlib.suppress(Exception):
            await step()
    shutil.rmtree(directory, ignore_errors=True)
