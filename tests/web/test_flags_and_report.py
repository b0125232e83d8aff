"""A safety flag followed up on its own page (the messages around it, resolved with a note, who
and when afterwards, the list's filter), and the study report on the dashboard (its tables and
CSV files agree with ``study_report``, the export as a zip for researchers only), over HTTP as a
browser without scripts uses them, and once in Chromium."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import AsyncIterator
from typing import Any

import pytest

from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, FlagSource, NewFlag, Severity
from promptpipe.research import oversight
from promptpipe.storage.access import audit_entries
from promptpipe.storage.flags import add_flags
from promptpipe.study.report.reading import study_report
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY
from tests.web.browser import (
    BRAM,
    BRAM_NAME,
    BRAM_SAYS,
    SCREENSHOTS,
    ZOFIA,
    ZOFIA_NAME,
    ZOFIA_SAYS,
    Study,
    csrf_of,
    running_study,
    signed_in,
)

SECRETS = (ZOFIA, ZOFIA[1:], BRAM, BRAM[1:], ZOFIA_NAME, BRAM_NAME, ZOFIA_SAYS, BRAM_SAYS, "hurt myself")


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    async with running_study(make_app, fake_openai) as running:
        yield running


async def audited(study: Study, action: str) -> list[tuple[str, str]]:
    rows = await study.web.app.db.run(lambda s: [(e.actor, e.via) for e in audit_entries(s, action=action)])
    return list(rows)


# ------------------------------------------------------------------------------------ a flag's page

@SQLITE_ONLY  # its two reads are plain index range reads; it passed on PostgreSQL when written
async def test_a_flag_page_shows_the_messages_around_it_and_who_resolved_it_when_with_what_note(study: Study) -> None:
    [flag] = await oversight.flags(study.web.app.db)
    async with signed_in(study.web, "researcher") as client:
        listed = await client.get("/flags")
        assert f'href="/flags/{flag.id}"' in listed.text
        page = await client.get(f"/flags/{flag.id}")
        assert page.status_code == 200
        flagged = re.search(r'<li class="msg msg-in msg-flagged"[^>]*aria-current="true">(.*?)</li>', page.text, re.S)
        assert flagged and BRAM_SAYS in flagged.group(1) and "raised the flag" in flagged.group(1)
        before, after = page.text.split(flagged.group(0))
        assert "welcome!" in before  # the greeting, before it
        assert DEFAULT_SAFETY_MESSAGE.replace("'", "&#39;") in after  # the safety message, after it
        assert "No alerts are sent" in page.text and "Raised" in page.text and "hurt myself" in page.text
        assert ZOFIA_SAYS not in page.text  # only this participant's messages

        empty = await client.post(f"/flags/{flag.id}/resolve",
                                  data={"csrf": csrf_of(page.text), "note": "  ", "back": "flag"})
        assert empty.status_code == 400 and "Write a note" in empty.text and BRAM_SAYS in empty.text
        done = await client.post(f"/flags/{flag.id}/resolve",
                                 data={"csrf": csrf_of(page.text), "note": "Called him; he is safe.", "back": "flag"})
        assert done.headers["location"] == f"/flags/{flag.id}?done=resolved"
        resolved = (await client.get(done.headers["location"])).text
        resolution = re.search(r'<dl class="facts" id="resolution">(.*?)</dl>', resolved, re.S)
        assert resolution and "researcher-token" in resolution.group(1)
        assert "Called him; he is safe." in resolution.group(1) and "<time datetime=" in resolution.group(1)
        assert "The flag is resolved." in resolved and f"Resolve flag {flag.id}" not in resolved
        again = await client.post(f"/flags/{flag.id}/resolve",
                                  data={"csrf": csrf_of(page.text), "note": "twice", "back": "flag"})
        assert again.status_code == 409 and "resolved already by researcher-token" in again.text

        shown = {show: (await client.get(f"/flags?show={show}")).text for show in ("open", "resolved", "all")}
        assert "No open flags" in shown["open"] and f'data-flag="{flag.id}"' not in shown["open"]
        for show in ("resolved", "all"):
            assert f'data-flag="{flag.id}" data-status="resolved"' in shown[show]
            assert "Called him; he is safe." in shown[show]
        wrong = await client.get("/flags?show=closed")
        assert wrong.status_code == 400 and "show: choose open, resolved or all." in wrong.text
        assert (await client.get("/flags/99999")).status_code == 404
        assert (await client.get("/flags/abc")).status_code == 404

        # the model's flags name no message: the page marks the last one in before it was raised
        concern = NewFlag(FlagSource.MODEL, Severity.MEDIUM, "sounds low about the stretching")
        [model_flag] = await study.web.app.db.run(lambda s: add_flags(s, study.zofia, [concern],
                                                                      study.web.app.clock.now(), alert=True))
        other = (await client.get(f"/flags/{model_flag}")).text
        marked = re.search(r'<li class="msg msg-in msg-flagged".*?</li>', other, re.S)
        assert marked and ZOFIA_SAYS in marked.group(0) and "The model&#39;s reason" in other
        assert "Alert not delivered yet" in other and BRAM_SAYS not in other
    assert await audited(study, "resolve_flag") == [("researcher-token", "dashboard")]
    named = await study.web.app.db.run(lambda s: [e.participant_id for e in audit_entries(s, action="resolve_flag")])
    assert named == [flag.participant_id]  # the audit entry names whose flag it was

    async with signed_in(study.web, "viewer") as client:
        refused = await client.get(f"/flags/{flag.id}")
        assert refused.status_code == 403 and BRAM_SAYS not in refused.text and "Called him" not in refused.text

    async with study.web.client("researcher") as api, study.web.client("viewer") as viewer:  # the API's twin
        detail = (await api.get(f"/api/v1/flags/{flag.id}")).json()
        assert [m["text"] for m in detail["messages"] if m["flagged"]] == [BRAM_SAYS]
        assert detail["status"] == "resolved" and detail["resolved_by"] == "researcher-token"
        assert "Called him" in detail["note"] and "phone" not in detail
        assert (await api.get("/api/v1/flags/999999")).status_code == 404
        assert (await viewer.get(f"/api/v1/flags/{flag.id}")).status_code == 403


@SQLITE_ONLY
async def test_an_open_flag_shows_on_the_persons_page_for_those_who_may_see_flags(study: Study) -> None:
    [flag] = await oversight.flags(study.web.app.db)
    person = f"/participants/{flag.participant_id}"
    async with signed_in(study.web, "researcher") as client:
        page = (await client.get(person)).text
        shown = re.search(r'<section class="card flags" id="open-flags".*?</section>', page, re.S)
        assert shown and f'href="/flags/{flag.id}"' in shown.group(0) and "high" in shown.group(0)
        await client.post(f"/flags/{flag.id}/resolve", data={"csrf": csrf_of(page), "note": "Called him."})
        assert 'id="open-flags"' not in (await client.get(person)).text  # resolved: no longer open
    await study.web.app.db.run(lambda s: add_flags(s, flag.participant_id, [
        NewFlag(FlagSource.MODEL, Severity.MEDIUM, "sounds low")], study.web.app.clock.now(), alert=False))
    async with signed_in(study.web, "viewer") as client:  # a viewer may not open flags
        assert 'id="open-flags"' not in (await client.get(person)).text


# ------------------------------------------------------------------------------------ the report

def html_table(page: str, key: str) -> list[list[str]]:
    """A report table's body as text cells (percentages and dashes as shown)."""
    found = re.search(rf'<table class="list report-table" id="table-{key}">.*?<tbody>(.*?)</tbody>', page, re.S)
    assert found, key
    rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.S)
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in rows]


