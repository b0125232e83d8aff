"""Pure conversions between neonize (WhatsApp) values and our transport types: no I/O and no neonize import at
runtime, so all of it is tested on look-alike protobuf objects without a connected client."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from promptpipe.domain.messages import MessageKind
from promptpipe.domain.phones import from_whatsapp
from promptpipe.errors import NotConnected, SendFailed, TransportError
from promptpipe.transport.base import DeliveryReceipt, InboundMessage, PollVote, Reaction, Recipient, SentMessage

if TYPE_CHECKING:
    from neonize.proto.Neonize_pb2 import JID
    from neonize.proto.Neonize_pb2 import Message as MessageEv

__all__ = ["LID_SERVER", "PN_SERVER", "classify_send_error", "is_direct_message", "jid_for", "mask_lid",
           "needs_phone_lookup", "poll_vote_from_decrypted", "receipt_from", "redact_numbers", "sanitize_outgoing_text",
           "sender_jid", "sent_message_from", "to_inbound", "unreadable_from"]

PN_SERVER = "s.whatsapp.net"
LID_SERVER = "lid"
_GROUP_SERVER = "g.us"
_BROADCAST_SERVER = "broadcast"
_NOT_DIRECT_SERVERS = (_GROUP_SERVER, _BROADCAST_SERVER, "newsletter")
_STATUS_USER = "status"

# Captions are text the participant typed under a photo, video or document.
_CAPTIONED_FIELDS = ("imageMessage", "videoMessage", "documentMessage")

# Seconds stay below 1e11 until the year 5138; milliseconds passed it in 1973.
_MS_THRESHOLD = 1e11


class _DecryptedVote(Protocol):
    selectedOptions: Iterable[bytes]


# --------------------------------------------------------------------------- inbound


def _digits(user: str) -> str:
    """The user part of a JID without agent/device suffixes (``"1555:3"`` → ``"1555"``)."""
    head = re.split(r"[:.]", user, maxsplit=1)[0]
    return re.sub(r"\D", "", head)


def _e164(value: str | None) -> str | None:
    """Accept ``"1416…"``, ``"+1416…"`` or ``"1416…@s.whatsapp.net"``; return ``"+1416…"``."""
    return from_whatsapp(_digits(value.split("@", 1)[0])) if value else None


def _jid_is(jid: JID, server: str) -> bool:
    return bool(jid.User) and jid.Server == server


def is_direct_message(ev: MessageEv) -> bool:
    """True for a one-to-one message from someone else (not a group, status, newsletter, own echo)."""
    source = ev.Info.MessageSource
    return not (source.IsFromMe or source.IsGroup or source.Chat.Server in _NOT_DIRECT_SERVERS
                or _STATUS_USER in (source.Chat.User, source.Sender.User))


def sender_jid(ev: MessageEv) -> JID:
    """Who wrote the message; in a one-to-one chat an empty Sender means the chat partner."""
    source = ev.Info.MessageSource
    return source.Sender if source.Sender.User else source.Chat


def needs_phone_lookup(ev: MessageEv) -> bool:
    """The sender is LID-addressed and the event carries no phone-number alternate."""
    return _jid_is(sender_jid(ev), LID_SERVER) and not _jid_is(ev.Info.MessageSource.SenderAlt, PN_SERVER)


def _inbound(ev: Any, resolved_phone: str | None, message_id: str, **fields: Any) -> InboundMessage | None:
    if not is_direct_message(ev):
        return None
    jids = (sender_jid(ev), ev.Info.MessageSource.SenderAlt)
    phone = next((_e164(jid.User) for jid in jids if _jid_is(jid, PN_SERVER)), _e164(resolved_phone))
    lid = next((_digits(jid.User) or None for jid in jids if _jid_is(jid, LID_SERVER)), None)
    if phone is None and lid is None:
        return None
    return InboundMessage(message_id=message_id, sender_phone=phone, sender_lid=lid, sender_name=ev.Info.Pushname,
                          timestamp=_timestamp(ev.Info.Timestamp), **fields)


def _text_of(message: Any) -> str:
    if message.HasField("conversation"):
        return str(message.conversation)
    if message.HasField("extendedTextMessage"):
        return str(message.extendedTextMessage.text)
    for field in _CAPTIONED_FIELDS:
        if message.HasField(field):
            return str(getattr(message, field).caption)
    return ""


# Messages without words, by the field that carries them (checked after captions, which are text).
_CONTENT_FIELDS = (("audioMessage", "audio"), ("imageMessage", "image"), ("videoMessage", "video"),
                   ("ptvMessage", "video"), ("stickerMessage", "sticker"), ("documentMessage", "document"),
                   ("locationMessage", "location"), ("liveLocationMessage", "location"), ("contactMessage", "contact"),
                   ("contactsArrayMessage", "contact"))


def _content_of(message: Any) -> str | None:
    """What a message without text is (``voice`` for a recorded voice note), or None."""
    content = next((content for field, content in _CONTENT_FIELDS if message.HasField(field)), None)
    return "voice" if content == MessageKind.AUDIO and getattr(message.audioMessage, "PTT", False) else content


def _edit_of(ev: Any) -> str | None:
    """The id an edit replaces: whatsmeow leaves the protocol message around the new wording in ``Raw``."""
    raw = ev.Raw if ev.HasField("Raw") else None
    candidates = [ev.Message, *([raw, raw.ephemeralMessage.message, raw.deviceSentMessage.message] if raw else [])]
    for message in candidates:
        if message.HasField("protocolMessage") and message.protocolMessage.key.ID:
            return str(message.protocolMessage.key.ID)
    return None


def _unwrap_edit(message: Any) -> tuple[Any, bool]:
    """whatsmeow usually hands over an edit already unwrapped (``IsEdit``); unwrap it if not."""
    if message.HasField("protocolMessage") and message.protocolMessage.HasField("editedMessage"):
        return message.protocolMessage.editedMessage, True
    return message, False


_QUOTING_FIELDS = ("extendedTextMessage", *_CAPTIONED_FIELDS, "audioMessage", "ptvMessage", "stickerMessage",
                   "locationMessage", "liveLocationMessage", "contactMessage", "contactsArrayMessage")
"""Message kinds that carry ``contextInfo``, so a swipe reply of any of them says what it quotes."""


def _quoted_id(message: Any) -> str | None:
    for field in _QUOTING_FIELDS:
        if message.HasField(field):
            inner = getattr(message, field)
            if inner.HasField("contextInfo") and inner.contextInfo.stanzaID:
                return str(inner.contextInfo.stanzaID)
    return None


def _reaction_of(message: Any) -> Reaction | None:
    """An emoji reaction (an empty emoji: the reaction was taken back), or None."""
    if not message.HasField("reactionMessage"):
        return None
    reaction = message.reactionMessage
    target = str(reaction.key.ID) if reaction.HasField("key") else ""
    return Reaction(message_id=target, emoji=str(reaction.text)) if target else None


def _timestamp(raw: int) -> datetime:
    """Inbound messages carry milliseconds and send results seconds; accept either."""
    if raw <= 0:
        return datetime.now(timezone.utc)  # never seen in practice; better than 1970
    seconds = raw / 1000 if raw > _MS_THRESHOLD else raw
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def to_inbound(
    ev: MessageEv,
    *,
    resolved_phone: str | None = None,
    poll_vote: PollVote | None = None,
) -> InboundMessage | None:
    """A neonize ``MessageEv`` as ours, or None if it is not for us; ``poll_vote`` comes already decrypted."""
    message, wrapped_edit = _unwrap_edit(ev.Message)
    edited = wrapped_edit or bool(getattr(ev, "IsEdit", False))
    is_poll_update = message.HasField("pollUpdateMessage")
    if is_poll_update and poll_vote is None:
        return None  # an undecrypted vote says nothing we can use
    reaction = None if is_poll_update else _reaction_of(message)
    text = "" if is_poll_update or reaction else _text_of(message)
    content = "reaction" if reaction else "text" if text or is_poll_update else _content_of(message)
    if content is None:
        return None
    # an edit is a new message; its id may repeat the original's, so make it its own
    message_id = f"{ev.Info.ID}~edit~{ev.Info.Timestamp}" if edited else ev.Info.ID
    return _inbound(ev, resolved_phone, message_id, text=text, poll_vote=poll_vote if is_poll_update else None,
                    content=content, quoted_message_id=_quoted_id(message), edited=edited,
                    edit_of=_edit_of(ev) if edited else None, reaction=reaction)


def unreadable_from(ev: Any, *, resolved_phone: str | None = None) -> InboundMessage | None:
    """An ``UndecryptableMessageEv`` as a message without words (answered: we could not read it). Its id is its own,
    so the message delivered again under the original id once it can be decrypted is not a duplicate."""
    return _inbound(ev, resolved_phone, f"{ev.Info.ID}~unreadable", text="", content=MessageKind.UNREADABLE)


def poll_vote_from_decrypted(poll_message_id: str, decrypted: _DecryptedVote) -> PollVote:
    """WhatsApp votes carry SHA-256 digests of the option texts; hex them like ``poll_option_hash``."""
    return PollVote(poll_message_id, tuple(bytes(option).hex() for option in decrypted.selectedOptions))


# neonize's ReceiptType numbers: DELIVERED 1, READ 4, PLAYED 6, INACTIVE 9 (delivered while the app was not in use).
# The others (our own devices, retries, server errors, history sync) say nothing about the participant.
_RECEIPT_KINDS = {1: "delivered", 4: "read", 6: "played", 9: "delivered"}


def receipt_from(ev: Any) -> DeliveryReceipt | None:
    """A participant's delivered / read / played receipt for messages we sent, or None."""
    kind = _RECEIPT_KINDS.get(int(ev.Type))
    source = ev.MessageSource
    if kind is None or source.IsFromMe or source.IsGroup or source.Chat.Server in (_GROUP_SERVER, _BROADCAST_SERVER):
        return None
    ids = tuple(mid for mid in ev.MessageIDs if mid)
    return DeliveryReceipt(message_ids=ids, kind=kind, timestamp=_timestamp(ev.Timestamp)) if ids else None


