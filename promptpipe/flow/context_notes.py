"""What the model is told, in our words, about a swipe reply or a reaction: which message it points at."""

from __future__ import annotations

from promptpipe.domain.messages import MessageKind
from promptpipe.flow.votes import day_label
from promptpipe.storage.deliveries import QuotedMessage

QUOTE_CHARS = 160


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 1].rstrip() + "…"


def _what(target: QuotedMessage) -> str:
    if target.prompt_of is not None:
        day = day_label(target.prompt_of) + ("" if target.newest_prompt else ", an earlier day")
        if target.kind == MessageKind.POLL:
            return f"the \"did you do it?\" poll of {day}"
        return f"your daily prompt of {day}: \"{_excerpt(target.text)}\""
    if target.direction == "in":
        return f"their own earlier message \"{_excerpt(target.text)}\""
    return f"your message \"{_excerpt(target.text)}\""


def quote_note(target: QuotedMessage) -> str:
    """Put before a swipe reply's words."""
    return f"[in reply to {_what(target)}]"


def reaction_note(emoji: str, target: QuotedMessage) -> str:
    """What a reaction is, as the model's input."""
    return f"[reacted {emoji} to {_what(target)}]"
