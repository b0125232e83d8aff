"""``promptpipe-admin send``, ``broadcast`` and ``update``, as a researcher runs them next to a
running service."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from sqlalchemy import func, select

from promptpipe.app import App
from promptpipe.cli import admin_main
from promptpipe.clock import ManualClock
from promptpipe.errors import AdminError
from promptpipe.research import admin
from promptpipe.storage.queue_tables import InboxItem
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.flow.test_researcher_messages import ANA, BEN, CARA, greeted_three
from tests.participant_helpers import enrolled
from tests.research.test_admin_cli import serving


class Admin:
    """The admin script in-process, with what the researcher types at its questions."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.monkeypatch, self.capsys = monkeypatch, capsys

    def _run(self, args: tuple[str, ...], answer: str | None) -> tuple[int, str, str]:
        if answer is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(answer))
        self.capsys.readouterr()  # what the service logged before: not the script's output
        code = admin_main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    async def __call__(self, *args: str, answer: str | None = None, beside: App | None = None) -> tuple[int, str, str]:
        """``beside``: the app whose service polls meanwhile (for a change run in a participant's lane)."""
        if beside is None:
            return await asyncio.to_thread(self._run, args, answer)
        async with serving(beside):
            return await asyncio.to_thread(self._run, args, answer)


@pytest.fixture
def run(cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        clock: ManualClock) -> Admin:
    """The admin script stamps its rows with the service's (test) clock, as it would share real time."""
    from promptpipe.cli import admin as admin_cli

    monkeypatch.setattr(admin_cli, "SystemClock", lambda: clock)
    return Admin(monkeypatch, capsys)


async def researcher_inputs(app: App) -> int:
    return await app.db.run(lambda s: int(s.execute(
        select(func.count()).select_from(InboxItem).where(InboxItem.kind == "researcher_message")).scalar_one()))


async def test_send_queues_the_message_and_the_service_sends_it(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, run: Admin
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    code, out, _ = await run("send", "--phone", ANA, "--by", "Dr Lee", "Your", "call", "is", "on", "Friday.")
    assert code == 0 and out.startswith("queued as inbox row ") and "the running service sends it" in out
    assert "Your call is on Friday." not in transport.texts_to(ANA)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Your call is on Friday."
    code, out, _ = await run("transcript", "--phone", ANA)
    assert "-> [researcher/sent] Your call is on Friday." in out

    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    code, out, err = await run("send", "--phone", ANA, "One more thing")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "not sent, because they sent STOP" in err
    await app.run_until_idle()
    assert "One more thing" not in transport.texts_to(ANA)
    fake_openai.assert_complete()


async def test_broadcast_counts_asks_first_and_sends_nothing_when_told_no(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, run: Admin
) -> None:
    app, transport = await greeted_three(make_app, fake_openai)

    code, out, err = await run("broadcast", "Survey", "closes", "tonight", answer="n\n")
    assert "This sends your message to 2 participants (status active)." in out and "Send it? [y/N]" in out
    assert code == 1 and "cancelled; nothing was sent" in err
    await app.run_until_idle()
    assert await researcher_inputs(app) == 0
    assert not any("Survey closes tonight" in transport.texts_to(p) for p in (ANA, BEN, CARA))

    code, out, _ = await run("broadcast", "--by", "Dr Lee", "Survey", "closes", "tonight", answer="y\n")
    assert code == 0 and "queued for 2 participants as broadcast b_" in out
    await app.run_until_idle()
    assert [transport.texts_to(p)[-1] == "Survey closes tonight" for p in (ANA, BEN, CARA)] == [True, False, True]

    code, out, _ = await run("broadcast", "--status", "all", "--yes", "Thanks", "everyone")
    assert code == 0 and "This sends your message to 2 participants (everyone)." in out
    assert "1 more matches but cannot be written to (sent STOP, withdrawn or erased) and will be skipped." in out
    assert "skipped 1 who may not be written to" in out
    await app.run_until_idle()
    assert "Thanks everyone" not in transport.texts_to(BEN)
    fake_openai.assert_complete()


async def test_broadcast_filters_and_their_mistakes(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, run: Admin
) -> None:
    app, _ = await greeted_three(make_app, fake_openai)
    code, out, _ = await run("broadcast", "--status", "paused", "--yes", "Hello")
    assert code == 0 and "No participant who can be written to matches (status paused)" in out
    assert "; nothing was sent. 1 participant matches but cannot be written to (sent STOP, withdrawn or erased)." in out
    code, out, err = await run("broadcast", "--silent-days", "0", "--yes", "Hello")
    assert code == 1 and "silent_days: give a whole number of days" in err
    code, out, err = await run("broadcast", "--yes", " ")
    assert code == 1 and "text: it is empty" in err
    await app.run_until_idle()
    assert await researcher_inputs(app) == 0
    fake_openai.assert_complete()


async def test_update_changes_the_name_show_prints(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, run: Admin
) -> None:
    app, _ = await enrolled(make_app, fake_openai, phone=ANA)
    code, out, _ = await run("update", "--phone", ANA, "--name", "Ana María", "--background", "Works nights")
    assert code == 0 and out == f"{ANA}: name changed from 'Ana' to 'Ana María'; background notes updated\n"
    code, out, _ = await run("show", "--phone", ANA)
    assert "name: Ana María\n" in out and "background: Works nights\n" in out

    code, _, err = await run("update", "--phone", ANA)
    assert code == 1 and "say what to change: --timezone, --name or --background" in err
    code, _, err = await run("update", "--phone", ANA, "--name", "Ana M.", "--timezone", "Mars/Base")
    assert code == 1 and "not an IANA time zone" in err
    assert (await admin.show(app.db, ANA)).name == "Ana María"  # a typo changes nothing at all

    code, out, _ = await run("update", "--phone", ANA, "--timezone", "Europe/Berlin", beside=app)
    assert code == 0 and "now uses Europe/Berlin" in out
    fake_openai.assert_complete()


@pytest.mark.parametrize(("text", "problem"), [
    ("hello\x00there", "NUL"), ("\u200b\u200b", "invisible"), ("\u2060 \ufeff\u00ad", "invisible"),
    ("\u3164", "invisible"), ("\u2800\u2800", "invisible"),
])
async def test_a_team_message_of_nul_or_only_invisible_characters_is_refused_clearly(
    make_app: AppFactory, text: str, problem: str
) -> None:
    app = await make_app()
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550177", name="Ines", timezone="UTC"))
    with pytest.raises(AdminError, match=problem):
        await admin.send_message(app.db, app.clock, who="+14165550177", text=text)
    with pytest.raises(AdminError, match=problem):
        await admin.set_status(app.db, app.clock, phone="+14165550177", action="pause", reason=text)
