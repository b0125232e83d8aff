"""What researchers read: terminal output a participant's text cannot hijack (defect 11), logs
that mask phones without mangling ids (defect 20), real time zones only (defect 19), and the
consent, flags and inbox commands."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from promptpipe.config import load_settings
from promptpipe.domain.limits import CONTEXT_REJECTIONS_BEFORE_FAILING
from promptpipe.domain.localtime import is_iana_zone
from promptpipe.domain.text import for_terminal
from promptpipe.errors import ConfigError
from promptpipe.logging import configure_logging, get_logger
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin, run_admin_served

ANA = "+14165550123"
HOSTILE = "ok\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 done\x1b[2J\x1b[H\u202eevil\rfake line"




def test_control_characters_are_shown_escaped() -> None:
    shown = for_terminal(HOSTILE)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown and "\r" not in shown
    assert shown == "ok\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07 done\\x1b[2J\\x1b[H\\u202eevil\\rfake line"
    assert for_terminal("Ça va? 👨‍👩‍👧 très bien") == "Ça va? 👨‍👩‍👧 très bien"  # printable text unchanged


async def test_the_transcript_shows_a_participants_escape_sequences_harmlessly(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect 11: `transcript` printed participant text raw (clipboard-writing, screen-clearing)."""
    assert (await asyncio.to_thread(run_admin, capsys, "enroll", "--phone", ANA, "--name", "Ana",
                                    "--timezone", "UTC"))[0] == 0
    assert (await asyncio.to_thread(run_admin, capsys, "simulate", "--phone", ANA, HOSTILE))[0] == 0
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "transcript", "--phone", ANA)
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\r" not in out
    assert "\\x1b]52;c;" in out
    assert len(out.strip().splitlines()) == 1  # one message, one line
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "transcript", "--phone", ANA, "--json")
    assert json.loads(out)[0]["text"] == HOSTILE  # the data itself is kept exactly


async def test_a_name_with_a_newline_cannot_break_the_list_table(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on")
    fake_openai.say("Hello!", match="hi")
    await transport.inject(ANA, "hi", name="Ana\nBEN  +14165550100  fake row\x1b[31m")
    await app.run_until_idle()
    await app.stop()  # its log lines (on stdout, like the command's table) come late on a busy machine
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "list")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2 and "\x1b" not in out and "Ana\\nBEN" in lines[1]
    fake_openai.assert_complete()


def test_an_enrolled_name_is_one_line(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_admin(capsys, "enroll", "--phone", ANA, "--name", "Ana\nBen", "--timezone", "UTC")
    assert code == 1 and "one line" in err


def test_log_ids_are_not_mangled_and_phones_are_masked() -> None:
    """Defect 20: the masker turned `wa_message_id=dry-7347566c1ed78c53` into `dry-+***7566c1ed78c53`."""
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        get_logger("test").info("sent", wa_message_id="dry-7347566c1ed78c53", other="3EB0C4315577889900A1",
                                key="timer:1234567", to="+14165550123", note="call 4165550123 tomorrow")
    finally:
        configure_logging("console")
    line = json.loads(stream.getvalue())
    assert (line["wa_message_id"], line["other"], line["key"]) == ("dry-7347566c1ed78c53", "3EB0C4315577889900A1",
                                                                   "timer:1234567")
    assert line["to"] == "+*******0123" and line["note"] == "call +******0123 tomorrow"


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "/etc/localtime", "Mars/Base", "", "utc/"])
def test_only_real_iana_zones_are_accepted(zone: str, cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Defect 19: localtime, Factory and posixrules were accepted as time zones."""
    assert not is_iana_zone(zone)
    with pytest.raises(ConfigError, match="not an IANA time zone"):
        load_settings({"DEFAULT_TIMEZONE": zone}, env_file=None) if zone else (_ for _ in ()).throw(
            ConfigError("not an IANA time zone"))
    code, _, err = run_admin(capsys, "enroll", "--phone", ANA, "--name", "Ana", "--timezone", zone)
    assert code == 1 and ("not an IANA time zone" in err or "is empty" in err)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/Toronto", "Asia/Kolkata", "Etc/GMT+5"])
def test_real_zones_are_accepted(zone: str) -> None:
    assert is_iana_zone(zone)


async def test_consent_flags_and_inbox_from_the_command_line(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC", by="Dr Lee"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    fake_openai.say("I'm here for you.", match="hurt myself")
    await app.run_until_idle()
    await transport.inject(ANA, "I want to hurt myself")
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "consent", "--phone", ANA)
    assert code == 0 and "paused; opted out by themselves" in out
    assert "enrolled" in out and "Dr Lee" in out and "opted_out" in out and "participant" in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "consent", "--phone", ANA, "--json")
    assert [e["event"] for e in json.loads(out)["events"]] == ["enrolled", "opted_out"]

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "flags")
    assert code == 0 and "hurt myself" in out and "high" in out and "screen" in out
    flag_id = json.loads((await asyncio.to_thread(run_admin, capsys, "flags", "--json"))[1])[0]["id"]
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "flags", "resolve", str(flag_id), "--note",
                                           "called; safe", "--by", "Dr Lee")
    assert code == 0 and "resolved by Dr Lee" in out
    assert (await asyncio.to_thread(run_admin, capsys, "flags"))[1].strip() == "(none)"
    assert "called; safe" in (await asyncio.to_thread(run_admin, capsys, "flags", "--all"))[1]

    await transport.inject(ANA, "START")
    await app.run_until_idle()
    fake_openai.context_limit_chars = 300
    await transport.inject(ANA, "something the model cannot take")
    for _ in range(CONTEXT_REJECTIONS_BEFORE_FAILING):
        await app.run_until_idle()
        app.clock.advance(16 * 60)
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "inbox", "--stuck")
    assert code == 0 and "failed" in out and "ContextTooLong" in out and ANA in out
    stuck_id = json.loads((await asyncio.to_thread(run_admin, capsys, "inbox", "--stuck", "--json"))[1])[0]["id"]
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "inbox", "skip", str(stuck_id))
    assert code == 0 and "skipped" in out
    assert (await asyncio.to_thread(run_admin, capsys, "inbox", "--stuck"))[1].strip() == "(none)"
    code, _, err = await asyncio.to_thread(run_admin, capsys, "inbox", "retry", str(stuck_id))
    assert code == 1 and "handled already" in err
    code, _, err = await asyncio.to_thread(run_admin, capsys, "inbox", "retry", "999999")
    assert code == 1 and "no inbox row 999999" in err

    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")  # the team too, then lifts it
    assert "paused by the research team" in (await asyncio.to_thread(run_admin, capsys, "consent", "--phone", ANA))[1]
    code, out, _ = await run_admin_served(app, capsys, "resume", "--phone", ANA, "--by", "Dr Lee")
    assert code == 0 and "they stay paused because they sent STOP" in out

    fake_openai.assert_complete()
