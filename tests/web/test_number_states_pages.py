"""Each WhatsApp number's state on the overview (with its participants), and a logged-out number's
participants under "Needs attention" on the page and at ``GET /api/v1/attention``, with the reason
and what the team can do; a deployment with one number shows no list of numbers."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from promptpipe.research import admin
from promptpipe.storage.service_status import save_status, state_row_name
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.web.browser import signed_in
from tests.web.conftest import Web, serving

ANA, BEN = "+14165550171", "+14165550172"


@pytest.fixture
async def two_numbers(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[tuple[Web, str]]:
    fake_openai.always("Welcome to the study!", match="")
    app = await make_app(WHATSAPP_NUMBERS="toronto,montreal")
    plan, now = app.settings.number_plan, app.clock.now()
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC", numbers=plan,
                                                          number="toronto"))
    ben = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=BEN, name="Ben", timezone="UTC", numbers=plan,
                             number="montreal"))
    states = {"toronto": {"name": "connected", "since": (now - timedelta(hours=5)).isoformat(), "detail": ""},
              "montreal": {"name": "logged_out", "since": (now - timedelta(hours=1)).isoformat(), "detail": ""}}

    def record(session: Session) -> None:
        for number, value in states.items():
            save_status(session, state_row_name(number), value, now)

    await app.db.run(record)
    async with serving(app, ("viewer", "researcher")) as web:
        yield web, ben.id


def number_row(page: str, name: str) -> str:
    found = re.search(rf'<tr data-number="{name}".*?</tr>', page, re.S)
    assert found, f"no row for {name}"
    return re.sub(r"\s+", " ", found.group(0))


@SQLITE_ONLY
async def test_the_overview_shows_each_number_and_flags_a_logged_out_ones_participants(
        two_numbers: tuple[Web, str]) -> None:
    web, ben = two_numbers
    async with signed_in(web, "researcher") as client:
        page = (await client.get("/")).text
    assert "WhatsApp numbers: 1 connected, 1 logged out: the device was unlinked" in page
    assert "<td>connected" in number_row(page, "toronto") and "<td>1</td>" in number_row(page, "toronto")
    montreal = number_row(page, "montreal")
    assert "<strong>logged out: the device was unlinked</strong>" in montreal and "<td>1</td>" in montreal
    assert 'data-attention="number"' in page
    assert "1 participant on WhatsApp number &#39;montreal&#39;, which is logged out: the device was unlinked" in page
    assert ("Their WhatsApp number &#39;montreal&#39; is logged out: move them to another number, or link it "
            "again.") in page
    assert f'href="/participants/{ben}"' in page


@SQLITE_ONLY
async def test_the_api_lists_the_numbers_participants_with_the_reason(two_numbers: tuple[Web, str]) -> None:
    web, ben = two_numbers
    async with web.client("viewer") as api:
        answer = await api.get("/api/v1/attention")
    assert answer.status_code == 200, answer.text
    [entry] = [e for e in answer.json()["entries"] if e["kind"] == "number"]
    assert (entry["number"], entry["state"], entry["count"], entry["link"]) == ("montreal", "logged_out", 1,
                                                                                 "/#numbers")
    assert [p["participant_id"] for p in entry["participants"]] == [ben]
    assert entry["reason"] == ("their WhatsApp number 'montreal' is logged out: move them to another number, "
                               "or link it again")


@SQLITE_ONLY
async def test_the_api_status_gives_each_numbers_state(two_numbers: tuple[Web, str]) -> None:
    web, _ = two_numbers
    async with web.client("viewer") as api:
        answer = await api.get("/api/v1/status")
    assert answer.status_code == 200, answer.text
    states = {number["name"]: number for number in answer.json()["number_states"]}
    assert states["montreal"]["state"]["name"] == "logged_out" and states["montreal"]["participants"] == 1


@SQLITE_ONLY
async def test_one_number_shows_no_list_of_numbers(make_app: AppFactory) -> None:
    async with serving(await make_app(), ("researcher",)) as web, signed_in(web, "researcher") as client:
        page = (await client.get("/")).text
    assert 'id="numbers"' not in page and "WhatsApp numbers" not in page
