"""The process environment beyond the settings: restart counters, what the WhatsApp library reads at start, its
proxy, a child process's environment. Like the settings, only this package touches ``os.environ``."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["BOT_TAG_ENV", "QR_RENEWAL_ENV", "RECONNECT_ENV", "bot_tag_off", "bot_tag_off_at_exec",
           "child_environment", "count_restart", "proxy_environment", "restarts_so_far", "set_bot_tag_off"]

RECONNECT_ENV = "PROMPTPIPE_RECONNECT_RESTARTS"
"""How many fresh processes in a row failed to connect to WhatsApp (carried across ``exec``)."""
QR_RENEWAL_ENV = "PROMPTPIPE_QR_RENEWAL"
"""How many QR codes expired unscanned so far (carried across ``exec``)."""
BOT_TAG_ENV = "NEONIZE_BOT_TAG"
"""neonize's Go library labels the linked device a bot unless this is ``off`` when it starts."""


def restarts_so_far(name: str) -> int:
    """The counter ``name`` the process before this one left (0 when none, or unreadable)."""
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() else 0


def count_restart(name: str, value: int) -> None:
    """Leave ``value`` for the process that replaces this one with ``exec``."""
    os.environ[name] = str(value)


def bot_tag_off() -> bool:
    return os.environ.get(BOT_TAG_ENV) == "off"


def set_bot_tag_off() -> None:
    """Ask the library not to label the study number a bot (heard only by a process started after)."""
    os.environ[BOT_TAG_ENV] = "off"


def bot_tag_off_at_exec() -> bool | None:
    """Whether ``NEONIZE_BOT_TAG=off`` was in the environment at process start, the copy the Go library reads (a
    later ``os.environ`` change may not reach it); None when this cannot be checked (not Linux)."""
    try:
        with open("/proc/self/environ", "rb") as fh:
            entries = fh.read().split(b"\0")
    except OSError:
        return None
    return f"{BOT_TAG_ENV}=off".encode() in entries


def proxy_environment() -> Mapping[str, str]:
    """The proxy variables the WhatsApp library's network honours (either case)."""
    names = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")
    return {name: os.environ[name] for name in names if name in os.environ}


def child_environment(*, first_on_path: str) -> dict[str, str]:
    """This process's environment for a child Python process that imports ``first_on_path`` first."""
    path = os.pathsep.join(filter(None, (first_on_path, os.environ.get("PYTHONPATH"))))
    return {**os.environ, "PYTHONPATH": path}
