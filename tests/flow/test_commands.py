"""STOP / START / RESUME / HELP and the researcher's pause, resume, withdraw: no model involved."""

from __future__ import annotations

import asyncio

import pytest

from promptpipe.errors import AdminError
from promptpipe.flow.commands import (
    HELP_TEXT,
    OPTED_IN_TEAM_PAUSED,
    PAUSED_BY_TEAM,
    PAUSED_HINT,
    RESUMED,
    STOPPED,
    as_command,
)
from promptpipe.research import admin, oversight
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin, run_admin_served

ANA = "+15145550101"


async def started(make_app: AppFactory, fake: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake.say("Hi Ana!")
    await app.run_until_idle()
    return app, transport


async def send(app, transport: MemoryTransport, text: str) -> str:  # type: ignore[no-untyped-def]
    await transport.inject(ANA, text)
    await app.run_until_idle()
    return transport.texts_to(ANA)[-1]


@pytest.mark.parametrize(("text", "command"), [
    ("STOP", "STOP"), ("stop", "STOP"), ("  Stop. ", "STOP"), ("help!", "HELP"), ("Resume", "START"),
    ("start", "START"), ("Stop please", "STOP"), ("Stop?", "STOP"), ("stop 🙏", "STOP"), ("ＳＴＯＰ", "STOP"),
    ("unsubscribe", "STOP"), ("stop texting me", "STOP"), ("please stop", "STOP"), ("Opt-out", "STOP"),
    ("ok stop now, thank you", "STOP"), ("opt in", "START"), ("Help?", "HELP"),
    ("stop it", None), ("STOPP", "STOP"), ("", None), ("I can't stop snacking", None), ("help me plan my week", None),
])
def test_commands_are_recognised_in_the_words_people_use(text: str, command: str | None) -> None:
    assert as_command(text) == command


async def test_stop_pauses_confirms_and_records_consent_withdrawal(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "stop") == STOPPED
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.paused_by) == ("paused", "participant")

    assert await send(app, transport, "are you still there?") == PAUSED_HINT
    assert await send(app, transport, "START") == RESUMED
    assert (await admin.show(app.db, ANA)).status == "active"
    assert len(fake_openai.requests) == 1  # only the greeting: no command reached the model

    from sqlalchemy import select

    from promptpipe.storage.models import Transition

    names = await app.db.run(lambda s: list(s.execute(select(Transition.name).order_by(Transition.id)).scalars()))
    assert names == ["enrolled", "opted_out", "opted_in"]
    ledger = await oversight.consent(app.db, ANA)
    assert [(e.event, e.source, e.words) for e in ledger.events[1:]] == [
        ("opted_out", "participant", "stop"), ("opted_in", "participant", "START")]
    fake_openai.assert_complete()


