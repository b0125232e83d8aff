"""The dashboard over HTTP, as a browser without scripts would use it: signing in and out, the
sessions and CSRF protection, what a viewer may not see or do, the actions on a participant
(confirmed first, audited), the transcript, the participant list and the heatmap."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import quote

import httpx
import pytest

from promptpipe.research import admin, oversight, tokens
from promptpipe.storage.access import audit_entries
from promptpipe.web.auth import SESSION_COOKIE
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.schedule_helpers import NUDGE
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


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


def pages(study: Study) -> list[str]:
    return ["/", "/participants", "/participants?sort=-last_in&status=active", "/adherence", "/flags",
            "/questionnaires", f"/participants/{study.zofia}", f"/participants/{study.bram}"]


async def audit_log(study: Study, participant_id: str) -> list[tuple[str, str, str]]:
    """(actor, action, via) of the participant's audit entries, oldest first."""
    rows = await study.web.app.db.run(lambda s: [(e.actor, e.action, e.via)
                                                 for e in audit_entries(s, participant_id=participant_id)])
    return rows[::-1]


async def status_of(study: Study, participant_id: str) -> str:
    return str((await admin.show(study.web.app.db, participant_id)).status)


# ------------------------------------------------------------------------------------ signing in

@SQLITE_ONLY
async def test_a_wrong_token_is_refused_and_a_right_one_signs_in_with_a_strict_cookie(study: Study) -> None:
    async with httpx.AsyncClient(base_url=study.web.url) as client:
        form = await client.get("/login")
        wrong = await client.post("/login", data={"token": "pp_not-a-token", "csrf": csrf_of(form.text)})
        assert wrong.status_code == 401 and "That token is not valid" in wrong.text
        assert SESSION_COOKIE not in client.cookies and (await client.get("/")).status_code == 303

        form = await client.get("/login")
        right = await client.post("/login", data={"token": study.web.tokens["researcher"], "csrf": csrf_of(form.text),
                                                  "next": "/flags"})
        assert (right.status_code, right.headers["location"]) == (303, "/flags")
        cookie = next(value for value in right.headers.get_list("set-cookie") if value.startswith(SESSION_COOKIE))
        attributes = {part.strip().split("=")[0].lower(): part.strip() for part in cookie.split(";")}
        assert "httponly" in attributes and attributes["samesite"].lower() == "samesite=strict"
        assert attributes["max-age"] == "Max-Age=28800" and attributes["path"] == "Path=/"
        assert "secure" not in attributes  # plain http on 127.0.0.1 (https requests get Secure)
        overview = await client.get("/")
        assert overview.status_code == 200 and "researcher-token" in overview.text


@SQLITE_ONLY
async def test_behind_a_trusted_tls_proxy_the_session_cookie_is_secure(study: Study) -> None:
    import dataclasses

    from promptpipe.web.context import WebContext
    from promptpipe.web.server import WebServer

    https = {"X-Forwarded-Proto": "https"}  # as a TLS proxy on the same machine says it
    async with httpx.AsyncClient(base_url=study.web.url) as client:  # no proxy configured: not believed
        assert "secure" not in (await client.get("/login", headers=https)).headers["set-cookie"].lower()
    web = study.web
    settings = dataclasses.replace(web.app.settings, web_trusted_proxies=("127.0.0.1",))
    proxied = WebServer(WebContext(settings, web.app.db, web.reader, web.app.clock), "127.0.0.1:0")
    await proxied.start()
    try:
        async with httpx.AsyncClient(base_url=proxied.url) as client:
            form = await client.get("/login", headers=https)
            assert "secure" in form.headers["set-cookie"].lower()
            value = csrf_of(form.text)
            answer = await client.post("/login", headers={**https, "Cookie": f"pp_login={value}"},
                                        data={"token": web.tokens["viewer"], "csrf": value})
            session = next(v for v in answer.headers.get_list("set-cookie") if v.startswith(SESSION_COOKIE))
            assert answer.status_code == 303 and "; secure" in session.lower()
    finally:
        await proxied.stop()


