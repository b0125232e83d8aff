"""The state directory: private to the service's user (defect 8), and a service that notices when
it is deleted under it (defect 16)."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from promptpipe.cli import main
from promptpipe.cli.serve import _serve
from promptpipe.config import load_settings
from promptpipe.storage.db import Database
from promptpipe.transport.memory import MemoryTransport
from tests.databases import execute_raw
from tests.fakes.openai_server import FakeOpenAIServer
from tests.serve_helpers import running


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A permissive umask, as on many servers: the code must make files private by itself."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


async def test_a_new_sqlite_database_and_its_journal_are_private(tmp_path: Path, open_umask: None) -> None:
    """Defect 8: promptpipe.db was 0644 in a 0755 state directory."""
    path = tmp_path / "state" / "promptpipe.db"
    db = Database(f"sqlite:///{path}")
    await db.connect()
    await execute_raw(db, "SELECT 1")
    try:
        assert mode(path) == 0o600
        assert all(mode(p) == 0o600 for p in path.parent.glob("promptpipe.db-*"))
    finally:
        await db.close()


def test_serve_and_check_keep_the_state_directory_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_umask: None, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(state))
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    (state / "whatsapp-session.db").write_bytes(b"")  # as an older version left it
    os.chmod(state / "whatsapp-session.db", 0o644)

    assert main(["check"]) == 0
    _, err = capsys.readouterr()
    assert "whatsapp-session.db is a file with mode 0644" in err and "chmod 600" in err
    assert f"{state} is a directory with mode 0755" in err
    assert "promptpipe.db" not in err  # created private by check itself

    os.umask(0o022)
    settings = load_settings(env_file=None)

    async def serve_briefly() -> int:
        stop, started = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(_serve(settings, transport=MemoryTransport(), stop=stop, started=started))
        await running(task, started)
        stop.set()
        return await task

    assert asyncio.run(serve_briefly()) == 0
    assert "state_file_mode_tightened" in capsys.readouterr().err  # the operator sees what changed
    assert mode(state) == 0o700
    files = {p.name: mode(p) for p in state.iterdir() if p.is_file()}
    assert {"whatsapp-session.db", "promptpipe.lock", "promptpipe.db"} <= set(files)
    assert files == {name: 0o600 for name in files}
    assert main(["check"]) == 0
    assert "warning" not in capsys.readouterr().err


def serve_and_meddle(state: Path, openai_url: str, meddle: Callable[[Path], None]) -> int:
    """Run ``serve`` (dry-run), do ``meddle(state)`` once it runs, and return its exit status."""
    settings = load_settings({"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": openai_url,
                              "PROMPTPIPE_STATE_DIR": str(state), "PROMPTPIPE_TRANSPORT": "dry-run",
                              "API_LISTEN": ""}, env_file=None)  # two of these at once both took port 8080

    async def run() -> int:
        started = asyncio.Event()
        task = asyncio.create_task(_serve(settings, transport=MemoryTransport(), started=started))
        await running(task, started)
        meddle(state)
        return await asyncio.wait_for(task, 30)

    return asyncio.run(run())


@pytest.fixture
def quick_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    import promptpipe.app as app_module

    monkeypatch.setattr(app_module, "WATCH_INTERVAL_S", 0.05)


def test_deleting_the_state_directory_stops_the_service(
    tmp_path: Path, quick_watch: None, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 16: deleting the state directory went unnoticed and a second serve could start."""
    state = tmp_path / "state"
    assert serve_and_meddle(state, fake_openai.url, shutil.rmtree) == 1
    assert not state.exists()  # nothing was written after the deletion (no new directory)


def test_a_replaced_database_file_stops_the_service(
    tmp_path: Path, quick_watch: None, capsys: pytest.CaptureFixture[str], fake_openai: FakeOpenAIServer
) -> None:
    def replace_database(state: Path) -> None:
        database = state / "promptpipe.db"
        database.rename(state / "old.db")
        shutil.copy(state / "old.db", database)

    assert serve_and_meddle(tmp_path / "state", fake_openai.url, replace_database) == 1
    assert "promptpipe.db was replaced" in capsys.readouterr().err


async def test_a_serve_refused_for_a_database_in_use_creates_no_state_directory(
    tmp_path: Path, fake_openai: FakeOpenAIServer, database_url: str,
) -> None:
    """A second serve refused because another one owns the database leaves nothing behind that
    looks like a real state (a directory, a lock, a database)."""
    from promptpipe.app import App
    from promptpipe.errors import ConfigError

    env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": fake_openai.url, "PROMPTPIPE_TRANSPORT": "dry-run",
           "API_LISTEN": "", "DATABASE_URL": database_url}
    running = App.build(load_settings({**env, "PROMPTPIPE_STATE_DIR": str(tmp_path / "first")}, env_file=None),
                        transport=MemoryTransport())
    await running.start(background=False)
    fresh = tmp_path / "second"
    try:
        with pytest.raises(ConfigError, match="already running on this DATABASE_URL"):
            await _serve(load_settings({**env, "PROMPTPIPE_STATE_DIR": str(fresh)}, env_file=None),
                         transport=MemoryTransport())
        assert not fresh.exists()
    finally:
        await running.stop()
