"""The HTTP API through real HTTP: every endpoint's happy path, authentication and roles,
validation errors in the documented shape, paging, and the OpenAPI schema."""

from __future__ import annotations

import asyncio
import io
import zipfile
from datetime import timedelta
from typing import Any

import httpx
import pytest

from promptpipe.errors import NotFound
from promptpipe.research import admin
from promptpipe.storage.access import audit_entries
from promptpipe.transport.base import DeliveryReceipt
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.web.conftest import Web, api_routes, serving

ANA, BEN, CARA = "+14165550101", "+14165550102", "+14165550103"


async def enroll(web: Web, phone: str, name: str, **extra: Any) -> dict[str, Any]:
    async with web.client() as client:
        response = await client.post("/api/v1/participants", json={
            "phone": phone, "name": name, "timezone": "America/Toronto", **extra})
    assert response.status_code == 201, response.text
    return dict(response.json())


async def greeted(web: Web, fake: FakeOpenAIServer, phone: str, name: str) -> str:
    row = await enroll(web, phone, name)
    fake.say(f"Hi {name}!", match=f"Participant: {name}")
    await web.app.run_until_idle()
    return str(row["id"])


def error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    return dict(body["error"])


@SQLITE_ONLY
async def test_health_answers_without_a_token_and_reveals_nothing(web: Web) -> None:
    await enroll(web, ANA, "Ana")
    async with web.client(None) as client:
        response = await client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    assert response.headers["x-content-type-options"] == "nosniff" and response.headers["cache-control"] == "no-store"
    assert response.headers["server-timing"].startswith("app;dur=")


@SQLITE_ONLY
async def test_every_endpoint_but_health_needs_a_token(web: Web) -> None:
    routes = [(path, methods) for path, methods, _ in api_routes(web.server.site) if path.startswith("/api/")]
    assert len(routes) >= 20
    async with web.client(None) as client, web.client("researcher") as wrong:
        wrong.headers["Authorization"] = "Bearer pp_not-a-real-token"
        for template, methods in routes:
            path = template.replace("{participant_id}", "p_0123456789abcdef").replace("{flag_id}", "1") \
                .replace("{name}", "someone")
            for method in methods:
                for caller in (client, wrong):
                    web.server.ctx.failures = type(web.server.ctx.failures)()  # no 429 in this loop
                    response = await caller.request(method, path, json={})
                    assert response.status_code == 401, (method, path, response.text)
                    assert error(response)["code"] == "unauthorized"
                    assert response.headers["www-authenticate"] == "Bearer"


async def test_enroll_list_and_get(web: Web) -> None:
    ana = await enroll(web, ANA, "Ana", background="works nights")
    assert ana["phone"] == ANA and ana["status"] == "active" and ana["stage"] == "INTAKE"
    async with web.client() as client:
        listed = (await client.get("/api/v1/participants")).json()
        one = (await client.get(f"/api/v1/participants/{ana['id']}")).json()
    assert listed["total"] == 1 and [row["id"] for row in listed["items"]] == [ana["id"]]
    assert one["name"] == "Ana" and one["background"] == "works nights" and one["timezone"] == "America/Toronto"


async def test_bad_input_gets_one_clear_error_and_changes_nothing(web: Web) -> None:
    await enroll(web, ANA, "Ana")
    async with web.client() as client:
        twice = await client.post("/api/v1/participants", json={"phone": ANA, "name": "Ana",
                                                                "timezone": "America/Toronto"})
        bad_phone = await client.post("/api/v1/participants", json={"phone": "+15550100", "name": "X",
                                                                    "timezone": "UTC"})
        bad_zone = await client.post("/api/v1/participants", json={"phone": BEN, "name": "Ben",
                                                                   "timezone": "Mars/Olympus"})
        missing = await client.post("/api/v1/participants", json={"phone": BEN})
        unknown = await client.get("/api/v1/participants/p_0123456789abcdef")
        not_an_id = await client.get("/api/v1/participants/+14165550101")
        bad_sort = await client.get("/api/v1/participants", params={"sort": "phone"})
        total = (await client.get("/api/v1/participants")).json()["total"]
    assert (twice.status_code, error(twice)["code"]) == (409, "conflict")
    assert "already enrolled" in error(twice)["message"]
    assert (bad_phone.status_code, error(bad_phone)["code"]) == (400, "invalid_request")
    assert error(bad_phone)["message"].startswith("phone: ") and "--" not in error(bad_phone)["message"]
    assert bad_zone.status_code == 400 and "IANA" in error(bad_zone)["message"]
    assert missing.status_code == 422
    assert {d["field"] for d in error(missing)["details"]} == {"name", "timezone"}
    assert unknown.status_code == 404 and error(unknown)["code"] == "not_found"
    assert not_an_id.status_code == 404
    assert bad_sort.status_code == 422 and "sort" in error(bad_sort)["message"]
    assert total == 1


