"""Shared fixtures: a clean environment, the fake OpenAI server, and an app factory that runs on
SQLite and (when TEST_POSTGRES_URL is set) on PostgreSQL, each test on a fresh database (a copy of
one made once per process; tests/upgrades/ start from empty ones)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.orm import Session

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.config import Settings, load_settings
from promptpipe.config.generate import variables
from promptpipe.logging import configure_logging
from promptpipe.storage.db import Database
from promptpipe.storage.live import record_deployment
from promptpipe.storage.urls import sync_url
from promptpipe.transport.memory import MemoryTransport
from tests.databases import PostgresDatabases, SqliteTemplate
from tests.fakes.openai_server import FakeOpenAIServer

pytest_plugins = ["tests.fakes.fixtures"]  # the fake OpenAI server fixtures

MEMORY_DISK = Path("/dev/shm")
if "TMPDIR" not in os.environ and MEMORY_DISK.is_dir() and os.access(MEMORY_DISK, os.W_OK):
    # Every test's files (its database copy, state directory, the drills' services) in memory:
    # a SQLite commit's fsync and a file's removal then cost no disk time, which on this VM's disk
    # varied from test to test when the machine was busy. A SIGKILLed service still loses nothing
    # this way (the kernel keeps what it wrote); TMPDIR, when set, is respected.
    os.environ["TMPDIR"] = str(MEMORY_DISK)  # for the services and workers the tests start too
    tempfile.tempdir = None  # computed again from TMPDIR

configure_logging()
"""Every test logs as the service does. Left unset until a test set it, structlog's own default
rendered each logged exception with rich, every frame's variables included: about half a second
of CPU each (a test of a failing turn took 3.3 s)."""

POSTGRES_ENV = "TEST_POSTGRES_URL"
PROJECT_VARS = variables()
"""Every variable a setting reads (from the declarations): cleared before each test."""


SQLITE_ONLY = ("agents", "domain", "flow", "test_model_boundary.py")
"""Where the database's dialect does not decide what is tested: the conversation's decisions, the
agents and the rules. Their storage is the same query modules the PostgreSQL runs of storage/,
pipeline/, scheduling/, research/, export/, web/, upgrades/ and the whole-service tests cover."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``long`` (tens of seconds each) run first: started last, one of them would
    keep a parallel run going alone while the other workers sit idle. The PostgreSQL runs of the
    tests under :data:`SQLITE_ONLY` are left out."""
    tests = Path(__file__).resolve().parent
    kept, left_out = [], []
    for item in items:
        params = getattr(item, "callspec", None)
        on_postgres = params is not None and "postgresql" in (params.params.get("database_url"),
                                                              params.params.get("empty_database_url"))
        where = item.path.resolve().relative_to(tests).parts[0] if item.path.is_relative_to(tests) else ""
        (left_out if on_postgres and where in SQLITE_ONLY else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: otherwise as collected


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test of an ``xdist_group`` that a parallel run did not group fails, instead of running a
    Chromium on every worker and parsing the package on each (pytest 9.2 with pytest-xdist 3.8 did
    so silently: the group is carried in the test's id, which that pytest no longer lets a plugin
    change)."""
    if (item.config.getoption("loadgroup", False) and item.get_closest_marker("xdist_group")
            and "@" not in item.nodeid.rpartition("]")[2]):  # loadgroup: set on the workers of --dist loadgroup
        pytest.fail("--dist loadgroup did not group this test: use a pytest that pytest-xdist supports "
                    "(see pyproject.toml)", pytrace=False)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or shell variable leaks into a test, and no real API host is reachable."""
    for name in PROJECT_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # a closed port, never a real host
    monkeypatch.setenv("API_LISTEN", "")  # no test binds the default port; web tests choose their own


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> SqliteTemplate:
    return SqliteTemplate(tmp_path_factory.mktemp("template"))


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases | None]:
    """This process's PostgreSQL databases (None without TEST_POSTGRES_URL); all dropped at the end."""
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        yield None
        return
    databases = PostgresDatabases(base)
    yield databases
    databases.close()


def _postgres(databases: PostgresDatabases | None) -> PostgresDatabases:
    if databases is None:
        pytest.skip(f"PostgreSQL run skipped: set {POSTGRES_ENV}=postgresql://user@host:5432/db to include it")
    return databases


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: SqliteTemplate,
    postgres_databases: PostgresDatabases | None,
) -> Iterator[str]:
    """This test's own database, with the current schema already made (see tests/databases.py)."""
    if request.param == "sqlite":
        yield sqlite_template.copy_to(tmp_path)
        return
    url, drop = _postgres(postgres_databases).copy()
    yield url
    drop()


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_databases: PostgresDatabases | None,
) -> Iterator[str]:
    """This test's own database with nothing in it: for tests of making and upgrading the schema."""
    if request.param == "sqlite":
        yield SqliteTemplate.empty(tmp_path)
        return
    url, drop = _postgres(postgres_databases).empty()
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
) -> AsyncIterator[AppFactory]:
    """Build (and later close) apps on this test's database; call again to 'restart'."""
    apps: list[App] = []

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


def served_as_pilot(database_url: str, when: datetime | None = None) -> None:
    """Record that a service has served this database over dry-run (what makes it a pilot that
    ``simulate`` may act in)."""
    engine = create_engine(sync_url(database_url))
    try:
        with engine.begin() as connection:
            if inspect(connection).has_table("service_status"):  # not a database of the schema tests: empty
                record_deployment(Session(bind=connection), "dry-run", False, when or ManualClock().now())
    finally:
        engine.dispose()


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database_url: str) -> Path:
    """The admin script of a pilot (dry-run) run in-process on this test's database, from a scratch
    working directory (a service has served it over dry-run)."""
    served_as_pilot(database_url)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", "dry-run")
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(tmp_path / "state"))
    return tmp_path
