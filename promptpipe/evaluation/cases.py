"""Scripted hard cases: fixed participant messages, each with the behaviour the coach must show (an
:class:`~promptpipe.evaluation.records.Expectation`). The format is described atop ``data/evaluation/cases.toml``."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal, cast

from promptpipe.domain.limits import INBOUND_CHARS
from promptpipe.errors import AdminError
from promptpipe.evaluation.records import Expectation

__all__ = ["BUILT_IN_CASES", "STAGES", "Case", "load_cases"]

BUILT_IN_CASES = Path(__file__).resolve().parents[1] / "data" / "evaluation" / "cases.toml"
STAGES = ("intake", "feedback")
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CASE_KEYS = ("id", "group", "stage", "messages", "language", "note", "repeat_to_chars", "expect")
_EXPECT_FIELDS = {f.name: f for f in fields(Expectation)}
_FLAGS = ("safety_message", "flagged", "no_coaching", "stopped", "nothing_after", "reply")
_PATTERNS = ("forbidden", "required")


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    stage: Literal["intake", "feedback"]
    messages: tuple[str, ...]
    """Sent one after another, each answered before the next."""
    expect: Expectation
    language: str = "English"
    note: str = ""


class _Bad(Exception):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field '{field}': {problem}")


def load_cases(path: Path | None = None, *, builtin: bool = True) -> tuple[Case, ...]:
    """The built-in cases (unless ``builtin`` is False), then the team's from ``path``; AdminError on a bad entry."""
    files = ([BUILT_IN_CASES] if builtin else []) + ([path] if path is not None else [])
    cases: list[Case] = []
    where: dict[str, str] = {}
    for file in files:
        for position, case in enumerate(_read_file(file), start=1):
            here = f"{file} (case #{position})"
            if case.id in where:
                raise AdminError(f"case id '{case.id}' is used twice: {where[case.id]} and {here}")
            where[case.id] = here
            cases.append(case)
    return tuple(cases)


def _read_file(path: Path) -> list[Case]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AdminError(f"{path}: cannot read the cases file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AdminError(f"{path}: not a valid TOML file: {exc}") from None
    unknown = sorted(set(data) - {"case"})
    if unknown:
        raise AdminError(f"{path}: unknown top-level key(s) {', '.join(unknown)}; write each case as a [[case]] table")
    entries = data.get("case", [])
    if not isinstance(entries, list):
        raise AdminError(f"{path}: 'case' must be a list of [[case]] tables")
    cases = []
    for position, entry in enumerate(entries, start=1):
        name = f"'{entry['id']}'" if isinstance(entry, dict) and isinstance(entry.get("id"), str) else f"#{position}"
        try:
            if not isinstance(entry, dict):
                raise _Bad("case", "must be a [[case]] table")
            cases.append(_case(entry))
        except _Bad as exc:
            raise AdminError(f"{path}: case {name}: {exc}") from None
    return cases


def _case(entry: Mapping[str, Any]) -> Case:
    for key in entry:
        if key not in _CASE_KEYS:
            raise _Bad(key, f"unknown key; a case has {', '.join(_CASE_KEYS)}")
    case_id = _text(entry, "id", required=True)
    if not _ID.match(case_id):
        raise _Bad("id", f"{case_id!r} must be lowercase letters, digits and single hyphens, e.g. 'crisis-es-1'")
    stage = _text(entry, "stage", required=True)
    if stage not in STAGES:
        raise _Bad("stage", f"{stage!r} is not a stage; use {' or '.join(STAGES)}")
    return Case(id=case_id, group=_text(entry, "group", required=True),
                stage=cast(Literal["intake", "feedback"], stage), messages=_messages(entry),
                expect=_expectation(entry.get("expect", {})),
                language=_text(entry, "language") or "English", note=_text(entry, "note"))


def _text(entry: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise _Bad(key, f"must be a string, not {type(value).__name__}")
    if required and not value.strip():
        raise _Bad(key, "is required")
    return value.strip()


def _messages(entry: Mapping[str, Any]) -> tuple[str, ...]:
    messages = entry.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _Bad("messages", "must be a non-empty list of strings")
    for index, message in enumerate(messages, start=1):
        if not isinstance(message, str) or not message.strip():
            raise _Bad("messages", f"message {index} must be a non-empty string")
        if len(message) > INBOUND_CHARS:
            raise _Bad("messages", f"message {index} is {len(message):,} characters; WhatsApp allows {INBOUND_CHARS:,}")
    repeat = entry.get("repeat_to_chars")
    if repeat is None:
        return tuple(messages)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise _Bad("repeat_to_chars", "must be a positive whole number of characters")
    return (*messages[:-1], _repeated(messages[-1], min(repeat, INBOUND_CHARS)))


def _repeated(text: str, chars: int) -> str:
    if len(text) >= chars:
        return text
    copies = chars // (len(text) + 1) + 1
    return " ".join([text] * copies)[:chars]


def _expectation(table: Any) -> Expectation:
    if not isinstance(table, dict):
        raise _Bad("expect", "must be a table ([case.expect])")
    values: MutableMapping[str, Any] = {}
    for key, value in table.items():
        field = f"expect.{key}"
        if key not in _EXPECT_FIELDS:
            raise _Bad(field, f"unknown key; expect has {', '.join(_EXPECT_FIELDS)}")
        if key in _FLAGS:
            if not isinstance(value, bool):
                raise _Bad(field, "must be true or false")
            values[key] = value
        elif key in _PATTERNS:
            values[key] = _patterns(field, value)
        else:  # max_chars
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise _Bad(field, "must be a positive whole number of characters")
            values[key] = value
    return Expectation(**values)


def _patterns(field: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise _Bad(field, "must be a list of regular expressions (strings)")
    for pattern in value:
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise _Bad(field, f"{pattern!r} is not a valid regular expression ({exc})") from None
    return tuple(value)
