"""The safety screen: every inbound message is checked on the server against crisis phrases (the built-in list and
SAFETY_PHRASES_FILE's), without the model so it works when the model is down; whole normalised words only."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from promptpipe.domain.text import normalise_words


class FlagStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class FlagSource(StrEnum):
    SCREEN = "screen"
    """the server's phrase list"""
    MODEL = "model"
    """the flag_concern tool"""


@dataclass(frozen=True)
class NewFlag:
    """A safety concern raised during a turn, written with its commit."""

    source: FlagSource
    severity: Severity
    trigger: str
    message_id: int | None = None


BUILT_IN_PHRASES = Path(__file__).resolve().parent.parent / "data" / "crisis_phrases_en.txt"
SCREEN_SEVERITY = Severity.HIGH
"""A phrase on the list is taken as the most serious kind of concern."""

DEFAULT_SAFETY_MESSAGE = (
    "I'm an automated habit coach, so I can't help in an emergency, but what you wrote matters. "
    "If you might act on thoughts of hurting yourself, or you are in danger right now, please call "
    "your local emergency number or go to the nearest emergency department. You can also contact a "
    "crisis line in your country, or someone you trust, to talk it through. I've let the study team know."
)
"""Sent at once when a concern is flagged; SAFETY_MESSAGE_FILE replaces it with the study's own."""


def read_phrases(path: Path) -> list[str]:
    """One phrase per line (``!`` before an exception); blank lines and ``#`` comments skipped."""
    return [text for line in path.read_text(encoding="utf-8").splitlines() if (text := line.split("#", 1)[0].strip())]


_WORD_BREAKING_INVISIBLES = re.compile("[\u200b\u2060\ufeff\u180e]")
"""Zero-width characters someone may put *between* words ("kill\u200bmyself"); inside a word they
are dropped by :func:`normalise_words`, so both readings are screened."""
_DIGITS_FOR_LETTERS = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_TOKEN = re.compile(r"\S+")


def _letters_for_digits(token: re.Match[str]) -> str:
    """"k1ll" reads "kill"; a plain number ("2.5") stays a number."""
    word = token.group(0)
    return word.translate(_DIGITS_FOR_LETTERS) if any(char.isalpha() for char in word) else word


_SPELLED_OUT = re.compile(r"(?<!\S)(?:\w )+\w(?!\S)")


def _readings(text: str) -> list[str]:
    """As written, zero-width characters as spaces, spelled-out letters joined ("k m s"), digits read as letters."""
    plain = normalise_words(text)
    spaced = normalise_words(_WORD_BREAKING_INVISIBLES.sub(" ", text))
    lettered = normalise_words(_TOKEN.sub(_letters_for_digits, text))
    joined = (_SPELLED_OUT.sub(lambda m: m.group(0).replace(" ", ""), reading) for reading in (plain, spaced))
    return list(dict.fromkeys((plain, spaced, lettered, *joined)))


def _alternatives(phrases: Iterable[str]) -> re.Pattern[str] | None:
    """Whole-word alternatives, longest first; the word ``number`` stands for any number."""
    ordered = sorted(set(phrases), key=lambda p: (-len(p), p))
    if not ordered:
        return None
    escaped = (" ".join(r"\d+(?: \d+)*" if word == "number" else re.escape(word) for word in p.split())
               for p in ordered)
    return re.compile(r"(?<!\S)(?:" + "|".join(escaped) + r")(?!\S)")


@dataclass(frozen=True)
class CrisisScreen:
    phrases: tuple[str, ...]
    """Normalised phrases, longest first."""
    _pattern: re.Pattern[str] | None
    _exceptions: re.Pattern[str] | None = None

    @classmethod
    def of(cls, phrases: Iterable[str]) -> CrisisScreen:
        """From phrases as written in the file: ``!`` marks an exception."""
        listed = [(p.startswith("!"), normalise_words(p.removeprefix("!"))) for p in phrases]
        normalised = sorted({p for exception, p in listed if p and not exception}, key=lambda p: (-len(p), p))
        return cls(tuple(normalised), _alternatives(normalised),
                   _alternatives(p for exception, p in listed if p and exception))

    @classmethod
    def load(cls, extra_file: Path | None = None) -> CrisisScreen:
        """The built-in list plus the study's own phrases."""
        if extra_file is None:
            return _built_in_screen()
        return cls.of(read_phrases(BUILT_IN_PHRASES) + read_phrases(extra_file))

    def match(self, text: str) -> str | None:
        """The crisis phrase ``text`` contains (in any of its readings, outside the words of an exception), or None."""
        if self._pattern is None or not text:
            return None
        for reading in _readings(text):
            if self._exceptions is not None:
                reading = self._exceptions.sub(" | ", reading)
            found = self._pattern.search(reading)
            if found:
                return found.group(0)
        return None


@functools.cache
def _built_in_screen() -> CrisisScreen:
    """The built-in list alone, read and compiled once per process (~15 ms each service built)."""
    return CrisisScreen.of(read_phrases(BUILT_IN_PHRASES))
