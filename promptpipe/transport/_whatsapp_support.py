"""What the WhatsApp session needs around the library: a reachability probe, the meaning of its answers, the terminal's
codes and output, and the limits and fixes the library needs."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import segno
from neonize import _binder
from neonize.aioze import events as _neonize_events

from promptpipe.config.process_env import BOT_TAG_ENV, bot_tag_off_at_exec, proxy_environment, set_bot_tag_off
from promptpipe.logging import mask_phone
from promptpipe.transport._go_output import capture_library_stdout
from promptpipe.transport._stderr_relay import start_stderr_relay

__all__ = ["BAN_REASONS", "CHATTER_IN_FLIGHT", "EXECUTOR_WORKERS", "FAILURE_REASONS", "HANDLED_ELSEWHERE",
           "OUTDATED_MESSAGE", "SENDS_IN_FLIGHT", "CallsInFlight", "ban_lifted_at", "capture_library_output",
           "patch_decrypt_poll_vote", "print_pair_code", "print_qr", "probe_target", "raise_open_file_limit",
           "reach_whatsapp", "reset_stale_event_loop", "turn_bot_label_off", "use_executor_for_sessions"]

# ConnectFailureEv reasons (neonize's ConnectFailure.ConnectFailureReason). Logged out, banned and
# outdated come with their own events too; 503 is retried by whatsmeow itself.
FAILURE_REASONS = {1: "generic", 2: "logged_out", 3: "temp_banned", 4: "main_device_gone", 5: "unknown_logout",
                    6: "client_outdated", 7: "bad_user_agent", 8: "internal_server_error", 9: "experimental",
                    10: "service_unavailable"}
HANDLED_ELSEWHERE = {"logged_out", "temp_banned", "main_device_gone", "unknown_logout", "client_outdated"}
BAN_REASONS = {1: "sent to too many people", 2: "blocked by too many users", 3: "created too many groups",
                4: "sent the same message too often", 5: "broadcast list misuse"}
OUTDATED_MESSAGE = ("WhatsApp refuses this client as outdated. Upgrade the WhatsApp library "
                    "(.venv/bin/pip install --upgrade neonize) and start PromptPipe again.")

SENDS_IN_FLIGHT = 8
"""Sends inside the Go library at once (a dead socket holds each for ~75 s)."""
CHATTER_IN_FLIGHT = 4
"""Typing indicators and read receipts at once; more are skipped (they are best effort)."""
EXECUTOR_WORKERS = 1 + SENDS_IN_FLIGHT + CHATTER_IN_FLIGHT + 7
"""One worker is busy for the whole session; seven spare ones mean hung sends never keep stop from the library."""


def capture_library_output(log: Any, log_format: str, *, debug: bool) -> Callable[[], None]:
    """What the Go library prints becomes log lines, once per process; the function returned undoes it."""
    restores = [capture_library_stdout(log), start_stderr_relay(log_format, debug=debug)]

    def restore() -> None:
        for undo in restores:
            undo()

    return restore


def use_executor_for_sessions(sessions: int) -> None:
    """The loop's default executor, where neonize runs every call, sized for ``sessions`` Go sessions."""
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=EXECUTOR_WORKERS * max(sessions, 1), thread_name_prefix="neonize"))


def reset_stale_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    """neonize remembers the first loop that connected, process-wide; forget a dead or other one."""
    current = _neonize_events.event_global_loop
    if current is not None and (current is not loop or current.is_closed()):
        _neonize_events.event_global_loop = None


def print_qr(data: bytes, number: str | None = None) -> None:
    """``number``: the deployment's number the code links (None: it has one)."""
    phone = "the study phone" if number is None else f"the phone of the study's number {number!r}"
    print(f"\nScan this code with WhatsApp on {phone}: Settings → Linked devices → Link a device.")
    segno.make_qr(data).terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()


WHATSAPP_HOST, WHATSAPP_PORT = "web.whatsapp.com", 443
PROBE_TIMEOUT_S = 10.0


