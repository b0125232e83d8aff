"""Pseudonymising the free texts of a participant's own rows for the export: phone numbers become ``[phone]`` and their
own name ``[name]`` (the model greets people by name).

Their own number is matched in its usual spellings (``+14165550123``, ``(416) 555-0123``, ``416.555.0123``); any other
(someone else's, or theirs spelled ``416 / 555 / 0123`` or in full-width digits) by libphonenumber's matcher in the
region of their own number at its most lenient level (a possible number, so a seven-digit local one too), which leaves
dates, times and counts alone. The name matches whole in any case, and each capitalised word of it as written, as whole
words. Other people's names and nicknames are not recognised: texts need reading before sharing beyond the team."""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
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
"""Fewer digits than this in a text: no phone number to look for."""
_ENOUGH_DIGITS = re.compile(rf"(?:\D*\d){{{_SHORTEST_PHONE}}}")
"""Matches a text with at least :data:`_SHORTEST_PHONE` digits (a test per character in Python
was a fifth of the export's formatting time)."""


def _region_of(phone: str) -> str:
    """The country of a participant's own number: how their national spellings are read."""
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
    """The words of a name that are capitalised or from a script without case, at least two
    characters, longest first (``Ana, "the walker"``: ``Ana``; a nickname's "the" is no name)."""
    words = {w for w in re.findall(r"\w+", name) if len(w) >= 2 and not w[0].islower() and not w.isdigit()}
    return sorted(words, key=len, reverse=True)


class _Redactor:
    """Replaces one participant's phone number and name in a text by ``[phone]`` and ``[name]``:
    the number in its usual spellings, the whole name in any case and each name word as written,
    as whole words. Cheap substring tests come first, since most texts contain neither."""

    def __init__(self, phone: str, name: str) -> None:
        spellings = _phone_spellings(phone)
        self.region = _region_of(phone)
        self.phone_pattern = _phone_pattern(spellings) if spellings else None
        self.phone_digits = tuple(set.intersection(*(set(s) for s in spellings))) if spellings else ()
        """Digits every spelling contains: a text lacking one of them cannot hold the number."""
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
        if self.phone_pattern is not None and all(d in text for d in self.phone_digits):
            self.phone = self.phone or re.compile(self.phone_pattern)
            text = self.phone.sub(PHONE_MARK, text)
        if _ENOUGH_DIGITS.match(text):
            text = _without_phone_numbers(text, self.region)
        if self.name_pattern is not None and (any(w in text for w in self.words) or self.full_name in text.lower()):
            self.name = self.name or re.compile(self.name_pattern)
            text = self.name.sub(NAME_MARK, text)
        return text


ZoneChange = tuple[str, datetime, str | None, str]
"""A ``timezone_changed`` transition: participant, when, the zone before and the zone after."""


class People:
    """Each participant's zone now and the zones they were in before (their ``timezone_changed``
    transitions), and their own phone number and name to take out of texts; and which
    questionnaire items are multiple choices (their ``coded`` is a list)."""

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
        """Per participant who changed zone: when each change took effect, and the zones in turn
        (the first, the zone before the first change)."""
        for pid, at, before, after in sorted(changes, key=lambda change: (change[0], change[1])):
            times, zones = self._moves.setdefault(pid, ([], [zone_or_utc(before) if before else self.zone(pid)]))
            times.append(at)
            zones.append(zone_or_utc(after))

    def __contains__(self, participant_id: str) -> bool:
        return participant_id in self.zones

    def __len__(self) -> int:
        return len(self.zones)

    def zone(self, participant_id: str) -> ZoneInfo:
        """Their zone now (the participants file's ``timezone``)."""
        return self.zones.get(participant_id, UTC)

    def zone_at(self, participant_id: str, when: datetime | None) -> ZoneInfo:
        """The zone they were in at ``when``: the one their latest change up to then moved them to
        (a change takes effect at its own moment), before any change the one the first change
        left, and for someone who never moved their zone now."""
        moves = self._moves.get(participant_id)
        if moves is None or when is None:
            return self.zones.get(participant_id, UTC)
        times, zones = moves
        return zones[bisect_right(times, when)]

    def scrub(self, participant_id: str, text: Any) -> Any:
        """``text`` with the participant's own phone number and name replaced by ``[phone]`` and
        ``[name]``; anything that is not a non-empty string is returned as it is."""
        if not text or text.__class__ is not str:
            return text
        redactor = self._redactors.get(participant_id)
        if redactor is None:  # built on first use: one compiled pattern per participant
            redactor = self._redactors[participant_id] = _Redactor(*self._identities.get(participant_id, ("", "")))
        return redactor(text)

    def scrub_value(self, participant_id: str, value: Any) -> Any:
        """:meth:`scrub` for every string in a JSON value (a message payload); the base64 copy of
        an original text is decoded, scrubbed and encoded again."""
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