# -------------------------------------------------------------------------- outbound


def sent_message_from(resp: Any) -> SentMessage:
    """neonize's ``SendResponse`` (``ID``, ``Timestamp`` in seconds) as a :class:`SentMessage`."""
    return SentMessage(message_id=resp.ID, timestamp=_timestamp(resp.Timestamp))


def jid_for(recipient: Recipient) -> tuple[str, str]:
    """``(user, server)`` to address a participant; the LID is preferred when we know it."""
    lid = _digits(recipient.lid or "")
    if lid:
        return lid, LID_SERVER
    phone = _digits(recipient.phone.split("@", 1)[0])
    if not phone:
        raise ValueError("recipient has neither a usable LID nor phone digits")
    return phone, PN_SERVER


_ZWJ = "\u200d"
# neonize turns `@` + 5–16 digits (or `@0`) into mentions and looks `@<digits/dashes>@g.us` groups up over the
# network; an invisible joiner after the `@` breaks the pattern and keeps the text as written.
_NEONIZE_TRIGGER = re.compile(r"@(?=[0-9]{5}|0|[0-9-]{11,26}@g\.us)")


def sanitize_outgoing_text(text: str) -> str:
    """Stop neonize from turning parts of plain text into mentions or group lookups."""
    return _NEONIZE_TRIGGER.sub("@" + _ZWJ, text)


