""""Needs attention": first on the overview, counted in the navigation of every page and at
``GET /api/v1/attention``; each entry links to where it is resolved and is gone once it is; a
viewer reads ids and counts only (no flag, no model error, no phone, name or words)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from promptpipe.research import oversight
from promptpipe.storage.access import audit_entries
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.queue_tables import InboxItem, InboxStatus
from promptpipe.storage.receipts import record_receipt
from promptpipe.storage.service_status import LAST_MODEL_ERROR, save_status
from promptpipe.web.pages._render import SILENT_DAYS_COOKIE
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.browser import (
    BRAM,
    BRAM_NAME,
    BRAM_SAYS,
    ZOFIA,
    ZOFIA_NAME,
    ZOFIA_SAYS,
    Study,
    csrf_of,
    running_study,
    signed_in,
)

_INBOX, _MESSAGE, _DELIVERY = table_of(InboxItem), table_of(Message), table_of(PromptDelivery)
NAV_COUNT = re.compile(r'data-attention-count="(\d+)"')
MODEL_ERROR = "LLMUnavailable: the model server answered 503"


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


async def from_api(study: Study, role: str = "researcher", **query: Any) -> dict[str, Any]:
    async with study.web.client(role) as api:
        answer = await api.get("/api/v1/attention", params=query)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def entry(found: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((item for item in found["entries"] if item["kind"] == kind), None)


def nav_count(page: str) -> int:
    counts = NAV_COUNT.findall(page)
    assert len(counts) == 1, "one count in the navigation"
    return int(counts[0])


async def give_up_on_zofias_last_input(study: Study) -> int:
    """Her last message's input, as the flow marks one it gave up on (a bug, a refused request)."""

    def fail(session: Any) -> int:
        row_id = session.execute(select(_INBOX.c.id).where(_INBOX.c.participant_id == study.zofia)
                                 .order_by(_INBOX.c.id.desc()).limit(1)).scalar_one()
        session.execute(update(_INBOX).where(_INBOX.c.id == row_id).values(status=InboxStatus.FAILED, attempts=3,
                                                                          last_error="RuntimeError: a bug"))
        return int(row_id)

    return int(await study.web.app.db.run(fail))


async def test_an_open_flag_is_listed_and_counted_on_every_page_until_it_is_resolved(study: Study) -> None:
    async with signed_in(study.web) as client:
        overview = await client.get("/")
        before = await from_api(study)
        flags = entry(before, "safety_flag")
        assert flags is not None and flags["count"] == 1 and flags["link"] == "/flags"
        assert [p["participant_id"] for p in flags["participants"]] == [study.bram]
        assert flags["participants"][0]["link"] == f"/participants/{study.bram}"
        section = overview.text.split('id="attention"')[1].split("</section>")[0]
        assert "1 open safety flag" in section and 'href="/flags"' in section and study.bram in section
        assert overview.text.index('id="attention"') < overview.text.index('id="service"'), "first on the page"
        for path in ("/", "/participants", "/adherence", "/questionnaires", "/flags", f"/participants/{study.zofia}"):
            assert nav_count((await client.get(path)).text) == before["total"] >= 1, path

        flag = (await oversight.flags(study.web.app.db))[0]
        await oversight.resolve(study.web.app.db, study.web.app.clock, flag_id=flag.id, note="called him", by="ana")

        after = await from_api(study)
        assert entry(after, "safety_flag") is None and after["total"] == before["total"] - 1
        page = await client.get("/participants")
        assert nav_count(page.text) == after["total"]
        assert "open safety flag" not in (await client.get("/")).text


