"""Port numbers for tests that must name a port before anything listens on it (a service told to
listen there, or a port where nothing listens).

Asking the system for a free port (bind to port 0, read it, close) and using it a moment later
races with every other process on the machine: the system hands the same ephemeral ports to the
next ``bind(("127.0.0.1", 0))`` of a parallel test worker (every fake server and web server here
listens that way) and to outgoing connections. These ports come from below the ephemeral range
(Linux: 32768-60999, macOS: 49152-65535), where neither lands, from a slice of its own for each
xdist worker, so tests running in parallel never pick the same one.
"""

from __future__ import annotations

import random
import socket

from tests.databases import worker_name

FIRST, SLICE, SLICES = 20_000, 1_000, 12
"""Ports 20000-31999: twelve slices of a thousand, one per worker (gw12 shares gw0's)."""


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now and that no other test worker will choose."""
    name = worker_name()
    index = int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0
    first = FIRST + (index % SLICES) * SLICE
    candidates = random.sample(range(first, first + SLICE), SLICE)
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:  # taken by something else on the machine: the next one
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{first + SLICE - 1}")
