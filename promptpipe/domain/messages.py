"""What a transcript message is and where it stands: closed sets, stored as their values."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["INBOUND_CONTENT", "POLL_KINDS", "MessageKind", "MessageStatus", "VoteSource", "kind_shown"]


class MessageKind(StrEnum):
    TEXT = "text"
    """words: the participant's, or the model's answer"""
    GREETING = "greeting"
    PROMPT = "prompt"
    POLL = "poll"
    QUESTIONNAIRE = "questionnaire"
    """A questionnaire's words and the replies to it; hidden from the model unless the study file allows."""
    QUESTIONNAIRE_POLL = "questionnaire_poll"
    """A questionnaire item asked as a poll (hidden from the model alike)."""
    REMINDER = "reminder"
    CHECK_IN = "check_in"
    """a feedback check-in or follow-up after silence"""
    COMMAND = "command"
    """the server's own answer to a command (STOP, HELP …) or to someone paused"""
    SAFETY = "safety"
    APOLOGY = "apology"
    CLOSING = "closing"
    """the study's closing message after the last day"""
    RESEARCHER = "researcher"
    """written by the research team, not the model"""
    POLL_VOTE = "poll_vote"
    REACTION = "reaction"
    VOICE = "voice"
    AUDIO = "audio"
    IMAGE = "image"
    VIDEO = "video"
    STICKER = "sticker"
    DOCUMENT = "document"
    LOCATION = "location"
    CONTACT = "contact"
    UNREADABLE = "unreadable"
    """reached the study phone but could not be decrypted (WhatsApp may resend it)"""


POLL_KINDS = (MessageKind.POLL, MessageKind.QUESTIONNAIRE_POLL)
"""Outgoing kinds sent as a WhatsApp poll."""
INBOUND_CONTENT = (MessageKind.VOICE, MessageKind.AUDIO, MessageKind.IMAGE, MessageKind.VIDEO, MessageKind.STICKER,
                   MessageKind.DOCUMENT, MessageKind.LOCATION, MessageKind.CONTACT)
"""What a message without words can be (a reaction is an event of its own, not content)."""


def kind_shown(kind: str, identified: bool) -> MessageKind:
    """A viewer sees the safety message as plain text: its kind alone says someone was in crisis."""
    return MessageKind.TEXT if kind == MessageKind.SAFETY and not identified else MessageKind(kind)


class MessageStatus(StrEnum):
    """Inbound received → answered, kept (paused, or around STOP), failed or skipped; outbound queued → sent, failed,
    uncertain (a send a crash interrupted) or cancelled (consent changed before it went)."""

    RECEIVED = "received"
    ANSWERED = "answered"
    KEPT = "kept"
    SKIPPED = "skipped"
    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"
    UNCERTAIN = "uncertain"
    CANCELLED = "cancelled"


class VoteSource(StrEnum):
    TAP = "tap"
    TYPED = "typed"
    REACTION = "reaction"
