"""uvicorn inside the service's own loop. The socket is bound here first, so an address in use is one clear line at
start; uvicorn's signal handling is off (``serve`` owns SIGINT and SIGTERM)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import uvicorn

from promptpipe.errors import ConfigError

__all__ = ["Listening", "bind", "serve"]


class _SignalFree(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # the service handles signals itself
        yield


def bind(listen: str, refusal: str, *, no_delay: bool = False) -> socket.socket:
    """A socket bound to ``listen`` (port 0: any free one); ``refusal`` (with ``{reason}``): the ConfigError's line."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if no_delay:  # accepted connections inherit it (Linux)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, int(port)))
    except OSError as exc:
        sock.close()
        raise ConfigError(refusal.format(reason=exc.strerror or exc)) from None
    sock.set_inheritable(True)
    return sock


@dataclass
class Listening:
    """A server answering on its socket; :meth:`stop` lets what is under way finish first."""

    server: uvicorn.Server
    task: asyncio.Task[None]
    grace_s: float

    async def stop(self) -> Exception | None:
        """Stops it (at most ``grace_s`` + 1 s, then by force); what went wrong, if anything."""
        self.server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self.task), self.grace_s + 1)
        except (TimeoutError, asyncio.CancelledError):
            self.server.force_exit = True
            self.task.cancel()
        except Exception as exc:
            return exc
        return None


async def serve(config: uvicorn.Config, sock: socket.socket, *, name: str, stopped_at_start: str,
                grace_s: float) -> Listening:
    """Serve on ``sock`` in the background; returns once requests are answered (else ConfigError)."""
    server = _SignalFree(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name=name)
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
            raise ConfigError(stopped_at_start)
        await asyncio.sleep(0.01)
    return Listening(server, task, grace_s)
