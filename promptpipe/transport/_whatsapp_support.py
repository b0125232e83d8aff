"""What the WhatsApp session needs around the library: reaching WhatsApp before calling it, what
its answers mean (failure and ban reasons), and what the terminal shows (the QR code, the
pairing code)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from datetime import datetime, timedelta

import segno
from neonize.aioze import events as _neonize_events

from promptpipe.logging import mask_phone

__all__ = ["BAN_REASONS", "FAILURE_REASONS", "HANDLED_ELSEWHERE", "OUTDATED_MESSAGE", "ban_lifted_at",
           "print_pair_code", "print_qr", "reach_whatsapp", "reset_stale_event_loop"]

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

def reset_stale_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    """neonize remembers the first loop that connected, process-wide; forget a dead or other one
    so events reach the loop we run on now."""
    current = _neonize_events.event_global_loop
    if current is not None and (current is not loop or current.is_closed()):
        _neonize_events.event_global_loop = None


def print_qr(data: bytes) -> None:
    print("\nScan this code with WhatsApp on the study phone: Settings → Linked devices → Link a device.")
    segno.make_qr(data).terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()


WHATSAPP_HOST, WHATSAPP_PORT = "web.whatsapp.com", 443
PROBE_TIMEOUT_S = 10.0


async def reach_whatsapp(host: str = WHATSAPP_HOST, port: int = WHATSAPP_PORT) -> str | None:
    """None when a TCP connection to WhatsApp's web endpoint opens, else why not.

    neonize 0.5.2 leaves one open handle on the session database behind every connect that fails
    (measured: 16 → 116 open descriptors over 100 failures offline), so while the network is
    down the service asks the network first and calls the library only once it answers."""
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


def ban_lifted_at(expire: int, now: datetime) -> datetime:
    """When a temporary ban ends. ``Expire`` is how long it lasts in whole seconds: whatsmeow keeps
    the server's seconds as a ``time.Duration`` and goneonize encodes ``int64(Expire.Seconds())``."""
    return now + timedelta(seconds=max(expire, 0))


def print_pair_code(phone: str, code: str) -> None:
    print(
        f"\nWhatsApp pairing code for {mask_phone(phone)}: {code}\nOn that phone open WhatsApp → Settings → "
        "Linked devices → Link a device → 'Link with phone number instead', and type the code.",
        flush=True,
    )
