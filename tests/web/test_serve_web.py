"""``promptpipe serve`` answers the API and the dashboard on API_LISTEN, in its own loop, and
stops them with the rest; an address in use is one clear line and leaves nothing running."""

from __future__ import annotations

import asyncio
import glob
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from promptpipe.cli import serve as cli
from promptpipe.cli._web import web_command
from promptpipe.clock import SystemClock
from promptpipe.config import load_settings
from promptpipe.errors import ConfigError
from promptpipe.research.tokens import create_token
from promptpipe.storage.db import Database
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory, make_settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ports import free_port


def settings_for(tmp_path: Path, openai_url: str, listen: str) -> object:
    return load_settings({"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": openai_url,
                          "PROMPTPIPE_STATE_DIR": str(tmp_path / "state"), "PROMPTPIPE_TRANSPORT": "dry-run",
                          "API_LISTEN": listen}, env_file=None)


async def test_serve_answers_http_while_it_runs_and_not_after(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    port = free_port()
    settings = settings_for(tmp_path, fake_openai.url, f"127.0.0.1:{port}")
    stop, started = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(cli._serve(settings, transport=MemoryTransport(), stop=stop, started=started))
    await asyncio.wait_for(started.wait(), 30)
    db = Database(settings.database_url)  # type: ignore[attr-defined]
    secret, _ = await create_token(db, SystemClock(), name="ana", role="researcher", by="test")
    await db.close()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        health = await client.get("/health")
        listed = await client.get("/api/v1/participants", headers={"Authorization": f"Bearer {secret}"})
        page = await client.get("/", follow_redirects=False)
    assert health.json() == {"status": "ok"}
    assert listed.status_code == 200 and listed.json()["total"] == 0
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    stop.set()
    assert await asyncio.wait_for(task, 30) == 0
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            await client.get("/health")


async def test_an_address_in_use_stops_serve_with_one_line(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = settings_for(tmp_path, fake_openai.url, f"127.0.0.1:{port}")
        with pytest.raises(ConfigError, match=f"API_LISTEN=127.0.0.1:{port}: cannot listen there"):
            await cli._serve(settings, transport=MemoryTransport())
    # nothing was left holding the state directory: the next start works
    stop, started = asyncio.Event(), asyncio.Event()
    again = settings_for(tmp_path, fake_openai.url, "")
    task = asyncio.create_task(cli._serve(again, transport=MemoryTransport(), stop=stop, started=started))
    await asyncio.wait_for(started.wait(), 30)
    stop.set()
    assert await asyncio.wait_for(task, 30) == 0


async def test_promptpipe_web_serves_alone_and_the_service_carries_out_its_writes(
    tmp_path: Path, fake_openai: FakeOpenAIServer, make_app: AppFactory, database_url: str,
) -> None:
    port = free_port()
    settings = make_settings(database_url, tmp_path / "web-state", fake_openai.url, API_LISTEN=f"127.0.0.1:{port}")
    stop, started = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(web_command(settings, stop=stop, started=started))
    await asyncio.wait_for(started.wait(), 30)
    app = await make_app(app_clock=SystemClock())  # the service, "another process": only the database is shared
    secret, _ = await create_token(app.db, app.clock, name="ana", role="researcher", by="test")
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                 headers={"Authorization": f"Bearer {secret}"}) as client:
        enrolled = await client.post("/api/v1/participants", json={
            "phone": "+14165550150", "name": "Ana", "timezone": "America/Toronto"})
    assert enrolled.status_code == 201
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    assert app.transport.texts_to("+14165550150") == ["Hi Ana!"]  # type: ignore[attr-defined]
    stop.set()
    assert await asyncio.wait_for(task, 30) == 0


async def test_promptpipe_web_needs_an_address(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    settings = settings_for(tmp_path, fake_openai.url, "")
    with pytest.raises(ConfigError, match="API_LISTEN is empty"):
        await web_command(settings)  # type: ignore[arg-type]


def _thread_priorities(pid: int) -> list[tuple[int, int]]:
    """The niceness and scheduling class of each of a process's threads (Linux: a thread has its own)."""
    fields = [Path(stat).read_text().rsplit(")", 1)[1].split() for stat in glob.glob(f"/proc/{pid}/task/*/stat")]
    return [(int(field[16]), int(field[38])) for field in fields]


@pytest.mark.parametrize(("niceness", "expected", "idle"), [(None, 10, True), ("0", 0, False)],
                         ids=["default", "off"])
def test_promptpipe_web_gives_the_cpu_to_the_service_first(tmp_path: Path, niceness: str | None,
                                                           expected: int, idle: bool) -> None:
    """On a busy machine the participants' turns come before the dashboard: `promptpipe web`
    runs its threads at niceness 10 and in the idle scheduling class (a core no one else wants)
    unless WEB_NICENESS says otherwise (never below its own niceness). One thread keeps the
    priority it started with: the database writer's, so that a write of the dashboard's, which
    holds the database's write lock, is never left waiting for a core while the service waits
    for the lock."""
    if not Path("/proc/self/task").is_dir():
        pytest.skip("reads thread priorities from Linux's /proc")
    port = free_port()
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "PROMPTPIPE_STATE_DIR": str(tmp_path / "state"),
           "PROMPTPIPE_TRANSPORT": "dry-run", "API_LISTEN": f"127.0.0.1:{port}"}
    env.pop("DATABASE_URL", None)
    env.pop("WEB_NICENESS", None)
    if niceness is not None:
        env["WEB_NICENESS"] = niceness
    command = "import sys; from promptpipe.cli import main; sys.exit(main(['web']))"
    proc = subprocess.Popen([sys.executable, "-c", command], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 600  # a hang guard only: a busy machine makes the start slow, not wrong
        while True:  # until it answers (it has started its threads by then)
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "promptpipe web did not answer within 10 minutes"
                time.sleep(0.1)
        found = _thread_priorities(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    own_class, own_niceness = os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0)
    wanted_class = os.SCHED_IDLE if idle and own_class == os.SCHED_OTHER else own_class
    yielded = (max(expected, own_niceness), wanted_class)
    assert set(found) == {yielded, (own_niceness, own_class)}, found
    writers = [thread for thread in found if thread == (own_niceness, own_class)]
    assert len(writers) == (1 if yielded != (own_niceness, own_class) else len(found)), found


def test_a_niceness_outside_what_nice_takes_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="WEB_NICENESS=20 is too large: use 19 or less"):
        load_settings({"OPENAI_API_KEY": "test-key", "PROMPTPIPE_STATE_DIR": str(tmp_path / "state"),
                       "WEB_NICENESS": "20"}, env_file=None)