async def test_paging_and_filters(web: Web) -> None:
    ids = []
    for i in range(5):
        web.app.clock.advance(timedelta(minutes=1))  # type: ignore[attr-defined]
        ids.append((await enroll(web, f"+1416555011{i}", f"P{i}"))["id"])
    await admin.set_status(web.app.db, web.app.clock, phone=ids[1], action="pause", by="test")
    async with web.client() as client:
        first = (await client.get("/api/v1/participants", params={"limit": 2})).json()
        third = (await client.get("/api/v1/participants", params={"limit": 2, "offset": 4})).json()
        paused = (await client.get("/api/v1/participants", params={"status": "paused"})).json()
        active = (await client.get("/api/v1/participants", params={"status": "active", "sort": "-enrolled"})).json()
        bad = await client.get("/api/v1/participants", params={"status": "asleep"})
        too_many = await client.get("/api/v1/participants", params={"limit": 100_000})
    assert first["total"] == 5 and [r["id"] for r in first["items"]] == ids[:2]
    assert [r["id"] for r in third["items"]] == ids[4:]
    assert [r["id"] for r in paused["items"]] == [ids[1]]
    assert [r["id"] for r in active["items"]] == [ids[4], ids[3], ids[2], ids[0]]
    assert bad.status_code == 422 and "status" in error(bad)["message"]
    assert too_many.status_code == 422


async def test_silent_participants_are_found(web: Web, fake: FakeOpenAIServer) -> None:
    ana = await greeted(web, fake, ANA, "Ana")
    ben = await greeted(web, fake, BEN, "Ben")
    clock = web.app.clock
    clock.advance(timedelta(days=3))  # type: ignore[attr-defined]
    fake.say("Good to hear from you.")
    await web.app.transport.inject(BEN, "hello again")  # type: ignore[attr-defined]
    await web.app.run_until_idle()
    async with web.client() as client:
        silent = (await client.get("/api/v1/participants", params={"silent_days": 2})).json()
        by_last = (await client.get("/api/v1/participants", params={"sort": "-last_in"})).json()
    assert [r["id"] for r in silent["items"]] == [ana]
    assert [r["id"] for r in by_last["items"]] == [ben, ana]
    assert by_last["items"][0]["last_in_at"] is not None and by_last["items"][1]["last_in_at"] is None


async def test_viewers_read_pseudonymised_data_only(web: Web, fake: FakeOpenAIServer) -> None:
    pid = await greeted(web, fake, ANA, "Ana")
    async with web.client("viewer") as client:
        listed = await client.get("/api/v1/participants")
        one = await client.get(f"/api/v1/participants/{pid}")
        transcript = await client.get(f"/api/v1/participants/{pid}/transcript")
        writes = [await client.post("/api/v1/participants", json={"phone": BEN, "name": "Ben", "timezone": "UTC"}),
                  await client.post(f"/api/v1/participants/{pid}/messages", json={"text": "hi"}),
                  await client.patch(f"/api/v1/participants/{pid}", json={"status": "paused"}),
                  await client.get("/api/v1/export"), await client.get("/api/v1/tokens")]
    for response in (listed, one, transcript):
        assert response.status_code == 200
        assert ANA not in response.text and "Ana" not in response.text
    assert transcript.json()["items"] and all(item["text"] is None for item in transcript.json()["items"])
    assert [w.status_code for w in writes] == [403] * 5
    assert "researcher role" in error(writes[0])["message"]


@SQLITE_ONLY
async def test_a_revoked_token_fails_at_once(web: Web) -> None:
    secret = await web.token("temp", "researcher")
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": f"Bearer {secret}"}) as client:
        assert (await client.get("/api/v1/participants")).status_code == 200
        async with web.client("admin") as admin_client:
            revoked = await admin_client.delete("/api/v1/tokens/temp")
        assert revoked.status_code == 200 and revoked.json()["revoked_by"] == "admin-token"
        after = await client.get("/api/v1/participants")
    assert after.status_code == 401 and error(after)["message"] == "a valid bearer token is required"


