"""The safety screen: every inbound message is checked on the server, before the model, against a
list of crisis phrases. It does not depend on the model, so it works when the model is down.

Pure: phrases and text in, the matched phrase out. The built-in English list lives in
``promptpipe/data/crisis_phrases_en.txt`` (documented there and in the README); a study adds
its own phrases with SAFETY_PHRASES_FILE. Matching is on :func:`promptpipe.domain.text.normalise_words`
of both sides and needs whole words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from promptpipe.domain.text import normalise_words

OPEN, RESOLVED = "open", "resolved"
"""A safety flag's status."""
SEVERITIES = ("low", "medium", "high")


@dataclass(frozen=True)
class NewFlag:
    """A safety concern raised during a turn, written with its commit."""

    source: str
    """screen (the phrase list) | model (the flag_concern tool)"""
    severity: str
    trigger: str
    message_id: int | None = None


BUILT_IN_PHRASES = Path(__file__).resolve().parent.parent / "data" / "crisis_phrases_en.txt"
SCREEN_SEVERITY = "high"
"""A phrase on the list is taken as the most serious kind of concern."""

DEFAULT_SAFETY_MESSAGE = (
    "I'm an automated habit coach, so I can't help in an emergency, but what you wrote matters. "
    "If you might act on thoughts of hurting yourself, or you are in danger right now, please call "
    "your local emergency number or go to the nearest emergency department. You can also contact a "
    "crisis line in your country, or someone you trust, to talk it through. I've let the study team know."
)
"""Sent at once when the screen or the model flags a concern; SAFETY_MESSAGE_FILE replaces it
with the study's own (its helpline, its team)."""


def read_phrases(path: Path) -> list[str]:
    """One phrase per line; blank lines and ``#`` comments skipped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


@dataclass(frozen=True)
class CrisisScreen:
    phrases: tuple[str, ...]
    """Normalised phrases, longest first."""
    _pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, phrases: Iterable[str]) -> CrisisScreen:
        normalised = sorted({normalise_words(p) for p in phrases if normalise_words(p)}, key=lambda p: (-len(p), p))
        if not normalised:
            return cls((), None)
        pattern = re.compile(r"(?<!\S)(?:" + "|".join(re.escape(p) for p in normalised) + r")(?!\S)")
        return cls(tuple(normalised), pattern)

    @classmethod
    def load(cls, extra_file: Path | None = None) -> CrisisScreen:
        """The built-in list plus the study's own phrases."""
        phrases = read_phrases(BUILT_IN_PHRASES)
        if extra_file is not None:
            phrases += read_phrases(extra_file)
        return cls.of(phrases)

    def match(self, text: str) -> str | None:
        """The crisis phrase ``text`` contains (normalised), or None."""
        if self._pattern is None or not text:
            return None
        found = self._pattern.search(normalise_words(text))
        return found.group(0) if found else None