@SQLITE_ONLY
async def test_too_many_failed_sign_ins_from_one_address_are_refused_for_a_while(study: Study) -> None:
    async with httpx.AsyncClient(base_url=study.web.url) as client:
        for attempt in range(10):
            form = await client.get("/login")
            wrong = await client.post("/login", data={"token": f"pp_guess-{attempt}", "csrf": csrf_of(form.text)})
            assert wrong.status_code == 401
        form = await client.get("/login")
        refused = await client.post("/login", data={"token": study.web.tokens["admin"], "csrf": csrf_of(form.text)})
        assert refused.status_code == 429 and "too many failed attempts from this address" in refused.text
        assert SESSION_COOKIE not in client.cookies


@SQLITE_ONLY
async def test_a_sign_in_form_from_elsewhere_is_refused(study: Study) -> None:
    async with httpx.AsyncClient(base_url=study.web.url) as client:  # no pp_login cookie: not our form
        answer = await client.post("/login", data={"token": study.web.tokens["admin"], "csrf": "forged"})
        assert answer.status_code == 403 and "expired or came from another site" in answer.text
        assert SESSION_COOKIE not in client.cookies


@SQLITE_ONLY
async def test_pages_without_a_session_lead_to_sign_in_and_back(study: Study) -> None:
    async with httpx.AsyncClient(base_url=study.web.url) as client:
        for path in pages(study):
            answer = await client.get(path)
            assert (answer.status_code, answer.headers["location"]) == (303, "/login?next=" + quote(path, safe=""))
        form = await client.get(f"/login?next={quote('/participants/' + study.zofia)}")
        back = await client.post("/login", data={"token": study.web.tokens["viewer"], "csrf": csrf_of(form.text),
                                                 "next": f"/participants/{study.zofia}"})
        assert back.headers["location"] == f"/participants/{study.zofia}"
    for elsewhere in ("https://example.org/", "//example.org/x", "/\\example.org", "javascript:alert(1)"):
        async with httpx.AsyncClient(base_url=study.web.url) as client:
            form = await client.get("/login")
            answer = await client.post("/login", data={"token": study.web.tokens["viewer"], "next": elsewhere,
                                                       "csrf": csrf_of(form.text)})
            assert answer.headers["location"] == "/", elsewhere


