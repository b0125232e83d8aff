"""What a search for a participant means: a name, a phone number in any spelling, or an id (or its start); viewers
match ids only, so their search says nothing about who exists."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_QUERY_CHARS", "MIN_ID_DIGITS", "MIN_PHONE_DIGITS", "SearchTerms"]

MAX_QUERY_CHARS = 100
MIN_PHONE_DIGITS = 4
"""Fewer digits than this are not searched as a phone number (every number has "1")."""
MIN_ID_DIGITS = 4
"""The shortest start of an id searched (``p_3f9a``): fewer would match a sixteenth of everyone."""
_ID_START = re.compile(rf"(?:p_)?([0-9a-f]{{{MIN_ID_DIGITS},16}})")
_PHONE_LIKE = re.compile(r"[\d\s().+\-/]+")


@dataclass(frozen=True)
class SearchTerms:
    """What one query is compared with; None where it cannot match that field."""

    id_start: str | None
    phone_digits: str | None
    name_part: str | None
    """Lower case: names that contain it, whatever their case."""

    @classmethod
    def parse(cls, query: str, *, identified: bool) -> SearchTerms:
        text = " ".join(query.split())[:MAX_QUERY_CHARS]
        lowered = text.lower()
        found = _ID_START.fullmatch(lowered)
        id_start = "p_" + found.group(1) if found else None
        if not identified:
            return cls(id_start, None, None)
        digits = re.sub(r"\D", "", text)
        phone = digits if _PHONE_LIKE.fullmatch(text) and len(digits) >= MIN_PHONE_DIGITS else None
        name = lowered if any(ch.isalpha() for ch in text) else None
        return cls(id_start, phone, name)

    @property
    def empty(self) -> bool:
        return self.id_start is None and self.phone_digits is None and self.name_part is None