@SQLITE_ONLY
async def test_admins_manage_tokens_and_the_secret_is_shown_once(web: Web) -> None:
    async with web.client("admin") as client:
        made = await client.post("/api/v1/tokens", json={"name": "ana-study", "role": "viewer"})
        listed = await client.get("/api/v1/tokens")
        twice = await client.post("/api/v1/tokens", json={"name": "ana-study", "role": "viewer"})
        bad_role = await client.post("/api/v1/tokens", json={"name": "x", "role": "owner"})
    assert made.status_code == 201 and made.json()["token"].startswith("pp_")
    assert made.json()["token"] not in listed.text
    assert {row["name"] for row in listed.json()} == {"viewer-token", "researcher-token", "admin-token", "ana-study"}
    assert twice.status_code == 409 and bad_role.status_code == 422
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": f"Bearer {made.json()['token']}"}) as c:
        assert (await c.get("/api/v1/participants")).status_code == 200
    async with web.client("researcher") as client:
        assert (await client.get("/api/v1/tokens")).status_code == 403


@SQLITE_ONLY
async def test_failed_attempts_are_limited_per_address(web: Web) -> None:
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": "Bearer pp_guess"}) as client:
        codes = [(await client.get("/api/v1/participants")).status_code for _ in range(11)]
    assert codes == [401] * 10 + [429]
    async with web.client() as client:  # the right token from the same address waits too
        blocked = await client.get("/api/v1/participants")
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
    assert error(blocked)["code"] == "too_many_attempts"


async def test_updates_go_through_the_declared_transitions_and_are_audited(web: Web) -> None:
    pid = (await enroll(web, ANA, "Ana"))["id"]
    async with web.client() as client:
        paused = await client.patch(f"/api/v1/participants/{pid}", json={"status": "paused", "reason": "holiday"})
        renamed = await client.patch(f"/api/v1/participants/{pid}",
                                     json={"name": "Ana M.", "timezone": "Europe/Berlin"})
        resumed = await client.patch(f"/api/v1/participants/{pid}", json={"status": "active"})
        nothing = await client.patch(f"/api/v1/participants/{pid}", json={})
        unknown_field = await client.patch(f"/api/v1/participants/{pid}", json={"phone": BEN})
    assert paused.json()["status"] == "paused" and paused.json()["researcher_paused"] is True
    assert renamed.json()["name"] == "Ana M." and renamed.json()["timezone"] == "Europe/Berlin"
    assert resumed.json()["status"] == "active"
    assert nothing.status_code == 422 and "nothing to change" in error(nothing)["message"]
    assert unknown_field.status_code == 422
    entries = await web.app.db.run(lambda s: audit_entries(s, participant_id=pid))
    assert [(e.action, e.actor) for e in reversed(entries)] == [
        ("enroll", "researcher-token"), ("update", "researcher-token"), ("update", "researcher-token"),
        ("update", "researcher-token")]
    consent = await admin.show(web.app.db, pid)
    assert consent.status == "active"


async def test_withdraw_then_nothing_more_is_sent(web: Web) -> None:
    pid = (await enroll(web, ANA, "Ana"))["id"]
    async with web.client() as client:
        withdrawn = await client.post(f"/api/v1/participants/{pid}/withdraw", json={"reason": "moved away"})
        message = await client.post(f"/api/v1/participants/{pid}/messages", json={"text": "are you there?"})
        prompt = await client.post(f"/api/v1/participants/{pid}/prompt-now")
    assert withdrawn.json()["status"] == "withdrawn"
    assert (message.status_code, error(message)["code"]) == (409, "refused")
    assert prompt.status_code == 409