async def test_an_input_given_up_on_is_listed_with_its_participant_until_it_is_skipped(study: Study) -> None:
    inbox_id = await give_up_on_zofias_last_input(study)
    found = entry(await from_api(study), "stuck_input")
    assert found is not None and found["count"] == 1
    assert found["link"] == f"/participants/{study.zofia}"
    assert [(p["participant_id"], p["count"]) for p in found["participants"]] == [(study.zofia, 1)]
    async with signed_in(study.web) as client:
        overview = (await client.get("/")).text
        assert "1 input that failed and waits" in overview and f'href="/participants/{study.zofia}"' in overview
        assert "--stuck" not in overview  # settled in the browser, not with a command
        page = (await client.get(f"/participants/{study.zofia}")).text
        assert f'data-input-id="{inbox_id}"' in page and "RuntimeError: a bug" in page
        elsewhere = await client.post(f"/participants/{study.bram}/inputs/{inbox_id}/skip",
                                      data={"csrf": csrf_of(page)})
        assert elsewhere.status_code == 404  # found only under its own participant
        skipped = await client.post(f"/participants/{study.zofia}/inputs/{inbox_id}/skip", data={"csrf": csrf_of(page)})
        assert skipped.headers["location"] == f"/participants/{study.zofia}?done=input_skipped"
        assert "data-input-id" not in (await client.get(skipped.headers["location"])).text
    assert entry(await from_api(study), "stuck_input") is None

    again = await give_up_on_zofias_last_input(study)  # a second time, settled through the API
    async with study.web.client("researcher") as api, study.web.client("viewer") as viewer:
        listed = (await api.get(f"/api/v1/participants/{study.zofia}/inputs")).json()
        assert [(row["id"], row["status"], row["last_error"]) for row in listed] == [(again, "failed",
                                                                                      "RuntimeError: a bug")]
        assert (await viewer.get(f"/api/v1/participants/{study.zofia}/inputs")).status_code == 403
        retried = await api.post(f"/api/v1/participants/{study.zofia}/inputs/{again}/retry")
        assert retried.status_code == 200 and "queued again" in retried.json()["message"]
        assert (await api.get(f"/api/v1/participants/{study.zofia}/inputs")).json() == []
    audited = await study.web.app.db.run(lambda s: [(e.action, e.via) for e in audit_entries(s)])
    assert [row for row in audited[::-1] if row[0].startswith("inbox")] == [("inbox_skip", "dashboard"),
                                                                             ("inbox_retry", "api")]


async def test_a_prompt_not_delivered_for_a_day_is_listed_until_its_receipt_comes(study: Study) -> None:
    """Zofia's prompts went out through a transport with receipts (WhatsApp), and none came."""

    def through_whatsapp(session: Any) -> list[str]:
        ids = session.execute(select(_DELIVERY.c.prompt_message_id)
                              .where(_DELIVERY.c.participant_id == study.zofia)).scalars().all()
        for message_id in ids:
            session.execute(update(_MESSAGE).where(_MESSAGE.c.id == message_id).values(
                receipts_expected=True, wa_message_id=f"WA-PROMPT-{message_id}"))
        return [f"WA-PROMPT-{message_id}" for message_id in ids]

    wa_ids = await study.web.app.db.run(through_whatsapp)
    monday = entry(await from_api(study), "not_delivered")  # sent a day ago; Tuesday's only just now
    assert monday is not None and monday["count"] == 1 and monday["link"] == f"/participants/{study.zofia}"
    assert [p["participant_id"] for p in monday["participants"]] == [study.zofia]
    study.web.app.clock.advance(timedelta(hours=30))  # type: ignore[attr-defined]
    tuesday = entry(await from_api(study), "not_delivered")  # Monday's is on her page and the heatmap now
    assert tuesday is not None and tuesday["count"] == 1 and tuesday["since"] > monday["since"]
    async with signed_in(study.web) as client:
        assert "1 daily prompt not delivered for a day" in (await client.get("/")).text

    now = study.web.app.clock.now()
    await study.web.app.db.run(lambda session: record_receipt(study.web.app.db, session, wa_ids, "delivered", now, now))
    assert entry(await from_api(study), "not_delivered") is None


