"""Pseudonymising a participant's free texts: phone numbers become ``[phone]`` (their own in its usual spellings, any
other by libphonenumber's most lenient matcher, which leaves dates and counts alone) and their own name ``[name]``.
Other people's names are not recognised: texts need reading before sharing beyond the team."""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from collections.abc import Container, Iterable, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import phonenumbers

from promptpipe.domain.localtime import zone_or_utc

UTC = ZoneInfo("UTC")
NAME_MARK, PHONE_MARK = "[name]", "[phone]"

_SEPARATOR = r"[\s().\-]{0,2}"


def _phone_spellings(phone: str) -> list[str]:
    """The digits of the number as written internationally and, where known, nationally."""
    digits = re.sub(r"\D", "", phone or "")
    if len(digits) < 6:
        return []
    try:
        national = phonenumbers.national_significant_number(phonenumbers.parse("+" + digits, None))
    except phonenumbers.NumberParseException:
        national = ""
    return [digits, national] if len(national) >= 7 and national != digits else [digits]


def _phone_pattern(spellings: Sequence[str]) -> str:
    """``+14165550123``, ``1 416 555 0123``, ``(416) 555-0123``, ``416.555.0123`` …"""
    international, *national = spellings
    alternatives = [r"\+?" + _SEPARATOR.join(international)] + [r"\(?0?" + _SEPARATOR.join(n) for n in national]
    return r"(?<!\d)(?:" + "|".join(alternatives) + r")(?!\d)"


_SHORTEST_PHONE = 7
_ENOUGH_DIGITS = re.compile(rf"(?:\D*+\d){{{_SHORTEST_PHONE}}}")
"""A text with fewer digits holds no phone number (a regex: a test per character was a fifth of formatting time;
possessive, as giving back non-digits cannot make a digit match: without, a text with none took 1.8 µs, now 0.6)."""
_SOME_DIGITS = re.compile(r"(?:\D*+\d){6}")
_ASCII_DIGITS = b"0123456789"


def _some_digits(text: str) -> bool:
    """At least the six digits a participant's own number has in any spelling (:func:`_phone_spellings`). An ASCII
    text's digits are counted by deleting them from its bytes: a third of the regex's time."""
    if text.isascii():
        return len(text) - len(text.encode("ascii").translate(None, _ASCII_DIGITS)) >= 6
    return _SOME_DIGITS.match(text) is not None


def _region_of(phone: str) -> str:
    """How their national spellings are read."""
    try:
        return phonenumbers.region_code_for_number(phonenumbers.parse(phone, None)) or "US"
    except phonenumbers.NumberParseException:
        return "US"


def _without_phone_numbers(text: str, region: str) -> str:
    found = [match for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE)
             if not _inside_a_word(text, match.start, match.end)]
    for match in reversed(found):
        text = text[:match.start] + PHONE_MARK + text[match.end:]
    return text


def _inside_a_word(text: str, start: int, end: int) -> bool:
    """Digits glued to letters (an id such as ``p_0123456789abcdef``) are not a phone number."""
    before, after = text[start - 1:start], text[end:end + 1]
    return bool(before and (before.isalnum() or before == "_")) or bool(after and (after.isalnum() or after == "_"))


def _name_words(name: str) -> list[str]:
    """Capitalised (or caseless) words of two characters or more, longest first (a nickname's "the" is no name)."""
    words = {w for w in re.findall(r"\w+", name) if len(w) >= 2 and not w[0].islower() and not w.isdigit()}
    return sorted(words, key=len, reverse=True)


