"""The WhatsApp library's standard error (fd 2), through our masked logs. A relay process, not a thread: a Go crash ends
the process before a thread could log the panic's trace, while the relay drains the pipe to the end."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence

from promptpipe.transport._go_output import redirect_fd

__all__ = ["start_stderr_relay"]

NOISE = ("Press Ctrl+C to exit",)
RELAY_EXIT_WAIT_S = 2.0


def start_stderr_relay(log_format: str, *, debug: bool = False) -> Callable[[], None]:
    """Start relaying fd 2; returns the function that undoes it (idempotent; the relay exits)."""
    sys.stderr.flush()
    original = os.dup(2)
    read_end, write_end = os.pipe()
    relay = subprocess.Popen([sys.executable, "-m", __name__, log_format, "debug" if debug else "info"], stdin=read_end,
                             stdout=original, stderr=original, start_new_session=True)
    os.close(read_end)
    return redirect_fd(2, write_end, original, errors="backslashreplace", after=functools.partial(_wait, relay))


def _wait(relay: subprocess.Popen[bytes]) -> None:
    try:
        relay.wait(timeout=RELAY_EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        relay.kill()


def main(argv: Sequence[str]) -> int:
    """Log every line of standard input as the library's output until it ends."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # the service's own stop closes the pipe; that is our cue
    from promptpipe.logging import configure_logging, get_logger

    log_format, level = [*argv, "console", "info"][:2]
    configure_logging(log_format, debug=level == "debug", stream=sys.stdout)
    log = get_logger("promptpipe.transport.whatsapp")
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line.strip():
            continue
        (log.debug if line.strip() in NOISE else log.warning)("whatsapp_library_output", stream="stderr", line=line)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
