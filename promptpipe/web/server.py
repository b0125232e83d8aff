"""uvicorn serving the API and the dashboard inside the service's own asyncio loop.

The socket is bound here first, so an address in use is one clear line at start; uvicorn's own
signal handling is off (``serve`` owns SIGINT and SIGTERM and stops the web server with the rest)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

from promptpipe.errors import ConfigError
from promptpipe.logging import get_logger
from promptpipe.web.auth import load_session_key
from promptpipe.web.context import WebContext
from promptpipe.web.site import build_site

__all__ = ["WebServer"]

log = get_logger("promptpipe.web")
STOP_GRACE_S = 5.0


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # the service handles signals itself
        yield


class WebServer:
    def __init__(self, ctx: WebContext, listen: str) -> None:
        self.ctx, self.listen = ctx, listen
        self._server: _Server | None = None
        self._task: asyncio.Task[None] | None = None
        self.port = 0
        self.site: FastAPI | None = None

    @property
    def url(self) -> str:
        host = self.listen.rpartition(":")[0].strip("[]")
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"

    async def start(self) -> None:
        """Bind, then serve in the background; returns once requests are answered."""
        self.ctx.session_key = await self.ctx.db.run(load_session_key)
        sock = self._bind()
        self.port = sock.getsockname()[1]
        self.site = build_site(self.ctx)
        proxies = self.ctx.settings.web_trusted_proxies  # uvicorn trusts 127.0.0.1 unless told otherwise
        config = uvicorn.Config(self.site, log_config=None, access_log=False, lifespan="off",
                                server_header=False, timeout_graceful_shutdown=int(STOP_GRACE_S),
                                proxy_headers=bool(proxies), forwarded_allow_ips=list(proxies) or None)
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="web-server")
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise ConfigError(f"API_LISTEN: the web server at {self.listen} stopped at start")
            await asyncio.sleep(0.01)
        log.info("web_server_started", url=self.url)

    def _bind(self) -> socket.socket:
        host, _, port = self.listen.rpartition(":")
        host = host.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit it (Linux): uvicorn writes a response's head and body
        # separately, and without it Nagle's algorithm held the body ~40 ms for the client's ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            sock.bind((host, int(port)))
        except OSError as exc:
            sock.close()
            raise ConfigError(f"API_LISTEN={self.listen}: cannot listen there ({exc.strerror or exc}); choose "
                              "another host:port, or leave API_LISTEN empty to turn the API off.") from None
        sock.set_inheritable(True)
        return sock

    async def stop(self) -> None:
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self._task), STOP_GRACE_S + 1)
        except (TimeoutError, asyncio.CancelledError):
            self._server.force_exit = True
            self._task.cancel()
        except Exception as exc:
            log.warning("web_server_stop_failed", error=str(exc)[:200])
        log.info("web_server_stopped")
