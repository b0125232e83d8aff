"""The admin script and the service commands, as a researcher runs them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from promptpipe.cli import admin_main, main
from promptpipe.clock import SystemClock
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer


def run_admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The admin script's exit code and what it printed (not what the test's service logged before)."""
    capsys.readouterr()
    code = admin_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[None]:
    """The service's poller running beside the test, as in `serve`: what the admin script writes
    for a participant's lane (a team change) is picked up and its outcome awaited by the script.
    The script shares the service's (test) clock meanwhile, as it shares real time."""
    from promptpipe.cli import admin as admin_cli

    stop = asyncio.Event()
    system_clock = admin_cli.SystemClock
    admin_cli.SystemClock = lambda: app.clock  # type: ignore[assignment,misc]

    async def poll() -> None:
        while not stop.is_set():
            await app.lanes.poll_once()
            await app.lanes.wait_idle()
            await asyncio.sleep(0.01)

    task = asyncio.create_task(poll())
    try:
        yield
    finally:
        stop.set()
        admin_cli.SystemClock = system_clock  # type: ignore[misc]
        await task


async def run_admin_served(app: Any, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The admin script, in its own thread, while ``app``'s service polls."""
    async with serving(app):
        return await asyncio.to_thread(run_admin, capsys, *args)


ENROLL = ["enroll", "--phone", "+15145550101", "--name", "Ana", "--timezone", "America/Toronto"]


async def test_enroll_list_show_and_transcript(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = await asyncio.to_thread(run_admin, capsys, *ENROLL, "--background", "prefers mornings")
    assert code == 0 and "enrolled Ana (+15145550101)" in out

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "list", "--json")
    [row] = json.loads(out)
    assert (row["phone"], row["timezone"], row["status"], row["sub_state"]) == (
        "+15145550101", "America/Toronto", "active", "INTAKE")

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "show", "--phone", "+15145550101", "--json")
    shown = json.loads(out)
    assert shown["background"] == "prefers mornings" and shown["inputs_waiting"] == 1  # the greeting event

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "simulate", "--phone", "+15145550101", "hello", "there")
    assert code == 0
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "transcript", "--phone", "+15145550101", "--json")
    [message] = json.loads(out)
    assert (message["direction"], message["text"], message["status"]) == ("in", "hello there", "received")

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "transcript", "--phone", "+15145550101")
    assert "<- [text/received] hello there" in out


async def test_enrolling_twice_says_so_and_changes_nothing(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (await asyncio.to_thread(run_admin, capsys, *ENROLL))[0] == 0
    code, out, err = await asyncio.to_thread(
        run_admin, capsys, "enroll", "--phone", "+15145550101", "--name", "Other", "--timezone", "UTC")
    assert code == 1 and "already enrolled" in err and err.count("\n") == 1
    _, out, _ = await asyncio.to_thread(run_admin, capsys, "list", "--json")
    assert [p["name"] for p in json.loads(out)] == ["Ana"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["enroll", "--phone", "5145550101", "--name", "A", "--timezone", "UTC"], "start with + and the country code"),
        (["enroll", "--phone", "+1514555", "--name", "A", "--timezone", "UTC"], "not a valid number"),
        (["enroll", "--phone", "+15145550101", "--name", "A", "--timezone", "Mars/Base"], "not an IANA time zone"),
        (["show", "--phone", "+15145550199"], "is not enrolled"),
        (["simulate", "--phone", "+15145550199", "hi"], "is not enrolled"),
        (["hand-over", "ottawa", "--to", "clinic-b"], "there is no number 'ottawa'; this deployment has main"),
        (["hand-over", "main", "--to", "clinic-b"], "no service named 'clinic-b' is running with these numbers now"),
    ],
)
async def test_admin_errors_are_one_clear_line(
    cli_env: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    code, out, err = await asyncio.to_thread(run_admin, capsys, *args)
    assert code == 1 and out == ""
    assert expected in err and err.startswith("error:") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "OPENAI_API_KEY is not set"),
        ({"OPENAI_API_KEY": "k", "DATABASE_URL": "mysql://x/y"}, "DATABASE_URL='mysql://x/y' is not a database URL"),
        ({"OPENAI_API_KEY": "k", "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}, "DATABASE_URL: cannot open"),
        ({"OPENAI_API_KEY": "k", "LLM_TIMEOUT": "soon"}, "LLM_TIMEOUT='soon' is not a duration"),
        ({"OPENAI_API_KEY": "k", "PROMPTPIPE_TRANSPORT": "sms"}, "PROMPTPIPE_TRANSPORT='sms' is unknown"),
    ],
)
def test_service_start_with_bad_settings_stops_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], env: dict[str, str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", "dry-run")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = main(["check"])
    _, err = capsys.readouterr()
    assert code == 1 and expected in err and err.count("\n") == 1, err


def test_unwritable_state_directory_is_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(blocker / "state"))
    code = main(["check"])
    _, err = capsys.readouterr()
    assert code == 1 and "PROMPTPIPE_STATE_DIR" in err and "not writable" in err


async def test_rows_written_by_the_admin_process_are_picked_up_by_a_running_service(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path: Path
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, start=False, app_clock=SystemClock())
    await app.start(background=True)
    fake_openai.say("Hello Ana, welcome!", match="just been enrolled")
    env = {**os.environ, "DATABASE_URL": database_url, "PROMPTPIPE_STATE_DIR": str(tmp_path / "admin-state")}
    enroll = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", "from promptpipe.cli import admin_main; raise SystemExit(admin_main())", *ENROLL],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert enroll.returncode == 0, enroll.stderr
    loop = asyncio.get_running_loop()
    written_at = loop.time()
    while not transport.texts_to("+15145550101"):
        assert loop.time() - written_at < 2.0, "the service did not pick up the admin's row within 2 seconds"
        await asyncio.sleep(0.02)
    assert transport.texts_to("+15145550101") == ["Hello Ana, welcome!"]
    await app.stop()
    fake_openai.assert_complete()


async def test_show_reports_profile_and_stage(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app = await make_app(MemoryTransport())
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+15145550101", name="Ana", timezone="UTC"))
    fake_openai.call_tool("save_user_profile", {"habit_domain": "reading", "last_blocker": "too tired"})
    fake_openai.say("Noted.")
    await app.run_until_idle()
    shown = await admin.show(app.db, "+15145550101")
    assert shown.profile["habit_domain"] == "reading"
    assert shown.profile["last_barrier"] == "too tired"  # the legacy alias lands in its real field
    assert shown.messages_out == 1 and shown.replies_unsent == 0
    fake_openai.assert_complete()