async def test_participants_silent_for_n_days_are_listed_and_n_is_remembered(study: Study) -> None:
    assert entry(await from_api(study), "silent") is None  # both wrote just now
    study.web.app.clock.advance(timedelta(days=4))  # type: ignore[attr-defined]

    three, seven = await from_api(study, silent_days=3), await from_api(study, silent_days=7)
    silent = entry(three, "silent")
    assert silent is not None and silent["count"] == 2
    assert silent["link"] == "/participants?status=active&silent=3&sort=last_in"
    assert entry(seven, "silent") is None and three["total"] == seven["total"] + 2

    async with signed_in(study.web) as client:
        page = await client.get("/")  # three days unless the browser chose
        assert "2 active participants silent for 3 days" in page.text and nav_count(page.text) == three["total"]
        chosen = await client.get("/", params={"silent": "7"})
        assert "silent for 7 days" not in chosen.text and nav_count(chosen.text) == seven["total"]
        assert client.cookies.get(SILENT_DAYS_COOKIE) == "7"
        assert nav_count((await client.get("/participants")).text) == seven["total"], "remembered on every page"
        listed = await client.get(silent["link"])
        assert study.zofia in listed.text and study.bram in listed.text, "the link lists them"
        wrong = await client.get("/", params={"silent": "soon"})
        assert "silent days: give a whole number" in wrong.text and client.cookies.get(SILENT_DAYS_COOKIE) == "7"


async def test_a_researcher_reads_the_names_of_the_participants_listed(study: Study) -> None:
    await give_up_on_zofias_last_input(study)
    found = entry(await from_api(study), "stuck_input")
    assert found is not None
    assert [(p["participant_id"], p["name"]) for p in found["participants"]] == [(study.zofia, ZOFIA_NAME)]
    async with signed_in(study.web) as client:
        overview = (await client.get("/")).text
    listed = overview[overview.index('id="attention"'):overview.index('id="service"')]
    assert ZOFIA_NAME in listed and study.zofia in listed


async def test_a_viewer_reads_ids_and_counts_only(study: Study) -> None:
    await give_up_on_zofias_last_input(study)
    now = study.web.app.clock.now()
    await study.web.app.db.run(lambda session: save_status(
        session, LAST_MODEL_ERROR, {"at": now.isoformat(), "error": MODEL_ERROR, "type": "LLMUnavailable"}, now))

    researcher, viewer = await from_api(study), await from_api(study, "viewer")
    assert {"safety_flag", "stuck_input", "model_error"} <= {item["kind"] for item in researcher["entries"]}
    assert entry(researcher, "model_error")["error"] == MODEL_ERROR  # type: ignore[index]
    assert {item["kind"] for item in viewer["entries"]} == {"stuck_input"}
    assert entry(viewer, "stuck_input")["participants"][0]["participant_id"] == study.zofia  # type: ignore[index]
    async with signed_in(study.web, "viewer") as client:
        pages = [(await client.get(path)).text for path in ("/", "/participants")]
    assert nav_count(pages[0]) == viewer["total"] == 1
    assert "1 input that failed and waits" in pages[0] and "Model error" not in pages[0]
    shown = " ".join([str(viewer), *pages])
    for secret in (ZOFIA, BRAM, ZOFIA_NAME, BRAM_NAME, ZOFIA_SAYS, BRAM_SAYS, MODEL_ERROR, "open safety flag",
                   ZOFIA.removeprefix("+"), BRAM.removeprefix("+")):
        assert secret not in shown, secret


async def test_without_a_token_or_session_nothing_is_read(study: Study) -> None:
    async with study.web.client(None) as api:
        refused = await api.get("/api/v1/attention")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    async with httpx.AsyncClient(base_url=study.web.url) as client:
        page = await client.get("/", params={"silent": "3"})
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert SILENT_DAYS_COOKIE not in page.headers.get("set-cookie", "")
    async with study.web.client("researcher") as api:
        bad = await api.get("/api/v1/attention", params={"silent_days": 0})
    assert bad.status_code in (400, 422) and bad.json()["error"]["code"] == "invalid_request"