def csv_rows(text: str) -> list[dict[str, Any]]:
    return list(csv.DictReader(io.StringIO(text)))


@SQLITE_ONLY
async def test_the_report_page_and_its_csv_files_show_the_study_report_and_researchers_download_the_export(
    study: Study,
) -> None:
    app = study.web.app
    report = await study_report(app.db, app.settings.study, now=app.clock.now())
    async with signed_in(study.web, "researcher") as client:
        page = (await client.get("/report")).text
        assert 'href="/report" aria-current="page"' in page and "Download the export" in page
        prompts = html_table(page, "prompts")
        assert [[row[0], row[1], row[4]] for row in prompts] == [
            [arm, str(p.sent), str(p.answered)] for arm, p in report.prompts.items()]
        by_status = html_table(page, "participants-by-status")
        assert {row[0]: int(row[1]) for row in by_status} == report.participants.by_status
        assert "<svg" in page and "Share of daily prompts answered, by day and arm" in page
        for key in ("adherence", "decisions", "questionnaires"):
            assert f'href="/report/{key}.csv"' in page

        prompts_csv = await client.get("/report/prompts.csv")
        assert prompts_csv.headers["content-type"].startswith("text/csv")
        assert [(row["Arm"], int(row["Sent"]), int(row["Answered"])) for row in csv_rows(prompts_csv.text)] == [
            (arm, p.sent, p.answered) for arm, p in report.prompts.items()]
        days = csv_rows((await client.get("/report/adherence.csv")).text)
        assert sum(int(row["Sent"]) for row in days) == sum(p.sent for p in report.prompts.values()) == 2
        assert [(row["Answered"], row["Done"], row["Answered share"]) for row in days] == [("1", "1", "1.0"),
                                                                                          ("1", "0", "1.0")]
        assert [row[7] for row in html_table(page, "adherence")] == ["100.0%", "100.0%"]
        missing = await client.get("/report/nothing.csv")
        assert missing.status_code == 404 and "adherence" in missing.text

        download = await client.get("/report/export.zip", params={"format": "csv"})
        assert download.status_code == 200 and download.headers["content-type"] == "application/zip"
        assert "attachment" in download.headers["content-disposition"]
        archive = zipfile.ZipFile(io.BytesIO(download.content))
        assert {"participants.csv", "messages.csv", "codebook.csv", "study.json"} <= set(archive.namelist())
        assert "identifiers.csv" not in archive.namelist() and ZOFIA.encode() not in archive.read("participants.csv")
    assert await audited(study, "export") == [("researcher-token", "dashboard")]

    async with signed_in(study.web, "viewer") as client:
        seen = await client.get("/report")
        assert seen.status_code == 200 and html_table(seen.text, "prompts") == prompts
        assert "Download the export" not in seen.text and "/report/export.zip" not in seen.text
        for secret in SECRETS:
            assert secret not in seen.text, secret
        refused = await client.get("/report/export.zip")
        assert refused.status_code == 403 and "for researchers and admins" in refused.text
        assert (await client.get("/report/prompts.csv")).text == prompts_csv.text
    assert len(await audited(study, "export")) == 1

    async with study.web.client("viewer") as api:  # the API's twin: the same tables, counts only
        answer = await api.get("/api/v1/report")
        assert answer.status_code == 200
        tables = {table["key"]: table for table in answer.json()["tables"]}
        assert {"participants-by-status", "prompts", "adherence", "decisions", "questionnaires"} <= set(tables)
        assert [[str(cell) for cell in (row[0], row[1], row[4])] for row in tables["prompts"]["rows"]] == [
            [row[0], row[1], row[4]] for row in prompts]
        for secret in SECRETS:
            assert secret not in answer.text, secret


