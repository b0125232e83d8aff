"""The outbox dispatcher: sends queued messages through the transport, in order per participant,
under a global rate limit, retrying transient failures with backoff.

A row is claimed by one statement (``UPDATE … RETURNING``; ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL) that skips participants with an earlier unsent row, so one person's messages never
overtake each other. A row still marked *sending* when the service starts was interrupted by a
crash: if the transport says a resend is safe it goes back to the queue, otherwise it becomes
*uncertain* (it may have reached the phone) and is reported instead of sent twice.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from sqlalchemy import and_, exists, update
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from promptpipe.clock import Clock
from promptpipe.db import Database
from promptpipe.errors import NotConnected, SendFailed
from promptpipe.logging import get_logger
from promptpipe.models import FAILED, PENDING, SENDING, SENT, UNCERTAIN, Message, OutboxItem, Participant
from promptpipe.transport import Recipient, SentMessage, Transport

log = get_logger("promptpipe.outbox")

CLAIM_BATCH = 200
SEND_CONCURRENCY = 16
RETRY_FIRST_S = 5.0
RETRY_MAX_S = 300.0


def send_retry_delay(attempts: int) -> timedelta:
    return timedelta(seconds=min(RETRY_FIRST_S * 2 ** max(attempts - 1, 0), RETRY_MAX_S))


class RateLimiter:
    """Token bucket shared by all sends; ``rate_per_s == 0`` means no limit."""

    def __init__(self, rate_per_s: float, clock: Clock, burst: float | None = None) -> None:
        self.rate = rate_per_s
        self.capacity = burst if burst is not None else max(1.0, rate_per_s)
        self.clock = clock
        self._tokens = self.capacity
        self._stamp: datetime | None = None
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        if self.rate <= 0:
            return
        async with self._lock:
            while True:
                now = self.clock.now()
                if self._stamp is not None:
                    self._tokens = min(self.capacity, self._tokens + (now - self._stamp).total_seconds() * self.rate)
                self._stamp = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await self.clock.sleep((1 - self._tokens) / self.rate)


class Outbox:
    def __init__(self, db: Database, transport: Transport, clock: Clock, *, rate_per_s: float) -> None:
        self.db, self.transport, self.clock = db, transport, clock
        self.limiter = RateLimiter(rate_per_s, clock)
        self._semaphore = asyncio.Semaphore(SEND_CONCURRENCY)
        self.sent = 0
        self.retried = 0
        self.failed = 0

    def __repr__(self) -> str:
        return f"<Outbox sent={self.sent} retried={self.retried} failed={self.failed}>"

    async def recover_interrupted(self) -> int:
        """Settle rows a crash left in *sending*; returns how many were found."""
        target = PENDING if self.transport.resend_is_safe else UNCERTAIN
        async with self.db.session() as session:
            rows = (await session.exec(select(OutboxItem).where(OutboxItem.status == SENDING))).all()
            for row in rows:
                row.status = target
                row.last_error = "interrupted by a restart while sending"
                session.add(row)
                if target == UNCERTAIN:
                    message = await session.get(Message, row.message_id)
                    if message is not None:
                        message.status = UNCERTAIN
                        session.add(message)
        for row in rows:
            log.warning("outbox_interrupted_send", participant_id=row.participant_id, outbox_id=row.id, now=target)
        return len(rows)

    async def dispatch_once(self) -> int:
        """Claim what is due and send it; returns how many rows were handled."""
        rows = await self._claim()
        if not rows:
            return 0
        by_participant: dict[str, list[OutboxItem]] = {}
        for row in rows:
            by_participant.setdefault(row.participant_id, []).append(row)
        await asyncio.gather(*(self._send_all(items) for items in by_participant.values()))
        return len(rows)

    async def _claim(self) -> list[OutboxItem]:
        now = self.clock.now()
        earlier = aliased(OutboxItem)
        blocked = exists().where(
            and_(earlier.participant_id == OutboxItem.participant_id, earlier.id < OutboxItem.id,
                 col(earlier.status).in_((PENDING, SENDING)))
        )
        due = (
            select(OutboxItem.id)
            .where(OutboxItem.status == PENDING, col(OutboxItem.available_at) <= now, ~blocked)
            .order_by(col(OutboxItem.id))
            .limit(CLAIM_BATCH)
        )
        if not self.db.is_sqlite:
            due = due.with_for_update(skip_locked=True)
        stmt = (
            update(OutboxItem)
            .where(col(OutboxItem.id).in_(due.scalar_subquery()))
            .values(status=SENDING, claimed_at=now, attempts=OutboxItem.attempts + 1)
            .returning(OutboxItem)
        )
        async with self.db.session() as session:
            result = await session.exec(stmt)  # type: ignore[call-overload]
            rows = [row for (row,) in result.all()]
        return sorted(rows, key=lambda row: row.id or 0)

    async def _send_all(self, items: list[OutboxItem]) -> None:
        async with self._semaphore:
            for item in items:
                await self._send_one(item)

    async def _send_one(self, item: OutboxItem) -> None:
        async with self.db.session() as session:
            message = await session.get(Message, item.message_id)
            participant = await session.get(Participant, item.participant_id)
        if message is None or participant is None:
            await self._finish(item, status=FAILED, error="message or participant row is missing")
            return
        recipient = Recipient(phone=participant.phone, lid=participant.lid)
        await self.limiter.acquire()
        try:
            if message.kind == "poll":
                sent = await self.transport.send_poll(recipient, message.text, message.payload.get("options", []))
            else:
                sent = await self.transport.send_text(recipient, message.text)
        except SendFailed as exc:
            if exc.ambiguous:  # it may be on the phone already: never send it twice
                await self._finish(item, status=UNCERTAIN, error=str(exc))
                log.warning("send_uncertain", participant_id=item.participant_id, outbox_id=item.id, error=str(exc))
                return
            await self._failed_send(item, str(exc), retryable=exc.retryable)
            return
        except NotConnected as exc:
            await self._failed_send(item, str(exc), retryable=True)
            return
        except Exception as exc:  # an unknown transport error is treated as transient
            log.error("outbox_send_crashed", participant_id=item.participant_id, outbox_id=item.id, error=repr(exc))
            await self._failed_send(item, repr(exc), retryable=True)
            return
        await asyncio.shield(self._finish(item, status=SENT, sent=sent))
        self.sent += 1
        log.info("message_sent", participant_id=item.participant_id, outbox_id=item.id, kind=message.kind,
                 wa_message_id=sent.message_id)

    async def _failed_send(self, item: OutboxItem, error: str, *, retryable: bool) -> None:
        if retryable:
            self.retried += 1
            delay = send_retry_delay(item.attempts)
            await self._finish(item, status=PENDING, error=error, available_at=self.clock.now() + delay)
            log.warning("send_retry", participant_id=item.participant_id, outbox_id=item.id, error=error,
                        attempts=item.attempts, retry_in_s=delay.total_seconds())
        else:
            self.failed += 1
            await self._finish(item, status=FAILED, error=error)
            log.error("send_failed", participant_id=item.participant_id, outbox_id=item.id, error=error)

    async def _finish(
        self, item: OutboxItem, *, status: str, error: str | None = None, sent: SentMessage | None = None,
        available_at: datetime | None = None,
    ) -> None:
        values: dict[str, object] = {"status": status, "last_error": error}
        if available_at is not None:
            values["available_at"] = available_at
        if sent is not None:
            values.update(sent_at=self.clock.now(), wa_message_id=sent.message_id)
        async with self.db.session() as session:
            await session.exec(update(OutboxItem).where(col(OutboxItem.id) == item.id).values(**values))  # type: ignore[call-overload]
            message_values: dict[str, object] = {}
            if status == SENT and sent is not None:
                message_values = {"status": "sent", "sent_at": self.clock.now(), "wa_message_id": sent.message_id}
            elif status in (FAILED, UNCERTAIN):
                message_values = {"status": status}
            if message_values:
                await session.exec(update(Message).where(col(Message.id) == item.message_id)  # type: ignore[call-overload]
                                   .values(**message_values))
