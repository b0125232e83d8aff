"""The durable inbox: every inbound message is stored (and deduplicated) before anything else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from promptpipe.clock import Clock
from promptpipe.db import Database
from promptpipe.logging import get_logger, mask_phone
from promptpipe.models import InboxItem, Message, Participant
from promptpipe.phones import from_whatsapp
from promptpipe.store import (
    add_inbound_message,
    create_participant,
    enqueue_inbox,
    participant_by_lid,
    participant_by_phone,
    phone_for_lid,
    remember_lid,
)
from promptpipe.transport import InboundMessage, poll_option_hash

log = get_logger("promptpipe.inbox")


def inbound_key(message_id: str) -> str:
    """Dedupe key of a WhatsApp message; the same id is the same message however often it comes."""
    return f"wa:{message_id}"


@dataclass(frozen=True)
class InboxConfig:
    auto_enroll: bool
    default_timezone: str
    debug: bool = False


class _Duplicate(Exception):
    """Raised inside the transaction to roll back the transcript row of a duplicate."""


class Inbox:
    def __init__(self, db: Database, clock: Clock, config: InboxConfig, wake: Callable[[str], None]) -> None:
        self.db, self.clock, self.config, self._wake = db, clock, config, wake
        self.accepted = 0
        self.duplicates = 0
        self.ignored = 0

    def __repr__(self) -> str:
        return f"<Inbox accepted={self.accepted} duplicates={self.duplicates} ignored={self.ignored}>"

    async def ingest(self, msg: InboundMessage) -> int | None:
        """Store one inbound message and wake its lane. Returns the inbox id, or None when the
        message was a duplicate or came from someone who is not enrolled."""
        try:
            async with self.db.session() as session:
                participant = await self._resolve_sender(session, msg)
                if participant is None:
                    return None
                key = inbound_key(msg.message_id)
                if (await session.exec(select(InboxItem.id).where(InboxItem.key == key))).first() is not None:
                    raise _Duplicate
                kind, text, payload = await _describe(session, msg)
                message = await add_inbound_message(
                    session, participant_id=participant.id, text=text, now=self.clock.now(),
                    wa_message_id=msg.message_id, payload=payload,
                )
                inbox_id = await enqueue_inbox(
                    self.db, session, key=key, participant_id=participant.id, kind=kind,
                    now=self.clock.now(), payload=payload, message_id=message.id,
                )
                if inbox_id is None:
                    raise _Duplicate
                participant_id = participant.id
        except _Duplicate:
            self.duplicates += 1
            log.info("inbound_duplicate", message_id=msg.message_id)
            return None
        self.accepted += 1
        log.info("inbound_stored", participant_id=participant_id, inbox_id=inbox_id, kind=kind,
                 **({"text": msg.text} if self.config.debug else {}))
        self._wake(participant_id)
        return inbox_id

    async def _resolve_sender(self, session: AsyncSession, msg: InboundMessage) -> Participant | None:
        now = self.clock.now()
        phone = from_whatsapp(msg.sender_phone)
        if phone is None and msg.sender_lid:
            phone = await phone_for_lid(session, msg.sender_lid)
        if phone is not None and msg.sender_lid:
            await remember_lid(session, msg.sender_lid, phone, now)
        participant = await participant_by_phone(session, phone) if phone else None
        if participant is None and msg.sender_lid:
            participant = await participant_by_lid(session, msg.sender_lid)
        if participant is None:
            if not self.config.auto_enroll or phone is None:
                self.ignored += 1
                log.info("inbound_from_unknown_sender", phone=mask_phone(phone), has_lid=bool(msg.sender_lid),
                         message_id=msg.message_id)
                return None
            participant = await create_participant(
                session, phone=phone, name=msg.sender_name.strip()[:80], timezone=self.config.default_timezone,
                background="", now=now, reason="auto-enrolled on first message",
            )
            log.info("participant_auto_enrolled", participant_id=participant.id)
        if msg.sender_lid and participant.lid != msg.sender_lid:
            participant.lid = msg.sender_lid
            participant.updated_at = now
            session.add(participant)
        return participant


async def _describe(session: AsyncSession, msg: InboundMessage) -> tuple[str, str, dict[str, Any]]:
    """Inbox kind, transcript text and payload for a text message or a poll vote."""
    if msg.poll_vote is None:
        return "message", msg.text, {}
    vote = msg.poll_vote
    poll = (await session.exec(select(Message).where(Message.wa_message_id == vote.poll_message_id))).first()
    options: list[str] = list(poll.payload.get("options", [])) if poll else []
    chosen = [option for option in options if poll_option_hash(option) in vote.selected_hashes]
    text = "(poll vote: " + (", ".join(chosen) if chosen else "vote withdrawn" if not vote.selected_hashes else "unknown option") + ")"
    payload = {"poll_message_id": vote.poll_message_id, "selected": chosen,
               "selected_hashes": list(vote.selected_hashes), "known_poll": poll is not None}
    return "poll_vote", text, payload