async def test_a_researchers_message_is_sent_through_the_outbox(web: Web, fake: FakeOpenAIServer) -> None:
    pid = await greeted(web, fake, ANA, "Ana")
    async with web.client() as client:
        queued = await client.post(f"/api/v1/participants/{pid}/messages",
                                   json={"text": "The team here: your study call is on Friday."})
        assert queued.status_code == 202
        assert "The team here" not in web.app.transport.texts_to(ANA)  # type: ignore[attr-defined]
        await web.app.run_until_idle()
        transcript = (await client.get(f"/api/v1/participants/{pid}/transcript")).json()
    assert web.app.transport.texts_to(ANA)[-1] == "The team here: your study call is on Friday."  # type: ignore
    newest = transcript["items"][0]
    assert newest["kind"] == "researcher" and newest["text"].startswith("The team here")
    assert newest["direction"] == "out" and newest["status"] == "sent"


async def test_transcript_pages_go_back_in_time(web: Web, fake: FakeOpenAIServer) -> None:
    pid = await greeted(web, fake, ANA, "Ana")
    for word in ("one", "two", "three"):
        fake.say(f"got {word}")
        await web.app.transport.inject(ANA, word)  # type: ignore[attr-defined]
        await web.app.run_until_idle()
    async with web.client() as client:
        first = (await client.get(f"/api/v1/participants/{pid}/transcript", params={"limit": 3})).json()
        second = (await client.get(f"/api/v1/participants/{pid}/transcript",
                                   params={"limit": 3, "before_id": first["next_before_id"]})).json()
    texts = [item["text"] for item in first["items"] + second["items"]]
    assert texts == ["got three", "three", "got two", "two", "got one", "one"]
    assert second["next_before_id"] is not None


async def test_the_transcript_of_nobody_is_a_404_and_by_phone_says_who_is_not_enrolled(web: Web) -> None:
    await enroll(web, ANA, "Ana")
    async with web.client() as client:
        missing = await client.get("/api/v1/participants/p_0123456789abcdef/transcript")
    assert missing.status_code == 404
    assert error(missing)["message"] == "no participant has the id p_0123456789abcdef"
    with pytest.raises(NotFound, match=r"\+14165550102 is not enrolled"):
        await admin.transcript(web.app.db, BEN)
    assert [row.direction for row in await admin.transcript(web.app.db, ANA)] == []  # Ana is there, not yet greeted


async def test_broadcast_counts_first_and_skips_who_said_stop(web: Web, fake: FakeOpenAIServer) -> None:
    await greeted(web, fake, ANA, "Ana")
    await greeted(web, fake, BEN, "Ben")
    await web.app.transport.inject(BEN, "STOP")  # type: ignore[attr-defined]
    await web.app.run_until_idle()
    body = {"text": "Reminder: the study survey closes tonight."}
    async with web.client() as client:
        count = (await client.post("/api/v1/broadcast", json={**body, "dry_run": True, "status": None})).json()
        unconfirmed = await client.post("/api/v1/broadcast", json={**body, "status": None})
        stale = await client.post("/api/v1/broadcast", json={**body, "status": None, "expected_count": 5})
        sent = await client.post("/api/v1/broadcast", json={**body, "status": None, "expected_count": 2})
    assert count == {"recipients": 2, "dry_run": True, "broadcast_id": None, "queued": 0, "skipped": 0}
    assert unconfirmed.status_code == 422 and "expected_count" in error(unconfirmed)["message"]
    assert stale.status_code == 409
    assert sent.json()["queued"] == 1 and sent.json()["skipped"] == 1
    await web.app.run_until_idle()
    assert web.app.transport.texts_to(ANA)[-1] == body["text"]  # type: ignore[attr-defined]
    assert body["text"] not in web.app.transport.texts_to(BEN)  # type: ignore[attr-defined]


