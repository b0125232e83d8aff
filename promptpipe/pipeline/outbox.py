"""The outbox dispatcher: sends queued messages in order per participant, paced, retried with backoff; a row a crash
left *sending* is resent only if the transport says that is safe, else *uncertain* (never sent twice)."""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.backoff import Backoff
from promptpipe.domain.consent import CANCELLED_BECAUSE
from promptpipe.domain.messages import POLL_KINDS
from promptpipe.domain.numbers import DEFAULT_NUMBER
from promptpipe.errors import NotConnected, SendFailed
from promptpipe.logging import get_logger
from promptpipe.pipeline.pacing import Paces
from promptpipe.pipeline.sharing import Sharing
from promptpipe.storage.db import Database
from promptpipe.storage.outbox_rows import (
    CLAIM_BATCH,
    Claimed,
    Queued,
    claim_due,
    claim_next,
    claim_queued,
    claim_statement,
    may_still_go,
    record_sends,
    settle_interrupted,
)
from promptpipe.storage.queue_tables import OutboxStatus
from promptpipe.transport import Recipient, SentMessage, Transport

log = get_logger("promptpipe.pipeline.outbox")

SEND_CONCURRENCY = 16
CLAIM_AHEAD_S = 1.0
"""A claim takes what the pace lets go within this time: a crash leaves every claimed row uncertain, not sent."""
SEND_RETRY = Backoff(first_s=5.0, max_s=300.0)
NOT_HELD = "not sent here: this service no longer holds the participant's number"


class _NumberNotHeld(Exception):
    """The lease on a claimed message's number ran out before its send (several services)."""


class _NoConsent(Exception):
    """The participant may no longer get a claimed message: it is cancelled, not sent (the reason is its text)."""


CHANGED_ELSEWHERE = "cancelled: the participant's consent or status changed (in another process) before it went"


