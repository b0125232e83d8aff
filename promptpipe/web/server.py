"""uvicorn serving the API and dashboard in the service's asyncio loop (:mod:`promptpipe.transport.http_serving`)."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from promptpipe.logging import get_logger
from promptpipe.transport.http_serving import Listening, bind, serve
from promptpipe.web.auth import load_session_key
from promptpipe.web.context import WebContext
from promptpipe.web.site import build_site

__all__ = ["WebServer"]

log = get_logger("promptpipe.web")
STOP_GRACE_S = 5.0


class WebServer:
    def __init__(self, ctx: WebContext, listen: str) -> None:
        self.ctx, self.listen = ctx, listen
        self._listening: Listening | None = None
        self.port = 0
        self.site: FastAPI | None = None

    @property
    def url(self) -> str:
        host = self.listen.rpartition(":")[0].strip("[]")
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"

    async def start(self) -> None:
        """Bind, then serve in the background; returns once requests are answered."""
        self.ctx.session_key = await self.ctx.db.run(load_session_key)
        # TCP_NODELAY: uvicorn writes head and body apart, and Nagle held the body ~40 ms for the client's ACK.
        sock = bind(self.listen, f"API_LISTEN={self.listen}: cannot listen there ({{reason}}); choose another "
                                 "host:port, or leave API_LISTEN empty to turn the API off.", no_delay=True)
        self.port = sock.getsockname()[1]
        self.site = build_site(self.ctx)
        proxies = self.ctx.settings.web_trusted_proxies  # uvicorn trusts 127.0.0.1 unless told otherwise
        config = uvicorn.Config(self.site, log_config=None, access_log=False, lifespan="off",
                                server_header=False, timeout_graceful_shutdown=int(STOP_GRACE_S),
                                proxy_headers=bool(proxies), forwarded_allow_ips=list(proxies) or None)
        self._listening = await serve(config, sock, name="web-server", grace_s=STOP_GRACE_S,
                                      stopped_at_start=f"API_LISTEN: the web server at {self.listen} stopped at start")
        log.info("web_server_started", url=self.url)

    async def stop(self) -> None:
        if self._listening is None:
            return
        if (failed := await self._listening.stop()) is not None:
            log.warning("web_server_stop_failed", error=str(failed)[:200])
        log.info("web_server_stopped")
