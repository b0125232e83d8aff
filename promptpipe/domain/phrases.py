"""Short messages the server understands without a model: :func:`spoken` reduces a message to its words without
politeness words at either end (``"Later, thanks!"`` is ``"later"``), and some of them put intake on hold."""

from __future__ import annotations

from promptpipe.domain.text import normalise_words

__all__ = ["ESCAPE_PHRASES", "POLITENESS", "is_escape", "spoken"]

POLITENESS = frozenset({"please", "pls", "plz", "thanks", "thank", "you", "thx", "ty", "now", "ok", "okay",
                        "kindly", "hi", "hello", "hey", "just",
                        # and in the languages the commands know
                        "bitte", "danke", "merci", "svp", "stp", "por", "favor", "gracias", "obrigado", "obrigada",
                        "grazie", "пожалуйста", "спасибо"})
"""Words ignored at either end of a command or an escape phrase (``"stop please"``, ``"ok later"``)."""

ESCAPE_PHRASES = frozenset({
    "later", "maybe later", "later maybe", "not now", "not right now", "not yet", "cancel", "never mind",
    "nevermind", "stop asking", "another time", "some other time", "another day", "no time", "busy",
    "im busy", "ask me later", "remind me later", "talk later", "not today",
})
"""During intake, a message that is one of these puts intake on hold until they write again (the README lists them)."""


def spoken(text: str) -> str:
    """The message's words, normalised, without politeness words at either end."""
    words = normalise_words(text).split()
    while words and words[0] in POLITENESS:
        words.pop(0)
    while words and words[-1] in POLITENESS:
        words.pop()
    return " ".join(words)


def is_escape(text: str) -> bool:
    """An escape phrase, alone or with politeness words around it ("now" is one too, so every trim is tried)."""
    words = normalise_words(text).split()
    lead = next((i for i, word in enumerate(words) if word not in POLITENESS), len(words))
    trail = next((i for i in range(len(words), 0, -1) if words[i - 1] not in POLITENESS), 0)
    return any(" ".join(words[start:end]) in ESCAPE_PHRASES
               for start in range(lead + 1) for end in range(max(trail, start + 1), len(words) + 1))
