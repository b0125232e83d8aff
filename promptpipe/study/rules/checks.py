"""What every part of a study file's check shares: a collector of problems and the readers of plain values."""

from __future__ import annotations

import difflib
from datetime import time, timedelta
from typing import Any

from promptpipe.domain.localtime import parse_hhmm
from promptpipe.domain.setting_values import parse_duration
from promptpipe.errors import ConfigError

__all__ = ["MAX_DURATION", "MAX_TEXT_CHARS", "Check", "TomlTable", "duration_setting", "kind_of", "must_list"]

TomlTable = dict[str, Any]
"""A table of the study file as TOML parsed it, until the check has read it."""

MAX_DURATION = timedelta(days=7)
MAX_TEXT_CHARS = 1000
"""Characters in a closing message, one fixed prompt text or a questionnaire's text."""
_KINDS = ((bool, "true/false"), (str, "text"), (int, "a whole number"), (float, "a decimal number"),
          (list, "a list"), (dict, "a table"))


def kind_of(value: Any) -> str:
    """What a TOML value is, in words: ``text ("28")``, ``a whole number (0)``, ``a table``."""
    shown = f'"{value}"' if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else repr(value)
    word = next((word for kind, word in _KINDS if isinstance(value, kind)), "a date or time")
    return word if isinstance(value, dict) else f"{word} ({shown if len(shown) <= 40 else shown[:37] + '...'})"


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def must_list(value: Any, example: str) -> str:
    return f"must list one or more {example}; " + ("it is an empty list" if value == [] else f"it is {kind_of(value)}")


class Check:
    """Reads values out of the parsed TOML, noting a problem (and answering None) for each bad one."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, problem: str) -> None:
        self.problems.append(problem)

    def known(self, table: TomlTable, keys: tuple[str, ...], where: str) -> None:
        for key in (key for key in table if key not in keys):
            close = difflib.get_close_matches(key, keys, n=1)
            hint = f"did you mean {close[0]}?" if close else "keys allowed here: " + ", ".join(keys)
            self.add(f"{_at(where, key)} is not a key the study file format knows: remove it or fix its spelling "
                     f"({hint}).")

    def get(self, table: TomlTable, key: str, where: str, example: object, required: bool) -> Any:
        if required and key not in table:
            self.add(f"{_at(where, key)} is missing: add it, e.g. {key} = {example}.")
        return table.get(key)

    def table(self, parent: TomlTable, key: str, where: str, example: str) -> TomlTable | None:
        value = parent.get(key)
        if value is None or isinstance(value, dict):
            return value
        self.add(f"{_at(where, key)} must be a table, written as {example}; it is {kind_of(value)}.")
        return None

    def text(self, table: TomlTable, key: str, where: str, example: str, *, required: bool = False,
             limit: int = MAX_TEXT_CHARS) -> str | None:
        path, value = _at(where, key), self.get(table, key, where, example, required)
        if value is None or (isinstance(value, str) and value.strip() and len(value) <= limit):
            return value
        if not isinstance(value, str):
            self.add(f"{path} must be text in quotes, like {example}; it is {kind_of(value)}.")
        elif not value.strip():
            self.add(f"{path} is empty: write some text, like {example}.")
        else:
            self.add(f"{path} is {len(value)} characters long: shorten it to at most {limit}.")
        return None

    def whole(self, table: TomlTable, key: str, where: str, *, low: int, high: int, example: int,
              required: bool = False) -> int | None:
        path, value = _at(where, key), self.get(table, key, where, example, required)
        if isinstance(value, bool) or not isinstance(value, int | None):
            self.add(f"{path} must be a whole number without quotes, like {example}; it is {kind_of(value)}.")
        elif value is not None and not low <= value <= high:
            self.add(f"{path} = {value} is too {'small' if value < low else 'large'}: use a whole number from {low} "
                     f"to {high}.")
        else:
            return value
        return None

    def clock(self, path: str, raw: str | None, example: str) -> time | None:
        """``raw`` as a 24-hour time (None when absent, or after noting that it is none)."""
        try:
            return None if raw is None else parse_hhmm(raw)
        except ValueError:
            self.add(f'{path} = "{raw}" is not a 24-hour time: write it as HH:MM, like {example}.')
            return None

    def choice(self, table: TomlTable, key: str, where: str, choices: tuple[str, ...]) -> str | None:
        value = table.get(key)
        if value is not None and value not in choices:
            self.add(f"{_at(where, key)} cannot be {kind_of(value)}: use "
                     + " or ".join(f'"{choice}"' for choice in choices) + ".")
            return None
        return value

    def texts(self, table: TomlTable, key: str, where: str) -> tuple[str, ...] | None:
        """A list of prompt texts (None when absent or wrong)."""
        path, value, before = _at(where, key), table.get(key), len(self.problems)
        if value is not None and (not isinstance(value, list) or not value):
            self.add(f"{path} " + must_list(value, 'texts, like ["Take a short walk after lunch."]') + ".")
            return None
        for number, item in enumerate(value or (), 1):
            if not isinstance(item, str) or not item.strip() or len(item) > MAX_TEXT_CHARS:
                self.add(f"{path} item {number} is {kind_of(item)}: write each text in quotes, not empty and at most "
                         f"{MAX_TEXT_CHARS} characters long.")
        return tuple(value) if value and len(self.problems) == before else None


def duration_setting(check: Check, path: str, kind: str, value: Any) -> Any:
    """One arm setting's value (None after noting a problem)."""
    if kind == "bool" or not isinstance(value, str):
        if kind == "bool" and isinstance(value, bool):
            return value
        wanted = ("true or false, without quotes" if kind == "bool" else
                  'a duration in quotes, like "5h", "15m" or "1h30m" ("0" switches it off)')
        check.add(f"{path} must be {wanted}; it is {kind_of(value)}.")
        return None
    try:
        duration = parse_duration(path, value)
        if duration <= MAX_DURATION:
            return duration
        check.add(f'{path} = "{value}" is longer than 7 days: use at most "7d", or "0" to switch it off.')
    except ConfigError as exc:
        check.add(f'{exc} Use "0" to switch it off.')
    return None
