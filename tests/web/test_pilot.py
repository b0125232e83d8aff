"""Pilot mode (``/pilot``): a researcher chats with a sandbox participant as a participant would on
WhatsApp, skips the pilot's clock ahead, taps a poll, starts over, and none of it reaches the
study's database or its export; a viewer may not pilot; the pilot's engine (its database thread
and files) is gone once it ends. Skipping to a reminder or a self-report fires what is due on the
way. One run in Chromium shows the chat as a researcher sees it.

The study's database is SQLite only here: a pilot never touches it whatever it is (the pilot's own
database is always a temporary SQLite file)."""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from promptpipe.app import App
from promptpipe.domain.states import Vote
from promptpipe.errors import Conflict
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.flow.timers import REMINDER_TEXT
from promptpipe.flow.votes import FIRST_REPLY
from promptpipe.pilot import PilotDesk, SkipTo
from promptpipe.storage.access import audit_entries
from promptpipe.storage.models import Message, Participant
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.storage.queue_tables import InboxItem, OutboxItem, Timer
from promptpipe.study.rules.protocol import SELF_REPORT_OPTIONS, SELF_REPORT_QUESTION, SELF_REPORT_THANKS
from promptpipe.study.store.tables import Decision
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, PROFILE, QUIET, utc
from tests.study_helpers import with_study
from tests.web.browser import CHROMIUM, SCREENSHOTS, csrf_of, signed_in
from tests.web.conftest import Web, serving

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

NAME = "Sam"
GREETING = "Welcome Sam! Which small habit would you like to build?"
ANSWER = "I want to stretch after my morning coffee"
REPLY = "Lovely: a nudge at 8:00 each morning, just before your coffee."
DONE_REPLY = FIRST_REPLY[Vote.DONE]
STUDY_TABLES = (Participant, Message, InboxItem, OutboxItem, Decision, Timer, Schedule)
MESSAGE_ID = re.compile(r'name="message_id" value="(\d+)"')


@asynccontextmanager
async def pilot_web(app: App) -> AsyncIterator[tuple[Web, PilotDesk]]:
    """The study's web server offering pilot mode, as ``serve`` builds it (pilots on App.build)."""
    desk = PilotDesk(app.settings, app.clock, App.build)
    try:
        async with serving(app, ("viewer", "researcher"), pilots=desk) as web:
            yield web, desk
    finally:
        await desk.close()


async def study_counts(app: App, out: Path) -> tuple[list[int], dict[str, int]]:
    """The rows of the study's tables a participant's conversation writes, and the export's rows."""
    counts = await app.db.run(lambda s: [s.execute(select(func.count()).select_from(model)).scalar_one()
                                         for model in STUDY_TABLES])
    exported = await export_study(app.db, out, ExportOptions(now=app.clock.now()))
    return counts, exported.rows


def script_intake(fake: FakeOpenAIServer, *, finish: bool = False) -> None:
    """The model's part of the chat up to the schedule: the greeting, then the answer that sets it
    (and, with ``finish``, ends the intake: study day 1 is the next day)."""
    fake.say(GREETING, match=f"Participant: {NAME}")
    done = [("transition_state", {"target_state": "FEEDBACK", "reason": "plan set"})] if finish else []
    fake.call_tools([("save_user_profile", PROFILE),
                     ("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"}), *done], match=ANSWER)
    fake.say(REPLY, match=ANSWER)


def pilot_threads() -> set[threading.Thread]:
    """The database threads alive (a pilot's database has one)."""
    return {thread for thread in threading.enumerate() if thread.name.startswith(("db_", "alarms"))}