class Outbox:
    def __init__(self, db: Database, transport: Transport, clock: Clock, *, rate_per_s: float,
                 jitter: float = 0.0, numbers: tuple[str, ...] = (DEFAULT_NUMBER,)) -> None:
        """``rate_per_s``: the pace of each of ``numbers`` (the deployment's: see :class:`Paces`)."""
        self.db, self.transport, self.clock = db, transport, clock
        self._numbers = numbers
        self._paces = Paces(numbers, rate_per_s, clock, jitter=jitter)
        self._semaphore = asyncio.Semaphore(SEND_CONCURRENCY)
        self._claim_statement = claim_statement(skip_locked=not db.is_sqlite)
        self._claim_of_numbers = claim_statement(skip_locked=not db.is_sqlite, numbers=True)
        self.sharing: Sharing | None = None
        """Several services: only this one's numbers' messages are claimed and sent (none once its lease is gone)."""
        self._claim_one = claim_statement(skip_locked=not db.is_sqlite, one_participant=True)
        self._claim_some = claim_statement(skip_locked=not db.is_sqlite, participants=True)
        self._following: dict[str, int] = {}
        """How many rows a commit queued behind a claimed one (recording that one's send claims the next)."""
        self._following_lock = threading.Lock()  # claims run on the database threads
        self.wake_dispatcher: Callable[[], None] | None = None
        """Set by the service: makes the dispatcher claim now instead of at its next poll."""
        self._left_for_dispatcher = False
        """A commit queued rows it could not claim (the pace, the room, an earlier row waiting)."""
        self._handed: set[asyncio.Task[None]] = set()
        self._not_yet_sent = 0
        """Claimed rows whose transport call has not ended: what a crash now would leave uncertain."""
        self.stopping = False
        self._outcomes: list[_Outcome] = []
        self._recorder: asyncio.Task[None] | None = None
        self.sent = 0
        self.retried = 0
        self.failed = 0

    def __repr__(self) -> str:
        return f"<Outbox sent={self.sent} retried={self.retried} failed={self.failed}>"

    async def recover_interrupted(self, numbers: tuple[tuple[str, ...], str] | None = None,
                                  claimed_before: datetime | None = None) -> int:
        """Settle rows a crash left in *sending* (``numbers``, ``claimed_before``: taken over from another service)."""
        target = OutboxStatus.PENDING if self.transport.resend_is_safe else OutboxStatus.UNCERTAIN

        rows = await self.db.run(lambda session: settle_interrupted(session, target, numbers, claimed_before))
        for outbox_id, participant_id in rows:
            log.warning("outbox_interrupted_send", participant_id=participant_id, outbox_id=outbox_id, now=target)
        return len(rows)

    async def dispatch_once(self) -> int:
        claimed = await self.db.run(self._claim)
        await asyncio.gather(*(self._send_all(items) for items in _by_participant(claimed)))
        return len(claimed)

    def _sends_within(self, seconds: float) -> int | None:
        """What the numbers served here may send together within ``seconds`` (None: no limit)."""
        return self._paces.sends_within(seconds, self.sharing.held() if self.sharing is not None else self._numbers)

    def _claim(self, session: Session) -> list[Claimed]:
        paced = self._sends_within(CLAIM_AHEAD_S)
        limit = CLAIM_BATCH if paced is None else min(CLAIM_BATCH, paced)
        if self.sharing is not None:
            return claim_due(session, self._claim_of_numbers, self.clock.now(), limit, self.sharing.numbers())
        return claim_due(session, self._claim_statement, self.clock.now(), limit)

    def claim_queued(self, session: Session, participant_id: str, recipient: Recipient,
                     queued: Mapping[str, Queued]) -> list[Claimed]:
        """Last in the transaction that queued them: claim what may go at once (not a whole burst *sending*)."""
        limit = self._room()
        claimed = claim_queued(session, self._claim_one, participant_id, self.clock.now(), limit, queued,
                               recipient.phone, recipient.lid, recipient.number) if limit > 0 else []
        left = len(queued) - sum(1 for item in claimed if item.key in queued)
        if claimed and left > 0:  # the next goes once this one's send is recorded (see _record_outcomes)
            with self._following_lock:
                self._following[participant_id] = left
        elif left > 0:
            self._left_for_dispatcher = True
        return claimed

    def dispatch_later(self) -> None:
        """Rows were queued without being claimed: the dispatcher claims now rather than at its next poll."""
        self._left_for_dispatcher = False
        if self.wake_dispatcher is not None:
            self.wake_dispatcher()

    def _wake_if_left(self) -> None:
        if self._left_for_dispatcher:
            self.dispatch_later()

    def _room(self, unpaced: int = SEND_CONCURRENCY) -> int:
        """How many rows a claim outside the dispatcher may take now: the pace's less those claimed and not yet sent."""
        if self.stopping:
            return 0
        paced = self._sends_within(CLAIM_AHEAD_S)
        return (unpaced if paced is None else paced) - self._not_yet_sent

    def _claim_following(self, session: Session, participant_ids: list[str]) -> list[Claimed]:
        """In the transaction recording their last sends: claim these participants' next rows."""
        # Unpaced, as many as a dispatcher's claim: each follows a send that just ended
        limit = self._room(unpaced=CLAIM_BATCH)
        claimed = claim_next(session, self._claim_some, participant_ids, self.clock.now(), limit) if limit > 0 else []
        counts = collections.Counter(item.participant_id for item in claimed)
        with self._following_lock:
            for participant_id in participant_ids:
                left = self._following.pop(participant_id, 0) - counts[participant_id]
                if counts[participant_id] and left > 0:
                    self._following[participant_id] = left
                elif left > 0:  # not claimable now (no room, or held): the dispatcher's
                    self._left_for_dispatcher = True
        return claimed

    def send_when_committed(self, commit: Awaitable[list[Claimed]]) -> None:
        """Send what :meth:`claim_queued` claimed once committed, in its own task (a cancelled turn: none unsent)."""
        self._hand_over(self._send_committed(commit), "outbox-handed-over")

    def _send_in_background(self, claimed: list[Claimed]) -> None:

        for items in _by_participant(claimed):
            self._hand_over(self._send_all(items), "outbox-following")

    def _hand_over(self, sending: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(sending, name=name)
        self._handed.add(task)
        task.add_done_callback(self._handed.discard)

    async def _send_committed(self, commit: Awaitable[list[Claimed]]) -> None:
        try:
            claimed = await asyncio.shield(commit)  # cancelling this send never cancels the commit
        except Exception:  # the commit failed: it claimed nothing (its turn reports the error)
            return
        self._wake_if_left()
        if claimed:
            await self._send_all(claimed)

    async def settle_handed_over(self, timeout: float | None = None) -> int:
        """Wait for the sends handed over by commits (cancelled after ``timeout``); returns how many."""
        tasks = set(self._handed)
        if not tasks:
            return 0
        _, late = await asyncio.wait(tasks, timeout=timeout)
        for task in late:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return len(tasks)

    async def _send_all(self, items: list[Claimed]) -> None:
        self._not_yet_sent += len(items)
        started = 0
        try:
            for item in items:
                started += 1
                await self._send_one(item)
        finally:
            self._not_yet_sent -= len(items) - started  # each one started counts itself off

    def _consent_now(self, item: Claimed) -> None:
        """A hold (STOP, pause, withdrawal, erasure) written since the row was claimed refuses it."""
        if (held := self.db.consent_board.refusal(item.participant_id, item.key, item.board_at)) is not None:
            raise _NoConsent(CANCELLED_BECAUSE[held])

    async def _hand_to_transport(self, item: Claimed) -> SentMessage:
        """Wait for the pace, then send under the limit of sends at once; consent is checked right before the call."""
        recipient = Recipient(phone=item.phone, lid=item.lid, number=item.number)
        limiter = self._paces.of(item.number)
        try:
            self._consent_now(item)
            if await limiter.acquire() and not await self.db.run(lambda session: may_still_go(session, item.id)):
                limiter.give_back()
                raise _NoConsent(CHANGED_ELSEWHERE)
            async with self._semaphore:
                if self.sharing is not None and not self.sharing.owns(item.number):
                    raise _NumberNotHeld  # its lease ran out meanwhile: the service holding it now sends it
                try:
                    self._consent_now(item)  # nothing is awaited between this and the transport's call
                except _NoConsent:
                    limiter.give_back()
                    raise
                if item.kind in POLL_KINDS:
                    return await self.transport.send_poll(recipient, item.text, item.payload.get("options", []),
                                                          ref=item.key, multiple=bool(item.payload.get("multiple")),
                                                          kind=item.kind)
                return await self.transport.send_text(recipient, item.text, ref=item.key, kind=item.kind)
        finally:
            self._not_yet_sent -= 1

    async def _send_one(self, item: Claimed) -> None:
        try:
            sent = await self._hand_to_transport(item)
        except _NumberNotHeld:
            await self._finish(item, status=OutboxStatus.PENDING, error=NOT_HELD, available_at=self.clock.now())
            log.warning("send_left_to_number_holder", participant_id=item.participant_id, outbox_id=item.id)
        except _NoConsent as refused:
            await self._finish(item, status=OutboxStatus.CANCELLED, error=str(refused))
            log.info("send_cancelled", participant_id=item.participant_id, outbox_id=item.id, kind=item.kind,
                     why=str(refused))
        except SendFailed as exc:
            if exc.ambiguous:  # it may be on the phone already: never send it twice
                await self._finish(item, status=OutboxStatus.UNCERTAIN, error=str(exc))
                log.warning("send_uncertain", participant_id=item.participant_id, outbox_id=item.id, error=str(exc))
            else:
                await self._failed_send(item, str(exc), retryable=exc.retryable)
        except NotConnected as exc:
            await self._failed_send(item, str(exc), retryable=True)
        except Exception as exc:  # an unknown transport error is treated as transient
            log.error("outbox_send_crashed", participant_id=item.participant_id, outbox_id=item.id, error=repr(exc))
            await self._failed_send(item, repr(exc), retryable=True)
        else:
            await self._finish(item, status=OutboxStatus.SENT, sent=sent)
            self.sent += 1
            log.info("message_sent", participant_id=item.participant_id, outbox_id=item.id, kind=item.kind,
                     wa_message_id=sent.message_id)

    async def _failed_send(self, item: Claimed, error: str, *, retryable: bool) -> None:
        if retryable:
            self.retried += 1
            delay = SEND_RETRY.delay(item.attempts)
            await self._finish(item, status=OutboxStatus.PENDING, error=error, available_at=self.clock.now() + delay)
            log.warning("send_retry", participant_id=item.participant_id, outbox_id=item.id, error=error,
                        attempts=item.attempts, retry_in_s=delay.total_seconds())
        else:
            self.failed += 1
            await self._finish(item, status=OutboxStatus.FAILED, error=error)
            log.error("send_failed", participant_id=item.participant_id, outbox_id=item.id, error=error)

    async def _finish(
        self, item: Claimed, *, status: str, error: str | None = None, sent: SentMessage | None = None,
        available_at: datetime | None = None,
    ) -> None:
        """Record the outcome on the outbox row and its transcript row (together, in the next group commit)."""
        now = self.clock.now()
        values: dict[str, object] = {"status": status, "last_error": error}
        if available_at is not None:
            values["available_at"] = available_at
        message_values: dict[str, object] = {}
        if sent is not None:  # the transcript row follows by a trigger (storage/mirrors.py)
            values.update(sent_at=now, wa_message_id=sent.message_id,
                          receipts_expected=bool(getattr(self.transport, "sends_receipts", False)))
        elif status in (OutboxStatus.FAILED, OutboxStatus.UNCERTAIN, OutboxStatus.CANCELLED):
            message_values = {"status": status}

        outcome = _Outcome(item.id, item.message_id, item.participant_id, sent is not None, values, message_values,
                           asyncio.get_running_loop().create_future())
        self._outcomes.append(outcome)
        if self._recorder is None or self._recorder.done():
            self._recorder = asyncio.create_task(self._record_outcomes())
        await asyncio.shield(outcome.recorded)

    async def _record_outcomes(self) -> None:
        """Group commit: outcomes arriving while one transaction runs go into the next (each send waits for its own)."""
        while self._outcomes:
            batch, self._outcomes = self._outcomes, []

            sends = [(o.outbox_id, o.message_id, o.values, o.message_values) for o in batch]
            following = sorted({o.participant_id for o in batch if o.sent and o.participant_id in self._following})

            def record(session: Session, sends: list[Any] = sends, following: list[str] = following) -> list[Claimed]:
                record_sends(session, sends)
                return self._claim_following(session, following) if following else []
            try:
                claimed = await self.db.run(record)
            except Exception as exc:
                for outcome in batch:
                    outcome.recorded.set_exception(exc)
            else:
                for outcome in batch:
                    outcome.recorded.set_result(None)
                self._wake_if_left()
                if claimed:
                    self._send_in_background(claimed)


@dataclass
class _Outcome:
    """A send's result waiting to be recorded on its outbox and transcript rows."""

    outbox_id: int
    message_id: int
    participant_id: str
    sent: bool
    values: dict[str, object]
    message_values: dict[str, object]
    recorded: asyncio.Future[None]


def _by_participant(claimed: list[Claimed]) -> list[list[Claimed]]:
    groups: dict[str, list[Claimed]] = {}
    for item in claimed:
        groups.setdefault(item.participant_id, []).append(item)
    return list(groups.values())
