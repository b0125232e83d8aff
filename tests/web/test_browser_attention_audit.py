"""Needs attention, the audit log and the tokens page in Chromium, as a coordinator's morning goes:
the count in the navigation, the list on the overview, each entry's link to where it is settled
(an input that failed: skipped on the participant's page), the count going down, then who did
what in the audit log, and an admin making a token that expires."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import select, update

from promptpipe.storage.models import table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.web.browser import SCREENSHOTS, Study, running_study

playwright_api = pytest.importorskip("playwright.async_api", reason="the playwright package is not installed")
expect = playwright_api.expect

pytestmark = [SQLITE_ONLY, pytest.mark.xdist_group("browser")]  # one Chromium at a time
_INBOX = table_of(InboxItem)


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


async def sign_in(page: Any, study: Study, role: str) -> None:
    await page.goto(study.web.url + "/")
    await page.get_by_label("Token").fill(study.web.tokens[role])
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_text(f"{role}-token", exact=True)).to_be_visible()


async def test_a_coordinator_settles_what_needs_attention_then_reads_the_audit_log(study: Study, page: Any) -> None:
    def give_up_on_zofias_message(session: Any) -> None:
        row_id = session.execute(select(_INBOX.c.id).where(_INBOX.c.participant_id == study.zofia)
                                 .order_by(_INBOX.c.id.desc()).limit(1)).scalar_one()
        session.execute(update(_INBOX).where(_INBOX.c.id == row_id).values(status=InboxStatus.FAILED, attempts=3,
                                                                          last_error="RuntimeError: a bug"))

    await study.web.app.db.run(give_up_on_zofias_message)
    await sign_in(page, study, "researcher")
    badge = page.locator("[data-attention-count]")
    await expect(badge).to_have_text("2")  # Bram's safety flag and Zofia's input
    stuck = page.locator('[data-attention="stuck_input"]')
    await expect(stuck).to_contain_text("1 input that failed and waits")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "attention.png"), full_page=True)

    await stuck.get_by_role("link", name="The participant's page").click()
    await expect(page.locator("#inputs")).to_contain_text("RuntimeError: a bug")
    await page.locator("#inputs").get_by_role("button", name="Skip").click()
    await expect(page.get_by_role("status")).to_contain_text("Skipped")
    await expect(page.locator("#inputs")).to_have_count(0)
    await expect(badge).to_have_text("1")

    await page.get_by_role("navigation", name="Main").get_by_role("link", name="Audit log").click()
    await page.get_by_label("What").select_option(label="inbox skip")
    await page.get_by_role("button", name="Filter").click()
    rows = page.locator("table tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_contain_text("researcher-token")
    await expect(rows.first).to_contain_text(study.zofia)
    await page.screenshot(path=str(SCREENSHOTS / "audit-filtered.png"), full_page=True)

    await page.get_by_role("button", name="Sign out").click()
    await sign_in(page, study, "admin")
    await page.get_by_role("navigation", name="Main").get_by_role("link", name="Tokens").click()
    await page.get_by_label("Name (who or what uses it").fill("visiting-analyst")
    await page.get_by_label("Role").select_option("viewer")
    await page.get_by_label("Expires (optional)").fill("30d")
    await page.get_by_role("button", name="Make the token").click()
    await expect(page.locator(".secret-value")).to_contain_text("pp_")
    row = page.locator("tr", has_text="visiting-analyst")
    await expect(row).to_contain_text("viewer")
    await expect(row.locator("time")).not_to_have_count(0)  # made, and when it expires
    await page.screenshot(path=str(SCREENSHOTS / "tokens.png"), full_page=True)
