"""How an exported value is written: times in UTC and local, lists and objects as CSV cells, spreadsheet-safe texts."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

Stamp = str | None
"""A time as the files write it (ISO 8601 to the second, with its offset); None when it did not happen."""
_NO_TIME: tuple[Stamp, Stamp] = (None, None)
Row = dict[str, object]


def utc_iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not timezone.utc:  # what the database hands back is UTC already
        value = value.astimezone(timezone.utc)
    return value.isoformat(timespec="seconds")


def stamp(value: datetime | None, zone: ZoneInfo) -> tuple[Stamp, Stamp]:
    if value is None:
        return _NO_TIME
    return utc_iso(value), value.astimezone(zone).isoformat(timespec="seconds")


def stamped(name: str, value: datetime | None, zone: ZoneInfo) -> dict[str, Stamp]:
    utc, local = stamp(value, zone)
    return {f"{name}_utc": utc, f"{name}_local": local}


def stamps(zone_at: Callable[[str, datetime | None], ZoneInfo]
           ) -> Callable[[datetime | None, str], tuple[Stamp, Stamp]]:
    """:func:`stamp` in the zone they were in then, cached for one chunk (many rows share a time)."""
    cached = functools.cache(stamp)

    def participant_stamp(value: datetime | None, participant_id: str) -> tuple[Stamp, Stamp]:
        return cached(value, zone_at(participant_id, value))

    return participant_stamp


def as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any] | None:
    """A list as stored; a lone value becomes a one-item list; absent stays None."""
    if value is None:
        return None
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


FORMULA_STARTS = frozenset("=+-@\t\r")
"""A CSV cell starting with one of these is run as a formula by spreadsheets; OWASP: prefix it with ``'``."""


def _plain_phone(text: str) -> bool:
    """E.164 runs nothing in a spreadsheet; left plain so that the identifiers key joins on it as stored."""
    return 9 <= len(text) <= 16 and text[0] == "+" and text[1:].isascii() and text[1:].isdigit()


def _csv_text(text: str) -> str:
    """NULs removed, a would-be formula prefixed with ``'`` (but a phone number in E.164)."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text and text[0] in FORMULA_STARTS and not _plain_phone(text):
        return "'" + text
    return text


def csv_cell(value: Any) -> Any:
    cls = value.__class__
    if cls is str:  # nearly every cell: two cheap checks
        if (value and value[0] in FORMULA_STARTS) or "\x00" in value:
            return _csv_text(value)
        return value
    if cls is int or cls is float:  # numbers stay numbers, a minus sign included
        return value
    if value is None:
        return ""
    if cls is bool:
        return "true" if value else "false"
    if cls is list or cls is tuple:
        return _csv_text(";".join("" if item is None else _json_text(item) if isinstance(item, (dict, list))
                                  else str(item) for item in value))
    if cls is dict:
        return _json_text(value)  # starts with "{"; json.dumps escapes NUL as \u0000
    return _csv_text(str(value))
