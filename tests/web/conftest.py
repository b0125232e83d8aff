"""A running service with its web server on a free port of 127.0.0.1, and tokens to call it with."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from promptpipe.app import App
from promptpipe.config import Settings
from promptpipe.pilot import PilotDesk
from promptpipe.research.tokens import create_token
from promptpipe.storage.db import Database
from promptpipe.tls import client_context
from promptpipe.web.context import WebContext
from promptpipe.web.server import WebServer
from tests.conftest import AppFactory
from tests.web.chromium import page, pytest_runtest_makereport  # noqa: F401 - the browser tests' page, shot on failure


@dataclass
class Web:
    app: App
    server: WebServer
    reader: Database
    tokens: dict[str, str] = field(default_factory=dict)
    """Role -> the secret of a token with that role (one of each is made)."""

    @property
    def url(self) -> str:
        return self.server.url

    def client(self, role: str | None = "researcher", **kwargs: object) -> httpx.AsyncClient:
        """An HTTP client for the API, with the bearer token of ``role`` (None: no token)."""
        headers = {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10, verify=client_context(), **kwargs)  # type: ignore[arg-type]

    async def token(self, name: str, role: str) -> str:
        secret, _ = await create_token(self.app.db, self.app.clock, name=name, role=role, by="test")
        return secret


@asynccontextmanager
async def serving(app: App, roles: Sequence[str] = ("viewer", "researcher", "admin"), *,
                  settings: Settings | None = None, pilots: PilotDesk | None = None) -> AsyncIterator[Web]:
    """``app``'s web server on a free port of 127.0.0.1 (with ``settings`` in place of the app's,
    and pilot mode when ``pilots`` is given), and a token for each of ``roles``."""
    reader = Database(app.settings.database_url, readers=2)
    server = WebServer(WebContext(settings or app.settings, app.db, reader, app.clock, pilots=pilots), "127.0.0.1:0")
    await server.start()
    running = Web(app, server, reader)
    try:
        for role in roles:
            running.tokens[role] = await running.token(f"{role}-token", role)
        yield running
    finally:
        await server.stop()
        await reader.close()


@pytest.fixture
async def web(make_app: AppFactory) -> AsyncIterator[Web]:
    async with serving(await make_app()) as running:
        yield running


def api_routes(site: Any) -> list[tuple[str, set[str], bool]]:
    """(path, methods, in the schema) of every API route the site serves, through included
    routers (FastAPI 0.16x keeps them nested)."""
    import fastapi.routing

    iterate = getattr(fastapi.routing, "iter_route_contexts", None)
    found = []
    for item in (iterate(site.routes) if iterate else site.routes):
        route = getattr(item, "original_route", item)
        if isinstance(route, fastapi.routing.APIRoute):
            shown = getattr(item, "include_in_schema", route.include_in_schema)
            found.append((str(item.path), set(item.methods or ()), bool(shown)))
    return found
