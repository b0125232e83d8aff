"""The durable inbox: every inbound message is stored (and deduplicated) before anything else, or spooled."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.consent import ConsentSource
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.numbers import ONE_NUMBER, NumberPlan
from promptpipe.domain.phones import from_whatsapp
from promptpipe.domain.text import clean_for_storage, lossless_original
from promptpipe.domain.timers import CANCELLED_BY_REPLY
from promptpipe.errors import StorageError
from promptpipe.logging import get_logger, mask_phone
from promptpipe.pipeline.batches import FirstLook
from promptpipe.pipeline.events import InboxKind, MessageReceived, PollVoteReceived, ReactionReceived, as_input
from promptpipe.pipeline.spool import Spool
from promptpipe.storage import participants
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import mark_first_reply
from promptpipe.storage.inbox_rows import WA_ID, InboxRow, add_input, as_written
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.schedules import cancel_timers
from promptpipe.storage.transcript import add_inbound_message
from promptpipe.study.rules.protocol import OPEN_STUDY, Study
from promptpipe.transport import InboundMessage, poll_option_hash

log = get_logger("promptpipe.pipeline.inbox")


@dataclass(frozen=True)
class InboxConfig:
    auto_enroll: bool
    default_timezone: str
    debug: bool = False
    study: Study = OPEN_STUDY
    """Whom someone who enrolls by writing in is allocated to."""
    numbers: NumberPlan = ONE_NUMBER
    """The deployment's numbers: someone who enrolls by writing in keeps the number they wrote to."""


class _Duplicate(Exception):
    """Raised inside the transaction to roll back the transcript row of a duplicate."""


