"""Running ``serve`` in a test."""

from __future__ import annotations

import asyncio


async def running(task: asyncio.Task[int], started: asyncio.Event) -> None:
    """Wait until ``serve`` runs; if it ended (or stuck) before, fail with why instead of waiting
    for ever (a start that failed never sets ``started``)."""
    waiting = asyncio.ensure_future(started.wait())
    await asyncio.wait({waiting, task}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if task.done():
        status = task.result()  # a start that failed raises its error here
        raise AssertionError(f"serve ended before it ran, with exit status {status}")
    assert started.is_set(), "serve did not start within 30 s"