# Substrings of whatsmeow/neonize error texts, lower-cased, with what they mean for a retry.
_NOT_CONNECTED = ("client is nil", "websocket not connected", "not logged in", "store doesn't contain a device jid")
_PERMANENT = ("recipient must be a user jid", "no lid found")
_MAYBE_DELIVERED = ("timed out", "before message send returned response")
"""The message may have reached WhatsApp: never resent, marked uncertain."""
_LONG_DIGITS = re.compile(r"\d{5,}")


def mask_lid(lid: str | None) -> str:
    """A LID for logs: ``"lid:…2345"``."""
    return f"lid:…{lid[-4:]}" if lid else ""


def redact_numbers(text: str) -> str:
    """Error texts can contain JIDs; keep only the last four digits of any long number."""
    return _LONG_DIGITS.sub(lambda m: "*" * (len(m.group(0)) - 4) + m.group(0)[-4:], text)


def classify_send_error(exc: BaseException) -> TransportError:
    """Map a neonize send error to NotConnected / SendFailed(retryable=...)."""
    if isinstance(exc, TransportError):
        return exc
    detail = redact_numbers(str(exc)) or type(exc).__name__
    lowered = detail.lower()
    if any(marker in lowered for marker in _NOT_CONNECTED):
        return NotConnected(f"WhatsApp is not connected: {detail}")
    if any(marker in lowered for marker in _MAYBE_DELIVERED):
        return SendFailed(f"WhatsApp send may or may not have arrived: {detail}", retryable=False, ambiguous=True)
    if any(marker in lowered for marker in _PERMANENT):
        return SendFailed(f"WhatsApp cannot deliver to this recipient: {detail}", retryable=False)
    return SendFailed(f"WhatsApp send failed: {detail}", retryable=True)
