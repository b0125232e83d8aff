"""Each WhatsApp number's own state (issue 30): recorded by the service as its transport reports
it, shown by `status` with the number's participants, and a banned or logged-out number lists its
participants under "needs attention" until the team moves them (they are never moved silently).
A CSV file may name each row's number, checked against the deployment's numbers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta

import pytest

from promptpipe.app import App
from promptpipe.domain.numbers import NumberPlan
from promptpipe.research import admin
from promptpipe.research.attention import AttentionKind, read_attention
from promptpipe.research.csv_enrolment import check_import, run_import
from promptpipe.research.number_moves import move_to_number
from promptpipe.research.status import read_status
from promptpipe.research.tokens import Caller
from promptpipe.storage.service_status import WHATSAPP, number_rows, read_statuses, save_status, state_row_name
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport.cloud_api import CloudApiOptions, CloudApiTransport
from tests.conftest import AppFactory
from tests.fakes.cloud_api import FakeCloudApi
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY

ANA, BEN, CHIE = "+14165550151", "+14165550152", "+14165550153"
TORONTO, MONTREAL = "1111", "2222"
TWO = {"WHATSAPP_NUMBERS": "toronto,montreal"}


@pytest.fixture
def cloud() -> Iterator[FakeCloudApi]:
    with FakeCloudApi(TORONTO, MONTREAL) as server:
        yield server


async def recorded(app: App) -> None:
    """Let the service finish writing the states its transport reported (it writes them aside)."""
    await asyncio.gather(*list(app._status_writes))


async def enrol(app: App, phone: str, name: str, number: str) -> str:
    view = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="UTC",
                                                                 study=app.settings.study,
                              numbers=app.settings.number_plan, number=number))
    return view.id


async def test_a_banned_number_flags_its_participants_until_the_team_moves_them(
        make_app: AppFactory, fake_openai: FakeOpenAIServer, cloud: FakeCloudApi) -> None:
    fake_openai.always("Welcome to the study!", match="")
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={"toronto": TORONTO, "montreal": MONTREAL}, app_secret="s", verify_token="v", listen="",
        base_url=cloud.url, templates=[("greeting", WhatsAppTemplate("welcome"))]))
    app = await make_app(transport, **TWO)
    plan = app.settings.number_plan
    ben = await enrol(app, BEN, "Ben", "montreal")
    cloud.fail(status=400, code=368)  # WhatsApp blocks Montreal's number as Ben's greeting goes
    await app.run_until_idle()
    await enrol(app, ANA, "Ana", "toronto")
    await enrol(app, CHIE, "Chie", "toronto")
    await app.run_until_idle()
    await recorded(app)

    report = await read_status(app.db, plan)
    assert [(n.name, n.participants, n.state.name if n.state else None) for n in report.number_states] == [
        ("toronto", 2, "connected"), ("montreal", 1, "banned")]
    lines = "\n".join(report.lines())
    assert "number montreal: temporarily banned by WhatsApp since" in lines
    assert "1 participant in the study (move them to another number, or link it again)" in lines
    assert "number toronto: connected since" in lines
    assert report.to_json()["number_states"][1]["state"]["name"] == "banned"

    found = await read_attention(app.db, app.clock.now(), identified=True, whatsapp=False, numbers=plan)
    [entry] = [e for e in found.entries if e.kind == AttentionKind.NUMBER]
    assert (entry.number, entry.state, entry.count, [c.participant_id for c in entry.participants]) == (
        "montreal", "banned", 1, [ben])
    assert entry.reason == ("their WhatsApp number 'montreal' is banned by WhatsApp: move them to another number, "
                            "or wait until the ban is lifted")
    badge = await read_attention(app.db, app.clock.now(), identified=False, whatsapp=False, numbers=plan,
                                 detail=False)
    assert [(e.kind, e.count) for e in badge.entries if e.kind == AttentionKind.NUMBER] == [(AttentionKind.NUMBER, 1)]
    assert MONTREAL not in cloud.sent_from  # Ben's greeting waits: never sent from Toronto's number
    assert (await admin.show(app.db, BEN)).number == "montreal"

    await move_to_number(app.db, app.clock, who=BEN, to="toronto", text="We write from a new number now.",
                         numbers=plan)
    found = await read_attention(app.db, app.clock.now(), identified=True, whatsapp=False, numbers=plan)
    assert not [e for e in found.entries if e.kind == AttentionKind.NUMBER]  # Montreal has no one left


async def test_a_logged_out_number_is_read_from_its_own_row_and_one_number_keeps_the_old_row(
        make_app: AppFactory) -> None:
    app = await make_app(**TWO)
    plan = app.settings.number_plan
    await enrol(app, ANA, "Ana", "toronto")
    now = app.clock.now()
    old = {"name": "connected", "since": (now - timedelta(days=3)).isoformat(), "until": None, "detail": ""}
    out = {"name": "logged_out", "since": now.isoformat(), "until": None, "detail": ""}
    await app.db.run(lambda s: save_status(s, WHATSAPP, old, now - timedelta(days=3)))  # from one-number days
    await app.db.run(lambda s: save_status(s, state_row_name("toronto"), out, now))
    report = await read_status(app.db, plan)
    assert [(n.name, n.state.name if n.state else None) for n in report.number_states] == [
        ("toronto", "logged_out"), ("montreal", None)]
    assert "number montreal: no state recorded yet; 0 participants in the study" in report.lines()
    found = await read_attention(app.db, now, identified=False, whatsapp=False, numbers=plan)
    [entry] = [e for e in found.entries if e.kind == AttentionKind.NUMBER]
    assert entry.reason == ("their WhatsApp number 'toronto' is logged out: move them to another number, "
                            "or link it again")
    rows = await app.db.run(read_statuses)
    assert number_rows(rows, ("main",))["main"] is not None  # one number: the "whatsapp" row is its state
    one = await read_status(app.db, NumberPlan())
    assert one.number_states == () and one.whatsapp is not None and one.whatsapp.name == "connected"


@SQLITE_ONLY
async def test_a_csv_file_names_each_rows_number(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.always("Welcome to the study!", match="")
    app = await make_app(**TWO)
    plan = app.settings.number_plan
    text = (f"phone,name,timezone,number\n{ANA},Ana,UTC,montreal\n{BEN},Ben,UTC,ottawa\n{CHIE},Chie,UTC,\n")
    checked = await check_import(app.db, app.clock, text, study=app.settings.study, numbers=plan)
    assert [row.problem for row in checked.rows] == [
        None, "number: there is no number 'ottawa'; this deployment has toronto, montreal (leave it empty to "
              "give one by the deployment's rule)", None]
    caller = Caller(1, "ana", "researcher")
    refused = await run_import(app.db, app.clock, text, study=app.settings.study, caller=caller, via="api",
                               numbers=plan)
    assert refused.enrolled == 0 and await admin.list_participants(app.db) == []
    text = text.replace(f"{BEN},Ben,UTC,ottawa\n", f"{BEN},Ben,UTC,Montreal\n")
    done = await run_import(app.db, app.clock, text, study=app.settings.study, caller=caller, via="api",
                            numbers=plan)
    assert [row.number for row in done.rows] == ["montreal", "montreal", "toronto"]  # Chie's: by the rule
    assert {row.name: row.number for row in await admin.list_participants(app.db)} == {
        "Ana": "montreal", "Ben": "montreal", "Chie": "toronto"}
