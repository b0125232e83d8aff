"""Text that crosses a boundary, one pure rule each: storage (NUL and lone surrogates go, so a write never fails on
them), terminal (control characters escaped), matching, the model (shortened), logs and errors (credentials masked)."""

from __future__ import annotations

import base64
import re
import unicodedata

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_for_storage(text: str) -> str:
    """``text`` without NUL characters and with lone surrogates replaced by U+FFFD."""
    text = text.replace("\x00", "")
    return text if text.isascii() else _LONE_SURROGATE.sub(REPLACEMENT, text)


def clean_value(value: object) -> object:
    """:func:`clean_for_storage` applied to every string in a JSON-like value (keys included)."""
    if isinstance(value, str):
        return clean_for_storage(value)
    if isinstance(value, dict):
        return {clean_for_storage(str(k)): clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_value(item) for item in value]
    return value


def lossless_original(text: str) -> str | None:
    """The exact original as base64 when cleaning changes it, so nothing a participant sent is lost."""
    if clean_for_storage(text) == text:
        return None
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def has_undecodable(text: str) -> bool:
    """Whether ``text`` carries bytes that were not UTF-8 (kept as lone surrogates, e.g. in command-line arguments)."""
    return _LONE_SURROGATE.search(text) is not None


# ---------------------------------------------------------------- terminal

_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE_FOR_TERMINAL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}\ud800-\udfff]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def for_terminal(value: object) -> str:
    """``value`` as one safe line: control characters, bidi overrides and line separators shown as escapes."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    return _UNSAFE_FOR_TERMINAL.sub(_escape_char, text)


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    return _NAMED_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


# ---------------------------------------------------------------- matching

_APOSTROPHES = str.maketrans("", "", "'‘’ʼ`´")
_BLANK_LOOKING = frozenset("\u3164\u2800\u115f\u1160\uffa0")
"""Characters that are letters or symbols to Unicode but show nothing (Hangul fillers, the blank Braille pattern)."""


def has_visible_text(text: str) -> bool:
    """Whether anything in ``text`` shows: not only spaces, format characters, variation selectors or blank letters."""
    return any(not char.isspace() and unicodedata.category(char) not in ("Cf", "Cc", "Zs", "Mn")
               and char not in _BLANK_LOOKING and not _is_variation_selector(char) for char in text)


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


_LOOKALIKES = str.maketrans({
    # Cyrillic letters that look like Latin ones, upper or lower case (matched after case folding)
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԛ": "q", "ԝ": "w", "һ": "h", "ԁ": "d", "ү": "y",
    "ӏ": "l", "ɡ": "g",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "m", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ζ": "z", "ϲ": "c",
})
"""Letters of other scripts that look like Latin letters: "sтop" with a Cyrillic т reads as "stop"."""


def _is_latin(char: str) -> bool:
    return char < "\u0250" and char.isalpha()


def fold_lookalikes(word: str, *, whole: bool = False) -> str:
    """A word mixing Latin letters with look-alikes of another script, in Latin letters; ``whole``: also a word of
    look-alikes only ("ѕтор" in Cyrillic; a real word like "стоп" is left as it is unless ``whole``)."""
    folded = word.translate(_LOOKALIKES)
    if folded == word:
        return word
    if whole:
        return folded if all(_is_latin(char) or not char.isalpha() for char in folded) else word
    return folded if any(_is_latin(char) for char in word) else word


_ASCII_SPACES = str.maketrans({chr(code): None if chr(code) in "'`" else " "
                               for code in range(128) if not chr(code).isalnum()})
"""ASCII text's part of :func:`normalise_words`: apostrophes dropped, all but letters and digits a space."""


def normalise_words(text: str) -> str:
    """Lower-case words separated by single spaces: NFKC, case folded, apostrophes and invisible characters dropped,
    anything not a letter or digit a space, look-alikes folded (``"ＳＴＯＰ 🙏!"`` is ``"stop"``). ASCII text takes a
    table (every message is read several times; most are ASCII, and the loop below was a tenth of a turn's CPU)."""
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_SPACES).split())
    return _normalise_any(text)


def _normalise_any(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    out = []
    for char in folded:
        category = unicodedata.category(char)
        if category == "Cf" or _is_variation_selector(char):
            continue  # invisible: "ST\u200bOP" is "stop", not "st op"
        out.append(char if category[0] in "LN" or category == "Mn" else " ")
    words = "".join(out).split()
    if not text.isascii():
        words = [fold_lookalikes(word) for word in words]
    return " ".join(words)


# ---------------------------------------------------------------- the model

def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters: the beginning and the end, with a note of how much was left out between."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    note = f" […{len(text)} characters, shortened…] "
    room = limit - len(note)
    if room < 20:
        return text[:limit]
    head = room * 3 // 4
    tail = room - head
    return f"{text[:head]}{note}{text[-tail:] if tail else ''}"


_SENTENCE_END = re.compile(r"[.!?…)\]\"'»”’]\s|[.!?…](?=$)|\n")


def complete_sentences(text: str, limit: int) -> str:
    """The longest run of whole sentences from the start of ``text`` that fits in ``limit`` characters (or empty)."""
    text = text.strip()
    window = text[:limit] if limit > 0 else text
    ends = [match.end() for match in _SENTENCE_END.finditer(window)]
    if len(text) <= limit and ends and ends[-1] >= len(window.rstrip()):
        return text
    if not ends:
        return ""
    return window[:ends[-1]].strip()


def cap_reply(text: str, limit: int) -> str:
    """The text, or its whole sentences that fit in ``limit`` (empty: the caller falls back)."""
    text = text.strip()
    return text if len(text) <= limit else complete_sentences(text, limit)


def cap_at_word(text: str, limit: int) -> str:
    """At most ``limit`` characters, at a whole sentence where one fits, else at a word with "…" (for our own notes)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return complete_sentences(text, limit) or text[: max(limit - 1, 1)].rsplit(" ", 1)[0].rstrip(",;:- ") + "…"


# ---------------------------------------------------------------- logs and errors

_USERINFO = re.compile(r"(?P<user>[\w.%~+-]+):(?P<secret>[^/\s'\"]+)@(?=[\w\[])")
_DSN_PASSWORD = re.compile(r"(?i)\b(password|passwd|pwd)\s*=\s*('[^']*'|\"[^\"]*\"|\S+)")


def mask_credentials(text: str) -> str:
    """``postgresql://ana:s3cret@host/db`` becomes ``postgresql://ana:***@host/db``; ``password=…`` ``password=***``."""
    if "@" not in text and "=" not in text:
        return text
    text = _USERINFO.sub(lambda m: f"{m.group('user')}:***@", text)
    return _DSN_PASSWORD.sub(lambda m: f"{m.group(1)}=***", text)


__all__ = ["REPLACEMENT", "cap_at_word", "cap_reply", "clean_for_storage", "clean_value", "complete_sentences",
           "fold_lookalikes", "for_terminal", "has_undecodable", "lossless_original", "mask_credentials",
           "normalise_words", "shorten"]
