"""Dry-run and console: piloting a study without a phone."""

from __future__ import annotations

import io
import json
import queue
import shutil
from pathlib import Path

from promptpipe.config import load_settings
from promptpipe.research import admin
from promptpipe.transport.base import Recipient
from promptpipe.transport.console import ConsoleTransport
from promptpipe.transport.dryrun import DryRunTransport
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline.test_lanes import until

ANA = "+15145550101"
PROJECT = Path(__file__).resolve().parents[2]


async def test_dry_run_records_every_outbound_message_as_sent(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app = await make_app(DryRunTransport())
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake_openai.say("Welcome, Ana!")
    await app.run_until_idle()
    await admin.simulate(app.db, app.clock, phone=ANA, text="I want to drink more water")
    fake_openai.say("Great choice. When in your day could that fit?", match="drink more water")
    await app.run_until_idle()

    rows = await admin.transcript(app.db, ANA)
    assert [(r.direction, r.status) for r in rows] == [("out", "sent"), ("in", "answered"), ("out", "sent")]
    assert all(r.whatsapp_id.startswith("dry-") for r in rows if r.direction == "out")
    fake_openai.assert_complete()


async def test_console_chat_round_trip(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    lines: queue.Queue[str] = queue.Queue()
    out = io.StringIO()
    ended: list[bool] = []
    console = ConsoleTransport(ANA, out=out, read_line=lines.get, on_exit=lambda: ended.append(True))
    app = await make_app(console)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake_openai.say("Hi! What would you like to work on?", match="just been enrolled")
    await app.run_until_idle()

    fake_openai.say("Reading is a lovely habit.", match="more reading")
    lines.put("more reading\n")
    await until(lambda: app.inbox.accepted == 1, "the typed line to reach the inbox")
    await app.run_until_idle()
    lines.put("/quit\n")
    await until(lambda: ended == [True], "the console to end the session")

    shown = out.getvalue()
    assert "agent> Hi! What would you like to work on?" in shown
    assert "agent> Reading is a lovely habit." in shown
    assert "agent is typing" in shown
    fake_openai.assert_complete()


async def test_typing_shows_while_a_turn_runs(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    fake_openai.say("Hello!")
    await app.run_until_idle()
    assert transport.typing == [(ANA, True), (ANA, False)]
    fake_openai.assert_complete()


def test_the_example_env_file_is_valid(tmp_path: Path) -> None:
    shutil.copy(PROJECT / ".env.example", tmp_path / ".env")
    settings = load_settings({**dict(_read(tmp_path / ".env")), "PROMPTPIPE_STATE_DIR": str(tmp_path)}, env_file=None)
    assert settings.transport == "whatsapp" and settings.send_rate_per_s == 1.0
    settings = load_settings(env_file=tmp_path / ".env")
    assert settings.genai_model == "gpt-4o-mini"


def _read(path: Path) -> dict[str, str]:
    from dotenv import dotenv_values

    return {k: v or "" for k, v in dotenv_values(path).items()}


async def test_dry_run_journal_records_each_message_once_across_a_crash(tmp_path: Path) -> None:
    """The journal stands for the phone network in the recovery drill: a resend of a message it
    already holds (same outbox key) is recognised, and a line torn by a crash is closed off so the
    next one is readable."""
    journal = tmp_path / "delivered.jsonl"
    first = DryRunTransport(journal)
    await first.start(lambda _: None)  # type: ignore[arg-type,return-value]
    ana = Recipient(phone="+15145550101")
    sent = await first.send_text(ana, "hello", ref="reply:1")
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write('{"ref": "reply:2", "id": "dry-torn"')  # killed halfway through a line

    again = DryRunTransport(journal)  # the restarted service
    await again.start(lambda _: None)  # type: ignore[arg-type,return-value]
    assert (await again.send_text(ana, "hello", ref="reply:1")) == sent  # already delivered: not twice
    await again.send_poll(ana, "Did you do it?", ["Done", "Not this time"], ref="reply:2")
    entries = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    assert [(e["ref"], e["kind"]) for e in entries] == [("reply:1", "text"), ("reply:2", "poll")]
    assert again.recognised == 1


async def test_console_chat_shows_a_poll_with_numbers_and_takes_a_number_as_a_tap(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    from promptpipe.flow import votes
    from tests.feedback_helpers import MONDAY_PROMPT, deliveries
    from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule

    lines: queue.Queue[str] = queue.Queue()
    out = io.StringIO()
    console = ConsoleTransport(ANA, out=out, read_line=lines.get)
    app = await make_app(console, **QUIET)
    pid = await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto")
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT)
    assert "agent> Did you do it?" in out.getvalue()
    assert "   1. Done\n   2. Not this time\n   (tap an option: type its number)" in out.getvalue()

    lines.put("3\n")  # not an option: said so, nothing stored
    lines.put("1\n")
    await until(lambda: app.inbox.accepted == 1, "the tap to reach the inbox")
    await app.run_until_idle()

    assert "(choose a number from 1 to 2)" in out.getvalue()
    [delivery] = await deliveries(app, pid)
    assert (delivery.vote, delivery.vote_source) == ("done", "tap")
    assert f"agent> {votes.FIRST_REPLY['done']}" in out.getvalue()
    lines.put("/quit\n")
    fake_openai.assert_complete()
