"""Settings values as people write them, parsed once at start; every error names the variable and the fix."""

from __future__ import annotations

import re
from datetime import timedelta
from enum import StrEnum

from promptpipe.domain.localtime import is_iana_zone
from promptpipe.errors import ConfigError

__all__ = ["LogFormat", "duration_words", "parse_bool", "parse_duration", "parse_float", "parse_int",
           "validate_timezone"]


class LogFormat(StrEnum):
    """How log lines are written (LOG_FORMAT): for a person at a terminal, or one JSON object a line."""

    CONSOLE = "console"
    JSON = "json"


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_DURATION_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(name: str, raw: str) -> timedelta:
    """``90s``, ``15m``, ``5h``, ``1h30m``, ``2d`` or a bare number of seconds."""
    text = raw.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return timedelta(seconds=float(text))
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ConfigError(f"{name}={raw!r} is not a duration: write it like 90s, 15m, 5h or 1h30m.")
    return timedelta(seconds=sum(float(n) * _DURATION_UNITS[u] for n, u in parts))


def duration_words(value: timedelta) -> str:
    """A duration as it is written in settings and study files: ``5h``, ``1h30m``, ``2d``, ``90s`` (``0`` for none)."""
    parts, rest = [], value.total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if rest >= size:
            parts.append(f"{int(rest // size)}{unit}")
            rest %= size
    return "".join(parts) + (f"{rest:g}s" if rest else "") or "0"


def parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r} is not on/off: use true/false, yes/no, on/off or 1/0.")


def parse_int(name: str, raw: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number.") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} is too small: use {minimum} or more.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name}={value} is too large: use {maximum} or less.")
    return value


def parse_float(name: str, raw: str, *, low: float, high: float) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number.") from None
    if not low <= value <= high:
        raise ConfigError(f"{name}={value} is out of range: use a value from {low} to {high}.")
    return value


def validate_timezone(name: str, raw: str) -> str:
    if not is_iana_zone(raw):
        raise ConfigError(
            f"{name}={raw!r} is not an IANA time zone: use a name like Europe/Berlin or America/Toronto."
        )
    return raw
