"""The rest of a participant's lifecycle on the dashboard, as a browser without scripts uses it:
edit (a refusal keeps what was typed), add study days, withdraw, erase (only with the id typed
again), and a broadcast to the list as filtered (counted first, confirmed once, quiet hours
honoured); each through the same research operation as the admin script, audited as the
dashboard's. A viewer and a form without its CSRF token change nothing. One test drives the
erasure in Chromium."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from promptpipe.research import admin
from promptpipe.storage.access import audit_entries
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.flow.test_lifecycle import NIGHTS_OFF
from tests.schedule_helpers import QUIET, at, utc
from tests.study_helpers import with_study
from tests.web.browser import SCREENSHOTS, csrf_of, signed_in
from tests.web.conftest import Web, serving

ANA, BEN, CHIE = "+14165550131", "+14165550132", "+14165550133"
NOON = utc(2026, 1, 5, 15, 0)  # 10:00 in Toronto, 00:00 in Tokyo (quiet hours 22:00-07:00)
TOKYO_MORNING = utc(2026, 1, 5, 22, 5)  # 07:05 in Tokyo


@dataclass
class Team:
    web: Web
    transport: MemoryTransport
    ids: dict[str, str]
    """Name -> participant id: Ana and Ben in Toronto, Chie in Tokyo."""


@pytest.fixture
async def team(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Team]:
    transport = MemoryTransport()
    app = await make_app(transport, **with_study(NIGHTS_OFF, **QUIET))
    await at(app, NOON)
    ids = {}
    for name, phone, zone in (("Ana", ANA, "America/Toronto"), ("Ben", BEN, "America/Toronto"),
                              ("Chie", CHIE, "Asia/Tokyo")):
        fake_openai.say(f"Hi {name}!", match=f"Participant: {name}")
        ids[name] = (await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone=zone,
                                        study=app.settings.study))).id
    await app.run_until_idle()
    async with serving(app, ("viewer", "researcher")) as web:
        yield Team(web, transport, ids)


async def audited(team: Team) -> list[tuple[str, str | None, str]]:
    """(action, participant id, via) of every audit entry, oldest first."""
    rows = await team.web.app.db.run(lambda s: [(e.action, e.participant_id, e.via) for e in audit_entries(s)])
    return rows[::-1]


async def form_post(client: httpx.AsyncClient, path: str, **data: str) -> httpx.Response:
    """Open the page at ``path`` and send its form."""
    page = await client.get(path)
    assert page.status_code == 200, page.text
    return await client.post(path, data={"csrf": csrf_of(page.text), **data})


async def test_edit_add_days_withdraw_and_erase_from_the_participant_page(team: Team) -> None:
    ana, ben = team.ids["Ana"], team.ids["Ben"]
    db = team.web.app.db
    async with signed_in(team.web, "researcher") as client:
        page = (await client.get(f"/participants/{ana}")).text
        for link in ("edit", "extend", "withdraw", "erase"):
            assert f'href="/participants/{ana}/{link}"' in page
        assert "Study length</dt><dd>28 days</dd>" in page

        wrong = await form_post(client, f"/participants/{ana}/edit", name="Ana Lima", background="Mornings",
                                timezone="Mars/Olympus")
        assert wrong.status_code == 400 and "Not done: timezone:" in wrong.text and "--timezone" not in wrong.text
        assert 'value="Ana Lima"' in wrong.text and ">Mornings</textarea>" in wrong.text  # kept as typed
        assert (await admin.show(db, ana)).name == "Ana"  # nothing saved
        edited = await form_post(client, f"/participants/{ana}/edit", name="Ana Lima",
                                 background="Prefers mornings\r\nWorks nights on Fridays",
                                 timezone="America/Vancouver")
        assert edited.headers["location"] == f"/participants/{ana}?done=edited"
        page = (await client.get(edited.headers["location"])).text
        assert "Saved:" in page and "Ana Lima" in page and "America/Vancouver" in page
        shown = await admin.show(db, ana)
        assert (shown.name, shown.background, shown.timezone) == (
            "Ana Lima", "Prefers mornings\nWorks nights on Fridays", "America/Vancouver")

        refused = await form_post(client, f"/participants/{ana}/extend", days="0")
        assert refused.status_code == 400 and "days: give a whole number of days from 1 to 365" in refused.text
        extended = await form_post(client, f"/participants/{ana}/extend", days="5")
        assert extended.headers["location"] == f"/participants/{ana}?done=extended"
        assert "Study length</dt><dd>33 days (5 added)</dd>" in (await client.get(extended.headers["location"])).text

        confirm = await client.get(f"/participants/{ben}/withdraw")
        assert "Withdrawal is final" in confirm.text and BEN in confirm.text
        withdrawn = await client.post(f"/participants/{ben}/withdraw",
                                      data={"csrf": csrf_of(confirm.text), "reason": "moved abroad"})
        assert withdrawn.headers["location"] == f"/participants/{ben}?done=withdrawn"
        page = (await client.get(withdrawn.headers["location"])).text
        assert "Withdrawn: nothing more is sent" in page and f"/participants/{ben}/withdraw" not in page
        assert (await admin.show(db, ben)).status == "withdrawn"

        erase = await client.get(f"/participants/{ben}/erase")
        assert "the texts of 1 message" in erase.text and "type their participant id" in erase.text
        mistyped = await client.post(f"/participants/{ben}/erase", data={"csrf": csrf_of(erase.text), "confirm": ana})
        assert mistyped.status_code == 400 and "nothing was erased" in mistyped.text
        assert (await admin.show(db, ben)).name == "Ben"
        erased = await client.post(f"/participants/{ben}/erase", data={"csrf": csrf_of(erase.text), "confirm": ben})
        assert erased.headers["location"] == f"/participants/{ben}?done=erased"
        page = (await client.get(erased.headers["location"])).text
        assert "Erased: their personal data is gone" in page and BEN not in page and "Ben" not in page
        again = await client.get(f"/participants/{ben}/erase")
        assert again.status_code == 409 and "was erased" in again.text
    async with team.web.client("researcher") as api:  # the API's twin of the page's extension
        more = await api.post(f"/api/v1/participants/{ana}/extend", json={"days": 2})
        assert more.status_code == 200 and more.json()["id"] == ana
        withdrawn_one = await api.post(f"/api/v1/participants/{ben}/extend", json={"days": 2})
        assert withdrawn_one.status_code == 409 and "--" not in withdrawn_one.text
        assert (await api.post(f"/api/v1/participants/{ana}/extend", json={"days": 0})).status_code == 422
    async with signed_in(team.web, "researcher") as client:
        assert "Study length</dt><dd>35 days (7 added)</dd>" in (await client.get(f"/participants/{ana}")).text
    assert await audited(team) == [("sign_in", None, "dashboard"), ("update", ana, "dashboard"),
                                   ("extend", ana, "dashboard"), ("withdraw", ben, "dashboard"),
                                   ("erase", ben, "dashboard"), ("extend", ana, "api"), ("sign_in", None, "dashboard")]


async def test_a_broadcast_is_counted_first_then_reaches_whom_it_counted(team: Team) -> None:
    ben = team.ids["Ben"]
    app, text = team.web.app, "The study team says thank you: two weeks to go!"
    await admin.set_status(app.db, app.clock, phone=ben, action="withdraw", by="test")
    async with signed_in(team.web, "researcher") as client:
        active = (await client.get("/participants?status=active")).text
        assert 'href="/broadcast?status=active"' in active and "Send a message to the 2 participants" in active
        assert 'data-matches="2"' in (await client.get("/broadcast?status=active")).text  # Ben is not active

        count = await client.get("/broadcast")
        assert 'data-matches="3"' in count.text and 'data-recipients="2"' in count.text
        assert "1 will be skipped, because nothing may be sent to them: 1 withdrawn from the study" in count.text
        assert "22:00-07:00" in count.text and "For 1 of them it is inside those hours now" in count.text
        empty = await client.post("/broadcast/review", data={"csrf": csrf_of(count.text), "expected": "3",
                                                             "text": " "})
        assert empty.status_code == 400 and "text: it is empty" in empty.text
        review = await client.post("/broadcast/review", data={"csrf": csrf_of(count.text), "expected": "3",
                                                              "text": text})
        assert "Send this message to 2 participants?" in review.text and text in review.text
        assert text not in team.transport.texts_to(ANA)  # nothing is sent before it is confirmed

        confirm = {"csrf": csrf_of(review.text), "once": re.findall(r'name="once" value="(\w+)"', review.text)[0]}
        stale = await client.post("/broadcast/send", data={**confirm, "expected": "4", "text": text})
        assert stale.status_code == 409 and "now matches 3 participants, not 4" in stale.text
        assert 'data-matches="3"' in stale.text and f">{text}</textarea>" in stale.text  # the text is kept
        sent = await client.post("/broadcast/send", data={**confirm, "expected": "3", "text": text})
        assert sent.status_code == 303 and sent.headers["location"].startswith("/broadcast/sent?")
        twice = await client.post("/broadcast/send", data={**confirm, "expected": "3", "text": text})
        assert twice.headers["location"] == sent.headers["location"]  # a double click sends once
        done = (await client.get(sent.headers["location"])).text
        assert "Queued for 2 participants (everyone); 1 skipped" in done
    await app.run_until_idle()
    assert team.transport.texts_to(ANA).count(text) == 1
    assert text not in team.transport.texts_to(BEN) and text not in team.transport.texts_to(CHIE)  # night in Tokyo
    await at(app, TOKYO_MORNING)
    assert team.transport.texts_to(CHIE).count(text) == 1 and text not in team.transport.texts_to(BEN)
    assert [row for row in await audited(team) if row[0] == "broadcast"] == [("broadcast", None, "dashboard")]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # roles and CSRF do not depend on it
async def test_a_viewer_or_a_form_without_its_token_changes_nothing(team: Team) -> None:
    ana = team.ids["Ana"]
    async with signed_in(team.web, "viewer") as client:
        page = await client.get(f"/participants/{ana}")
        for path in ("edit", "extend", "withdraw", "erase"):
            assert f"/participants/{ana}/{path}" not in page.text
            assert (await client.get(f"/participants/{ana}/{path}")).status_code == 403
        assert "/broadcast" not in (await client.get("/participants")).text
        assert (await client.get("/broadcast")).status_code == 403
        viewer_csrf = csrf_of(page.text)  # a valid token of the viewer's own session
        for path, data in ((f"/participants/{ana}/withdraw", {}), (f"/participants/{ana}/erase", {"confirm": ana}),
                           ("/broadcast/send", {"expected": "3", "text": "hello"})):
            answer = await client.post(path, data={"csrf": viewer_csrf, **data})
            assert answer.status_code == 403 and "viewer" in answer.text, path
    async with signed_in(team.web, "researcher") as client:
        for path, data in ((f"/participants/{ana}/erase", {"confirm": ana}),
                           (f"/participants/{ana}/edit", {"name": "Someone", "timezone": "UTC"}),
                           ("/broadcast/send", {"expected": "3", "text": "hello"})):
            answer = await client.post(path, data=data)
            assert answer.status_code == 403 and "nothing was done" in answer.text, path
    await team.web.app.run_until_idle()
    shown = await admin.show(team.web.app.db, ana)
    assert (shown.name, shown.status) == ("Ana", "active") and "hello" not in team.transport.texts_to(ANA)
    assert [row for row in await audited(team) if row[0] != "sign_in"] == []  # the two sign-ins only


@pytest.mark.xdist_group("browser")
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # what a browser sees is the same
async def test_in_a_browser_an_erasure_needs_the_id_typed_again(team: Team, page: Any) -> None:
    from playwright.async_api import expect
    ben = team.ids["Ben"]
    await page.goto(f"{team.web.url}/participants/{ben}")
    await page.get_by_label("Token").fill(team.web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("link", name="Erase personal data…").click()
    await expect(page.get_by_role("heading", name="Erase this participant's personal data?")).to_be_visible()
    await page.get_by_label("To confirm, type their participant id").fill(team.ids["Ana"])
    await page.get_by_role("button", name="Erase for good").click()
    await expect(page.get_by_role("alert")).to_contain_text("nothing was erased")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "erase-confirm.png"), full_page=True)
    await page.get_by_label("To confirm, type their participant id").fill(ben)
    await page.get_by_role("button", name="Erase for good").click()
    await expect(page.get_by_role("status")).to_contain_text("Erased: their personal data is gone")
    await expect(page.get_by_text(BEN)).to_have_count(0)