async def test_a_researcher_pilots_the_study_and_nothing_reaches_its_data(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app = await make_app(MemoryTransport(), **QUIET)
    async with pilot_web(app) as (web, desk):
        before = await study_counts(app, tmp_path / "before")
        threads = pilot_threads()
        async with signed_in(web) as client:
            page = await client.get("/pilot")
            assert page.status_code == 200 and "Sandbox." in page.text and "Start the pilot" in page.text
            csrf = csrf_of(page.text)
            script_intake(fake_openai)
            started = await client.post("/pilot/start", data={"csrf": csrf, "name": NAME})
            assert started.status_code == 303
            page = await client.get("/pilot")
            assert GREETING in page.text and "Mon 5 Jan 09:00" in page.text  # the pilot's clock starts now
            sandbox = desk.find("researcher-token")
            assert sandbox is not None and sandbox.directory.exists()

            empty = await client.post("/pilot/say", data={"csrf": csrf, "text": "   "})
            assert empty.status_code == 400 and "The message is empty" in empty.text
            assert (await client.post("/pilot/say", data={"csrf": csrf, "text": ANSWER})).status_code == 303
            page = await client.get("/pilot")
            assert ANSWER in page.text and REPLY in page.text

            none = await client.post("/pilot/skip/reminder", data={"csrf": csrf})
            assert none.status_code == 404 and "No reminder is waiting" in none.text
            fake_openai.say(NUDGE, match="scheduled daily nudge")
            skipped = await client.post("/pilot/skip/prompt", data={"csrf": csrf})
            assert skipped.status_code == 303, skipped.text
            page = await client.get(skipped.headers["location"])
            assert NUDGE in page.text and "Skipped ahead to the next prompt" in page.text
            assert "Tue 6 Jan 07:50" in page.text  # 08:00 less the 10 minutes of preparation
            assert 'value="Done"' in page.text and 'value="Not this time"' in page.text
            poll = MESSAGE_ID.findall(page.text)[-1]
            tapped = await client.post("/pilot/tap", data={"csrf": csrf, "message_id": poll, "option": "Done"})
            assert tapped.status_code == 303
            assert DONE_REPLY in (await client.get("/pilot")).text
            wrong = await client.post("/pilot/tap", data={"csrf": csrf, "message_id": poll, "option": "Maybe"})
            assert wrong.status_code == 400 and "Choose one of the options of this poll" in wrong.text

            fake_openai.say(GREETING, match=f"Participant: {NAME}")
            assert (await client.post("/pilot/start", data={"csrf": csrf, "name": NAME})).status_code == 303
            page = await client.get("/pilot")
            assert GREETING in page.text and ANSWER not in page.text  # started over: a new conversation
            assert not sandbox.directory.exists()
            sandbox = desk.find("researcher-token")
            assert sandbox is not None

        async with signed_in(web, "viewer") as viewer:
            refused = await viewer.get("/pilot")
            assert refused.status_code == 403 and "Pilot mode is for researchers" in refused.text
            form = csrf_of((await viewer.get("/participants")).text)
            assert (await viewer.post("/pilot/say", data={"csrf": form, "text": "hi"})).status_code == 403
            assert "Pilot mode" not in (await viewer.get("/")).text  # not in a viewer's navigation

        app.clock.advance(timedelta(minutes=31))  # type: ignore[attr-defined]  # left idle
        assert await desk.end_idle() == 1 and desk.running == 0
        assert not sandbox.directory.exists()
        assert pilot_threads() <= threads, "the pilot's database thread is still running"
        assert await study_counts(app, tmp_path / "after") == before
        audited = await app.db.run(lambda s: [(e.action, e.via) for e in audit_entries(s, actor="researcher-token")])
        assert [row for row in audited if row[0] != "sign_in"] == [("pilot_start", "dashboard")] * 2


async def test_skipping_to_a_reminder_and_a_self_report_fires_what_is_due_on_the_way(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    study = 'name = "Evening check"\nlength_days = 14\n[self_report]\ntime = "20:00"\n'
    app = await make_app(MemoryTransport(), **with_study(study, **{**QUIET, "DAILY_PROMPT_REMINDER_DELAY": "2h"}))
    script_intake(fake_openai, finish=True)
    desk = PilotDesk(app.settings, app.clock, App.build, most=1)
    pilot = await desk.start("ana", name=NAME, zone="UTC")
    try:
        with pytest.raises(Conflict, match=r"Pilot mode is full \(1 at once at most\)"):
            await desk.start("ben", name=NAME, zone="UTC")
        await pilot.say(ANSWER)
        fake_openai.say(NUDGE, match="scheduled daily nudge")
        assert (await pilot.skip(SkipTo.PROMPT)).at == utc(2026, 1, 6, 7, 50)
        reminded = await pilot.skip(SkipTo.REMINDER)
        assert (reminded.at, reminded.sent) == (utc(2026, 1, 6, 9, 50), 1)  # two hours after an unanswered prompt
        assert (await pilot.skip(SkipTo.SELF_REPORT)).at == utc(2026, 1, 6, 20, 0)
        view = await pilot.view()
        assert [m.text for m in view.messages[-2:]] == [REMINDER_TEXT, SELF_REPORT_QUESTION]
        assert view.messages[-1].options == SELF_REPORT_OPTIONS and view.messages[-1].tappable
        await pilot.tap(view.messages[-1].id, [SELF_REPORT_OPTIONS[0]])
        assert (await pilot.view()).messages[-1].text == SELF_REPORT_THANKS
    finally:
        await desk.close()
    assert desk.running == 0 and pilot.closed


@pytest.mark.xdist_group("browser")  # one Chromium at a time, on one worker of a parallel run
@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")
async def test_the_pilot_chat_in_a_browser(make_app: AppFactory, fake_openai: FakeOpenAIServer, page: Any) -> None:
    from playwright.async_api import expect
    app = await make_app(MemoryTransport(), **QUIET)
    async with pilot_web(app) as (web, desk):
        await page.goto(web.url + "/pilot")
        await page.get_by_label("Token").fill(web.tokens["researcher"])
        await page.get_by_role("button", name="Sign in").click()
        await expect(page.get_by_role("note")).to_contain_text("Nothing here reaches a participant")
        script_intake(fake_openai)
        await page.get_by_role("button", name="Start the pilot").click()
        chat = page.locator("ol.transcript")
        await expect(chat.get_by_text(GREETING)).to_be_visible()

        await page.get_by_label(f"Write as {NAME}").fill(ANSWER)
        await page.get_by_role("button", name="Send", exact=True).click()
        await expect(chat.get_by_text(REPLY)).to_be_visible()
        fake_openai.say(NUDGE, match="scheduled daily nudge")
        await page.get_by_role("button", name="Skip to the next prompt").click()
        await expect(chat.get_by_text(NUDGE)).to_be_visible()
        await page.get_by_role("button", name="Done", exact=True).click()
        await expect(chat.get_by_text(DONE_REPLY)).to_be_visible()
        await expect(chat.locator("li.msg-in").last).to_contain_text("Done")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(SCREENSHOTS / "pilot.png"), full_page=True)

        await page.get_by_role("button", name="End the pilot").click()
        await expect(page.get_by_role("status")).to_have_text("The pilot ended; its conversation was deleted.")
        assert desk.running == 0