_PROXY_PORTS = {"http": 80, "https": 443, "socks5": 1080, "socks5h": 1080}


def _bypasses_proxy(host: str, no_proxy: str) -> bool:
    return any(entry == "*" or (entry and (host == entry.lstrip(".") or host.endswith("." + entry.lstrip("."))))
               for entry in (part.strip().lower() for part in no_proxy.split(",")))


def probe_target(env: Mapping[str, str] | None = None) -> tuple[str, int]:
    """WhatsApp itself, or the proxy the Go library will go through, so a network that allows only it is reachable."""
    env = proxy_environment() if env is None else env
    proxy = next((env[name] for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
                  if env.get(name, "").strip()), "").strip()
    if not proxy or _bypasses_proxy(WHATSAPP_HOST, env.get("NO_PROXY", env.get("no_proxy", ""))):
        return WHATSAPP_HOST, WHATSAPP_PORT
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    try:
        port = parts.port or _PROXY_PORTS.get(parts.scheme, 80)
    except ValueError:  # a port that is not a number: let the check fail on WhatsApp's own address
        return WHATSAPP_HOST, WHATSAPP_PORT
    return (parts.hostname or WHATSAPP_HOST), port


async def reach_whatsapp(host: str | None = None, port: int | None = None) -> str | None:
    """None when a TCP connection to WhatsApp (or its proxy) opens, else why not: asked first, because neonize 0.5.2
    leaks a handle on the session database per failed connect."""
    if host is None or port is None:
        host, port = probe_target()
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=PROBE_TIMEOUT_S)
    except TimeoutError:
        return f"no answer from {host}:{port} within {PROBE_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"cannot reach {host}:{port}: {exc.strerror or exc}"
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return None


def raise_open_file_limit(wanted: int = 65536) -> tuple[int, int]:
    """Lift the soft limit on open files towards ``wanted`` (neonize 0.5.2 leaks handles); (before, after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class CallsInFlight:
    """Calls into the Go client that must return before it stops (some abort the process without it)."""

    def __init__(self) -> None:
        self.count = 0
        self._done = asyncio.Event()
        self._done.set()

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        self.count += 1
        self._done.clear()
        try:
            yield
        finally:
            self.count -= 1
            if self.count == 0:
                self._done.set()

    async def wait(self, timeout_s: float) -> None:
        """Until none is left, or ``timeout_s`` passed."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._done.wait(), timeout=timeout_s)


def ban_lifted_at(expire: int, now: datetime) -> datetime:
    """``Expire`` is the ban's length in whole seconds (goneonize encodes ``int64(Expire.Seconds())``)."""
    return now + timedelta(seconds=max(expire, 0))


def print_pair_code(phone: str, code: str, number: str | None = None) -> None:
    label = "" if number is None else f" (the study's number {number!r})"
    print(f"\nWhatsApp pairing code for {mask_phone(phone)}{label}: {code}\nOn that phone open WhatsApp → Settings → "
          "Linked devices → Link a device → 'Link with phone number instead', and type the code.", flush=True)


def patch_decrypt_poll_vote() -> None:
    """neonize 0.5.2 forgot ``DecryptPollVote``'s result converter (every call fails): attach its siblings' one."""
    ffi = getattr(getattr(_binder, "gocode", None), "DecryptPollVote", None)
    converter = getattr(_binder, "consume_bytes_struct", None)
    if ffi is not None and converter is not None and ffi.errcheck is not converter:
        ffi.errcheck = converter


def turn_bot_label_off(log: Any) -> None:
    """Ask the library not to label the study number a bot; warn when it can no longer hear it."""
    set_bot_tag_off()
    if bot_tag_off_at_exec() is False:
        log.warning("whatsapp_bot_label_may_show",
                    hint=f"set {BOT_TAG_ENV}=off in the environment before starting PromptPipe; "
                    "the WhatsApp library only reads it at process start")
