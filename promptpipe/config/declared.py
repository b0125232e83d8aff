"""A setting's variable, parser, section, meaning and shown default, declared on its Settings field
(``setting(...)``); parsing, ``.env.example``, the README's table and ``promptpipe check`` are made from them."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from promptpipe.domain.setting_values import parse_bool, parse_duration, parse_float, parse_int

__all__ = ["SECTIONS", "Declared", "Parser", "Shown", "as_written", "declarations", "declared", "floats", "ints",
           "on_off", "setting", "text"]

Parser = Callable[[str, str], Any]
"""(variable name, raw value) -> the setting's value; raises ConfigError naming the variable."""

SECTIONS = {
    "model": "Language model (required for `serve` and `chat`)",
    "storage": "Storage",
    "conversation": "Conversation",
    "transport": "Transport",
    "timers": "Daily prompts and timers",
    "study": "The study",
    "safety": "Safety",
    "web": "HTTP API and dashboard",
    "logs": "Logs",
    "evaluation": "Evaluating the coach (`promptpipe evaluate`: the simulated participants' and the judge's models)",
}
"""The sections of .env.example, in order, with their headings."""


@dataclass(frozen=True)
class Declared:
    env: str
    section: str
    meaning: str
    """The comment in .env.example, the README's cell."""
    parse: Parser
    example: str
    """The value .env.example shows."""
    shown_default: str
    """The default as the README shows it."""
    readme: bool = False
    """Listed in the README's table of the most important settings."""
    secret: bool = False
    """Never printed (``promptpipe check`` says only that it is set)."""
    empty_means_off: bool = False
    """Set but empty is a value of its own (off), not the default."""


class Shown(TypedDict, total=False):
    """How people see a setting beyond its meaning (see :class:`Declared`); each may be left out."""

    example: str
    shown: str
    readme: bool
    secret: bool
    empty_means_off: bool


def setting(env: str, default: Any, parse: Parser, *, section: str, meaning: str, **how: Unpack[Shown]) -> Any:
    """A declared :class:`Settings` field (see the module docstring)."""
    if section not in SECTIONS:
        raise ValueError(f"unknown section {section!r}")
    written = as_written(default)
    spec = Declared(env, section, " ".join(meaning.split()), parse, how.get("example", written),
                    how.get("shown") or (f"`{written}`" if written else "—"), how.get("readme", False),
                    how.get("secret", False), how.get("empty_means_off", False))
    return dataclasses.field(default=default, metadata={"declared": spec})


def declared(field: dataclasses.Field[Any]) -> Declared | None:
    spec = field.metadata.get("declared")
    return spec if isinstance(spec, Declared) else None


def declarations(settings: Any) -> Iterator[tuple[str, Declared]]:
    """(field name, declaration) of every declared field of ``settings`` (the class), in declaration order."""
    for spec_field in dataclasses.fields(settings):
        if (spec := declared(spec_field)) is not None:
            yield spec_field.name, spec


def as_written(value: Any) -> str:
    """A default as a person would write it in .env."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    if hasattr(value, "total_seconds"):
        seconds = value.total_seconds()
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
            if seconds and seconds % size == 0:
                return f"{int(seconds // size)}{unit}"
        return f"{seconds:g}s"
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    return str(value)


def text(name: str, raw: str) -> str:
    return raw


def ints(minimum: int, maximum: int | None = None) -> Parser:
    return functools.partial(parse_int, minimum=minimum, maximum=maximum)


def floats(low: float, high: float) -> Parser:
    return functools.partial(parse_float, low=low, high=high)


duration = parse_duration
on_off = parse_bool
