"""Several WhatsApp numbers on the dashboard: enrol one participant on a chosen number (one the
deployment lacks is refused in words), see their number on their page, and move them to another
with a message the team writes, which reaches them from the new number; audited as the
dashboard's. A viewer can do none of it, and a deployment with one number sees nothing of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from promptpipe.research import admin
from promptpipe.storage.access import audit_entries
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.web.browser import csrf_of, signed_in
from tests.web.conftest import Web, serving

ANA, BEN = "+14165550181", "+14165550182"
TOLD = "From today we write to you from the Montreal team's number."


@pytest.fixture
async def two_numbers(make_app: AppFactory,
                      fake_openai: FakeOpenAIServer) -> AsyncIterator[tuple[Web, MemoryTransport]]:
    fake_openai.always("Welcome to the study!", match="")
    transport = MemoryTransport()
    app = await make_app(transport, WHATSAPP_NUMBERS="toronto,montreal")
    async with serving(app, ("viewer", "researcher")) as web:
        yield web, transport


async def enrol(client: httpx.AsyncClient, **fields: str) -> httpx.Response:
    form = await client.get("/participants/new")
    return await client.post("/participants/new", data={"csrf": csrf_of(form.text), "name": "Ana",
                                                        "timezone": "America/Toronto", **fields})


async def moves_audited(web: Web) -> list[tuple[str | None, dict[str, Any], str]]:
    rows = await web.app.db.run(lambda s: [(e.participant_id, e.detail, e.via)
                                           for e in audit_entries(s, action="move_number")])
    return rows[::-1]


async def test_enrol_on_a_chosen_number_then_move_them_with_a_message(
        two_numbers: tuple[Web, MemoryTransport]) -> None:
    web, transport = two_numbers
    async with signed_in(web, "researcher") as client:
        form = (await client.get("/participants/new")).text
        assert "WhatsApp number" in form and "By the rule (NUMBER_ASSIGNMENT=balanced)" in form
        assert '<option value="toronto">toronto</option>' in form and '<option value="montreal">' in form

        refused = await enrol(client, phone=ANA, number="ottawa")
        assert refused.status_code == 400 and "Not enrolled" in refused.text
        assert "there is no WhatsApp number &#39;ottawa&#39;; this deployment has toronto, montreal" in refused.text
        assert await admin.list_participants(web.app.db) == []

        enrolled = await enrol(client, phone=ANA, number="montreal")
        assert enrolled.status_code == 303
        done = (await client.get(enrolled.headers["location"])).text
        assert "written to from WhatsApp number montreal" in done
        ana = (await admin.show(web.app.db, ANA)).id
        by_rule = await enrol(client, phone=BEN)  # balanced: the one with fewer participants
        assert by_rule.status_code == 303 and (await admin.show(web.app.db, BEN)).number == "toronto"
        await web.app.run_until_idle()

        page = (await client.get(f"/participants/{ana}")).text
        assert "WhatsApp number</dt><dd>montreal</dd>" in page and f'href="/participants/{ana}/number"' in page
        move = await client.get(f"/participants/{ana}/number")
        assert "WhatsApp number: montreal" in move.text and "What they are told, sent from the new number" in move.text
        assert '<option value="toronto">' in move.text and '<option value="montreal"' not in move.text
        token = csrf_of(move.text)

        empty = await client.post(f"/participants/{ana}/number", data={"csrf": token, "to": "toronto", "message": " "})
        assert empty.status_code == 400 and "Not done: message:" in empty.text and "--message" not in empty.text
        same = await client.post(f"/participants/{ana}/number", data={"csrf": token, "to": "montreal", "message": "x"})
        assert same.status_code == 409 and "already" in same.text
        unknown = await client.post(f"/participants/{ana}/number", data={"csrf": token, "to": "ottawa", "message": "x"})
        assert unknown.status_code == 409 and "there is no number" in unknown.text and "--to" not in unknown.text
        assert (await admin.show(web.app.db, ANA)).number == "montreal"  # nothing moved

        moved = await client.post(f"/participants/{ana}/number", data={"csrf": token, "to": "toronto", "message": TOLD})
        assert moved.headers["location"] == f"/participants/{ana}?done=moved"
        page = (await client.get(moved.headers["location"])).text
        assert "Moved: everything to them goes from their new WhatsApp number" in page
        assert "WhatsApp number</dt><dd>toronto</dd>" in page
    await web.app.run_until_idle()
    assert (await admin.show(web.app.db, ANA)).number == "toronto"
    assert [(sent.to.number, sent.text) for sent in transport.sent if sent.text == TOLD] == [("toronto", TOLD)]
    assert await moves_audited(web) == [(ana, {"to": "toronto"}, "dashboard")]


@SQLITE_ONLY
async def test_a_viewer_cannot_move_anyone_and_a_withdrawn_participant_is_not_moved(
        two_numbers: tuple[Web, MemoryTransport]) -> None:
    web, _ = two_numbers
    db = web.app.db
    ana = (await admin.enroll(db, web.app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                              numbers=web.app.settings.number_plan, number="toronto"))).id
    async with signed_in(web, "viewer") as client:
        page = await client.get(f"/participants/{ana}")
        assert "WhatsApp number</dt><dd>toronto</dd>" in page.text and f"/participants/{ana}/number" not in page.text
        assert (await client.get(f"/participants/{ana}/number")).status_code == 403
        posted = await client.post(f"/participants/{ana}/number",
                                   data={"csrf": csrf_of(page.text), "to": "montreal", "message": TOLD})
        assert posted.status_code == 403 and "viewer" in posted.text
    await admin.set_status(db, web.app.clock, phone=ANA, action="withdraw", reason="", by="test",
                           study=web.app.settings.study)
    async with signed_in(web, "researcher") as client:
        page = (await client.get(f"/participants/{ana}")).text
        assert f"/participants/{ana}/number" not in page
        refused = await client.get(f"/participants/{ana}/number")
        assert refused.status_code == 409 and "withdrawn" in refused.text
    assert (await admin.show(db, ANA)).number == "toronto" and await moves_audited(web) == []


@SQLITE_ONLY
async def test_a_deployment_with_one_number_sees_no_number_anywhere(web: Web) -> None:
    ana = (await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name="Ana",
                                                                         timezone="America/Toronto"))).id
    async with signed_in(web, "researcher") as client:
        assert "WhatsApp number" not in (await client.get("/participants/new")).text
        page = (await client.get(f"/participants/{ana}")).text
        assert "WhatsApp number" not in page and f"/participants/{ana}/number" not in page
        assert "WhatsApp number" not in (await client.get(f"/participants/{ana}/edit")).text
        assert (await client.get(f"/participants/{ana}/number")).status_code == 404
        ignored = await enrol(client, phone=BEN, number="ottawa")  # no such field here: ignored
        assert ignored.status_code == 303


@pytest.mark.xdist_group("browser")
@SQLITE_ONLY
async def test_in_a_browser_a_participant_is_moved_from_their_page(two_numbers: tuple[Web, MemoryTransport],
                                                                    page: Any) -> None:
    from playwright.async_api import expect
    web, _ = two_numbers
    ana = (await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name="Ana",
                                                                         timezone="America/Toronto",
                              numbers=web.app.settings.number_plan, number="toronto"))).id
    await page.goto(f"{web.url}/participants/{ana}")
    await page.get_by_label("Token").fill(web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("link", name="Move to another number…").click()
    await expect(page.get_by_role("heading", name="Move to another number")).to_be_visible()
    await page.get_by_label("Move them to").select_option("montreal")
    await page.get_by_label("What they are told, sent from the new number").fill(TOLD)
    await page.get_by_role("button", name="Move them and send the message").click()
    await expect(page.get_by_role("status")).to_contain_text("Moved:")
    await expect(page.locator("dd", has_text="montreal")).to_be_visible()