class _Redactor:
    """One participant's number and name out of a text; cheap substring tests first, since most texts hold neither."""

    def __init__(self, phone: str, name: str) -> None:
        self.phone_number = phone
        self._phone: tuple[str, str | None, tuple[str, ...]] | None = None
        """Region, pattern and digits of the number: read (by libphonenumber) for the first text with digits enough."""
        name = (name or "").strip()
        self.full_name = name.lower() if len(name) >= 2 else ""
        self.words = _name_words(name) if self.full_name else []
        alternatives = (["(?i:" + re.escape(name) + ")"] if self.full_name else []) + [re.escape(w) for w in self.words]
        self.name_pattern = r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)" if alternatives else None
        # Compiled on first use: most participants' texts never hold their number or name, and
        # compiling two patterns for each was a fifth of formatting a 500-participant transcript.
        self.phone: re.Pattern[str] | None = None
        self.name: re.Pattern[str] | None = None

    def __call__(self, text: str) -> str:
        # Loops rather than any()/all() over generators: this runs for every text of the export.
        if _some_digits(text):  # either kind of phone number has at least six digits
            region, pattern, digits = self._phone or self._read_phone()
            if pattern is not None:
                for digit in digits:  # every spelling has them: a text lacking one cannot hold the number
                    if digit not in text:
                        break
                else:
                    self.phone = self.phone or re.compile(pattern)
                    text = self.phone.sub(PHONE_MARK, text)
            if _ENOUGH_DIGITS.match(text):
                text = _without_phone_numbers(text, region)
        if self.name_pattern is not None and self._may_name(text):
            self.name = self.name or re.compile(self.name_pattern)
            text = self.name.sub(NAME_MARK, text)
        return text

    def _read_phone(self) -> tuple[str, str | None, tuple[str, ...]]:
        spellings = _phone_spellings(self.phone_number)
        self._phone = (_region_of(self.phone_number), _phone_pattern(spellings) if spellings else None,
                       tuple(set.intersection(*(set(s) for s in spellings))) if spellings else ())
        return self._phone

    def _may_name(self, text: str) -> bool:
        for word in self.words:
            if word in text:
                return True
        return self.full_name in text.lower()


ZoneChange = tuple[str, datetime, str | None, str]
"""Participant, when, the zone before and the zone after."""


class People:
    """Each participant's zones now and before, their phone number and name, and the multiple-choice items."""

    def __init__(self, rows: Iterable[Any], multiple_choice: frozenset[tuple[str, str, str]] = frozenset(),
                 changes: Iterable[ZoneChange] = ()) -> None:
        self.multiple_choice = multiple_choice
        self.zones: dict[str, ZoneInfo] = {}
        self._identities: dict[str, tuple[str, str]] = {}
        self._redactors: dict[str, _Redactor] = {}
        for pid, tz, phone, name in rows:
            self.zones[pid] = zone_or_utc(tz)
            self._identities[pid] = (phone or "", name or "")
        self._moves: dict[str, tuple[list[datetime], list[ZoneInfo]]] = {}
        """Per participant who moved: when each change took effect, and the zones in turn."""
        for pid, at, before, after in sorted(changes, key=lambda change: (change[0], change[1])):
            times, zones = self._moves.setdefault(pid, ([], [zone_or_utc(before) if before else self.zone(pid)]))
            times.append(at)
            zones.append(zone_or_utc(after))

    def __contains__(self, participant_id: str) -> bool:
        return participant_id in self.zones

    def __len__(self) -> int:
        return len(self.zones)

    @property
    def moved(self) -> Container[str]:
        """Those who ever changed zone: the others' every time is in :meth:`zone`."""
        return self._moves.keys()

    def zone(self, participant_id: str) -> ZoneInfo:
        return self.zones.get(participant_id, UTC)

    def zone_at(self, participant_id: str, when: datetime | None) -> ZoneInfo:
        """The zone they were in at ``when`` (a change takes effect at its own moment)."""
        moves = self._moves.get(participant_id)
        if moves is None or when is None:
            return self.zones.get(participant_id, UTC)
        times, zones = moves
        return zones[bisect_right(times, when)]

    def scrub(self, participant_id: str, text: Any) -> Any:
        """``text`` with their own phone number and name replaced; anything but a non-empty string as it is."""
        if not text or text.__class__ is not str:
            return text
        redactor = self._redactors.get(participant_id)
        if redactor is None:  # built on first use: one compiled pattern per participant
            redactor = self._redactors[participant_id] = _Redactor(*self._identities.get(participant_id, ("", "")))
        return redactor(text)

    def scrub_value(self, participant_id: str, value: Any) -> Any:
        """:meth:`scrub` for every string in a JSON value (the base64 copy of an original text too)."""
        if value.__class__ is str:
            return self.scrub(participant_id, value)
        if isinstance(value, dict):
            return {key: self._scrub_b64(participant_id, item) if key == "original_text_b64"
                    else self.scrub_value(participant_id, item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.scrub_value(participant_id, item) for item in value]
        return value

    def _scrub_b64(self, participant_id: str, value: Any) -> Any:
        if not isinstance(value, str):
            return self.scrub_value(participant_id, value)
        try:
            original = base64.b64decode(value, validate=True).decode("utf-8", "surrogatepass")
        except (binascii.Error, UnicodeDecodeError):
            return None  # not ours to read, so not safe to pass on
        scrubbed = self.scrub(participant_id, original)
        return value if scrubbed == original else base64.b64encode(
            scrubbed.encode("utf-8", "surrogatepass")).decode("ascii")