@SQLITE_ONLY
async def test_a_revoked_tokens_session_is_refused_on_the_next_request(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        assert (await client.get("/participants")).status_code == 200
        await tokens.revoke(study.web.app.db, study.web.app.clock, name="researcher-token", by="test")
        answer = await client.get("/participants")
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login")


@SQLITE_ONLY
async def test_signing_out_ends_the_session_in_this_browser(study: Study) -> None:
    async with signed_in(study.web, "viewer") as client:
        page = await client.get("/")
        assert (await client.post("/logout", data={"csrf": "wrong"})).status_code == 403
        assert (await client.get("/")).status_code == 200
        out = await client.post("/logout", data={"csrf": csrf_of(page.text)})
        assert (out.status_code, out.headers["location"]) == (303, "/login?signed_out=1")
        assert (await client.get("/")).status_code == 303
        assert "You are signed out" in (await client.get("/login?signed_out=1")).text


# ------------------------------------------------------------------------------------ CSRF and roles

@SQLITE_ONLY
async def test_a_post_without_the_right_csrf_is_refused_and_changes_nothing(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        action = f"/participants/{study.zofia}/actions/pause"
        for data in ({}, {"csrf": ""}, {"csrf": "x" * 43}, {"csrf": "ü"}):
            answer = await client.post(action, data=data)
            assert answer.status_code == 403 and "nothing was done" in answer.text
        flag = (await oversight.flags(study.web.app.db))[0]
        refused = await client.post(f"/flags/{flag.id}/resolve", data={"note": "done", "csrf": "nope"})
        assert refused.status_code == 403
    assert await status_of(study, study.zofia) == "active"
    assert await audit_log(study, study.zofia) == []
    assert len(await oversight.flags(study.web.app.db)) == 1


@SQLITE_ONLY
async def test_a_viewer_sees_no_phone_name_or_message_text(study: Study) -> None:
    secrets_ = (ZOFIA, ZOFIA[1:], BRAM, BRAM[1:], ZOFIA_NAME, "Zofia", BRAM_NAME, "Bram", ZOFIA_SAYS, BRAM_SAYS,
                NUDGE, "hurt myself")
    async with signed_in(study.web, "viewer") as client:
        for path in [*pages(study), "/participants?sort=name", "/participants?sort=-name"]:
            page = await client.get(path)
            assert page.status_code == (403 if path == "/flags" else 200), path
            for secret in secrets_:
                assert secret not in page.text, (path, secret)
            assert ">None<" not in page.text, path  # a hidden value says so, not "None"
            assert "/confirm/" not in page.text and "/actions/" not in page.text and "/resolve" not in page.text
        transcript = (await client.get(f"/participants/{study.zofia}")).text
        assert "hidden for viewers" in transcript and "✓" in transcript
        assert study.zofia in (await client.get("/participants")).text
        # Bram was sent the study's safety message: its kind alone would tell a viewer he was in crisis
        assert 'class="msg-kind">safety<' not in (await client.get(f"/participants/{study.bram}")).text
    async with study.web.client("viewer") as api, study.web.client("researcher") as researcher:
        shown = (await api.get(f"/api/v1/participants/{study.bram}/transcript")).json()["items"]
        assert "safety" not in {item["kind"] for item in shown}
        seen = (await researcher.get(f"/api/v1/participants/{study.bram}/transcript")).json()["items"]
        assert "safety" in {item["kind"] for item in seen}  # researchers see what was sent


@pytest.mark.parametrize("role", ["viewer", "researcher"])
@SQLITE_ONLY
async def test_the_api_and_the_dashboard_show_safety_flags_to_the_same_roles(study: Study, role: str) -> None:
    """One rule for both doors: a viewer reads no flag (not its id, severity or time) on either."""
    flag = (await oversight.flags(study.web.app.db))[0]
    async with study.web.client(role) as api:
        from_api = await api.get("/api/v1/flags")
    async with signed_in(study.web, role) as client:
        page = await client.get("/flags")
        overview = await client.get("/")
    allowed = role == "researcher"
    assert (from_api.status_code, page.status_code) == ((200, 200) if allowed else (403, 403))
    assert ('href="/flags"' in overview.text) is allowed
    assert (f"Resolve flag {flag.id}" in page.text) is allowed and (flag.severity in page.text) is allowed


@SQLITE_ONLY
async def test_a_viewer_cannot_act(study: Study) -> None:
    async with signed_in(study.web, "viewer") as client:
        page = await client.get(f"/participants/{study.zofia}")
        csrf = csrf_of(page.text)  # the viewer's own valid token (from the sign-out form)
        assert (await client.get(f"/participants/{study.zofia}/confirm/pause")).status_code == 403
        for action in ("pause", "prompt", "message"):
            answer = await client.post(f"/participants/{study.zofia}/actions/{action}",
                                       data={"csrf": csrf, "text": "hello"})
            assert answer.status_code == 403 and "viewer" in answer.text
        flag = (await oversight.flags(study.web.app.db))[0]
        assert (await client.post(f"/flags/{flag.id}/resolve",
                                  data={"csrf": csrf, "note": "seen"})).status_code == 403
    await study.web.app.run_until_idle()
    assert await status_of(study, study.zofia) == "active"
    assert "hello" not in study.transport.texts_to(ZOFIA)
    assert await audit_log(study, study.zofia) == []


# ------------------------------------------------------------------------------------ actions

async def confirmed(client: httpx.AsyncClient, study: Study, action: str, **form: str) -> httpx.Response:
    """Open the action's confirmation page, then confirm it."""
    page = await client.get(f"/participants/{study.zofia}")
    assert f"/participants/{study.zofia}/confirm/{action}" in page.text
    confirm = await client.get(f"/participants/{study.zofia}/confirm/{action}")
    assert confirm.status_code == 200 and f'action="/participants/{study.zofia}/actions/{action}"' in confirm.text
    return await client.post(f"/participants/{study.zofia}/actions/{action}",
                             data={"csrf": csrf_of(confirm.text), **form})


async def test_pause_and_resume_from_the_page_change_the_status_and_are_audited(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        paused = await confirmed(client, study, "pause", reason="travelling this week")
        assert (paused.status_code, paused.headers["location"]) == (303, f"/participants/{study.zofia}?done=paused")
        assert await status_of(study, study.zofia) == "paused"
        page = await client.get(paused.headers["location"])
        assert "Paused: no scheduled message goes to them" in page.text and "Resume…" in page.text

        resumed = await confirmed(client, study, "resume")
        assert resumed.headers["location"] == f"/participants/{study.zofia}?done=resumed"
        assert await status_of(study, study.zofia) == "active"
    assert await audit_log(study, study.zofia) == [("researcher-token", "pause", "dashboard"),
                                                   ("researcher-token", "resume", "dashboard")]


@SQLITE_ONLY
async def test_a_refused_action_says_why_on_the_page(study: Study) -> None:
    async with signed_in(study.web, "admin") as client:
        await confirmed(client, study, "pause")
        page = await client.get(f"/participants/{study.zofia}")
        answer = await client.post(f"/participants/{study.zofia}/actions/prompt", data={"csrf": csrf_of(page.text)})
        assert answer.status_code == 409
        assert "Not done:" in answer.text and "scheduled messages are not sent to them" in answer.text
        assert "Traceback" not in answer.text
        missing = await client.get("/participants/p_0000000000000000")
        assert missing.status_code == 404 and "no participant has the id" in missing.text


@SQLITE_ONLY
async def test_a_refusal_on_the_page_names_the_field_not_a_command_line_option(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        refused = await confirmed(client, study, "pause", reason="r" * 600)
        assert refused.status_code == 400 and "reason:" in refused.text
        assert "--reason" not in refused.text


async def test_a_message_sent_from_the_page_reaches_the_participant_and_shows_in_the_transcript(
    study: Study,
) -> None:
    text = "Hi Zofia, the study team here: see you at Friday's check-in.\nThanks!"
    async with signed_in(study.web, "researcher") as client:
        page = await client.get(f"/participants/{study.zofia}")
        confirm = await client.post(f"/participants/{study.zofia}/confirm/message",
                                    data={"csrf": csrf_of(page.text), "text": text.replace("\n", "\r\n")})
        assert confirm.status_code == 200 and "This is the message" in confirm.text
        assert "see you at Friday&#39;s check-in." in confirm.text
        assert text not in study.transport.texts_to(ZOFIA)  # nothing is sent before it is confirmed
        sent = await client.post(f"/participants/{study.zofia}/actions/message",
                                 data={"csrf": csrf_of(confirm.text), "text": text.replace("\n", "\r\n")})
        assert sent.headers["location"] == f"/participants/{study.zofia}?done=sent"
        await study.web.app.run_until_idle()
        assert study.transport.texts_to(ZOFIA)[-1] == text
        transcript = (await client.get(sent.headers["location"])).text
        newest = transcript.split('<li class="msg', 2)[1]
        assert "see you at Friday&#39;s check-in." in newest and "sent" in newest
    assert await audit_log(study, study.zofia) == [("researcher-token", "send", "dashboard")]


@SQLITE_ONLY
async def test_the_transcript_shows_delivered_and_read_ticks_and_both_times(study: Study) -> None:
    nudge = next(item for item in study.transport.sent if item.to.phone == ZOFIA and item.text == NUDGE)
    await study.transport.receipt("delivered", nudge.message_id)
    await study.transport.receipt("read", nudge.message_id)
    async with signed_in(study.web, "researcher") as client:
        page = (await client.get(f"/participants/{study.zofia}")).text
    messages = page.split('<li class="msg')[1:]
    read = [m for m in messages if NUDGE in m]
    assert any("tick-read" in m and "✓✓</span> read" in m for m in read)
    assert any("tick-sent" in m and "✓</span> sent" in m for m in messages)
    assert "participant time (America/Toronto)" in page and "your time (Europe/Berlin)" in page
    assert ZOFIA_SAYS in page and ZOFIA in page and ZOFIA_NAME in page


async def test_a_researcher_resolves_a_flag_with_a_note(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        page = await client.get("/flags")
        assert study.bram in page.text and "hurt myself" in page.text and "high" in page.text
        flag = (await oversight.flags(study.web.app.db))[0]
        empty = await client.post(f"/flags/{flag.id}/resolve", data={"csrf": csrf_of(page.text), "note": " "})
        assert empty.status_code == 400 and "Write a note" in empty.text
        done = await client.post(f"/flags/{flag.id}/resolve",
                                 data={"csrf": csrf_of(page.text), "note": "called him; he is safe"})
        assert done.headers["location"] == f"/flags?resolved={flag.id}"
        after = await client.get(done.headers["location"])
        assert f"Flag {flag.id} is resolved" in after.text and "No open flags" in after.text
    [closed] = await oversight.flags(study.web.app.db, include_resolved=True)
    assert (closed.status, closed.resolved_by, closed.note) == ("resolved", "researcher-token",
                                                                          "called him; he is safe")


# ------------------------------------------------------------------------------------ lists and charts

def row_ids(page: str) -> list[str]:
    return re.findall(r'<th scope="row"><a href="/participants/(p_[0-9a-f]{16})"', page)


async def test_the_participant_list_sorts_filters_and_pages(study: Study) -> None:
    async with signed_in(study.web, "researcher") as client:
        everyone = (await client.get("/participants")).text
        assert row_ids(everyone) == [study.zofia, study.bram]  # in order of enrollment
        assert ZOFIA_NAME in everyone and "Participants 1–2 of 2" in everyone
        assert 'href="/participants?sort=-name"' not in everyone and 'href="/participants?sort=name"' in everyone
        by_name = (await client.get("/participants?sort=-name")).text
        assert row_ids(by_name) == [study.zofia, study.bram]
        assert row_ids((await client.get("/participants?sort=name")).text) == [study.bram, study.zofia]
        assert 'aria-sort="descending"' in by_name
        filtered = (await client.get("/participants?stage=INTAKE&sort=name")).text
        assert row_ids(filtered) == [study.bram] and 'href="/participants?stage=INTAKE&amp;sort=-name"' in filtered
        wrong = await client.get("/participants?status=asleep&silent=soon")
        assert wrong.status_code == 200 and "Part of the filter was left out" in wrong.text
        assert row_ids(wrong.text) == [study.zofia, study.bram]
        beyond = (await client.get("/participants?page=2")).text
        assert row_ids(beyond) == [] and "No participant matches" in beyond
        found = await client.get("/participants/find", params={"who": BRAM})
        assert found.headers["location"] == f"/participants/{study.bram}"


async def test_the_heatmap_shows_a_done_day_and_a_missed_day(study: Study) -> None:
    async with signed_in(study.web, "viewer") as client:
        page = (await client.get("/adherence")).text
    cells = re.findall(r'data-outcome="([a-z_]+)" data-day="(\d+)"[^>]*><title>(p_[0-9a-f]{16}) day \d+: ([a-z ]+)'
                       r"</title>", page)
    zofia = {int(day): (outcome, title) for outcome, day, pid, title in cells if pid == study.zofia}
    assert zofia[1] == ("done", "done") and zofia[2] == ("not_this_time", "not this time")
    bram = {int(day): outcome for outcome, day, pid, _ in cells if pid == study.bram}
    assert set(bram.values()) == {"no_prompt"}
    assert all(f'data-outcome="{outcome}"' in page for outcome in ("done", "not_this_time", "no_reply", "no_prompt"))


@SQLITE_ONLY
async def test_no_page_loads_anything_from_another_origin(study: Study) -> None:
    async with signed_in(study.web, "admin") as client:
        for path in [*pages(study), f"/participants/{study.zofia}/confirm/pause", "/login"]:
            page = (await client.get(path)).text
            links = re.findall(r'\b(?:src|href|action|srcset|data|poster)\s*=\s*"([^"]*)"', page)
            assert links and all(link.startswith(("/", "#")) and not link.startswith("//") for link in links), path
            assert "<script" not in page and " style=" not in page and "@import" not in page
            assert "http://" not in page and "https://" not in page, path
        css = await client.get("/static/style.css")
        assert css.status_code == 200 and "url(" not in css.text and "@import" not in css.text
