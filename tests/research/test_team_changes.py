"""The team's changes of a participant's state run in the participant's lane, whoever asks: the
running service applies them between the participant's turns; where no service runs (or it does
not get to them in time), the asker applies them, once."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from promptpipe.clock import SystemClock
from promptpipe.research import admin, team_requests
from promptpipe.storage.db import Database
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin

ANA = "+14165550131"


async def _log(db: Database) -> list[tuple[str, str]]:
    return [tuple(row) for row in await db.run(lambda s: s.execute(sa.text(
        "SELECT name, actor FROM transition WHERE kind = 'status' ORDER BY id")).all())]


async def _team_rows(db: Database) -> list[tuple[str, str]]:
    return [tuple(row) for row in await db.run(lambda s: s.execute(sa.text(
        "SELECT kind, status FROM inbox WHERE kind = 'team_change' ORDER BY id")).all())]


async def test_a_pause_from_the_admin_script_is_applied_by_the_running_services_lane(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, start=False, app_clock=SystemClock())
    await app.start(background=True)
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    while "Hi Ana!" not in transport.texts_to(ANA):  # the service greets her first
        await asyncio.sleep(0.02)
    batches = app.lanes.batches

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "pause", "--phone", ANA, "--reason", "holiday")

    assert code == 0 and "is now paused" in out
    assert app.lanes.batches > batches  # the service's lane ran it
    assert (await _log(app.db))[-1] == ("paused_by_researcher", "researcher")
    assert await _team_rows(app.db) == [("team_change", "done")]
    await app.stop()


async def test_with_no_service_running_the_admin_script_applies_it_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, _ = await asyncio.to_thread(run_admin, capsys, "enroll", "--phone", ANA, "--name", "Ana",
                                         "--timezone", "UTC")
    assert code == 0
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "pause", "--phone", ANA)
    assert code == 0 and "is now paused" in out

    app = await make_app()  # a service that starts afterwards finds nothing left to apply
    await app.run_until_idle()
    assert [name for name, _ in await _log(app.db)] == ["enrolled", "paused_by_researcher"]
    assert await _team_rows(app.db) == [("team_change", "done")]


async def test_a_service_that_does_not_get_to_it_in_time_leaves_it_to_the_asker_and_never_applies_it_twice(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(team_requests, "WAIT_FOR_SERVICE_S", 0.2)
    app = await make_app()  # holds the database but polls only when the test says so
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "withdraw", "--phone", ANA, "--reason", "moved")
    assert code == 0 and "is now withdrawn" in out
    await app.run_until_idle()

    assert [name for name, _ in await _log(app.db)] == ["enrolled", "withdrawn_by_researcher"]
    assert await _team_rows(app.db) == [("team_change", "done")]


async def test_a_refusal_comes_back_from_the_lane_as_the_same_error(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    from promptpipe.errors import Forbidden

    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()

    with pytest.raises(Forbidden, match=re.escape(f"{ANA} stopped the messages themselves")):
        await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    assert (await admin.show(app.db, ANA)).paused_by == "participant"
