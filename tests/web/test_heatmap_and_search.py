"""The adherence heatmap one can act on (rows named with a status word, sorted, each cell a symbol
and a link to its day, the day's page) and the search box in every page's header, its page and
its API twin, as a researcher and as a viewer (who finds by id only and learns nothing else)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE
from tests.web.browser import (
    BRAM,
    BRAM_NAME,
    SCREENSHOTS,
    ZOFIA,
    ZOFIA_NAME,
    ZOFIA_SAYS,
    Study,
    running_study,
    signed_in,
)

SYMBOL = re.compile(r'<text class="cell-symbol[^"]*"[^>]*>([^<]+)</text>')


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        await running.transport.inject(BRAM, "STOP")  # his own pause: the row says STOP
        await running.web.app.run_until_idle()
        yield running


def row_order(page: str, study: Study) -> list[str]:
    """The participants in the order the heatmap's rows link to them."""
    ids = re.findall(r'<a href="/participants/(p_[0-9a-f]{16})">', page)
    return [pid for pid in ids if pid in (study.zofia, study.bram)]


def day_link(page: str, participant_id: str, day: int) -> str:
    found = re.search(rf'<a class="cell-link" href="(/participants/{participant_id}/days/[0-9-]+)" '
                      rf'aria-label="{participant_id} day {day} \(', page)
    assert found, f"no link on day {day}"
    return found.group(1)


async def test_the_heatmap_names_rows_sorts_and_opens_a_day_and_search_finds_by_role(study: Study) -> None:
    """One running study for both (its set-up is most of the time)."""
    async with signed_in(study.web, "researcher") as client:
        page = (await client.get("/adherence")).text
        assert ZOFIA_NAME in page and "Bram Okonkwo-Lindq" in page and f"{BRAM_NAME} ({study.bram})" in page
        assert re.search(r'class="heatmap-status"[^>]*>active<', page)
        assert re.search(r'class="heatmap-status"[^>]*>STOP<', page)
        cells = page.count('<rect class="cell ')
        symbols = SYMBOL.findall(page)
        assert cells == len(symbols) > 2 and symbols[:2] == ["✓", "✗"]  # Zofia's Monday and Tuesday
        assert "✓ done" in page and "– no prompt" in page  # the caption says what each symbol means

        assert row_order(page, study) == [study.zofia, study.bram]
        newest = (await client.get("/adherence", params={"sort": "-enrolled", "status": "active"})).text
        assert row_order(newest, study) == [study.zofia]  # the filter holds with the sort
        newest = (await client.get("/adherence", params={"sort": "-enrolled"})).text
        assert row_order(newest, study) == [study.bram, study.zofia]
        assert '<option value="-enrolled" selected>' in newest
        assert '<input type="hidden" name="sort" value="-enrolled">' in newest  # the filter form keeps it

        monday = await client.get(day_link(page, study.zofia, 1))
        assert monday.status_code == 200
        assert "Monday" in monday.text and NUDGE in monday.text and "done (tapped on the poll)" in monday.text
        assert ZOFIA_NAME in monday.text and 'href="/adherence"' in monday.text
        tuesday_url = day_link(page, study.zofia, 2)
        tuesday = (await client.get(tuesday_url)).text
        assert "not this time (tapped on the poll)" in tuesday and ZOFIA_SAYS in tuesday
        assert 'href="' + day_link(page, study.zofia, 1) + '" rel="prev"' in tuesday
        wrong = await client.get(f"/participants/{study.zofia}/days/2026-02-31")
        assert wrong.status_code == 404 and "is not a day: write it as YYYY-MM-DD" in wrong.text

    async with signed_in(study.web, "viewer") as client:
        seen = (await client.get("/adherence")).text
        assert ZOFIA_NAME not in seen and "Okonkwo" not in seen
        assert re.search(rf'font-family="monospace"[^>]*>{study.zofia}<', seen)  # the id names the row
        assert re.search(r'class="heatmap-status"[^>]*>STOP<', seen)
        viewer_day = (await client.get(tuesday_url)).text
        assert "not this time" in viewer_day
        for secret in (ZOFIA_NAME, ZOFIA_SAYS, NUDGE, ZOFIA, ZOFIA[2:]):
            assert secret not in viewer_day
        assert "hidden for viewers" in viewer_day

    await search_finds_by_phone_name_and_id_and_a_viewer_by_id_only(study)


