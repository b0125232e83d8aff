"""What both commands share: settings with logging set up, running a coroutine with our errors as one red line, and
output that is safe for a terminal (a participant's control characters are shown as escapes, never obeyed)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from promptpipe.config import Settings, load_settings
from promptpipe.domain.text import for_terminal
from promptpipe.errors import PromptPipeError
from promptpipe.logging import configure_logging
from promptpipe.research.views import MessageView, as_json, counted

__all__ = ["ask", "cell", "counted", "fail", "load", "print_json", "print_table", "receipt_marks", "run",
           "stop_on_signals"]


def fail(message: str) -> int:
    colour = sys.stderr.isatty()
    print(("\033[31m" if colour else "") + f"error: {message}" + ("\033[0m" if colour else ""), file=sys.stderr)
    return 1


def load() -> Settings | None:
    """Settings from the environment and .env, with logging set up; None after printing why not."""
    try:
        settings = load_settings()
    except PromptPipeError as exc:
        fail(str(exc))
        return None
    configure_logging(settings.log_format, debug=settings.debug)
    return settings


def run(coro_factory: Callable[[], Coroutine[Any, Any, int | None]]) -> int:
    try:
        return asyncio.run(coro_factory()) or 0
    except PromptPipeError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130


def stop_on_signals(stop: asyncio.Event) -> asyncio.Event:
    """``stop``, set by SIGINT or SIGTERM (without signal handlers, Ctrl-C still ends it by KeyboardInterrupt)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    return stop


def cell(value: Any) -> str:
    """One table cell or value, safe for a terminal (a participant's control characters shown as escapes)."""
    return for_terminal("" if value is None else value)


def print_table(rows: Sequence[Any], columns: Sequence[str]) -> None:
    """Rows (views or mappings) as a table of the named columns."""
    if not rows:
        print("(none)")
        return
    plain = [as_json(r) for r in rows]
    cells = [{c: cell(r.get(c, "")) for c in columns} for r in plain]
    widths = {c: max(len(c), *(len(row[c]) for row in cells)) for c in columns}
    print("  ".join(c.upper().ljust(widths[c]) for c in columns))
    for row in cells:
        print("  ".join(row[c].ljust(widths[c]) for c in columns))


def receipt_marks(message: MessageView) -> str:
    """`` delivered 09:01:03 read 09:15:10`` for a sent message WhatsApp reported on (UTC times)."""
    times = {"delivered": message.delivered_at, "read": message.read_at, "played": message.played_at}
    return "".join(f" {name} {at[11:19]}" for name, at in times.items() if at)


def print_json(data: Any) -> None:
    print(json.dumps(as_json(data), indent=2, ensure_ascii=False))


def ask(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        return ""
