"""How an exported value is written: times in UTC and local, lists and objects as CSV cells, spreadsheet-safe texts."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import String, type_coerce

from promptpipe.storage.models import UTC_TEXT_LENGTH

Stamp = str | None
"""A time as the files write it (ISO 8601 to the second, with its offset); None when it did not happen."""
NO_TIME: tuple[Stamp, Stamp] = (None, None)
Row = dict[str, object]
UTC = ZoneInfo("UTC")


def utc_iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not timezone.utc:  # what the database hands back is UTC already
        value = value.astimezone(timezone.utc)
    return value.isoformat(timespec="seconds")


def stamp(value: datetime | None, zone: ZoneInfo) -> tuple[Stamp, Stamp]:
    if value is None:
        return NO_TIME
    return utc_iso(value), value.astimezone(zone).isoformat(timespec="seconds")


def stamped(name: str, value: datetime | None, zone: ZoneInfo) -> dict[str, Stamp]:
    utc, local = stamp(value, zone)
    return {f"{name}_utc": utc, f"{name}_local": local}


StoredTime = str | datetime
"""A time column read without SQLAlchemy's type (:func:`stored_time`): SQLite's text, or the driver's datetime."""


def stored_time(column: Any) -> Any:
    """``column`` read as stored: SQLite's text is turned into a time only where needed (:func:`from_stored`)."""
    return type_coerce(column, String())


def from_stored(value: StoredTime | None) -> datetime | None:
    """A :func:`stored_time` as :class:`~promptpipe.storage.models.UTCDateTime` reads it: aware, in UTC."""
    if value is None:
        return None
    if value.__class__ is str:
        if _sqlite_text(value):  # faster than replace(tzinfo=…) after reading
            return datetime.fromisoformat(f"{value}+00:00")
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _sqlite_text(value: Any) -> bool:
    """A UTC time as SQLite keeps it, ``2026-01-05 12:30:15.250000``."""
    return len(value) == UTC_TEXT_LENGTH and value[10] == " " and value[19] == "."


def stamps(people: Any) -> Callable[[StoredTime, str], tuple[Stamp, Stamp]]:
    """:func:`stamp` of a stored time (never None) in the zone they were in then (``people``: a
    :class:`~promptpipe.export.pseudonyms.People`), cached for one chunk: many rows share a time, and a time seen
    before is neither read nor formatted again."""
    cache: dict[tuple[StoredTime, ZoneInfo], tuple[Stamp, Stamp]] = {}
    zones, zone_at, moved = people.zones, people.zone_at, people.moved

    def participant_stamp(stored: StoredTime, participant_id: str) -> tuple[Stamp, Stamp]:
        moved_zone = participant_id in moved
        zone = zone_at(participant_id, from_stored(stored)) if moved_zone else zones.get(participant_id, UTC)
        found = cache.get((stored, zone))
        if found is None:
            found = cache[(stored, zone)] = _stamp_stored(stored, zone)
        return found

    return participant_stamp


def _stamp_stored(stored: StoredTime, zone: ZoneInfo) -> tuple[Stamp, Stamp]:
    if stored.__class__ is str and _sqlite_text(stored):  # cut to the second first, as timespec="seconds" does
        return f"{stored[:10]}T{stored[11:19]}+00:00", datetime.fromisoformat(
            f"{stored[:19]}+00:00").astimezone(zone).isoformat()
    return stamp(from_stored(stored), zone)


def _utc_text(stored: StoredTime) -> str | None:
    """:func:`utc_iso` of a stored time: cut from SQLite's text where it has the usual form."""
    if stored.__class__ is str and _sqlite_text(stored):
        return f"{stored[:10]}T{stored[11:19]}+00:00"
    return utc_iso(from_stored(stored))


def utc_stamps() -> Callable[[StoredTime | None], Stamp]:
    """:func:`utc_iso` of a stored time, cached for one chunk."""
    cache: dict[StoredTime | None, Stamp] = {None: None}

    def utc_stamp(stored: StoredTime | None) -> Stamp:
        found = cache.get(stored, _MISSING)
        if found is _MISSING:
            found = cache[stored] = _utc_text(stored)  # type: ignore[arg-type]  # None is cached
        return found  # type: ignore[return-value]

    return utc_stamp


_MISSING = object()


class Cells(dict[Any, Any]):
    """``cell`` of each value, computed once (a dict look-up after that): for a chunk's columns of texts or None
    (never values of types that compare equal: ``1`` and ``True`` are one key)."""

    def __init__(self, cell: Callable[[Any], Any]) -> None:
        super().__init__()
        self.cell = cell

    def __missing__(self, value: Any) -> Any:
        found = self[value] = self.cell(value)
        return found


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
