"""The transport protocol and the value types that cross it."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable


def poll_option_hash(option: str) -> str:
    """WhatsApp identifies a chosen poll option by the SHA-256 of its text; hex of that digest."""
    return hashlib.sha256(option.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PollVote:
    """``selected_hashes`` are :func:`poll_option_hash` values; empty: the participant withdrew their vote."""

    poll_message_id: str
    selected_hashes: tuple[str, ...]


@dataclass(frozen=True)
class Reaction:
    """An emoji reaction to a message; ``emoji`` is empty when the participant took it back."""

    message_id: str
    emoji: str


@dataclass(frozen=True)
class InboundMessage:
    """One direct message, normalised. ``sender_phone`` is E.164 when known, ``sender_lid`` the digits of a WhatsApp
    hidden user id (``…@lid``) when it came LID-addressed; at least one is set. ``timestamp`` is aware UTC."""

    message_id: str
    sender_phone: str | None
    sender_lid: str | None
    sender_name: str
    text: str
    timestamp: datetime
    poll_vote: PollVote | None = None
    content: str = "text"
    """``text`` (a caption counts as text), or what came without words: ``voice``, ``audio``,
    ``image``, ``video``, ``sticker``, ``document``, ``location``, ``contact``."""
    quoted_message_id: str | None = None
    """The WhatsApp id of the message this one quotes (a swipe reply)."""
    edited: bool = False
    edit_of: str | None = None
    """For an edit (``text`` is the new wording): the WhatsApp id of the message it replaces."""
    reaction: Reaction | None = None
    """Set (with ``content`` ``reaction`` and no text) when the participant reacted to a message."""
    number: str | None = None
    """The deployment's number it arrived on (None: the transport serves one number)."""


@dataclass(frozen=True)
class Recipient:
    """Where to send: the participant's E.164 phone, and their LID digits when we know them."""

    phone: str
    lid: str | None = None
    number: str | None = None
    """The deployment's number it goes from (None: the default one)."""


@dataclass(frozen=True)
class SentMessage:
    """What the transport reports after a send: the message id it got and when (aware UTC)."""

    message_id: str
    timestamp: datetime


RECEIPT_KINDS = ("delivered", "read", "played")
SETTLING_KINDS = {"sent": True, "failed": False}
"""Kinds that only settle an uncertain send (they carry its ``ref``): whether the message arrived."""


@dataclass(frozen=True)
class DeliveryReceipt:
    """Messages we sent were ``delivered``, ``read`` or (a voice note) ``played``; ``timestamp`` is aware UTC."""

    message_ids: tuple[str, ...]
    kind: str
    timestamp: datetime
    ref: str = ""
    """The outbox key the send carried, when the transport echoes it (the Cloud API does)."""

    def __post_init__(self) -> None:
        if self.kind not in RECEIPT_KINDS and not (self.kind in SETTLING_KINDS and self.ref):
            raise ValueError(f"unknown receipt kind {self.kind!r}")


InboundHandler = Callable[[InboundMessage], Awaitable[object]]
ReceiptHandler = Callable[[DeliveryReceipt], Awaitable[None]]


@runtime_checkable
class Transport(Protocol):
    """A way to reach participants; sends raise NotConnected or SendFailed.

    ``resend_is_safe``: a send a crash interrupted can go again (nothing left the machine); otherwise the outbox marks
    it *uncertain*. ``ref`` is the outbox key: the same ref is the same message, which a transport may recognise.
    ``sends_receipts``: only then can a message without a delivered receipt count as not delivered. ``reaches_people``:
    a database it serves is live for good, and nothing may act as a participant in it. ``kind`` (a MessageKind value)
    picks the Cloud API's template outside the 24-hour window; the others ignore it."""

    name: str
    resend_is_safe: bool
    sends_receipts: bool
    reaches_people: bool

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None: ...

    async def stop(self) -> None: ...

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage: ...

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        """A poll; ``multiple``: the participant may choose several options."""
        ...

    async def set_typing(self, to: Recipient, typing: bool) -> None: ...

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        """Show the participant these messages were read (blue ticks); best effort, never raises."""