async def test_prompt_now_schedules_timers_and_deliveries(web: Web, fake: FakeOpenAIServer) -> None:
    from tests.schedule_helpers import PROFILE

    row = await enroll(web, ANA, "Ana")
    fake.call_tool("save_user_profile", PROFILE, match="Participant: Ana")
    fake.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"},
                   match="Participant: Ana")
    fake.say("Welcome Ana!", match="Participant: Ana")
    await web.app.run_until_idle()
    pid = row["id"]
    fake.say("Time to stretch by the kettle.", match="scheduled daily nudge")
    async with web.client() as client:
        queued = await client.post(f"/api/v1/participants/{pid}/prompt-now")
        await web.app.run_until_idle()
        schedules = (await client.get(f"/api/v1/participants/{pid}/schedules")).json()
        timers = (await client.get(f"/api/v1/participants/{pid}/timers")).json()
        deliveries = (await client.get(f"/api/v1/participants/{pid}/deliveries")).json()
        day = deliveries[0]["local_date"]
        stats = (await client.get("/api/v1/stats", params={"from": day, "to": day})).json()
    async with web.client("viewer") as client:
        viewer_deliveries = (await client.get(f"/api/v1/participants/{pid}/deliveries")).json()
    assert queued.status_code == 202
    assert [s["habit"] for s in schedules["schedules"]] and schedules["schedules"][0]["armed"] in (True, False)
    assert isinstance(timers["timers"], list)
    assert len(deliveries) == 1 and deliveries[0]["prompt_text"] == "Time to stretch by the kettle."
    assert deliveries[0]["outcome"] == "no_reply"
    assert viewer_deliveries[0]["prompt_text"] is None
    assert stats["days"] == [{"date": day, "arm": None, "sent": 1, "delivered": 0, "read": 0, "answered": 0,
                              "done": 0}]
    assert stats["from"] == day
    prompt_id = next(m.message_id for m in web.app.transport.sent  # type: ignore[attr-defined]
                     if m.text == "Time to stretch by the kettle.")
    await web.app.record_receipt(DeliveryReceipt((prompt_id,), "read", web.app.clock.now()))
    async with web.client() as client:
        after = (await client.get("/api/v1/stats", params={"from": day, "to": day})).json()
        received = (await client.get(f"/api/v1/participants/{pid}/deliveries")).json()
    assert (after["days"][0]["delivered"], after["days"][0]["read"]) == (1, 1)  # read implies delivered
    assert after["arms"] == {"-": {"sent": 1, "delivered": 1, "read": 1, "answered": 0, "done": 0}}
    assert received[0]["read_at"] is not None and received[0]["delivered_at"] is not None


async def test_erase_needs_the_id_repeated(web: Web) -> None:
    pid = (await enroll(web, ANA, "Ana"))["id"]
    async with web.client() as client:
        unconfirmed = await client.delete(f"/api/v1/participants/{pid}", params={"confirm": "yes"})
        someone_else = await client.delete(f"/api/v1/participants/{pid}", params={"confirm": "p_0123456789abcdef"})
        erased = await client.delete(f"/api/v1/participants/{pid}", params={"confirm": pid})
        after = (await client.get(f"/api/v1/participants/{pid}")).json()
    assert unconfirmed.status_code == 422 and someone_else.status_code == 409
    assert erased.status_code == 200 and erased.json()["participant_id"] == pid
    assert after["phone"] != ANA and after["name"] != "Ana"


async def test_export_is_a_zip_of_the_analysis_files(web: Web) -> None:
    await enroll(web, ANA, "Ana")
    async with web.client() as client:
        response = await client.get("/api/v1/export")
        keyed = await client.get("/api/v1/export", params={"include_identifiers": "true", "format": "jsonl"})
        bad = await client.get("/api/v1/export", params={"format": "xlsx"})
    assert response.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert {"participants.csv", "messages.csv", "decisions.csv", "codebook.csv", "study.json"} <= set(names)
    assert "identifiers.csv" not in names
    assert ANA.encode() not in zipfile.ZipFile(io.BytesIO(response.content)).read("participants.csv")
    assert "identifiers.jsonl" in zipfile.ZipFile(io.BytesIO(keyed.content)).namelist()
    assert bad.status_code == 422


async def test_service_status_and_flags(web: Web) -> None:
    async with web.client("viewer") as client:
        status = await client.get("/api/v1/status")
    async with web.client() as client:
        flags = await client.get("/api/v1/flags")
        missing = await client.post("/api/v1/flags/99/resolve", json={"note": "called"})
    assert status.status_code == 200 and status.json()["outbox_backlog"] == 0
    assert status.json()["summary"][0].startswith("whatsapp:")
    assert flags.json() == [] and missing.status_code == 404


@SQLITE_ONLY
async def test_the_openapi_schema_lists_every_route(web: Web) -> None:
    site = web.server.site
    assert site is not None
    schema = site.openapi()
    routes = {(path, method.lower()) for path, methods, shown in api_routes(site) if shown for method in methods}
    assert len(routes) >= 20
    documented = {(path, method) for path, ops in schema["paths"].items() for method in ops}
    assert routes == documented
    assert "/health" in schema["paths"] and "/api/v1/participants/{participant_id}/transcript" in schema["paths"]