async def test_a_researchers_resume_does_not_lift_a_participants_stop(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 5: pause → STOP → resume made the participant active again."""
    app, transport = await started(make_app, fake_openai)
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause", by="Dr Lee")
    assert await send(app, transport, "STOP") == STOPPED
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.opted_out, shown.researcher_paused) == ("paused", True, True)
    said = await admin.set_status(app.db, app.clock, phone=ANA, action="resume", by="Dr Lee")
    assert "they stay paused because they sent STOP" in said
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.opted_out, shown.researcher_paused) == ("paused", True, False)
    assert await send(app, transport, "what now?") == PAUSED_HINT  # no model: still paused
    assert await send(app, transport, "START") == RESUMED  # only they lift their own STOP
    assert (await admin.show(app.db, ANA)).status == "active"
    ledger = await oversight.consent(app.db, ANA)
    assert [(e.event, e.source, e.actor) for e in ledger.events] == [
        ("enrolled", "researcher", admin.researcher_name()), ("paused", "researcher", "Dr Lee"),
        ("opted_out", "participant", ""), ("resumed", "researcher", "Dr Lee"), ("opted_in", "participant", "")]
    fake_openai.assert_complete()


async def test_a_participants_start_does_not_lift_a_researchers_pause(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "STOP") == STOPPED
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    assert await send(app, transport, "START") == OPTED_IN_TEAM_PAUSED
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.opted_out, shown.researcher_paused) == ("paused", False, True)
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


async def test_withdrawn_participants_get_no_reply_not_even_to_commands(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 7: HELP, START and STOP used to get replies after withdrawal."""
    app, transport = await started(make_app, fake_openai)
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", reason="moved away")
    sent_before = len(transport.sent)
    for text in ("hello?", "HELP", "START", "STOP", "stop please"):
        await transport.inject(ANA, text)
        await app.run_until_idle()
    assert len(transport.sent) == sent_before
    transcript = await admin.transcript(app.db, ANA)
    assert [(m.text, m.status) for m in transcript[-5:]] == [
        ("hello?", "kept"), ("HELP", "kept"), ("START", "kept"), ("STOP", "kept"), ("stop please", "kept")]
    assert (await admin.show(app.db, ANA)).status == "withdrawn"
    with pytest.raises(AdminError, match="withdrawn"):
        await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    fake_openai.assert_complete()


async def test_a_pause_during_a_turn_wins_over_the_turn(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    import threading

    from tests.pipeline.test_lanes import until

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
    assert (await admin.show(app.db, ANA)).status == "paused"
    fake_openai.assert_complete()


async def test_admin_pause_resume_withdraw_and_timezone_from_the_command_line(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path, monkeypatch,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    app, _ = await started(make_app, fake_openai)
    code, out, _ = await run_admin_served(app, capsys, "pause", "--phone", ANA, "--reason", "holiday")
    assert code == 0 and "now paused" in out
    code, out, _ = await run_admin_served(app, capsys, "update", "--phone", ANA, "--timezone", "Asia/Tokyo")
    assert code == 0 and "now uses Asia/Tokyo (was UTC)" in out
    code, _, err = await asyncio.to_thread(run_admin, capsys, "update", "--phone", ANA, "--timezone", "Tokyo")
    assert code == 1 and "not an IANA time zone" in err
    code, out, _ = await run_admin_served(app, capsys, "withdraw", "--phone", ANA)
    assert code == 0 and "now withdrawn" in out
    code, _, err = await run_admin_served(app, capsys, "resume", "--phone", ANA)
    assert code == 1 and "cannot be undone" in err
    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.timezone) == ("withdrawn", "Asia/Tokyo")
    fake_openai.assert_complete()


async def fold(app, *texts: str) -> None:  # type: ignore[no-untyped-def]
    """Messages that arrive together (while nothing runs): one batch."""
    for text in texts:
        await admin.simulate(app.db, app.clock, phone=ANA, text=text)
    await app.run_until_idle()


async def test_a_question_sent_with_help_still_gets_its_answer(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 4: HELP folded with a question got only the HELP text; the question was marked answered."""
    app, transport = await started(make_app, fake_openai)
    fake_openai.say("We start tomorrow morning!", match="when do we start")
    await fold(app, "HELP", "I want to walk more, when do we start?")
    assert transport.texts_to(ANA)[-2:] == [HELP_TEXT, "We start tomorrow morning!"]
    assert fake_openai.last_user_text(fake_openai.requests[-1]) == "I want to walk more, when do we start?"
    transcript = await admin.transcript(app.db, ANA)
    assert [m.status for m in transcript if m.direction == "in"] == ["answered", "answered"]
    fake_openai.assert_complete()


async def test_words_after_stop_are_kept_not_answered(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """Defect 4: STOP folded with a later message; the message is kept, not answered, and STOP holds."""
    app, transport = await started(make_app, fake_openai)
    await fold(app, "STOP", "sorry wrong chat, please keep sending")
    assert transport.texts_to(ANA)[-1] == STOPPED
    assert len(transport.texts_to(ANA)) == 2  # the greeting and the confirmation
    assert (await admin.show(app.db, ANA)).status == "paused"
    transcript = await admin.transcript(app.db, ANA)
    assert [(m.text, m.status) for m in transcript if m.direction == "in"] == [
        ("STOP", "answered"), ("sorry wrong chat, please keep sending", "kept")]
    assert len(fake_openai.requests) == 1
    fake_openai.assert_complete()


async def test_stop_then_start_in_one_batch_answers_what_came_after(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    fake_openai.say("Sure, let's go on.", match="carry on")
    await fold(app, "stop", "start", "ok carry on")
    assert transport.texts_to(ANA)[-3:] == [STOPPED, RESUMED, "Sure, let's go on."]
    fake_openai.assert_complete()


async def test_the_model_opts_out_a_participant_who_asks_in_their_own_words(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    words = "I really don't want these messages on my phone anymore"
    fake_openai.call_tool("opt_out", {"reason": "does not want messages"}, match="these messages")
    assert await send(app, transport, words) == STOPPED
    assert (await admin.show(app.db, ANA)).status == "paused"
    ledger = await oversight.consent(app.db, ANA)
    assert (ledger.events[-1].event, ledger.events[-1].source, ledger.events[-1].words) == (
        "opted_out", "model", words)
    assert await send(app, transport, "START") == RESUMED
    fake_openai.assert_complete()


async def test_someone_who_sent_stop_hears_how_to_restart_at_most_once_a_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    from datetime import timedelta

    from promptpipe.flow.commands import ALREADY_STOPPED

    app, transport = await started(make_app, fake_openai)
    assert await send(app, transport, "STOP") == STOPPED
    for text in ("hello?", "why no reply", "STOP", "are you there"):
        await transport.inject(ANA, text)
        await app.run_until_idle()
    assert transport.texts_to(ANA)[2:] == [PAUSED_HINT]  # one reminder, then silence (all kept)
    transcript = await admin.transcript(app.db, ANA)
    assert [m.text for m in transcript if m.direction == "in"][-4:] == [
        "hello?", "why no reply", "STOP", "are you there"]

    app.clock.advance(timedelta(days=1))
    assert await send(app, transport, "STOP") == ALREADY_STOPPED  # a new day: one reminder again
    await transport.inject(ANA, "hello again")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == ALREADY_STOPPED
    assert await send(app, transport, "HELP") == HELP_TEXT  # asked for: always answered
    assert await send(app, transport, "START") == RESUMED
    assert len(fake_openai.requests) == 1
