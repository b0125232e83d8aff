"""STOP / START / RESUME / HELP and the researcher's pause, resume, withdraw: no model involved."""

from __future__ import annotations

import asyncio

import pytest

from promptpipe import admin
from promptpipe.errors import AdminError
from promptpipe.flow.commands import (
    ALREADY_ACTIVE,
    HELP_TEXT,
    NOT_ENROLLED,
    PAUSED_BY_TEAM,
    PAUSED_HINT,
    RESUMED,
    STOPPED,
    as_command,
)
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.test_admin_cli import run_admin

ANA = "+15145550101"


async def started(make_app: AppFactory, fake: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, phone=ANA, name="Ana", timezone="UTC")
    fake.say("Hi Ana!")
    await app.run_until_idle()
    return app, transport


async def send(app, transport: MemoryTransport, text: str) -> str:  # type: ignore[no-untyped-def]
    await transport.inject(ANA, text)
    await app.run_until_idle()
    return transport.texts_to(ANA)[-1]


@pytest.mark.parametrize(("text", "command"), [
    ("STOP", "STOP"), ("stop", "STOP"), ("  Stop. ", "STOP"), ("help!", "HELP"), ("Resume", "RESUME"),
    ("start", "START"), ("stop it", None), ("please stop", None), ("STOPP", None), ("", None),
])
def test_only_exact_words_are_commands(text: str, command: str | None) -> None:
    assert as_command(text) == command


async def test_stop_pauses_confirms_and_records_consent_withdrawal(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "stop") == STOPPED
    shown = await admin.show(app.db, ANA)
    assert (shown["status"], shown["paused_by"]) == ("paused", "participant")

    assert await send(app, transport, "are you still there?") == PAUSED_HINT
    assert await send(app, transport, "START") == RESUMED
    assert (await admin.show(app.db, ANA))["status"] == "active"
    assert len(fake_openai.requests) == 1  # only the greeting: no command reached the model

    from sqlalchemy import select

    from promptpipe.models import Transition

    names = await app.db.run(lambda s: list(s.execute(select(Transition.name).order_by(Transition.id)).scalars()))
    assert names == ["enrolled", "opted_out", "opted_in"]
    fake_openai.assert_complete()


async def test_help_works_in_any_state_and_start_when_active_says_so(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "HELP") == HELP_TEXT
    assert await send(app, transport, "resume") == ALREADY_ACTIVE
    await send(app, transport, "STOP")
    assert await send(app, transport, "Help") == HELP_TEXT
    fake_openai.assert_complete()


async def test_the_latest_command_wins_when_messages_arrive_together(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    await admin.simulate(app.db, app.clock, phone=ANA, text="I'm tired of this")
    await admin.simulate(app.db, app.clock, phone=ANA, text="STOP")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == STOPPED
    assert len(fake_openai.requests) == 1
    fake_openai.assert_complete()


async def test_researcher_pause_cannot_be_lifted_by_the_participant(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await admin.set_status(app.db, app.clock, phone=ANA, action="pause") == f"{ANA} is now paused; no scheduled message will be sent to them"
    assert await send(app, transport, "START") == PAUSED_BY_TEAM
    assert await send(app, transport, "STOP") == STOPPED  # recorded, the team's pause stays
    shown = await admin.show(app.db, ANA)
    assert (shown["status"], shown["paused_by"]) == ("paused", "researcher")
    assert await admin.set_status(app.db, app.clock, phone=ANA, action="resume") == f"{ANA} is now active"
    fake_openai.say("Good to have you back.", match="back again")
    assert await send(app, transport, "back again") == "Good to have you back."
    fake_openai.assert_complete()


async def test_a_researcher_cannot_override_a_participants_stop(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    await send(app, transport, "STOP")
    with pytest.raises(AdminError, match="only they can switch them back on"):
        await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    fake_openai.assert_complete()


async def test_withdrawn_participants_get_no_replies_except_to_commands(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", reason="moved away")
    sent_before = len(transport.sent)
    await transport.inject(ANA, "hello?")
    await app.run_until_idle()
    assert len(transport.sent) == sent_before
    assert (await admin.transcript(app.db, ANA))[-1]["text"] == "hello?"  # still kept
    assert await send(app, transport, "START") == NOT_ENROLLED
    with pytest.raises(AdminError, match="withdrawn"):
        await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    fake_openai.assert_complete()


async def test_a_pause_during_a_turn_wins_over_the_turn(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    import threading

    from tests.test_lanes import until

    app, transport = await started(make_app, fake_openai)
    gate = threading.Event()
    fake_openai.say("this reply must not go out", match="long question", gate=gate)
    await transport.inject(ANA, "a long question")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the turn to reach the model")
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    gate.set()
    await running
    assert "this reply must not go out" not in transport.texts_to(ANA)
    assert transport.texts_to(ANA)[-1] == PAUSED_BY_TEAM
    assert (await admin.show(app.db, ANA))["status"] == "paused"
    fake_openai.assert_complete()


async def test_admin_pause_resume_withdraw_and_timezone_from_the_command_line(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path, monkeypatch,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    app, _ = await started(make_app, fake_openai)
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "pause", "--phone", ANA, "--reason", "holiday")
    assert code == 0 and "now paused" in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "update", "--phone", ANA, "--timezone", "Asia/Tokyo")
    assert code == 0 and "now uses Asia/Tokyo (was UTC)" in out
    code, _, err = await asyncio.to_thread(run_admin, capsys, "update", "--phone", ANA, "--timezone", "Tokyo")
    assert code == 1 and "not an IANA time zone" in err
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "withdraw", "--phone", ANA)
    assert code == 0 and "now withdrawn" in out
    code, _, err = await asyncio.to_thread(run_admin, capsys, "resume", "--phone", ANA)
    assert code == 1 and "cannot be undone" in err
    shown = await admin.show(app.db, ANA)
    assert (shown["status"], shown["timezone"]) == ("withdrawn", "Asia/Tokyo")
    fake_openai.assert_complete()