@pytest.fixture
def fake(fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    return fake_openai


async def test_a_flag_is_listed_and_resolved_with_a_note(web: Web, fake: FakeOpenAIServer) -> None:
    pid = await greeted(web, fake, ANA, "Ana")
    fake.say("I'm really glad you told me.", match="hurt myself")
    await web.app.transport.inject(ANA, "some nights I want to hurt myself")  # type: ignore[attr-defined]
    await web.app.run_until_idle()
    async with web.client() as client:
        [flag] = (await client.get("/api/v1/flags")).json()
        resolved = await client.post(f"/api/v1/flags/{flag['id']}/resolve", json={"note": "called her, she is safe"})
        again = await client.post(f"/api/v1/flags/{flag['id']}/resolve", json={"note": "twice"})
        open_flags = (await client.get("/api/v1/flags")).json()
        every_flag = (await client.get("/api/v1/flags", params={"all": "true"})).json()
    assert flag["participant_id"] == pid and flag["severity"] == "high" and "phone" not in flag
    assert resolved.status_code == 200 and "resolved by researcher-token" in resolved.json()["message"]
    assert again.status_code == 409
    assert open_flags == [] and every_flag[0]["resolved_by"] == "researcher-token"
    named = await web.app.db.run(lambda s: [e.participant_id for e in audit_entries(s, action="resolve_flag")])
    assert named == [pid]  # the audit entry names whose flag it was


async def test_the_consent_ledger_names_the_token(web: Web) -> None:
    pid = (await enroll(web, ANA, "Ana"))["id"]
    async with web.client() as client:
        await client.patch(f"/api/v1/participants/{pid}", json={"status": "paused", "reason": "holiday"})
        ledger = (await client.get(f"/api/v1/participants/{pid}/consent")).json()
    async with web.client("viewer") as client:
        refused = await client.get(f"/api/v1/participants/{pid}/consent")
    assert [(e["event"], e["actor"]) for e in ledger["events"]] == [
        ("enrolled", "researcher-token"), ("paused", "researcher-token")]
    assert ledger["events"][1]["words"] == "holiday" and refused.status_code == 403


@SQLITE_ONLY
async def test_many_guesses_at_once_cannot_overrun_the_limit(web: Web) -> None:
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": "Bearer pp_guess"},
                                 limits=httpx.Limits(max_connections=200)) as client:
        answers = await asyncio.gather(*(client.get("/api/v1/participants") for _ in range(200)))
    codes = [answer.status_code for answer in answers]
    assert codes.count(401) == 10 and codes.count(429) == 190  # ten guesses checked, whatever the timing


@SQLITE_ONLY
async def test_many_requests_at_once_with_a_good_token_are_all_answered(web: Web) -> None:
    """Requests still being checked count against the limit only until they are settled: a good
    token sent 60 times at once (a dashboard, a script, a slow server) is never turned away."""
    async with web.client(limits=httpx.Limits(max_connections=60)) as client:
        answers = await asyncio.gather(*(client.get("/api/v1/status") for _ in range(60)))
    assert [answer.status_code for answer in answers] == [200] * 60
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": "Bearer pp_guess"}) as client:
        assert (await client.get("/api/v1/status")).status_code == 401  # and nothing was counted against it


@SQLITE_ONLY
async def test_a_forwarded_for_header_neither_escapes_nor_moves_the_limit(web: Web) -> None:
    """No proxy is configured, so X-Forwarded-For is the caller's say-so: it neither gives a
    blocked address fresh tries nor lets a caller lock someone else's address out."""
    async with httpx.AsyncClient(base_url=web.url, headers={"Authorization": "Bearer pp_guess"}) as client:
        codes = [(await client.get("/api/v1/participants", headers={"X-Forwarded-For": f"203.0.113.{n}"})).status_code
                 for n in range(11)]
    assert codes == [401] * 10 + [429]
    async with web.client() as client:
        spoofed = await client.get("/api/v1/participants", headers={"X-Forwarded-For": "198.51.100.7"})
    assert spoofed.status_code == 429  # the real address (127.0.0.1) is the one blocked


