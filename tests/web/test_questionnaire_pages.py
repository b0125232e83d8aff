"""Questionnaires on the dashboard, after four participants met the same questionnaire (see
:func:`tests.web.test_questionnaire_api.questionnaire_met`): the compliance page counts one
completed, one partly answered, one expired and one not sent, with why, for the questionnaire and
for each participant; a participant's page lists their questionnaire with each answer, which a
viewer does not see."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator
from urllib.parse import quote

import httpx
import pytest
from markupsafe import escape

from promptpipe.questionnaires.rules.definition import reason_words
from promptpipe.web.pages.questionnaires import MISSING_WORDS
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.browser import signed_in
from tests.web.conftest import Web
from tests.web.test_questionnaire_api import (
    COMPLETED,
    EXPIRED,
    NAMES,
    NOT_SENT,
    PARTIAL,
    QUESTION,
    WORDS,
    Met,
    every_check,
    questionnaire_met,
)


@pytest.fixture
async def met(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Met]:
    async with questionnaire_met(make_app, fake_openai) as running:
        yield running


def row_of(page: str, table: str, key: str) -> str:
    """The HTML of the row of ``table`` whose data attribute is ``key``."""
    found = re.search(rf'<table class="list" id="{table}">.*?<tr data-[a-z]+="{re.escape(key)}">(.*?)</tr>', page, re.S)
    assert found, (table, key)
    return found.group(1)


def section_of(page: str) -> str:
    """The questionnaires' section of a participant's page (their messages come after it)."""
    return page[page.index('id="questionnaires-title"'):page.index('id="transcript-title"')]


def count(row: str, outcome: str) -> int:
    found = re.search(rf'data-count="{outcome}">(\d+)<', row)
    assert found, outcome
    return int(found.group(1))


async def the_compliance_page_counts_each_outcome_with_why(met: Met) -> None:
    async with signed_in(met.web, "viewer") as client:
        page = await client.get("/questionnaires")
    assert page.status_code == 200
    baseline = row_of(page.text, "by-questionnaire", "baseline")
    assert [count(baseline, outcome) for outcome in ("completed", "partial", "expired", "stopped", "not_sent")] == [
        1, 1, 1, 0, 1]
    assert "33% (1 of 3)" in baseline
    why = {phone: str(escape(reason_words(reason))) for phone, reason in met.reasons.items()}  # as HTML shows it
    assert f"expired: {why[EXPIRED]} (1)" in baseline and f"partly answered: {why[PARTIAL]} (1)" in baseline
    assert f"not sent: {why[NOT_SENT]} (1)" in baseline
    assert '<a href="/questionnaires" aria-current="page">Questionnaires</a>' in page.text


async def each_participant_has_a_row_with_their_own_outcome(met: Met) -> None:
    async with signed_in(met.web, "researcher") as client:
        page = (await client.get("/questionnaires")).text
    expected = {COMPLETED: ("completed", "100% (1 of 1)"), EXPIRED: ("expired", "0% (0 of 1)"),
                PARTIAL: ("partial", "0% (0 of 1)"), NOT_SENT: ("not_sent", "none sent yet")}
    for phone, (outcome, completion) in expected.items():
        row = row_of(page, "by-participant", met.ids[phone])
        assert count(row, outcome) == 1 and completion in row, phone
        assert f'href="/participants/{met.ids[phone]}"' in row
    for phone in (EXPIRED, PARTIAL, NOT_SENT):
        assert str(escape(reason_words(met.reasons[phone]))) in row_of(page, "by-participant", met.ids[phone])
    assert "Participants 1–4 of 4" in page


async def the_participant_page_shows_each_answer_to_researchers(met: Met) -> None:
    async with signed_in(met.web, "researcher") as client:
        completed = (await client.get(f"/participants/{met.ids[COMPLETED]}")).text
        partial = (await client.get(f"/participants/{met.ids[PARTIAL]}")).text
        not_sent = (await client.get(f"/participants/{met.ids[NOT_SENT]}")).text
    section = section_of(completed)
    assert "Baseline" in section and "at enrolment" in section and "outcome-completed" in section
    assert QUESTION in section and "Yes (code 1)" in section and "tapped" in section
    assert WORDS in section and "typed" in section
    partial_section = section_of(partial)
    assert "outcome-partial" in partial_section and "No (code 0)" in partial_section
    shown = {phone: str(escape(reason_words(met.reasons[phone]))) for phone in (PARTIAL, NOT_SENT)}
    assert MISSING_WORDS["expired"] in partial_section and shown[PARTIAL] in partial_section
    assert "outcome-not_sent" in section_of(not_sent) and shown[NOT_SENT] in section_of(not_sent)


async def a_viewer_sees_how_far_it_got_but_no_answer_phone_or_name(met: Met) -> None:
    async with signed_in(met.web, "viewer") as client:
        pages = [await client.get("/questionnaires"), await client.get(f"/participants/{met.ids[COMPLETED]}"),
                 await client.get(f"/participants/{met.ids[PARTIAL]}"),
                 await client.get(f"/participants/{met.ids[NOT_SENT]}")]
    for page in pages:
        assert page.status_code == 200
        for secret in (WORDS, "Theodora", "Yes (code 1)", "No (code 0)", "travelling", *NAMES,
                       *(phone[1:] for phone in NAMES), *NAMES.values()):
            assert secret not in page.text, (str(page.url), secret)
    completed = section_of(pages[1].text)
    assert completed.count("hidden for viewers") == 2 and "outcome-completed" in completed and QUESTION in completed
    assert MISSING_WORDS["expired"] in section_of(pages[2].text)  # why an item has no answer is no answer


async def the_responses_page_lists_completed_first_and_never_sent_last(met: Met) -> None:
    async with signed_in(met.web, "researcher") as client:
        overview = (await client.get("/questionnaires")).text
        page = await client.get("/questionnaires/baseline")
    assert 'href="/questionnaires/baseline"' in row_of(overview, "by-questionnaire", "baseline")
    assert page.status_code == 200
    order = re.findall(r"<tr data-participant=\"(p_[0-9a-f]+)\"", page.text)
    assert order == [met.ids[phone] for phone in (COMPLETED, PARTIAL, EXPIRED, NOT_SENT)]
    completed = row_of(page.text, "responses", met.ids[COMPLETED])
    assert "Yes (code 1)" in completed and WORDS in completed
    assert 'href="/questionnaires/baseline/responses.csv"' in page.text


async def the_responses_csv_has_one_row_per_sending_with_each_answer(met: Met) -> None:
    async with signed_in(met.web, "researcher") as client:
        download = await client.get("/questionnaires/baseline/responses.csv")
    assert download.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert [row["participant_id"] for row in rows] == [met.ids[p] for p in (COMPLETED, PARTIAL, EXPIRED, NOT_SENT)]
    assert [row["outcome"] for row in rows] == ["completed", "partial", "expired", "not_sent"]
    assert (rows[0]["slept_well"], rows[0]["note_text"]) == ("1", WORDS)
    assert (rows[1]["slept_well"], rows[1]["note"]) == ("0", "expired")
    assert rows[3]["reason"] == met.reasons[NOT_SENT]
    assert not any(name in download.text for name in NAMES.values())


async def a_viewer_reads_responses_without_answers_and_gets_no_csv(met: Met) -> None:
    async with signed_in(met.web, "viewer") as client:
        page = await client.get("/questionnaires/baseline")
        download = await client.get("/questionnaires/baseline/responses.csv")
    assert page.status_code == 200 and "hidden for viewers" in page.text
    assert WORDS not in page.text and "Yes (code 1)" not in page.text
    assert download.status_code == 403


async def without_a_session_the_pages_lead_to_sign_in(met: Met) -> None:
    async with httpx.AsyncClient(base_url=met.web.url) as client:
        for path in ("/questionnaires", f"/participants/{met.ids[COMPLETED]}"):
            answer = await client.get(path)
            assert (answer.status_code, answer.headers["location"]) == (303, "/login?next=" + quote(path, safe=""))


async def test_the_pages_after_four_participants_met_the_questionnaire(met: Met) -> None:
    await every_check(met, [the_compliance_page_counts_each_outcome_with_why,
                            each_participant_has_a_row_with_their_own_outcome,
                            the_participant_page_shows_each_answer_to_researchers,
                            a_viewer_sees_how_far_it_got_but_no_answer_phone_or_name,
                            the_responses_page_lists_completed_first_and_never_sent_last,
                            the_responses_csv_has_one_row_per_sending_with_each_answer,
                            a_viewer_reads_responses_without_answers_and_gets_no_csv,
                            without_a_session_the_pages_lead_to_sign_in])


async def test_a_study_without_questionnaires_says_so(web: Web) -> None:
    async with signed_in(web, "viewer") as client:
        page = (await client.get("/questionnaires")).text
        unknown = await client.get("/questionnaires/baseline")
    assert unknown.status_code == 404
    assert "The study file declares no questionnaires" in page
    assert "No questionnaire has been planned or sent yet." in page

