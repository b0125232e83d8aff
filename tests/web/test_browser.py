"""The dashboard in a real browser (Debian's Chromium driven by Playwright), as a researcher and a
viewer use it: sign in, find a participant, read the transcript, pause and resume with the
confirmation, send a message and see it arrive in the transcript, read the heatmap. A full-page
screenshot of each page goes to ``test-artifacts/screenshots/`` for people to look at."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from promptpipe.research import admin
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE
from tests.web.browser import (
    BRAM,
    BRAM_NAME,
    CHROMIUM,
    SCREENSHOTS,
    ZOFIA,
    ZOFIA_NAME,
    ZOFIA_SAYS,
    Study,
    running_study,
)

playwright_api = pytest.importorskip("playwright.async_api", reason="the playwright package is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium) for the browser tests",
                allow_module_level=True)
expect = playwright_api.expect

pytestmark = [
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),  # what a browser sees is the same
    pytest.mark.xdist_group("browser"),  # one Chromium at a time, on one worker of a parallel run
]


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


async def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


async def sign_in(page: Any, study: Study, role: str, path: str = "/") -> None:
    """Open ``path``, get sent to the sign-in page, sign in and come back to it."""
    await page.goto(study.web.url + path)
    await expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    await page.get_by_label("Token").fill(study.web.tokens[role])
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_text(f"{role}-token", exact=True)).to_be_visible()


async def test_a_researcher_finds_a_participant_reads_the_transcript_and_pauses_and_resumes(
    page: Any, study: Study,
) -> None:
    nudge = next(item for item in study.transport.sent if item.to.phone == ZOFIA and item.text == NUDGE)
    await study.transport.receipt("delivered", nudge.message_id)
    await study.transport.receipt("read", nudge.message_id)
    await page.goto(study.web.url + "/participants")
    await screenshot(page, "login")
    await sign_in(page, study, "researcher", "/")
    await expect(page.get_by_text("waiting to be sent")).to_be_visible()
    await screenshot(page, "overview")

    await page.get_by_role("link", name="Participants", exact=True).click()
    await page.get_by_label("Stage").select_option(label="intake")
    await page.get_by_role("button", name="Filter").click()
    await expect(page.get_by_role("cell", name=BRAM_NAME)).to_be_visible()
    await expect(page.get_by_role("cell", name=ZOFIA_NAME)).to_have_count(0)
    await page.get_by_role("link", name="Clear").click()
    await expect(page.get_by_role("cell", name=ZOFIA_NAME)).to_be_visible()
    await screenshot(page, "participants")
    await page.get_by_role("link", name=study.zofia).click()

    transcript = page.locator("ol.transcript")
    await expect(transcript.get_by_text(ZOFIA_SAYS)).to_be_visible()
    await expect(transcript.get_by_text(NUDGE).first).to_be_visible()
    read = transcript.locator("li", has_text=NUDGE).locator(".tick-read")
    await expect(read).to_have_text("✓✓ read")
    await screenshot(page, "participant")

    await page.get_by_role("link", name="Pause…").click()
    await expect(page.get_by_role("heading", name="Pause this participant?")).to_be_visible()
    await page.get_by_label("Reason (optional, kept in the log)").fill("on holiday")
    await screenshot(page, "confirm-pause")
    await page.get_by_role("button", name="Yes, pause").click()
    await expect(page.get_by_role("status")).to_have_text("Paused: no scheduled message goes to them until you resume.")
    assert (await admin.show(study.web.app.db, study.zofia)).status == "paused"

    await page.get_by_role("link", name="Resume…").click()
    await page.get_by_role("button", name="Yes, resume").click()
    await expect(page.get_by_role("status")).to_have_text("Resumed: their daily prompts go out again.")
    assert (await admin.show(study.web.app.db, study.zofia)).status == "active"

    await page.get_by_role("link", name="Safety flags").click()
    await expect(page.get_by_role("button", name="Resolve flag 1")).to_be_visible()
    await screenshot(page, "flags")


async def test_a_message_sent_from_the_browser_shows_in_the_transcript(page: Any, study: Study) -> None:
    text = "Hello Zofia, this is the study team: your next check-in is on Friday."
    await sign_in(page, study, "researcher", f"/participants/{study.zofia}")
    await page.get_by_label("Message to send them").fill(text)
    await page.get_by_role("button", name="Review and send…").click()
    await expect(page.locator("blockquote.message-preview")).to_have_text(text)
    await screenshot(page, "confirm-message")
    await page.get_by_role("button", name="Yes, send it").click()
    await expect(page.get_by_role("status")).to_contain_text("Message queued")

    await study.web.app.run_until_idle()
    assert study.transport.texts_to(ZOFIA)[-1] == text
    await page.reload()
    newest = page.locator("ol.transcript > li").first
    await expect(newest.locator(".msg-text")).to_have_text(text)
    await expect(newest.locator(".tick")).to_have_text("✓ sent")
    await screenshot(page, "participant-after-message")


async def test_the_heatmap_shows_a_done_day_and_a_missed_day(page: Any, study: Study) -> None:
    await sign_in(page, study, "researcher", "/adherence")

    def cell(day: int) -> Any:
        return page.locator("svg.heatmap rect.cell").filter(
            has=page.locator("title", has_text=f"{study.zofia} day {day}:"))

    await expect(cell(1)).to_have_attribute("data-outcome", "done")
    await expect(cell(2)).to_have_attribute("data-outcome", "not_this_time")
    await expect(cell(2).locator("title")).to_have_text(f"{study.zofia} day 2: not this time")
    await expect(page.locator("svg.legend")).to_contain_text("not this time")
    await screenshot(page, "adherence")


async def test_a_viewer_sees_no_phone_number_or_name_anywhere(page: Any, study: Study) -> None:
    await sign_in(page, study, "viewer", "/")
    paths = ["/", "/participants", "/adherence", "/questionnaires", "/flags", f"/participants/{study.zofia}",
             f"/participants/{study.bram}"]
    for path in paths:
        await page.goto(study.web.url + path)
        source = await page.content()
        for secret in (ZOFIA, BRAM, ZOFIA[2:], BRAM[2:], ZOFIA_NAME, BRAM_NAME, ZOFIA_SAYS):
            assert secret not in source, (path, secret)
        await expect(page.get_by_role("link", name="Pause…")).to_have_count(0)
    await expect(page.locator(".hidden-text").first).to_have_text("hidden for viewers")
    await screenshot(page, "viewer-participant")
    await page.goto(study.web.url + "/flags")
    await screenshot(page, "viewer-flags")
