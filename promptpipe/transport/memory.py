"""An in-memory transport for tests: records every send, lets a test inject inbound messages."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TypedDict, Unpack

from promptpipe.errors import NotConnected, SendFailed
from promptpipe.transport.base import (
    DeliveryReceipt,
    InboundHandler,
    InboundMessage,
    PollVote,
    Reaction,
    ReceiptHandler,
    Recipient,
    SentMessage,
)


class MessageDetails(TypedDict, total=False):
    """The rarer fields of an injected message (see :class:`InboundMessage`)."""

    content: str
    quoted_message_id: str | None
    edited: bool
    edit_of: str | None
    reaction: Reaction | None


@dataclass(frozen=True)
class Sent:
    to: Recipient
    text: str
    kind: str = "text"
    options: tuple[str, ...] = ()
    message_id: str = ""


@dataclass
class MemoryTransport:
    name: str = "memory"
    resend_is_safe: bool = False
    sends_receipts: bool = False  # True: a test plays WhatsApp's receipts with :meth:`receipt`
    reaches_people: bool = False  # True: a test plays a live WhatsApp service (the database goes live)
    sent: list[Sent] = field(default_factory=list)
    typing: list[tuple[str, bool]] = field(default_factory=list)
    fail_next: list[Exception] = field(default_factory=list)  # raised by the next sends, one each
    read_marks: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    _handler: InboundHandler | None = None
    _receipt_handler: ReceiptHandler | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        self._handler = on_message
        self._receipt_handler = on_receipt

    async def receipt(self, kind: str, *message_ids: str, timestamp: datetime | None = None) -> None:
        """Play WhatsApp reporting that sent messages were delivered, read or played."""
        if self._receipt_handler is None:
            raise RuntimeError("transport not started with a receipt handler")
        await self._receipt_handler(DeliveryReceipt(tuple(message_ids), kind, timestamp or datetime.now(timezone.utc)))

    async def stop(self) -> None:
        self._handler = None

    def texts_to(self, phone: str) -> list[str]:
        return [item.text for item in self.sent if item.to.phone == phone]

    async def inject(self, phone: str | None, text: str, *, message_id: str | None = None,
                     timestamp: datetime | None = None, vote: PollVote | None = None, number: str | None = None,
                     name: str = "", lid: str | None = None, **rest: Unpack[MessageDetails]) -> None:
        """Play a participant's message; ``rest`` sets its rarer fields (a reaction makes it one)."""
        if self._handler is None:
            raise RuntimeError("transport not started")
        msg = InboundMessage(message_id=message_id or f"in-{next(self._ids)}", sender_phone=phone, sender_lid=lid,
                             sender_name=name, text=text, timestamp=timestamp or datetime.now(timezone.utc),
                             poll_vote=vote, number=number, **rest)
        await self._handler(replace(msg, content="reaction") if msg.reaction else msg)

    def _record(self, sent: Sent) -> SentMessage:
        if self.fail_next:
            raise self.fail_next.pop(0)
        self.sent.append(replace(sent, message_id=f"out-{next(self._ids)}"))
        return SentMessage(message_id=self.sent[-1].message_id, timestamp=datetime.now(timezone.utc))

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        return self._record(Sent(to=to, text=text))

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        return self._record(Sent(to=to, text=question, kind="poll_multiple" if multiple else "poll",
                                 options=tuple(options)))

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        self.typing.append((to.phone, typing))

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        self.read_marks.append((to.phone, tuple(message_ids)))


__all__ = ["MemoryTransport", "MessageDetails", "NotConnected", "SendFailed", "Sent"]