# ------------------------------------------------------------------------------------ in Chromium

@SQLITE_ONLY
@pytest.mark.xdist_group("browser")
async def test_in_chromium_a_researcher_resolves_a_flag_with_a_note_then_opens_the_report(
    study: Study, page: Any,
) -> None:
    from playwright.async_api import expect
    [flag] = await oversight.flags(study.web.app.db)
    await page.goto(study.web.url + "/flags")
    await page.get_by_label("Token").fill(study.web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("link", name=f"Flag {flag.id}").click()
    await expect(page.locator(".msg-flagged")).to_contain_text(BRAM_SAYS)
    await page.get_by_label("Note on what was done (required)").fill("Called him; he is safe.")
    await page.get_by_role("button", name=f"Resolve flag {flag.id}").click()
    await expect(page.get_by_role("status")).to_have_text("The flag is resolved.")
    await expect(page.locator("#resolution")).to_contain_text("Called him; he is safe.")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "flag-resolved.png"), full_page=True)
    await page.get_by_role("navigation", name="Main").get_by_role("link", name="Report").click()
    await expect(page.get_by_role("heading", name="Study report", exact=True)).to_be_visible()
    await expect(page.locator("#table-prompts")).to_contain_text("default")
    await expect(page.get_by_role("button", name="Download the export")).to_be_visible()
    await page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=True)