@SQLITE_ONLY
async def test_without_a_token_nothing_is_read_or_described(web: Web) -> None:
    """The schema, and a body that does not validate, are answered 401 to a caller without a
    valid token: they learn nothing of the API's shape before they sign in."""
    async with httpx.AsyncClient(base_url=web.url) as client:
        schema = await client.get("/openapi.json")
        invalid = await client.post("/api/v1/participants", json={"phone": 12})
        garbage = await client.post("/api/v1/participants", content=b"{not json",
                                    headers={"Content-Type": "application/json"})
    assert [schema.status_code, invalid.status_code, garbage.status_code] == [401, 401, 401]
    assert "paths" not in schema.text and "phone" not in invalid.text
    async with web.client("viewer") as client:
        assert "paths" in (await client.get("/openapi.json")).json()


@SQLITE_ONLY
async def test_a_body_over_the_limit_is_refused_before_it_is_read(web: Web) -> None:
    huge = b"x" * (web.app.settings.web_max_body_bytes + 1)
    async with web.client("researcher") as client:
        declared = await client.post("/api/v1/participants", content=huge, headers={"Content-Type": "application/json"})

        async def chunks():  # type: ignore[no-untyped-def]
            for start in range(0, len(huge), 65536):
                yield huge[start:start + 65536]

        streamed = await client.post("/api/v1/participants", content=chunks(),
                                     headers={"Content-Type": "application/json"})
    assert (declared.status_code, streamed.status_code) == (413, 413)
    assert error(declared)["code"] == "too_large"


BIG = "99999999999999999999"


async def test_numbers_too_large_for_the_database_are_a_clear_400(web: Web) -> None:
    async with web.client("researcher") as client:
        answers = [
            await client.get(f"/api/v1/participants?offset={BIG}"),
            await client.get(f"/api/v1/participants?silent_days=-{BIG}"),
            await client.post(f"/api/v1/flags/{BIG}/resolve", json={"note": "checked"}),
            await client.get(f"/api/v1/participants/p_0123456789abcdef/transcript?before_id={BIG}"),
        ]
    assert [answer.status_code for answer in answers] == [400] * 4, [a.text for a in answers]
    assert all(error(answer)["code"] == "invalid_request" and "too large" in error(answer)["message"]
               for answer in answers)


async def test_a_large_number_in_a_query_parameter_the_api_does_not_take_is_ignored(web: Web) -> None:
    """Found by schemathesis: an unknown parameter is ignored like any other, whatever its value (a 400 for it
    was an answer the schema does not list)."""
    async with web.client("researcher") as client:
        answer = await client.get(f"/api/v1/attention?unknown={BIG}")
    assert answer.status_code == 200, answer.text


async def test_no_viewer_response_carries_a_phone_a_name_or_a_participants_words(
    web: Web, fake: FakeOpenAIServer
) -> None:
    """Every GET route of the API, called as a viewer (the list is read from the app, so a new
    route is checked too), after the participant wrote, the model set a timer with a reason that
    quotes them, and a provider's error quoted them."""
    from promptpipe.storage.queue_tables import Timer
    from promptpipe.storage.service_status import LAST_MODEL_ERROR, save_status

    pid = await greeted(web, fake, ANA, "Ana")
    fake.say("Noted.")
    await web.app.transport.inject(ANA, "my tortoise Rosalind hates rain")  # type: ignore[attr-defined]
    await web.app.run_until_idle()
    now = web.app.clock.now()

    def seed(session: Any) -> None:
        session.add(Timer(participant_id=pid, kind="feedback_check_in", due_at=now + timedelta(hours=2),
                          payload={"note": "ask about the tortoise"},
                          reason="Ana said her tortoise Rosalind hates rain", created_at=now))
        save_status(session, LAST_MODEL_ERROR, {"at": now.isoformat(), "type": "LLMRejected",
                                                "error": "Invalid content: 'my tortoise Rosalind hates rain'"}, now)

    await web.app.db.run(seed)
    secrets_ = [ANA, ANA[1:], "416 555", "Ana", "tortoise", "Rosalind"]
    values = {"participant_id": pid, "flag_id": "1", "name": "viewer-token", "questionnaire_id": "baseline"}
    required = {"q": ANA[-7:]}  # a required query parameter's value (her number's last digits: echoed back, not secret)
    async with web.client("viewer") as client:
        routes = [(path, methods["get"]) for path, methods in web.server.site.openapi()["paths"].items()  # type: ignore[union-attr]
                  if "get" in methods and path.startswith("/api/")]
        assert len(routes) >= 10
        for route, operation in routes:
            path = route.format(**values)
            query = {p["name"]: required[p["name"]] for p in operation.get("parameters", [])
                     if p["in"] == "query" and p.get("required")}
            answer = await client.get(path, params=query)
            # this study declares no questionnaire: one by id is not found (a viewer's view of one is tested
            # in test_questionnaire_responses.py)
            found = (200, 403, 404) if "{questionnaire_id}" in route else (200, 403)
            assert answer.status_code in found, (path, answer.status_code)
            body = answer.text if answer.headers.get("content-type", "").startswith(("application/json", "text")) \
                else ""
            for secret in secrets_:
                assert secret not in body, (path, secret)


