"""`promptpipe-admin simulate` pilots every way a participant answers, without a phone: a vote,
a reaction, a swipe reply to a day's prompt, a message without words."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from promptpipe.errors import Forbidden
from promptpipe.flow import intensity, votes
from promptpipe.flow.commands import RESUMED, STOPPED
from promptpipe.research import admin, oversight
from promptpipe.research.status import read_status
from promptpipe.storage.db import Database
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, deliveries, prompted
from tests.research.test_admin_cli import run_admin
from tests.schedule_helpers import NUDGE, at


@pytest.fixture(autouse=True)
def admin_on_the_test_clock(monkeypatch: pytest.MonkeyPatch, clock) -> None:  # type: ignore[no-untyped-def]
    """The admin script stamps its rows with the service's (test) clock, as it would share real time."""
    from promptpipe.cli import admin as admin_cli

    monkeypatch.setattr(admin_cli, "SystemClock", lambda: clock)


async def simulate(app, capsys, *args: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    result = await asyncio.to_thread(run_admin, capsys, "simulate", "--phone", ANA, *args)
    await app.run_until_idle()
    return result


async def test_a_vote_by_its_words_or_its_number(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai, INTENSITY_POLL_ENABLED="on")

    code, out, _ = await simulate(app, capsys, "--vote", "done")
    assert code == 0 and "stored as inbox row" in out
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("done", "tap")
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY["done"]

    await simulate(app, capsys, "--vote", "3")  # a number answers the newest poll: the intensity poll
    assert (await admin.show(app.db, ANA)).intensity == "high"
    assert transport.texts_to(ANA)[-1] == intensity.ACKS[intensity.MORE]
    fake_openai.assert_complete()


async def test_reactions_on_the_poll_and_on_the_prompt(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)

    await simulate(app, capsys, "--react", "👎", "--to", "poll")
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("not_this_time", "reaction")

    fake_openai.say("Glad it made you smile.", match="[reacted 😄 to your daily prompt of Monday 5 January")
    await simulate(app, capsys, "--react", "😄")
    assert transport.texts_to(ANA)[-1] == "Glad it made you smile."
    fake_openai.assert_complete()


async def test_a_reply_to_a_days_prompt_and_a_voice_note(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    fake_openai.say("Good to hear about Monday.", match="your daily prompt of Monday 5 January, an earlier day")

    await simulate(app, capsys, "--reply-to-prompt", "2026-01-05", "that", "one", "was", "easy")
    monday, tuesday = await deliveries(app, pid)
    assert monday.replied_at is not None and tuesday.replied_at is None

    fake_openai.say("I can only read text, sorry!", match="[a voice message; this study can only read text]")
    await simulate(app, capsys, "--kind", "voice")
    rows = await admin.transcript(app.db, ANA)
    assert [row.kind for row in rows if row.direction == "in"][-1] == "voice"
    assert transport.texts_to(ANA)[-1] == "I can only read text, sorry!"
    fake_openai.assert_complete()


@pytest.mark.parametrize(("args", "error"), [
    (["--vote", "maybe"], "'maybe' is not an option of the open poll (1. Done, 2. Not this time)"),
    (["--vote", "7"], "'7' is not an option"),
    (["--kind", "selfie"], "--kind: 'selfie' is not one of text, voice"),
    (["--kind", "voice", "hello"], "--kind voice: leave the text out"),
    (["--vote", "done", "hello"], "give one thing to simulate"),
    (["--reply-to-prompt", "2026-02-30", "hi"], "--reply-to-prompt: '2026-02-30' is not a date"),
    (["--reply-to-prompt", "2026-01-09", "hi"], "no daily prompt was sent to +15145550101 on 2026-01-09"),
])
async def test_what_cannot_be_simulated_says_why(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
    args: list[str], error: str,
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    sent = len(transport.sent)

    code, _, err = await simulate(app, capsys, *args)

    assert code == 1 and error in err
    assert len(transport.sent) == sent and not [
        r for r in await admin.transcript(app.db, ANA) if r.direction == "in"]


async def test_a_vote_before_any_prompt_says_how_to_get_one(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.participant_helpers import enrolled

    app, _ = await enrolled(make_app, fake_openai, phone=ANA)

    code, _, err = await simulate(app, capsys, "--vote", "done")
    assert code == 1 and "has no poll to answer yet" in err and "prompt-now" in err
    code, _, err = await simulate(app, capsys, "--react", "👍")
    assert code == 1 and "has no sent daily prompt to react to yet" in err


async def live_and_stopped(make_app: AppFactory, fake_openai: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    """Ana on a service that reaches real people, after she sent STOP from her phone."""
    transport = MemoryTransport(reaches_people=True)  # plays WhatsApp
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == STOPPED
    return app, transport


@pytest.mark.parametrize("args", [["START"], ["--vote", "done"], ["--react", "👍"], ["--kind", "voice"]])
async def test_on_a_live_service_nobody_acts_as_the_participant_and_their_stop_holds(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
    args: list[str],
) -> None:
    app, transport = await live_and_stopped(make_app, fake_openai)
    sent = len(transport.sent)

    code, _, err = await simulate(app, capsys, *args)

    assert code == 1 and "a real person would get the answer" in err and "dry-run" in err
    assert len(transport.sent) == sent and RESUMED not in transport.texts_to(ANA)
    show = await admin.show(app.db, ANA)
    assert (show.status, show.paused_by) == ("paused", "participant")
    assert [e.event for e in (await oversight.consent(app.db, ANA)).events] == ["enrolled", "opted_out"]
    assert [r.text for r in await admin.transcript(app.db, ANA) if r.direction == "in"] == ["STOP"]


async def test_a_live_database_stays_live_after_the_service_stops(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, _ = await live_and_stopped(make_app, fake_openai)
    await app.stop()
    db = Database(app.settings.database_url)
    await db.connect()
    try:
        with pytest.raises(Forbidden, match="has been served over memory since"):
            await admin.simulate(db, app.clock, phone=ANA, text="START")
    finally:
        await db.close()


async def test_the_admin_scripts_own_settings_do_not_decide_what_the_database_is(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 46, 2: the database records who it is served over. A pilot served over dry-run stays
    a pilot whatever the admin script's settings say, and a live one stays live (the dry-run
    settings of the fixture do not open it: see the test above)."""
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", "whatsapp")
    app, _, _ = await prompted(make_app, fake_openai)
    fake_openai.say("Good to hear!")

    code, _, err = await simulate(app, capsys, "hello")

    assert code == 0, err
    assert [r.text for r in await admin.transcript(app.db, ANA) if r.direction == "in"] == ["hello"]


@pytest.mark.parametrize("transport", ["dry-run", "cloud-api", "whatsapp"])
async def test_a_database_no_service_has_served_yet_is_not_simulated(
    database_url: str, clock, transport: str, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """Enrolled with the admin script and never served: the first `serve` may be the study's real
    number, so nothing shows that no real person can be reached."""
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", transport)
    db = Database(database_url)
    await db.connect()
    try:
        await admin.enroll(db, clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
        with pytest.raises(Forbidden, match="no service has served this database yet") as refused:
            await admin.simulate(db, clock, phone=ANA, text="START")
        assert "PROMPTPIPE_TRANSPORT=dry-run promptpipe serve" in str(refused.value)
        assert "Pilot page" in str(refused.value)
        assert not [r for r in await admin.transcript(db, ANA) if r.direction == "in"]
    finally:
        await db.close()


async def test_a_simulated_input_that_reaches_a_service_with_real_people_changes_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """A simulated START written just as the database went live (the admin script read it as a
    pilot a moment before) is set aside by the service: Ana's own STOP holds."""
    from promptpipe.research.simulate import _ingest_as

    app, transport = await live_and_stopped(make_app, fake_openai)
    sent = len(transport.sent)
    await _ingest_as(app.db, app.clock, ANA, text="START")
    await app.run_until_idle()

    assert len(transport.sent) == sent
    show = await admin.show(app.db, ANA)
    assert (show.status, show.paused_by) == ("paused", "participant")
    assert [e.event for e in (await oversight.consent(app.db, ANA)).events] == ["enrolled", "opted_out"]
    assert [(r.text, r.status) for r in await admin.transcript(app.db, ANA) if r.direction == "in"][-1] == (
        "START", "kept")
    assert not (await read_status(app.db)).stuck_inputs


async def test_what_a_pilot_simulated_is_not_answered_once_the_database_goes_live(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    from tests.participant_helpers import enrolled

    pilot, _ = await enrolled(make_app, fake_openai, phone=ANA)
    await admin.simulate(pilot.db, pilot.clock, phone=ANA, text="START")  # stored, not answered yet
    await pilot.stop()

    live = MemoryTransport(reaches_people=True)
    app = await make_app(live)
    await app.run_until_idle()

    assert live.texts_to(ANA) == []
    [row] = [r for r in await admin.transcript(app.db, ANA) if r.direction == "in"]
    assert (row.text, row.status) == ("START", "kept")
    assert not (await read_status(app.db)).stuck_inputs


async def test_chat_does_not_play_a_participant_of_a_live_database(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`promptpipe chat` on the study's database would answer a real participant in the terminal and
    send everyone else's messages there instead of to their phones."""
    from promptpipe.cli import main

    app, _ = await live_and_stopped(make_app, fake_openai)
    await app.stop()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    capsys.readouterr()

    code = await asyncio.to_thread(main, ["chat", "--phone", ANA])

    err = capsys.readouterr().err
    assert code == 1 and "promptpipe chat acts as a participant only where no real person can be reached" in err
