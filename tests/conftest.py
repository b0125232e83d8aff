"""Shared fixtures: a clean environment, the fake OpenAI server, and an app factory that runs on
SQLite and (when TEST_POSTGRES_URL is set) on PostgreSQL, each test on a fresh database."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.config import Settings, load_settings
from promptpipe.config.generate import variables
from promptpipe.storage.db import Database
from promptpipe.transport.memory import MemoryTransport
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scheduler_clock import follow_clock

pytest_plugins = ["tests.fakes.fixtures"]  # the fake OpenAI server fixtures

POSTGRES_ENV = "TEST_POSTGRES_URL"
PROJECT_VARS = variables()
"""Every variable a setting reads (from the declarations): cleared before each test."""


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or shell variable leaks into a test, and no real API host is reachable."""
    for name in PROJECT_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # a closed port, never a real host
    monkeypatch.setenv("API_LISTEN", "")  # no test binds the default port; web tests choose their own


def _create_pg_database(base_url: str) -> tuple[str, Callable[[], None]]:
    import psycopg

    name = "pp_test_" + secrets.token_hex(6)
    admin_dsn = base_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    head, _, _ = base_url.rpartition("/")

    def drop() -> None:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{head}/{name}", drop


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'promptpipe.db'}"
        return
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"PostgreSQL run skipped: set {POSTGRES_ENV}=postgresql://user@host:5432/db to include it")
    url, drop = _create_pg_database(base)
    yield url
    drop()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def make_settings(database_url: str, state_dir: Path, openai_url: str, **overrides: str) -> Settings:
    env = {
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": openai_url,
        "LLM_MAX_RETRIES": "0",
        "LLM_TIMEOUT": "3s",
        "SEND_RATE_PER_SECOND": "0",
        "DATABASE_URL": database_url,
        "PROMPTPIPE_STATE_DIR": str(state_dir),
        "PROMPTPIPE_TRANSPORT": "dry-run",
        "API_LISTEN": "",
        **overrides,
    }
    return load_settings(env, env_file=None)


AppFactory = Callable[..., Awaitable[App]]


@pytest.fixture
async def make_app(
    database_url: str, tmp_path: Path, fake_openai: FakeOpenAIServer, clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[AppFactory]:
    """Build (and later close) apps on this test's database; call again to 'restart'."""
    apps: list[App] = []
    follow_clock(monkeypatch, lambda: apps[-1].clock if apps else clock)

    async def factory(transport: Any = None, *, start: bool = True, app_clock: Any = None, **overrides: str) -> App:
        settings = make_settings(database_url, tmp_path / "state", fake_openai.url, **overrides)
        app = App.build(settings, transport=transport or MemoryTransport(), clock=app_clock or clock)
        apps.append(app)
        if start:
            await app.start(background=False)
        return app

    yield factory
    errors = []
    for app in apps:
        try:
            await app.stop()
        except Exception as exc:  # stop every app, then fail with what went wrong
            errors.append(exc)
    if errors:
        raise errors[0]


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database(database_url)
    await database.connect()
    yield database
    await database.close()


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database_url: str) -> Path:
    """The admin script of a pilot (dry-run) run in-process on this test's database, from a scratch
    working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", "dry-run")
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(tmp_path / "state"))
    return tmp_path