async def test_a_viewer_cannot_sort_by_what_they_cannot_see(web: Web, fake: FakeOpenAIServer) -> None:
    """Sorting by name would tell a viewer the names' alphabetical order, one id at a time."""
    await greeted(web, fake, ANA, "Ana")
    async with web.client("viewer") as client:
        by_name = await client.get("/api/v1/participants", params={"sort": "-name"})
        by_status = await client.get("/api/v1/participants", params={"sort": "status"})
    assert (by_name.status_code, by_status.status_code) == (403, 200)
    assert "name" in error(by_name)["message"] and "researcher" in error(by_name)["message"]
    async with web.client("researcher") as client:
        assert (await client.get("/api/v1/participants", params={"sort": "-name"})).status_code == 200


@SQLITE_ONLY
async def test_a_download_a_kill_interrupted_is_cleaned_up_by_the_next_one(web: Web) -> None:
    """The zip is built in the state directory, not /tmp; what a killed service left there (an
    hour or more old) goes with the next download."""
    import os
    import time

    scratch = web.app.settings.state_dir / "exports"
    scratch.mkdir(mode=0o700, parents=True, exist_ok=True)
    left = scratch / "promptpipe-export-killed"
    (left / "export").mkdir(parents=True)
    (left / "export" / "messages.csv").write_text("half a row,")
    old = time.time() - 2 * 3600
    os.utime(left, (old, old))
    async with web.client("researcher") as client:
        answer = await client.get("/api/v1/export")
    assert answer.status_code == 200
    assert not left.exists()
    from tests.pipeline.test_lanes import until

    await until(lambda: list(scratch.iterdir()) == [], "this download's own files to go once it was sent")


async def test_an_enrolment_under_another_protocol_than_the_databases_is_refused_in_words(
    make_app: Any, fake: FakeOpenAIServer,
) -> None:
    """`promptpipe web` started with a study file the database does not run (it was edited, or
    another one) refuses what would change the study, as the admin script does: a 409 that names
    the study, never a 500."""
    from promptpipe.config import load_settings
    from tests.study.test_protocol import TWO_ARMS
    from tests.study_helpers import with_study

    app = await make_app(**with_study(TWO_ARMS))
    other = load_settings({**app.settings.extra, **with_study(TWO_ARMS.replace("ratio = 2", "ratio = 1"))},
                          env_file=None)
    async with serving(app, ("researcher",), settings=other) as web, web.client("researcher") as client:
        answer = await client.post("/api/v1/participants", json={
            "phone": ANA, "name": "Ana", "timezone": "America/Toronto", "strata": {"site": "toronto"}})
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"]["code"] == "refused" and "Walking pilot" in answer.json()["error"]["message"]
    assert await admin.list_participants(app.db) == []


async def test_every_operation_with_an_integer_parameter_lists_the_gate_s_400(web: Web) -> None:
    """The front door answers 400 for an integer too large for the database in any operation that takes one; found by
    schemathesis on ``/attention?silent_days=…``, whose listed answers had no 400."""
    async with web.client("researcher") as client:
        schema = (await client.get("/openapi.json")).json()
    unlisted = [
        f"{method.upper()} {path}" for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if any(parameter.get("schema", {}).get("type") == "integer"
               or any(option.get("type") == "integer" for option in parameter.get("schema", {}).get("anyOf", []))
               for parameter in operation.get("parameters", []))
        and "400" not in operation.get("responses", {})]
    assert unlisted == []
    async with web.client("researcher") as client:
        answer = await client.get(f"/api/v1/attention?silent_days={BIG}")
    assert answer.status_code == 400 and error(answer)["code"] == "invalid_request"