async def search_finds_by_phone_name_and_id_and_a_viewer_by_id_only(study: Study) -> None:
    zofia_page = f"/participants/{study.zofia}"
    async with signed_in(study.web, "researcher") as client:
        assert 'action="/search"' in (await client.get("/flags")).text  # in every page's header
        for query, who in (("416 555 0142", zofia_page), ("(416) 555-0177", f"/participants/{study.bram}"),
                           ("okonkwo", f"/participants/{study.bram}"), (study.zofia[:8], zofia_page),
                           (study.zofia[2:10].upper(), zofia_page)):
            found = await client.get("/search", params={"q": query})
            assert (found.status_code, found.headers.get("location")) == (303, who), query
        both = await client.get("/search", params={"q": "a"})
        assert both.status_code == 200 and ZOFIA_NAME in both.text and BRAM_NAME in both.text
        assert "2 participants match" in both.text
        none = await client.get("/search", params={"q": "Nobody Atall"})
        assert none.status_code == 200 and "No participant matches “Nobody Atall”." in none.text
        long = await client.get("/search", params={"q": "x" * 101})
        assert long.status_code == 400 and "at most 100 characters" in long.text

    async with signed_in(study.web, "viewer") as client:
        for query in ("Zofia", "416 555 0142", "4165550142", ZOFIA):
            found = await client.get("/search", params={"q": query})
            assert found.status_code == 200 and "No participant matches" in found.text, query
            assert ZOFIA_NAME not in found.text and study.zofia not in found.text
        found = await client.get("/search", params={"q": study.zofia})
        assert found.headers.get("location") == zofia_page

    async with study.web.client("researcher") as api:
        answer = await api.get("/api/v1/participants/search", params={"q": "+1 (416) 555-0142"})
        assert answer.status_code == 200
        assert [(item["id"], item["phone"], item["name"]) for item in answer.json()["items"]] == [
            (study.zofia, ZOFIA, ZOFIA_NAME)]
        several = (await api.get("/api/v1/participants/search", params={"q": "A", "limit": 1})).json()
        assert [item["id"] for item in several["items"]] == [study.zofia] and several["more"] is True
        blank = await api.get("/api/v1/participants/search", params={"q": "   "})
        assert blank.status_code in (400, 422) and blank.json()["error"]["code"] == "invalid_request"
    async with study.web.client("viewer") as api:
        assert (await api.get("/api/v1/participants/search", params={"q": "Zofia"})).json()["items"] == []
        assert (await api.get("/api/v1/participants/search", params={"q": "416 555 0142"})).json()["items"] == []
        mine = (await api.get("/api/v1/participants/search", params={"q": study.zofia[:6]})).json()["items"]
        assert [(item["id"], item["phone"], item["name"]) for item in mine] == [(study.zofia, None, None)]


# ------------------------------------------------------------------------------- in a browser

@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # what a browser sees is the same
@pytest.mark.xdist_group("browser")
async def test_in_a_browser_search_from_the_header_then_open_a_day_from_the_heatmap(study: Study, page: Any) -> None:
    from playwright.async_api import expect
    await page.goto(study.web.url + "/")
    await page.get_by_label("Token").fill(study.web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()

    search = page.get_by_role("search", name="Search participants")
    await search.get_by_role("searchbox").fill("quillfeather")
    await search.get_by_role("button", name="Search").click()
    await expect(page).to_have_url(study.web.url + f"/participants/{study.zofia}")

    await page.get_by_role("link", name="Adherence", exact=True).click()
    await expect(page.locator("svg.heatmap")).to_contain_text("STOP")
    await page.locator(f'a.cell-link[aria-label^="{study.zofia} day 1 ("]').click()
    await expect(page.get_by_role("heading", name="Prompt and answer")).to_be_visible()
    await expect(page.locator(".poll-answer")).to_have_text("done (tapped on the poll)")
    await expect(page.locator("blockquote.prompt-text")).to_have_text(NUDGE)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "study-day.png"), full_page=True)
    await page.get_by_role("link", name="Back to the heatmap").click()
    await expect(page.locator("svg.heatmap")).to_be_visible()
    await page.screenshot(path=str(SCREENSHOTS / "adherence-actionable.png"), full_page=True)