class Inbox:
    def __init__(
        self, db: Database, clock: Clock, config: InboxConfig, wake: Callable[[str, FirstLook[Any] | None], None],
        alarms_changed: Callable[[list[str]], None] | None = None, spool: Spool | None = None,
        first_look: Callable[[Session, str, datetime, list[InboxRow] | None], FirstLook[Any] | None] | None = None,
    ) -> None:
        """``wake(participant_id, looked)`` starts their lane with what ``first_look`` read as it was stored."""
        self.db, self.clock, self.config, self._wake = db, clock, config, wake
        self._first_look = first_look
        self._alarms_changed = alarms_changed
        self.spool = spool
        """Where a message goes when the database cannot store it (None: the error is raised)."""
        self.accepted = 0
        self.duplicates = 0
        self.ignored = 0
        self.spooled = 0

    def __repr__(self) -> str:
        return (f"<Inbox accepted={self.accepted} duplicates={self.duplicates} ignored={self.ignored} "
                f"spooled={self.spooled}>")

    async def ingest(self, msg: InboundMessage) -> int | None:
        """Store one message and wake its lane; its inbox id, or None (a duplicate, someone not enrolled, spooled)."""
        try:
            return await self._ingest(msg)
        except StorageError as exc:
            if self.spool is None:
                raise
            on_disk = self.spool.keep(msg)
            self.spooled += 1
            log.error("inbound_spooled", message_id=msg.message_id, error=str(exc)[:200], on_disk=on_disk)
            return None

    async def drain_spool(self) -> int:
        """Store spooled messages, oldest first, until one still fails (raised); returns how many left the spool."""
        if self.spool is None:
            return 0
        moved = 0
        for item in self.spool.waiting():
            await self._ingest(item.message)  # a repeat (stored before a crash) is a no-op
            self.spool.done(item)
            moved += 1
        if moved:
            log.info("inbound_spool_drained", messages=moved)
        return moved

    async def _ingest(self, msg: InboundMessage) -> int | None:
        original = lossless_original(msg.text)
        msg = replace(msg, text=clean_for_storage(msg.text),
                      sender_name=clean_for_storage(msg.sender_name).strip()[:NAME_CHARS])
        try:
            stored = await self.db.run(lambda session: self._store(session, msg, original), urgent=True)
        except _Duplicate:
            self.duplicates += 1
            log.info("inbound_duplicate", message_id=msg.message_id)
            return None
        if stored is None:
            self.ignored += 1
            log.info("inbound_from_unknown_sender", phone=mask_phone(msg.sender_phone), has_lid=bool(msg.sender_lid),
                     message_id=msg.message_id)
            return None
        participant_id, inbox_id, kind, enrolled, cancelled, looked = stored
        self.accepted += 1
        if cancelled and self._alarms_changed is not None:
            self._alarms_changed([participant_id])
        if enrolled:
            log.info("participant_auto_enrolled", participant_id=participant_id)
        log.info("inbound_stored", participant_id=participant_id, inbox_id=inbox_id, kind=kind,
                 **({"text": msg.text} if self.config.debug else {}))
        self._wake(participant_id, looked)
        return inbox_id

    def _store(self, session: Session, msg: InboundMessage,
               original: str | None) -> tuple[str, int, str, bool, int, FirstLook[Any] | None] | None:
        """One transaction: sender, transcript, inbox, and the timers a reply makes moot (no reminder after it)."""
        now = self.clock.now()
        resolved = self._resolve_sender(session, msg, now)
        if resolved is None:
            return None
        participant, enrolled = resolved
        # No look for the key first: a repeat is rare, and the insert that ignores it tells us (all is rolled back)
        key = keys.inbound(msg.message_id)
        said = said_at(msg, now)
        event, transcript_kind, text = _describe(session, msg, original, said.isoformat())
        payload = event.to_payload()
        message_id = add_inbound_message(session, participant_id=participant.id, text=text, now=now,
                                         wa_message_id=msg.message_id, kind=transcript_kind, sent_at=said,
                                         payload={k: v for k, v in payload.items() if k not in (WA_ID, SAID_AT)})
        row = as_input(event, key=key, participant_id=participant.id, message_id=message_id, payload=payload)
        inbox_id = add_input(self.db, session, row, now)
        if inbox_id is None:  # stored before (WhatsApp delivered it again), here or by another node
            raise _Duplicate
        kind = event.INBOX_KIND
        cancelled = (cancel_timers(session, participant.id, CANCELLED_BY_REPLY, now, reason="the participant wrote")
                     if participant.timers_to_cancel is not False else 0)
        if kind == InboxKind.MESSAGE and (msg.quoted_message_id or participant.newest_prompt_unanswered is not False):
            mark_first_reply(session, participant.id, now, quoted_wa_id=msg.quoted_message_id)
        looked = None
        if self._first_look is not None:
            alone = None if participant.pending_inputs != 0 else [as_written(row, inbox_id, now, text)]
            looked = self._first_look(session, participant.id, now, alone)
        return participant.id, inbox_id, kind, enrolled, cancelled, looked

    def _resolve_sender(self, session: Session, msg: InboundMessage,
                        now: datetime) -> tuple[participants.SenderRef, bool] | None:
        phone = from_whatsapp(msg.sender_phone)
        if phone is None and msg.sender_lid:
            phone = participants.phone_for_lid(session, msg.sender_lid)
        if phone is not None and msg.sender_lid:
            participants.remember_lid(session, msg.sender_lid, phone, now)
        sender = participants.sender_by_phone(session, phone) if phone else None
        if sender is None and msg.sender_lid:
            sender = participants.sender_by_lid(session, msg.sender_lid)
        enrolled = False
        if sender is None:
            if not self.config.auto_enroll or phone is None:
                return None
            created = participants.create_participant(session, participants.NewParticipant(
                phone=phone, name=msg.sender_name, timezone=self.config.default_timezone, background="",
                reason="auto-enrolled on first message", source=ConsentSource.SERVER, study=self.config.study,
                numbers=self.config.numbers, number=msg.number if msg.number in self.config.numbers.numbers else None,
            ), now)
            sender, enrolled = participants.SenderRef(created.id, created.lid, pending_inputs=0, timers_to_cancel=False,
                                                      newest_prompt_unanswered=False), True
        if msg.sender_lid and sender.lid != msg.sender_lid:
            participants.set_participant_lid(session, sender.id, msg.sender_lid, now)
        return sender, enrolled


