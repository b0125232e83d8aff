"""Enrolment from the dashboard and the API: one participant through the form (a refused phone
keeps what was typed), many from a CSV file (a preview with each row's problem, nothing written,
then one click), the API's dry run and real run, each enrolment audited; a viewer can do none of
it. One run in Chromium of the CSV preview and the click, with a screenshot."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from sqlalchemy import text

from promptpipe.research import admin
from promptpipe.storage.access import audit_entries
from tests.markers import SQLITE_ONLY
from tests.web.browser import SCREENSHOTS, csrf_of, signed_in
from tests.web.conftest import Web

ANA, BEN, CLEO, DEV = "+14165550131", "+14165550132", "+14165550133", "+14165550134"
BAD_CSV = ("phone,name,timezone,background\n"
           f"{BEN},Ben Adeyemi,America/Toronto,\n"
           "+1 555 0100,Cleo Park,America/Toronto,\n"  # line 3: not a valid number
           f"{BEN},Ben again,Europe/Berlin,\n"  # line 4: line 2's phone
           f"{CLEO},Cleo Park,Mars/Olympus,\n"  # line 5: no such time zone
           f"{ANA},Ana Lindqvist,Europe/Lisbon,\n")  # line 6: enrolled already
CLEAN_CSV = ("phone,name,timezone,background\n"
             f"{BEN},Ben Adeyemi,America/Toronto,\"works nights, sleeps late\"\n"
             f"{CLEO},Cleo Park,Europe/Berlin,\n"
             f"{DEV},Dev Moreau,Asia/Tokyo,\n")
HIDDEN_CSV = re.compile(r'<textarea name="csv" hidden>\n(.*?)</textarea>', re.S)


async def enrolled_phones(web: Web) -> list[str]:
    return sorted(row.phone for row in await admin.list_participants(web.app.db))


async def enrolments_audited(web: Web) -> list[tuple[str, str]]:
    """(actor, via) of each enrolment in the audit log, oldest first."""
    rows = await web.app.db.run(lambda s: [(e.actor, e.via) for e in audit_entries(s, action="enroll")])
    return rows[::-1]


def row_check(page: str, line: int) -> str:
    found = re.search(rf'<tr data-line="{line}"[^>]*>(.*?)</tr>', page, re.S)
    assert found, line
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(1)))


@SQLITE_ONLY
async def test_one_participant_is_enrolled_through_the_form(web: Web) -> None:
    async with signed_in(web, "researcher") as client:
        listing = (await client.get("/participants")).text
        assert 'href="/participants/new"' in listing and 'href="/participants/import"' in listing
        form = await client.get("/participants/new")
        assert form.status_code == 200
        typed = {"csrf": csrf_of(form.text), "phone": "+1 555 0100", "name": "Ana Lindqvist",
                 "timezone": "Europe/Lisbon", "background": "prefers evenings"}
        refused = await client.post("/participants/new", data=typed)
        assert refused.status_code == 400
        assert "&#39;+1 555 0100&#39; is not a valid number for its country code" in refused.text
        assert 'value="Ana Lindqvist"' in refused.text and 'value="Europe/Lisbon"' in refused.text
        assert ">prefers evenings</textarea>" in refused.text and 'aria-describedby="phone-problem"' in refused.text
        assert await enrolled_phones(web) == []

        done = await client.post("/participants/new", data={**typed, "phone": ANA})
        assert done.status_code == 303 and done.headers["location"].startswith("/participants/new?enrolled=p_")
        shown = (await client.get(done.headers["location"])).text
        assert "Enrolled Ana Lindqvist (+14165550131) as" in shown
        assert "Ana Lindqvist" in (await client.get("/participants")).text

        again = await client.post("/participants/new", data={**typed, "phone": ANA, "name": "Ana L."})
        assert again.status_code == 409 and "is already enrolled as p_" in again.text
        assert 'value="Ana L."' in again.text
    assert await enrolled_phones(web) == [ANA]
    assert await enrolments_audited(web) == [("researcher-token", "dashboard")]

    async with signed_in(web, "viewer") as client:
        assert 'href="/participants/new"' not in (await client.get("/participants")).text
        for path in ("/participants/new", "/participants/import"):
            page = await client.get(path)
            assert page.status_code == 403 and "Only researchers and admins enrol participants" in page.text
        token = csrf_of((await client.get("/")).text)
        posted = await client.post("/participants/import", data={"csrf": token, "csv": CLEAN_CSV, "step": "enrol"})
        assert posted.status_code == 403
    async with web.client("viewer") as api:
        answer = await api.post("/api/v1/participants/import", json={"csv": CLEAN_CSV, "dry_run": False})
        assert answer.status_code == 403
    assert await enrolled_phones(web) == [ANA]


@SQLITE_ONLY
async def test_a_csv_file_is_previewed_with_each_problem_then_enrolled_with_one_click(web: Web) -> None:
    await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name="Ana Lindqvist",
                                                                  timezone="Europe/Lisbon"))
    async with signed_in(web, "researcher") as client:
        form = await client.get("/participants/import")
        csrf = csrf_of(form.text)
        preview = await client.post("/participants/import", data={"csrf": csrf, "step": "check"},
                                    files={"file": ("people.csv", BAD_CSV.encode(), "text/csv")})
        assert preview.status_code == 200 and "Nothing was written" in preview.text
        assert "ready" in row_check(preview.text, 2)
        assert "&#39;+1 555 0100&#39; is not a valid number" in preview.text
        assert f"phone: {BEN} is on line 2 too" in row_check(preview.text, 4)
        assert "timezone: 'Mars/Olympus' is not an IANA time zone" in row_check(preview.text, 5)
        assert f"phone: {ANA} is already enrolled as p_" in row_check(preview.text, 6)
        assert "Enrol " not in preview.text.split("</h1>", 1)[1].split("<table")[0]  # no button to enrol
        assert 'name="step" value="enrol"' not in preview.text
        forced = await client.post("/participants/import", data={"csrf": csrf, "step": "enrol", "csv": BAD_CSV})
        assert forced.status_code == 409 and "Nothing was enrolled" in forced.text
        assert await enrolled_phones(web) == [ANA]

        pasted = await client.post("/participants/import", data={"csrf": csrf, "step": "check", "csv": CLEAN_CSV})
        assert all("ready" in row_check(pasted.text, line) for line in (2, 3, 4))
        assert "Enrol 3 participants</button>" in pasted.text
        assert await enrolled_phones(web) == [ANA]
        hidden = HIDDEN_CSV.search(pasted.text)
        assert hidden
        done = await client.post("/participants/import", data={"csrf": csrf, "step": "enrol",
                                                               "csv": html.unescape(hidden.group(1))})
        assert done.status_code == 200 and "Enrolled 3 participants" in done.text
        ids = re.findall(r'href="/participants/(p_[0-9a-f]{16})"', done.text)
        assert len(set(ids)) == 3
    assert await enrolled_phones(web) == [ANA, BEN, CLEO, DEV]
    ben = await admin.show(web.app.db, BEN)
    assert (ben.name, ben.timezone, ben.background) == ("Ben Adeyemi", "America/Toronto", "works nights, sleeps late")
    assert await enrolments_audited(web) == [("researcher-token", "dashboard")] * 3


async def test_the_api_checks_a_file_first_and_enrols_it_only_when_every_row_is_ready(web: Web) -> None:
    await admin.enroll(web.app.db, web.app.clock, admin.Enrolment(phone=ANA, name="Ana Lindqvist",
                                                                  timezone="Europe/Lisbon"))
    async with web.client("researcher") as api:
        dry = await api.post("/api/v1/participants/import", json={"csv": BAD_CSV, "dry_run": True})
        assert dry.status_code == 200
        body = dry.json()
        assert (body["total"], body["ready"], body["with_problems"], body["enrolled"]) == (5, 1, 4, 0)
        assert [(row["line"], row["problem"] is None) for row in body["rows"]] == [
            (2, True), (3, False), (4, False), (5, False), (6, False)]
        refused = await api.post("/api/v1/participants/import", json={"csv": BAD_CSV, "dry_run": False})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "refused"
        assert refused.json()["error"]["message"].startswith(
            "nothing was enrolled: line 3: phone: '+1 555 0100' is not a valid number")
        other = await api.get("/api/v1/participants/import")  # not a participant's id
        assert other.status_code == 405 and other.headers["allow"] == "POST"
        header = await api.post("/api/v1/participants/import", json={"csv": "phone,email\n", "dry_run": True})
        assert header.status_code == 200 and header.json()["problem"].startswith("line 1: the header names a column")
        assert await enrolled_phones(web) == [ANA]

        real = await api.post("/api/v1/participants/import", json={"csv": CLEAN_CSV, "dry_run": False})
        assert real.status_code == 200, real.text
        rows = real.json()["rows"]
        assert real.json()["enrolled"] == 3 and all(row["participant_id"].startswith("p_") for row in rows)
        assert [row["phone"] for row in rows] == [BEN, CLEO, DEV]
        again = await api.post("/api/v1/participants/import", json={"csv": CLEAN_CSV, "dry_run": True})
        assert again.json()["with_problems"] == 3 and "already enrolled" in again.json()["rows"][0]["problem"]
    assert await enrolled_phones(web) == [ANA, BEN, CLEO, DEV]
    assert await enrolments_audited(web) == [("researcher-token", "api")] * 3


@SQLITE_ONLY
@pytest.mark.xdist_group("browser")
async def test_in_a_browser_a_file_is_checked_then_enrolled(web: Web, page: Any, tmp_path: Any) -> None:
    from playwright.async_api import expect

    people = tmp_path / "people.csv"
    people.write_text(CLEAN_CSV.replace(DEV, "+1 555 0100"), encoding="utf-8")
    await page.goto(web.url + "/participants/import")
    await page.get_by_label("Token").fill(web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_label("CSV file").set_input_files(str(people))
    await page.get_by_role("button", name="Check the file").click()
    await expect(page.locator('tr[data-line="4"]')).to_contain_text("is not a valid number for its country code")
    await expect(page.get_by_role("alert")).to_contain_text("Nothing was written")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "enrol-csv-problem.png"), full_page=True)

    await page.get_by_label("or paste its text").fill(CLEAN_CSV)
    await page.get_by_role("button", name="Check the file").click()
    await expect(page.locator("tr.row-ready")).to_have_count(3)
    await page.screenshot(path=str(SCREENSHOTS / "enrol-csv-preview.png"), full_page=True)
    assert await enrolled_phones(web) == []
    await page.get_by_role("button", name="Enrol 3 participants").click()
    await expect(page.get_by_role("status")).to_contain_text("Enrolled 3 participants")
    await expect(page.locator("table.import-rows a.pid")).to_have_count(3)
    await page.screenshot(path=str(SCREENSHOTS / "enrol-csv-done.png"), full_page=True)
    assert await enrolled_phones(web) == [BEN, CLEO, DEV]


async def test_the_dashboard_says_why_a_number_that_stopped_before_an_erasure_is_enrolled_opted_out(
    web: Web,
) -> None:
    """Issue 46, 6: the team sees why nobody will be greeted."""
    from promptpipe.research import erasure

    app = web.app
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana Lindqvist", timezone="Europe/Lisbon"))
    await app.db.run(lambda session: session.execute(
        text("UPDATE participant SET opted_out = true, status = 'paused', paused_by = 'participant'")))
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)
    async with signed_in(web, "researcher") as client:
        form = await client.get("/participants/new")
        done = await client.post("/participants/new", data={
            "csrf": csrf_of(form.text), "phone": ANA, "name": "Ana L.", "timezone": "Europe/Lisbon", "background": ""})
        shown = html.unescape((await client.get(done.headers["location"])).text)
    assert "sent STOP before their data was erased, so they are enrolled as opted out" in shown
    assert "The service greets them on WhatsApp in a moment" not in shown
