"""structlog set-up: readable console lines or JSON, with phone numbers always masked."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import structlog
from structlog.typing import EventDict

from promptpipe.domain.setting_values import LogFormat
from promptpipe.domain.text import mask_credentials

_PHONE = re.compile(r"(?<![\w+-])\+?(\d{4,11})(\d{4})(?![\w-])")
"""8 to 15 digits not part of a longer token: ids such as ``dry-7347566c1ed78c53`` are left alone."""


def mask_phone(phone: str | None) -> str:
    """``+14165550123`` becomes ``+*******4567``; short or empty values are hidden entirely."""
    if not phone:
        return ""
    digits = re.sub(r"\D", "", phone)
    if len(digits) < 6:
        return "***"
    return "+" + "*" * (len(digits) - 4) + digits[-4:]


def _mask_text(text: str) -> str:
    text = mask_credentials(text)
    if not any(ch.isdigit() for ch in text):
        return text
    return _PHONE.sub(lambda match: "+" + "*" * len(match.group(1)) + match.group(2), text)


def _mask_phones(_: Any, __: str, event_dict: EventDict) -> EventDict:
    """Last line of defence: no string that looks like a phone number (or a database password) leaves unmasked."""
    for key, value in event_dict.items():
        if isinstance(value, str):
            event_dict[key] = _mask_text(value)
    return event_dict


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the moment (it may be swapped, e.g. by pytest)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def configure_logging(log_format: str = LogFormat.CONSOLE, *, debug: bool = False, stream: Any = None,
                      quiet: bool = False) -> None:
    """Route structlog (and the stdlib root logger, which neonize also uses) to one stream.
    ``quiet``: errors only (a command whose own lines say how it goes, such as ``evaluate``)."""
    stream = stream or _CurrentStderr()
    level = logging.DEBUG if debug else logging.ERROR if quiet else logging.INFO
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if log_format == LogFormat.JSON
        else structlog.dev.ConsoleRenderer(colors=stream.isatty() if hasattr(stream, "isatty") else False)
    )
    shared: list[Any] = [structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                         structlog.processors.TimeStamper(fmt="iso", utc=True), structlog.processors.format_exc_info,
                         _mask_phones]
    structlog.configure(processors=[*shared, renderer], wrapper_class=structlog.make_filtering_bound_logger(level),
                        logger_factory=structlog.PrintLoggerFactory(file=stream), cache_logger_on_first_use=False)
    # neonize calls logging.basicConfig at import and whatsmeow's warnings reach Python logging:
    # one handler on the root logger renders them like our own lines, phone numbers masked.
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
    ))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def get_logger(name: str) -> Any:
    return structlog.get_logger(name)
