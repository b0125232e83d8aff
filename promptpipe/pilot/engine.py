"""One pilot: a :class:`~.sandbox.Sandbox` with one participant, and what the team does with it. Its clock follows
real time between actions (a pause in the chat is a pause for the participant too) and jumps when they skip ahead."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta

from structlog.contextvars import bound_contextvars

from promptpipe.clock import Clock
from promptpipe.config import Settings
from promptpipe.domain.limits import INBOUND_CHARS, NAME_CHARS
from promptpipe.domain.messages import POLL_KINDS, MessageStatus
from promptpipe.errors import AdminError, Conflict, NotFound
from promptpipe.logging import get_logger
from promptpipe.pilot.alarms import REMINDER_KINDS, next_self_report
from promptpipe.pilot.sandbox import STOP_GRACE_S, Compose, Sandbox
from promptpipe.pilot.views import PilotMessage, PilotView, Skipped, SkipTo, in_sent_order
from promptpipe.research import reports
from promptpipe.research._common import validate_text
from promptpipe.scheduling.jobs import DAILY

__all__ = ["PILOT_PHONE", "Compose", "Pilot"]

log = get_logger("promptpipe.pilot")

PILOT_PHONE = "+14165550100"
"""A fictional line (555-01xx), only ever in the pilot's database."""
PILOT_BY = "pilot mode"
MOST_SHOWN = 300
_ZERO = timedelta(0)


def checked_name(name: str) -> str:
    if not name.strip():
        raise AdminError("Give the sandbox participant a name: the study greets them by it.")
    if "\n" in name.strip() or "\r" in name.strip():
        raise AdminError("The name is one line.")
    return validate_text("The name", name, NAME_CHARS, required=True)


def checked_text(text: str) -> str:
    """What a browser sent (its line breaks are CR LF)."""
    if not text.strip():
        raise AdminError("The message is empty: write what the sandbox participant says.")
    return validate_text("The message", text.replace("\r\n", "\n"), INBOUND_CHARS, required=True)


class Pilot:
    """A running pilot. Its actions run one at a time; each returns once everything it set off is done."""

    def __init__(self, *, owner: str, name: str, zone: str, outer: Clock, sandbox: Sandbox,
                 participant_id: str) -> None:
        self.owner, self.name, self.zone, self.participant_id = owner, name, zone, participant_id
        self.sandbox, self.outer = sandbox, outer
        self.settings, self.clock, self.db = sandbox.settings, sandbox.clock, sandbox.db
        self.transport, self.directory = sandbox.transport, sandbox.directory
        self.started_at = sandbox.started_at
        self.last_used = outer.now()
        """On the outer clock: the desk ends pilots left idle."""
        self._mark = outer.now()
        self._lock = asyncio.Lock()
        self._ending = False

    @property
    def closed(self) -> bool:
        return self._ending or self.sandbox.closed

    @classmethod
    async def start(cls, settings: Settings, compose: Compose, outer: Clock, *, owner: str, name: str,
                    zone: str) -> Pilot:
        name = checked_name(name)
        with bound_contextvars(pilot=owner):
            sandbox = await Sandbox.open(settings, compose, now=outer.now(), by=PILOT_BY, prefix="promptpipe-pilot-")
            try:
                participant_id = await sandbox.enroll(PILOT_PHONE, name=name, zone=zone, by=PILOT_BY)
                pilot = cls(owner=owner, name=name, zone=zone, outer=outer, sandbox=sandbox,
                            participant_id=participant_id)
                async with pilot._lock:
                    await sandbox.settle()  # the greeting
            except BaseException:
                await sandbox.close()
                raise
        log.info("pilot_started", pilot=owner)
        return pilot

    # -- what the team does ------------------------------------------------------------------------
    async def say(self, text: str) -> None:
        """Send ``text`` as the sandbox participant; returns once the study has answered."""
        text = checked_text(text)
        async with self._acting():
            await self.sandbox.say(PILOT_PHONE, text)

    async def tap(self, message_id: int, options: Sequence[str]) -> None:
        async with self._acting():
            await self.sandbox.tap(PILOT_PHONE, message_id, options)

    async def skip(self, what: SkipTo) -> Skipped:
        """Move the clock to ``what``, firing everything due on the way."""
        async with self._acting():
            target = await self._target(what)
            sent = len(self.transport.sent)
            fired = await self.sandbox.advance(target)
            log.info("pilot_skipped", to=what.value, alarms=fired)
            return Skipped(target, fired, len(self.transport.sent) - sent)

    async def view(self) -> PilotView:
        """The conversation and the clock (as it would read if they acted now)."""
        if self.closed:
            raise Conflict("This pilot has ended; start a new one.")
        self.last_used = self.outer.now()
        detail = await reports.show(self.db, PILOT_PHONE)
        rows = await reports.transcript(self.db, PILOT_PHONE, limit=MOST_SHOWN)
        messages: list[PilotMessage] = []
        sent_at = {row.id: datetime.fromisoformat(row.sent_at) for row in rows if row.sent_at}
        for row in rows:
            options = tuple(str(option) for option in row.payload.get("options", ())) if row.kind in POLL_KINDS else ()
            messages.append(PilotMessage(
                id=row.id, at=datetime.fromisoformat(row.at), incoming=row.direction == "in", kind=row.kind,
                status=row.status, text=row.text, options=options, multiple=bool(row.payload.get("multiple")),
                tappable=bool(options) and row.whatsapp_id is not None and row.status == MessageStatus.SENT))
        return PilotView(owner=self.owner, name=self.name, zone=self.zone, started_at=self.started_at,
                         now=self.clock.now() + max(self.outer.now() - self._mark, _ZERO), status=detail.status,
                         stage=detail.sub_state, messages=in_sent_order(messages, sent_at),
                         waiting=detail.inputs_waiting, unsent=detail.replies_unsent)

    async def stop(self) -> None:
        if self.closed:
            return
        self._ending = True
        waited = False
        with contextlib.suppress(TimeoutError):  # else an answer still coming is cut off
            await asyncio.wait_for(self._lock.acquire(), STOP_GRACE_S)
            waited = True
        try:
            await self.sandbox.close()
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
                    await self.sandbox.advance(self.clock.now() + elapsed)
                yield

    async def _target(self, what: SkipTo) -> datetime:
        if what is SkipTo.SELF_REPORT:
            if self.settings.study.self_report is None:
                raise NotFound("This study has no end-of-day self-report.")
            when = await self.db.run(lambda session: next_self_report(session, self.participant_id))
            if when is None:
                raise NotFound("No self-report is planned yet: they are planned from the first study day on.")
            return max(when, self.clock.now())
        due = await self.sandbox.due()
        wanted = [d.at for d in due if (d.kind == DAILY if what is SkipTo.PROMPT else d.kind in REMINDER_KINDS)]
        if not wanted:
            raise NotFound("No daily prompt is scheduled yet: one is, once the sandbox participant has chosen a "
                           "time in the conversation." if what is SkipTo.PROMPT else
                           "No reminder is waiting: one is set when a daily prompt goes unanswered (if the study "
                           "sends reminders), or when an unfinished intake was put on hold.")
        return max(wanted[0], self.clock.now())
