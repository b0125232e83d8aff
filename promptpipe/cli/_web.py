"""The HTTP API and dashboard: beside the service in ``serve``'s own loop, or in a process of their own
(``promptpipe web``) that shares only the database, so its requests never take the participants' turns' loop."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import os

from promptpipe.cli._common import stop_on_signals
from promptpipe.clock import Clock, SystemClock
from promptpipe.config import Settings
from promptpipe.errors import ConfigError
from promptpipe.pilot import PilotDesk
from promptpipe.storage.db import Database
from promptpipe.storage.state_dir import ensure_state_dir
from promptpipe.web.context import WebContext
from promptpipe.web.server import WebServer

__all__ = ["WEB_READERS", "WebHandle", "start_web", "web_command", "yield_cpu_to_the_service"]

WEB_READERS = 4


@dataclasses.dataclass
class WebHandle:
    server: WebServer
    reader: Database

    async def stop(self) -> None:
        try:
            await self.server.stop()
        finally:
            if self.server.ctx.pilots is not None:
                await self.server.ctx.pilots.close()
            await self.reader.close()


async def start_web(settings: Settings, db: Database, clock: Clock) -> WebHandle:
    """The web server on API_LISTEN in this loop, writing through ``db``; returns once it answers."""
    from promptpipe.app import App
    from promptpipe.app.parts import load_prompts

    reader = Database(settings.database_url, readers=WEB_READERS)
    ctx = WebContext(settings, db, reader, clock, system_prompts=dataclasses.asdict(load_prompts(settings)),
                     pilots=PilotDesk(settings, clock, App.build))
    server = WebServer(ctx, settings.api_listen)
    try:
        await server.start()
    except BaseException:
        await reader.close()
        raise
    # What the server built lives as long as the process: out of the collector's full passes, which otherwise held a
    # request up by ~150 ms now and then (the p99 of the dashboard's heavier pages; bench_web.py).
    gc.collect()
    gc.freeze()
    return WebHandle(server, reader)


def yield_cpu_to_the_service(niceness: int) -> None:
    """Lower the calling thread's CPU priority to ``niceness``, never raise it, and (above 0, where the OS has it) put
    it in the idle scheduling class: it runs on a core no other process wants, and a thread of the service that wakes
    takes the core from it at once (at niceness 10 alone it first waited for the web's slice to end). On Linux both are
    a thread's own, and a thread inherits its creator's: threads started afterwards yield too, those already running
    keep theirs. The dashboard shares the cores with the service: on a 2-core VM (bench_web.py --web-process), 100 API
    requests/s left the service's threads waiting for a core 0.5 s more per 1,000-message burst at niceness 10, 0.2 s
    more in the idle class."""
    if niceness <= 0 or not hasattr(os, "setpriority"):
        return
    if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    if hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):  # not allowed here (a container's seccomp policy): the niceness holds
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


async def web_command(settings: Settings, stop: asyncio.Event | None = None,
                      started: asyncio.Event | None = None, *, niceness: int = 0) -> int:
    """``promptpipe web``: the API and dashboard alone, until SIGINT or SIGTERM (or ``stop``). ``niceness``: above 0,
    every thread but the database writers' yields the CPU to the service (:func:`yield_cpu_to_the_service`). The
    writers' threads, started first, keep their priority: a write holds the database's write lock (SQLite) or rows
    (PostgreSQL), and a writer starved of a core on a busy machine would hold the service's turns up with it."""
    if not settings.api_listen:
        raise ConfigError("API_LISTEN is empty: set it to host:port (e.g. 127.0.0.1:8080) for `promptpipe web`.")
    ensure_state_dir(settings.state_dir)
    db = Database(settings.database_url)
    yield_cpu_to_the_service(niceness)
    await db.connect()
    try:
        handle = await start_web(settings, db, SystemClock())
        stop = stop_on_signals(stop or asyncio.Event())
        if started is not None:
            started.set()
        try:
            await stop.wait()
        finally:
            await handle.stop()
    finally:
        await db.close()
    return 0
