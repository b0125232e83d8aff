"""`promptpipe health`: what the image's HEALTHCHECK runs (the image has no curl). It asks the
service's own /health on API_LISTEN, as read from the settings (and so from .env)."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from promptpipe.cli._health import health_command
from tests.web.conftest import Web
from tests.web.test_api_contract import database_url  # noqa: F401 - SQLite only: the database does not matter here

ROOT = Path(__file__).resolve().parents[2]


async def test_healthy_while_the_service_answers(web: Web, capsys: pytest.CaptureFixture[str]) -> None:
    settings = dataclasses.replace(web.app.settings, api_listen=urlsplit(web.url).netloc)
    assert await asyncio.to_thread(health_command, settings) == 0
    assert "ok" in capsys.readouterr().out


async def test_a_bind_on_every_address_is_asked_on_this_machine(web: Web) -> None:
    port = urlsplit(web.url).port
    settings = dataclasses.replace(web.app.settings, api_listen=f"0.0.0.0:{port}")
    assert await asyncio.to_thread(health_command, settings) == 0


async def test_unhealthy_when_nothing_answers(web: Web, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    settings = dataclasses.replace(web.app.settings, api_listen=f"127.0.0.1:{port}")
    assert await asyncio.to_thread(health_command, settings) == 1
    assert "unhealthy" in capsys.readouterr().err


async def test_with_the_api_off_there_is_nothing_to_ask(web: Web, capsys: pytest.CaptureFixture[str]) -> None:
    settings = dataclasses.replace(web.app.settings, api_listen="")
    assert await asyncio.to_thread(health_command, settings) == 0
    assert "API_LISTEN is empty" in capsys.readouterr().out


def test_the_image_checks_its_health_with_it() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "HEALTHCHECK" in dockerfile
    assert 'CMD ["promptpipe", "health"]' in dockerfile
