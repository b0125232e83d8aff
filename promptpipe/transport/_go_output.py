"""neonize's Go side writes to fd 1 directly (a failed send's error can hold a phone number): fd 1 becomes a pipe whose
lines are logged, masked, and Python's ``sys.stdout`` (the QR and pairing codes) keeps the terminal."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["capture_library_stdout", "redirect_fd"]


def capture_library_stdout(log: Any) -> Callable[[], None]:
    """Start capturing; returns the function that undoes it (idempotent)."""
    sys.stdout.flush()
    terminal = os.dup(1)
    read_end, write_end = os.pipe()

    def pump() -> None:
        with os.fdopen(read_end, "rb", buffering=0) as pipe:
            pending = b""
            while chunk := pipe.read(4096):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    _log_line(log, line)
            if pending:
                _log_line(log, pending)

    reader = threading.Thread(target=pump, name="whatsapp-library-stdout", daemon=True)
    reader.start()
    return redirect_fd(1, write_end, terminal, errors="replace", after=lambda: reader.join(timeout=2))


def redirect_fd(fd: int, write_end: int, original: int, *, errors: str,
                after: Callable[[], None]) -> Callable[[], None]:
    """Point ``fd`` (1 or 2) at a pipe and Python's own stream at ``original``; the idempotent undo closes the
    pipe's last write end (its reader sees the end), then calls ``after``."""
    name = "stdout" if fd == 1 else "stderr"
    os.dup2(write_end, fd)
    os.close(write_end)
    previous = getattr(sys, name)
    setattr(sys, name, os.fdopen(os.dup(original), "w", buffering=1,
                                 encoding=getattr(previous, "encoding", None) or "utf-8", errors=errors))
    restored = False

    def restore() -> None:
        nonlocal restored
        if restored:
            return
        restored = True
        replacement = getattr(sys, name)
        replacement.flush()
        os.dup2(original, fd)
        os.close(original)
        setattr(sys, name, previous)
        replacement.close()
        after()

    return restore


def _log_line(log: Any, raw: bytes) -> None:
    text = raw.decode("utf-8", errors="replace").rstrip("\r")
    if text.strip():
        log.info("whatsapp_library_output", line=text)
