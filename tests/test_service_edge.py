"""The service around its WhatsApp connection: the state it records for `status`, a fresh process
for a new QR code (a bounded number of times), a stop that ends even when a worker thread never
returns, and what the service's process loads."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from promptpipe.cli import serve as cli
from promptpipe.config import load_settings
from promptpipe.errors import NotConnected
from promptpipe.transport.connection_state import ConnectionState, ExitRequest
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import ANA
from tests.research.test_admin_cli import run_admin
from tests.serve_helpers import running


class WatchedTransport(MemoryTransport):
    """A memory transport that, like the WhatsApp one, reports its connection state and can ask
    for the process to end."""

    def __init__(self) -> None:
        super().__init__()
        self.state_callback: Any = None
        self.exit_requested = asyncio.Event()
        self.exit_request: ExitRequest | None = None

    def on_state_change(self, callback: Any) -> None:
        self.state_callback = callback

    def ask_to_exit(self, request: ExitRequest) -> None:
        self.exit_request = request
        self.exit_requested.set()


async def test_status_shows_the_connection_backlog_uncertain_sends_and_last_model_error(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], cli_env: Path,
) -> None:
    transport = WatchedTransport()
    app = await make_app(transport)
    from promptpipe.research import admin

    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    since = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    transport.state_callback(ConnectionState("unreachable", since, detail="failed to dial whatsapp web websocket"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    transport.fail_next.append(NotConnected("WhatsApp is not connected yet"))  # the greeting waits to be sent
    await app.run_until_idle()
    fake_openai.fail(500, match="are you there")
    await transport.inject(ANA, "are you there?")
    await app.run_until_idle()
    await asyncio.sleep(0)  # the state write runs beside the turns

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "status")

    assert code == 0
    lines = [line for line in out.splitlines() if not line.startswith("20")]  # log lines start with a date
    assert lines[0] == ("whatsapp: WhatsApp unreachable since 2026-01-05T09:00:00+00:00 "
                        "(failed to dial whatsapp web websocket)")
    assert "outbox backlog: 2 messages waiting to be sent" in lines  # the greeting and the "I kept it" apology
    assert "uncertain sends: 0" in lines
    assert any(line.startswith("last model error: ") and "500" in line for line in lines)


async def test_status_before_the_service_ever_connected_says_so(
    make_app: AppFactory, capsys: pytest.CaptureFixture[str], cli_env: Path,
) -> None:
    await make_app()

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "status")

    assert code == 0 and "whatsapp: no state recorded" in out
    assert "last model error: none recorded" in out


def serve_settings(tmp_path: Path, openai_url: str) -> Any:
    return load_settings({"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": openai_url,
                          "PROMPTPIPE_STATE_DIR": str(tmp_path / "state"), "PROMPTPIPE_TRANSPORT": "dry-run",
                          "API_LISTEN": ""},
                         env_file=None)


def serve_until_the_transport_asks(settings: Any, request: ExitRequest) -> int:
    """Run ``serve`` in this process until its transport asks to end it; its exit status."""
    transport = WatchedTransport()

    async def run() -> int:
        started = asyncio.Event()
        task = asyncio.create_task(cli._serve(settings, transport=transport, started=started))
        await running(task, started)
        transport.ask_to_exit(request)
        return await asyncio.wait_for(task, 30)

    return asyncio.run(run())


def test_a_transport_that_needs_a_fresh_process_ends_serve_with_a_restart(
    tmp_path: Path, fake_openai: FakeOpenAIServer,
) -> None:
    request = ExitRequest("The QR code expired; showing a new one.", restart=True)

    assert serve_until_the_transport_asks(serve_settings(tmp_path, fake_openai.url), request) == cli.RESTART


def test_an_outdated_client_ends_serve_with_status_1_and_the_fix(
    tmp_path: Path, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
) -> None:
    request = ExitRequest("WhatsApp refuses this client as outdated. Upgrade neonize.")

    assert serve_until_the_transport_asks(serve_settings(tmp_path, fake_openai.url), request) == 1
    assert "error: WhatsApp refuses this client as outdated. Upgrade neonize." in capsys.readouterr().err


def test_serve_starts_again_for_a_new_qr_code_a_bounded_number_of_times(
    tmp_path: Path, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = serve_settings(tmp_path, fake_openai.url)
    execs: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(cli, "_run_service", lambda *_a, **_k: cli.RESTART)
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: execs.append((path, argv)))
    monkeypatch.setattr(sys, "argv", ["promptpipe", "serve"])
    monkeypatch.delenv(cli.QR_RENEWAL_ENV, raising=False)

    for _ in range(settings.whatsapp_qr_renewals):
        cli._serve_command(settings)  # each would have replaced the process

    assert len(execs) == settings.whatsapp_qr_renewals == 5
    assert execs[0] == (sys.executable, [sys.executable, "-m", "promptpipe.cli", "serve"])
    assert cli._serve_command(settings) == 1  # the sixth expiry: give up and say what to do
    err = capsys.readouterr().err
    assert "nobody linked the study phone: 6 QR codes expired" in err and "promptpipe serve" in err
    assert len(execs) == 5


def test_a_worker_thread_that_never_returns_does_not_keep_the_process_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[int] = []
    release = threading.Event()
    monkeypatch.setattr(cli.os, "_exit", exits.append)

    async def service() -> int:
        # like neonize 0.5.2's connect task, blocked in Go waiting for a login that cannot come
        asyncio.get_running_loop().run_in_executor(None, release.wait)
        return 0

    try:
        code = cli._run_service(service, wait_for_threads_s=0.2)
    finally:
        release.set()

    assert exits == [0]  # it would have ended here, logs flushed, instead of joining the thread for ever
    assert code == 0


def test_a_clean_stop_leaves_no_thread_and_needs_no_forced_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[int] = []
    monkeypatch.setattr(cli.os, "_exit", exits.append)

    async def service() -> int:
        await asyncio.get_running_loop().run_in_executor(None, lambda: None)
        return 0

    assert cli._run_service(service, wait_for_threads_s=5) == 0
    assert exits == []


async def test_the_stop_deadline_ends_a_stop_that_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    exited = threading.Event()
    codes: list[int] = []

    def fake_exit(code: int) -> None:
        codes.append(code)
        exited.set()

    monkeypatch.setattr(cli.os, "_exit", fake_exit)
    timer = cli._stop_deadline(0.05)
    try:
        assert await asyncio.to_thread(exited.wait, 10)
    finally:
        timer.cancel()
    assert codes == [1]


def test_serve_in_a_real_process_ends_on_sigterm_while_a_login_waits(
    tmp_path: Path, fake_openai: FakeOpenAIServer,
) -> None:
    """End to end: `promptpipe serve` with a transport stuck in a blocking call stops on SIGTERM."""
    import signal
    import subprocess

    script = tmp_path / "stuck_serve.py"
    script.write_text(
        "import asyncio, threading, sys\n"
        "from promptpipe.cli import serve as cli\n"
        "from promptpipe.config import load_settings\n"
        "from promptpipe.transport.memory import MemoryTransport\n"
        "class Stuck(MemoryTransport):\n"
        "    async def start(self, on_message, on_receipt=None):\n"
        "        await super().start(on_message, on_receipt)\n"
        "        asyncio.get_running_loop().run_in_executor(None, threading.Event().wait)\n"
        "        print('started', flush=True)\n"
        "from promptpipe.logging import configure_logging\n"
        "configure_logging()\n"
        "settings = load_settings(env_file=None)\n"
        "sys.exit(cli._run_service(lambda: cli._serve(settings, transport=Stuck())))\n"
    )
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": fake_openai.url,
           "PROMPTPIPE_STATE_DIR": str(tmp_path / "state"), "PROMPTPIPE_TRANSPORT": "dry-run"}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=cli.STOP_DEADLINE_S + 10)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    assert code == 0, err
    assert "service_stopped" in err and "threads_left_behind" in err


def test_the_service_does_not_load_what_only_the_evaluation_or_an_upgrade_needs() -> None:
    """The command line ``serve`` runs from loads the evaluation (its judge, checks, language identification and
    report templates) only for ``promptpipe evaluate``, and Alembic only to upgrade: ~13 MB of a service's memory."""
    import subprocess

    script = ("import sys\n"
              "import promptpipe.cli.serve\n"
              "heavy = ('alembic', 'lingua', 'jinja2', 'promptpipe.evaluation')\n"
              "print(sorted(name for name in sys.modules if name in heavy))\n")
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stderr
