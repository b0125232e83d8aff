"""Short messages the server understands without a model: how a message is reduced to its words, and the phrases
that put intake on hold.

:func:`spoken` normalises (NFKC, case folded, punctuation and emoji dropped) and strips politeness words at either end,
so ``"Later, thanks!"`` is ``"later"``; commands are matched the same way (:mod:`promptpipe.flow.commands`).
"""

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
"""During intake, a message that is exactly one of these (after :func:`spoken`) puts intake on
hold: the participant is acknowledged and asked nothing more until they write again. ``now``
is a politeness word, so "not now" is listed whole. The README lists them."""


def spoken(text: str) -> str:
    """The message's words, normalised, without politeness words at either end."""
    words = normalise_words(text).split()
    while words and words[0] in POLITENESS:
        words.pop(0)
    while words and words[-1] in POLITENESS:
        words.pop()
    return " ".join(words)


def is_escape(text: str) -> bool:
    """Whether the message asks to leave intake for now: an escape phrase, alone or with politeness words around it
    ("not now, thanks"; "now" is itself a politeness word, so every way of trimming them is tried)."""
    words = normalise_words(text).split()
    lead = next((i for i, word in enumerate(words) if word not in POLITENESS), len(words))
    trail = next((i for i in range(len(words), 0, -1) if words[i - 1] not in POLITENESS), 0)
    return any(" ".join(words[start:end]) in ESCAPE_PHRASES
               for start in range(lead + 1) for end in range(max(trail, start + 1), len(words) + 1))
