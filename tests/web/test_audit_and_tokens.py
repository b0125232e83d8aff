"""Tokens that expire, the admins' tokens page and the audit log (page and API), as their users
notice them: an expired token is refused everywhere with a reason, a token made on the page shows
its secret once and is revoked after a confirmation, a researcher finds the pause they made by
person and action, a viewer reads neither page, and the API's audit log pages and filters."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from promptpipe.clock import ManualClock
from promptpipe.errors import AdminError
from promptpipe.research.tokens import Caller, audit, create_token, expiry
from promptpipe.storage.access import audit_entries
from promptpipe.web.auth import SESSION_COOKIE
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.browser import BRAM, BRAM_NAME, ZOFIA, ZOFIA_NAME, ZOFIA_SAYS, Study, csrf_of, running_study, signed_in
from tests.web.conftest import Web

SECRET = re.compile(r"pp_[A-Za-z0-9_-]{20,}")


def clock_of(web: Web) -> ManualClock:
    clock = web.app.clock
    assert isinstance(clock, ManualClock)
    return clock


async def sign_in(client: httpx.AsyncClient, secret: str) -> httpx.Response:
    form = await client.get("/login")
    return await client.post("/login", data={"token": secret, "csrf": csrf_of(form.text), "next": "/"})


# ------------------------------------------------------------------------------------ expiry

@pytest.mark.parametrize(("raw", "expected"), [
    ("", None),
    ("12h", datetime(2026, 1, 5, 21, 0, tzinfo=UTC)),
    ("30d", datetime(2026, 2, 4, 9, 0, tzinfo=UTC)),
    ("1d12h", datetime(2026, 1, 6, 21, 0, tzinfo=UTC)),
    ("2026-01-31", datetime(2026, 1, 31, 23, 0, tzinfo=UTC)),  # through that day in Berlin
    ("2026-02-01T08:00+01:00", datetime(2026, 2, 1, 7, 0, tzinfo=UTC)),
])
def test_an_expiry_is_a_time_from_now_or_a_date(raw: str, expected: datetime | None) -> None:
    now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert expiry(raw, now, ZoneInfo("Europe/Berlin")) == expected


@pytest.mark.parametrize(("raw", "message"), [
    ("30", "neither a time from now"), ("soon", "neither a time from now"), ("2026-02-30", "is not a date"),
    ("2026-01-01", "not in the future"), ("2026-02-01T08:00", "needs its offset"),
])
def test_a_wrong_expiry_says_what_to_write(raw: str, message: str) -> None:
    with pytest.raises(AdminError, match=message):
        expiry(raw, datetime(2026, 1, 5, 9, 0, tzinfo=UTC), ZoneInfo("UTC"))


async def test_a_token_works_until_its_expiry_then_the_api_and_sign_in_refuse_it(web: Web) -> None:
    clock = clock_of(web)
    secret, _ = await create_token(web.app.db, clock, name="visiting-analyst", role="researcher", by="test",
                                   expires_at=clock.now() + timedelta(hours=2))
    api = httpx.AsyncClient(base_url=web.url, headers={"Authorization": f"Bearer {secret}"}, timeout=10)
    async with api, httpx.AsyncClient(base_url=web.url, timeout=10) as browser:
        assert (await api.get("/api/v1/participants")).status_code == 200
        assert (await sign_in(browser, secret)).status_code == 303
        clock.advance(timedelta(hours=2) - timedelta(seconds=1))
        assert (await api.get("/api/v1/participants")).status_code == 200
        assert (await browser.get("/participants")).status_code == 200

        clock.advance(timedelta(seconds=1))
        refused = await api.get("/api/v1/participants")
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        error = refused.json()["error"]
        assert error["code"] == "unauthorized" and "expired at 2026-01-05 11:00 UTC" in error["message"]
        ended = await browser.get("/participants")  # the session signed in before ends on its next request
        assert ended.status_code == 303 and ended.headers["location"].startswith("/login")

    async with httpx.AsyncClient(base_url=web.url, timeout=10) as browser:
        again = await sign_in(browser, secret)
        assert again.status_code == 401 and "Sign-in refused" in again.text and "expired" in again.text
        assert SESSION_COOKIE not in browser.cookies


async def test_the_tokens_page_shows_when_each_token_was_last_used(web: Web) -> None:
    clock = clock_of(web)
    async with web.client("viewer") as api:
        assert (await api.get("/api/v1/participants")).status_code == 200
    used_at = clock.now()
    clock.advance(timedelta(hours=3))
    async with signed_in(web, "admin") as client:
        page = (await client.get("/tokens")).text
    viewer_row = next(row for row in page.split("<tr>") if "viewer-token" in row)
    assert f'datetime="{used_at.isoformat(timespec="seconds")}"' in viewer_row
    researcher_row = next(row for row in page.split("<tr>") if "researcher-token" in row)
    assert "never" in researcher_row  # never used (and it does not expire)


# ------------------------------------------------------------------------------------ the tokens page

async def test_an_admin_makes_a_token_sees_its_secret_once_and_revokes_it_after_confirming(web: Web) -> None:
    async with signed_in(web, "admin") as client:
        page = await client.get("/tokens")
        assert page.status_code == 200 and "no-store" in page.headers["cache-control"]
        made = await client.post("/tokens", data={"csrf": csrf_of(page.text), "name": "ana", "role": "researcher",
                                                  "expires": "30d"})
        assert made.status_code == 201 and "shown this once" in made.text
        secrets_ = SECRET.findall(made.text)
        assert len(set(secrets_)) == 1
        secret = secrets_[0]
        async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": f"Bearer {secret}"}) as ana:
            assert (await ana.get("/api/v1/participants")).status_code == 200

            listed = await client.get("/tokens")
            assert "ana" in listed.text and secret not in listed.text and "shown this once" not in listed.text
            ana_row = next(row for row in listed.text.split("<tr>") if ">ana<" in row)
            assert 'datetime="2026-02-04T09:00:00+00:00"' in ana_row  # expires in 30 days

            confirm = await client.get("/tokens/ana/revoke")
            assert confirm.status_code == 200 and "Yes, revoke ana" in confirm.text
            assert (await ana.get("/api/v1/participants")).status_code == 200  # nothing happens before confirming
            forged = await client.post("/tokens/ana/revoke", data={"csrf": "forged"})
            assert forged.status_code == 403
            revoked = await client.post("/tokens/ana/revoke", data={"csrf": csrf_of(confirm.text)})
            assert (revoked.status_code, revoked.headers["location"]) == (303, "/tokens?revoked=ana")
            assert "Token ana is revoked" in (await client.get(revoked.headers["location"])).text
            assert (await ana.get("/api/v1/participants")).status_code == 401

        taken = await client.post("/tokens", data={"csrf": csrf_of(page.text), "name": "ana", "role": "viewer"})
        assert taken.status_code == 409 and "exists already" in taken.text and not SECRET.search(taken.text)
        bad = await client.post("/tokens", data={"csrf": csrf_of(page.text), "name": "bo", "role": "viewer",
                                                 "expires": "yesterday"})
        assert bad.status_code == 400 and "Expires" in bad.text and not SECRET.search(bad.text)

    entries = await web.app.db.run(lambda s: [(e.actor, e.action, e.via, e.detail.get("name"))
                                              for e in audit_entries(s)])
    assert entries[::-1] == [("admin-token", "sign_in", "dashboard", None),
                             ("admin-token", "token_create", "dashboard", "ana"),
                             ("admin-token", "token_revoke", "dashboard", "ana")]


async def test_the_last_admin_token_cannot_be_revoked_from_the_browser_and_your_own_asks_first(web: Web) -> None:
    async with signed_in(web, "admin") as client:
        confirm = await client.get("/tokens/admin-token/revoke")
        assert confirm.status_code == 200 and "last admin token" in confirm.text
        assert "Yes, revoke" not in confirm.text  # nothing to press
        refused = await client.post("/tokens/admin-token/revoke", data={"csrf": csrf_of(confirm.text)})
        assert refused.status_code == 409 and "last admin token" in refused.text
        async with web.client("admin") as api:
            assert all(t["revoked_at"] is None for t in (await api.get("/api/v1/tokens")).json())

        page = await client.get("/tokens")
        made = await client.post("/tokens", data={"csrf": csrf_of(page.text), "name": "second-admin", "role": "admin"})
        assert made.status_code == 201
        confirm = await client.get("/tokens/admin-token/revoke")  # another admin exists: your own, asked first
        assert "Yes, revoke admin-token" in confirm.text and "you will be signed out" in confirm.text
        revoked = await client.post("/tokens/admin-token/revoke", data={"csrf": csrf_of(confirm.text)})
        assert revoked.status_code == 303


async def test_a_token_made_through_the_api_can_expire_and_sign_ins_and_outs_are_audited(web: Web) -> None:
    clock = clock_of(web)
    async with web.client("admin") as client:
        made = await client.post("/api/v1/tokens", json={"name": "visitor", "role": "viewer", "expires_in_days": 2})
        too_long = await client.post("/api/v1/tokens", json={"name": "forever", "role": "viewer",
                                                              "expires_in_days": 100_000})
        assert made.status_code == 201 and too_long.status_code == 422
        expires = (clock.now() + timedelta(days=2)).isoformat()
        assert made.json()["expires_at"] == expires
        listed = {row["name"]: row for row in (await client.get("/api/v1/tokens")).json()}
        assert listed["visitor"]["expires_at"] == expires and listed["viewer-token"]["expires_at"] is None
    async with httpx.AsyncClient(base_url=web.url, timeout=10) as browser:
        assert (await sign_in(browser, made.json()["token"])).status_code == 303
        overview = await browser.get("/")
        assert (await browser.post("/logout", data={"csrf": csrf_of(overview.text)})).status_code == 303
    clock.advance(timedelta(days=2))
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": f"Bearer {made.json()['token']}"}) as c:
        assert (await c.get("/api/v1/participants")).status_code == 401
    entries = await web.app.db.run(lambda s: [(e.actor, e.action, e.via, e.address is not None)
                                              for e in audit_entries(s)])
    assert entries[::-1] == [("admin-token", "token_create", "api", True), ("visitor", "sign_in", "dashboard", True),
                             ("visitor", "sign_out", "dashboard", True)]


@pytest.mark.parametrize("role", ["viewer", "researcher"])
async def test_only_admins_open_the_tokens_page(web: Web, role: str) -> None:
    async with signed_in(web, role) as client:
        overview = await client.get("/")
        assert 'href="/tokens"' not in overview.text
        for path in ("/tokens", "/tokens/admin-token/revoke"):
            assert (await client.get(path)).status_code == 403
        refused = await client.post("/tokens", data={"csrf": csrf_of(overview.text), "name": "x", "role": "admin"})
        assert refused.status_code == 403
        assert (await client.post("/tokens/admin-token/revoke", data={"csrf": csrf_of(overview.text)})).status_code \
            == 403
    async with web.client("admin") as api:
        assert {t["name"] for t in (await api.get("/api/v1/tokens")).json()} == {
            "viewer-token", "researcher-token", "admin-token"}
        assert all(t["revoked_at"] is None for t in (await api.get("/api/v1/tokens")).json())


# ------------------------------------------------------------------------------------ the audit log

@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


async def test_a_researcher_finds_the_pause_they_made_by_person_and_action(study: Study) -> None:
    async with study.web.client("admin") as api:  # someone else does something else first
        assert (await api.patch(f"/api/v1/participants/{study.zofia}", json={"timezone": "America/Toronto"})
                ).status_code == 200
    async with signed_in(study.web, "researcher") as client:
        confirm = await client.get(f"/participants/{study.zofia}/confirm/pause")
        paused = await client.post(f"/participants/{study.zofia}/actions/pause", data={"csrf": csrf_of(confirm.text)})
        assert paused.status_code == 303

        everything = await client.get("/audit")
        assert everything.status_code == 200 and 'href="/audit"' in everything.text
        assert "admin-token" in everything.text and "researcher-token" in everything.text

        mine = await client.get("/audit?actor=researcher-token&action=pause")
        assert mine.status_code == 200 and "Entries 1–1 of 1" in mine.text
        row = next(row for row in mine.text.split("<tr>")[2:] if "researcher-token" in row)
        assert f'href="/participants/{study.zofia}"' in row and ">pause<" in row and "dashboard" in row
        assert "127.0.0.1" in row  # from where
        assert "admin-token" not in mine.text.split("<tbody>")[1]  # the admin's update is filtered out
        assert "No entries to show" in (await client.get("/audit?actor=researcher-token&action=withdraw")).text
        theirs = (await client.get("/audit?actor=admin-token")).text.split("<tbody>")[1]
        assert ">update<" in theirs and "API" in theirs and "127.0.0.1" in theirs
        for text in (ZOFIA, ZOFIA[1:], ZOFIA_NAME, ZOFIA_SAYS, BRAM, BRAM_NAME):
            assert text not in everything.text


async def test_a_viewer_cannot_read_the_audit_log(study: Study) -> None:
    async with signed_in(study.web, "viewer") as client:
        assert 'href="/audit"' not in (await client.get("/")).text
        refused = await client.get("/audit")
        assert refused.status_code == 403 and "for researchers and admins" in refused.text
    async with study.web.client("viewer") as api:
        assert (await api.get("/api/v1/audit")).status_code == 403


async def test_the_audit_api_pages_and_filters(web: Web) -> None:
    clock = clock_of(web)
    ana, bo = Caller(1, "ana", "researcher", address="192.0.2.7"), Caller(2, "bo", "admin")
    for number in range(5):
        await audit(web.app.db, clock, ana, "pause", participant_id=f"p_{number:016d}", detail={"changed": True})
        clock.advance(60)
    await audit(web.app.db, clock, bo, "export", detail={"format": "csv", "identifiers": False}, via="dashboard")

    async with web.client("researcher") as api:
        first = (await api.get("/api/v1/audit", params={"limit": 2})).json()
        assert (first["total"], first["limit"], first["offset"]) == (6, 2, 0)
        assert [e["action"] for e in first["entries"]] == ["export", "pause"]  # newest first
        assert first["entries"][0] | {"id": 0} == {
            "id": 0, "at": "2026-01-05T09:05:00+00:00", "actor": "bo", "role": "admin", "action": "export",
            "via": "dashboard", "participant_id": None, "address": None,
            "detail": {"format": "csv", "identifiers": False}}
        last = (await api.get("/api/v1/audit", params={"limit": 2, "offset": 4})).json()
        assert [e["participant_id"] for e in last["entries"]] == ["p_0000000000000001", "p_0000000000000000"]

        by_ana = (await api.get("/api/v1/audit", params={"actor": "ana", "action": "pause", "limit": 10})).json()
        assert by_ana["total"] == 5 and {e["address"] for e in by_ana["entries"]} == {"192.0.2.7"}
        exports = (await api.get("/api/v1/audit", params={"action": "export"})).json()
        assert [e["actor"] for e in exports["entries"]] == ["bo"]
        to_one = (await api.get("/api/v1/audit", params={"participant_id": "p_0000000000000003"})).json()
        assert to_one["total"] == 1
        assert (await api.get("/api/v1/audit", params={"actor": "nobody"})).json()["total"] == 0
        assert (await api.get("/api/v1/audit", params={"actor": "ana\x00"})).json()["total"] == 0
        assert (await api.get("/api/v1/audit", params={"limit": 0})).status_code == 422
        assert (await api.get("/api/v1/audit", params={"offset": -1})).status_code == 422

    async with web.client(None) as anonymous:
        assert (await anonymous.get("/api/v1/audit")).status_code == 401