NON_TEXT_NOTES = {
    "voice": "[a voice message; this study can only read text]",
    "audio": "[an audio file; this study can only read text]",
    "image": "[a photo without words; this study can only read text]",
    "video": "[a video without words; this study can only read text]",
    "sticker": "[a sticker]",
    "document": "[a document; this study can only read text]",
    "location": "[a shared location; this study does not use locations]",
    "contact": "[a shared contact card; this study does not use contacts]",
    "unreadable": "[a message that arrived but could not be decrypted, so nobody could read it; WhatsApp may "
                  "deliver it again in a moment]",
}
"""What the transcript (and so the model) shows for a message without words."""


def said_at(msg: InboundMessage, now: datetime) -> datetime:
    """When the participant sent it, by their clock, never later than it arrived (a clock running ahead must not put
    its STOP or START after one sent later)."""
    return min(msg.timestamp, now) if msg.timestamp.tzinfo is not None else now


SAID_AT = "said_at"
"""The payload key of the send time; the transcript row keeps it as ``sent_at`` instead."""


def _describe(session: Session, msg: InboundMessage, original: str | None,
              said: str) -> tuple[MessageReceived | PollVoteReceived | ReactionReceived, str, str]:
    """The event, the transcript kind and the transcript text for a message, a reaction or a poll vote."""
    if msg.reaction is not None:
        emoji = msg.reaction.emoji
        return (ReactionReceived(wa_message_id=msg.message_id, reacted_to=msg.reaction.message_id, emoji=emoji,
                                 said_at=said),
                "reaction", f"(reaction: {emoji})" if emoji else "(reaction taken back)")
    if msg.poll_vote is None:
        text = (msg.text if msg.content == MessageKind.TEXT
                else NON_TEXT_NOTES.get(msg.content, f"[a {msg.content} message]"))
        return (MessageReceived(wa_message_id=msg.message_id, content=msg.content,
                                quoted_message_id=msg.quoted_message_id, edited=msg.edited,
                                edit_of=msg.edit_of, original_text_b64=original, said_at=said), msg.content, text)
    vote = msg.poll_vote
    poll = session.execute(select(Message).where(
        table_of(Message).c.wa_message_id == vote.poll_message_id)).scalars().first()
    options: list[str] = list(poll.payload.get("options", [])) if poll else []
    chosen = [option for option in options if poll_option_hash(option) in vote.selected_hashes]
    described = ", ".join(chosen) if chosen else "vote withdrawn" if not vote.selected_hashes else "unknown option"
    text = f"(poll vote: {described})"
    return (PollVoteReceived(wa_message_id=msg.message_id, poll_message_id=vote.poll_message_id,
                             poll_id=poll.id if poll else None, selected=tuple(chosen),
                             selected_hashes=tuple(vote.selected_hashes), known_poll=poll is not None,
                             purpose=poll.payload.get("purpose") if poll else None, said_at=said,
                             asks=_asks(poll.payload) if poll else None), "text", text)


def _asks(payload: Mapping[str, object]) -> tuple[int, str, str, str] | None:
    """A questionnaire poll's instance, questionnaire, item and window close (see :class:`PollVoteReceived`)."""
    instance_id, questionnaire_id, item_id, closes = (
        payload.get(k) for k in ("instance_id", "questionnaire_id", "item_id", "closes_at"))
    if isinstance(instance_id, int) and isinstance(questionnaire_id, str) and isinstance(item_id, str) \
            and isinstance(closes, str):
        return instance_id, questionnaire_id, item_id, closes
    return None
