"""A participant's timeline through the API and the dashboard: a daily prompt, a vote, a message,
a safety flag and a pause by the team, each once and in order; filtered by kind and by the
participant's days; paged both ways; and what a viewer does not see (phone, name, words, the
team's names, the flag)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from promptpipe.domain.timeline import Stream
from promptpipe.research.timeline import entry_of
from promptpipe.storage.access_tables import AuditEntry
from promptpipe.storage.models import Flag, Message
from promptpipe.storage.queue_tables import Timer
from promptpipe.storage.timeline_reads import Hit
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE
from tests.web.browser import BRAM_SAYS, SCREENSHOTS, ZOFIA, ZOFIA_NAME, ZOFIA_SAYS, Study, running_study, signed_in

MONDAY, TUESDAY = "2026-01-05", "2026-01-06"
"""Zofia's prompted days, in Toronto."""
PAUSE_REASON = "travelling this week"


@pytest.fixture
async def study(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Study]:
    """Zofia as running_study leaves her, then a message that raises a flag and a pause by the team."""
    async with running_study(make_app, fake_openai) as running:
        clock = running.web.app.clock
        clock.advance(timedelta(minutes=30))  # type: ignore[attr-defined]
        fake_openai.say("I'm glad you told me. The study team will be in touch.", match="hurt myself")
        await running.transport.inject(ZOFIA, BRAM_SAYS)
        await running.web.app.run_until_idle()
        clock.advance(timedelta(minutes=30))  # type: ignore[attr-defined]
        async with running.web.client("researcher") as api:
            paused = await api.patch(f"/api/v1/participants/{running.zofia}",
                                     json={"status": "paused", "reason": PAUSE_REASON})
            assert paused.status_code == 200, paused.text
        yield running


async def entries(api: httpx.AsyncClient, pid: str, **query: Any) -> list[dict[str, Any]]:
    answer = await api.get(f"/api/v1/participants/{pid}/timeline", params=query)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["entries"])


def first(found: list[dict[str, Any]], kind: str, words: str = "") -> int:
    """The position of the newest entry of ``kind`` whose summary or text has ``words``."""
    return next(i for i, entry in enumerate(found) if entry["kind"] == kind
                and words in f"{entry['summary']} {entry['text']}")


async def test_the_timeline_shows_each_event_in_order_filters_and_pages_in_the_api_and_on_the_page(
        study: Study) -> None:
    pid = study.zofia
    async with study.web.client("researcher") as api:
        everything = await entries(api, pid, limit=200)
        times = [entry["at"] for entry in everything]
        assert times == sorted(times, reverse=True)
        pause = first(everything, "team_action", "update")
        assert "researcher-token" in everything[pause]["summary"]
        order = [pause, first(everything, "stage", "paused"), first(everything, "flag", "raised"),
                 first(everything, "message_in", BRAM_SAYS), first(everything, "poll_answer", "not this time"),
                 first(everything, "prompt", TUESDAY),
                 first(everything, "poll_answer", f"{MONDAY}: done"), first(everything, "prompt", MONDAY)]
        assert order == sorted(order), [everything[i]["summary"] for i in order]
        assert everything[first(everything, "prompt", MONDAY)]["text"] == NUDGE
        assert everything[first(everything, "message_in", ZOFIA_SAYS)]["summary"] == "From the participant: answered"
        assert PAUSE_REASON in str(everything[first(everything, "consent", "paused")]["text"])

        votes = await entries(api, pid, kind=["poll_answer", "prompt"])
        assert [(e["kind"], e["summary"]) for e in votes] == [
            ("poll_answer", f"Answered the prompt for {TUESDAY}: not this time (tapped)"),
            ("prompt", f"Daily prompt for {TUESDAY} sent"),
            ("poll_answer", f"Answered the prompt for {MONDAY}: done (tapped)"),
            ("prompt", f"Daily prompt for {MONDAY} sent")]
        monday = await entries(api, pid, **{"from": MONDAY, "to": MONDAY})
        # Monday in Toronto is 05:00 UTC on the 5th to 05:00 UTC on the 6th
        assert monday == [e for e in everything if "2026-01-05T05:00" <= e["at"] < "2026-01-06T05:00"]
        assert {e["kind"] for e in monday} >= {"prompt", "poll_answer", "message_out", "consent"}
        assert not [e for e in monday if TUESDAY in e["summary"]]

        pages, query = [], {"limit": 10}
        while True:
            page = (await api.get(f"/api/v1/participants/{pid}/timeline", params=query)).json()
            pages.append(page)
            if not page["older"]:
                break
            query = {"limit": 10, "cursor": page["older"]}
        assert [e for page in pages for e in page["entries"]] == everything
        assert len(pages) == 3 and pages[0]["newer"] is None and pages[-1]["older"] is None
        back = (await api.get(f"/api/v1/participants/{pid}/timeline",
                              params={"limit": 10, "cursor": pages[2]["newer"]})).json()
        assert back["entries"] == pages[1]["entries"] and back["older"] == pages[1]["older"]

        assert (await api.get("/api/v1/participants/p_0000000000000000/timeline")).status_code == 404
        for bad in ({"kind": "gossip"}, {"from": "Monday"}, {"cursor": "x1"}, {"limit": 0}):
            refused = await api.get(f"/api/v1/participants/{pid}/timeline", params=bad)
            assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid_request", bad

    async with study.web.client("viewer") as api:
        answer = await api.get(f"/api/v1/participants/{pid}/timeline", params={"limit": 200})
        flags = await api.get(f"/api/v1/participants/{pid}/timeline", params={"kind": "flag"})
    seen = answer.json()["entries"]
    assert [e["kind"] for e in seen] == [e["kind"] for e in everything if e["kind"] != "flag"]
    assert all(e["text"] is None for e in seen)
    for secret in (ZOFIA, ZOFIA[1:], ZOFIA_NAME, "Zofia", ZOFIA_SAYS, BRAM_SAYS, "hurt myself", NUDGE, PAUSE_REASON,
                   "researcher-token", "Safety flag", "(safety)"):
        assert secret not in answer.text, secret
    assert flags.status_code == 403 and "researcher" in flags.json()["error"]["message"]

    # the same on the dashboard's page
    async with signed_in(study.web, "researcher") as client:
        participant = await client.get(f"/participants/{pid}")
        assert f'href="/participants/{pid}/timeline"' in participant.text
        page = await client.get(f"/participants/{pid}/timeline")
        assert page.status_code == 200
        text = page.text
        assert text.index("researcher-token (researcher): update") < text.index("Safety flag raised") \
            < text.index(ZOFIA_SAYS) < text.index(f"Daily prompt for {MONDAY} sent")
        assert "participant time (America/Toronto)" in text and "your time (Europe/Berlin)" in text
        filtered = (await client.get(f"/participants/{pid}/timeline",
                                     params={"kind": "poll_answer", "from": TUESDAY, "to": "soon"})).text
        assert f"Answered the prompt for {TUESDAY}: not this time" in filtered
        assert MONDAY not in filtered.split("</form>", 1)[1].split("Days are")[1] and ZOFIA_SAYS not in filtered
        assert "to: &#39;soon&#39; is not a date" in filtered
        assert 'value="poll_answer" checked' in filtered
        missing = await client.get("/participants/p_0000000000000000/timeline")
        assert missing.status_code == 404 and "no participant has the id" in missing.text
    async with signed_in(study.web, "viewer") as client:
        page = await client.get(f"/participants/{pid}/timeline")
        assert page.status_code == 200 and "Answered the prompt for" in page.text
        for secret in (ZOFIA, ZOFIA_NAME, "Zofia", ZOFIA_SAYS, BRAM_SAYS, NUDGE, PAUSE_REASON, "researcher-token",
                       "Safety flag", 'value="flag"'):
            assert secret not in page.text, secret
        assert (await client.get(f"/participants/{pid}/timeline?kind=flag")).status_code == 403


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.xdist_group("browser")
async def test_in_a_browser_a_researcher_opens_the_timeline_and_filters_it(study: Study, page: Any) -> None:
    from playwright.async_api import expect
    await page.goto(f"{study.web.url}/participants/{study.zofia}")
    await page.get_by_label("Token").fill(study.web.tokens["researcher"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("link", name="Timeline: everything that happened, in order").click()
    await expect(page.get_by_role("heading", name="Timeline")).to_be_visible()
    entries = page.locator("li.timeline-entry")
    await expect(entries.first).to_contain_text("update via the API")
    await expect(page.get_by_text(ZOFIA_SAYS)).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SCREENSHOTS / "timeline.png"), full_page=True)
    await page.get_by_label("poll answers").check()
    await page.get_by_label("From (their day)").fill(TUESDAY)
    await page.get_by_role("button", name="Filter").click()
    await expect(entries).to_have_count(1)
    await expect(entries.first).to_contain_text(f"Answered the prompt for {TUESDAY}: not this time")
    await expect(page.get_by_label("poll answers")).to_be_checked()
    await page.screenshot(path=str(SCREENSHOTS / "timeline-filtered.png"), full_page=True)


def test_each_kind_of_row_reads_in_plain_words_and_a_viewer_gets_none_of_the_words() -> None:
    """The rows the scenario above has none of (timers, questionnaires, a decision point that was
    not available, a resolved flag), and what a viewer is not told."""
    at = datetime(2026, 3, 14, 13, 0, tzinfo=timezone.utc)
    rows: list[tuple[Stream, Any, str, str | None]] = [
        (Stream.TIMER, Timer(id=1, participant_id="p", kind="reminder", due_at=at, status="cancelled",
                             reason="they replied", created_at=at, settled_at=at),
         "Timer reminder cancelled", "they replied"),
        (Stream.QUESTIONNAIRE_SENT, QuestionnaireInstance(
            id=2, participant_id="p", questionnaire_id="sleep", occasion="manual:ab12", schedule_kind="manual",
            scheduled_at=at, sent_at=at), "Questionnaire sleep sent by the research team", None),
        (Stream.QUESTIONNAIRE_ENDED, QuestionnaireInstance(
            id=2, participant_id="p", questionnaire_id="sleep", occasion="2026-03-14", schedule_kind="fixed",
            scheduled_at=at, status="expired", reason="window_closed", ended_at=at),
         "Questionnaire sleep expired: its time to answer ran out", None),
        (Stream.ANSWER, QuestionnaireAnswer(id=3, instance_id=2, participant_id="p", item_id="hours",
                                            answered_at=at, raw="about 7 hours", coded="7", source="typed"),
         "Answered hours of questionnaire sleep (typed)", "about 7 hours (coded 7)"),
        (Stream.DECISION, Decision(id=4, participant_id="p", inbox_id=1, local_date="2026-03-14", decided_at=at,
                                   local_time="", timezone="UTC", available=False, unavailable_reason="paused",
                                   action="none", study_day=3),
         "Decision point, study day 3: not available (paused)", None),
        (Stream.FLAG_RESOLVED, Flag(id=5, participant_id="p", source="model", severity="low", status="resolved",
                                    resolved_at=at, resolved_by="ana", resolution_note="called her", created_at=at),
         "Safety flag resolved by ana", "called her"),
        (Stream.MESSAGE_OUT, Message(id=6, participant_id="p", direction="out", role="assistant", kind="safety",
                                     text="Call your local emergency number", status="sent", created_at=at),
         "From the study (safety): sent", "Call your local emergency number"),
    ]
    for stream, row, summary, text in rows:
        hit = Hit(stream, at, row, "sleep" if stream is Stream.ANSWER else None)
        researcher, viewer = entry_of(hit, True), entry_of(hit, False)
        assert researcher is not None and (researcher.summary, researcher.text) == (summary, text)
        if stream is Stream.MESSAGE_OUT:
            assert viewer is not None and viewer.summary == "From the study: sent"
        else:
            assert viewer is not None and (viewer.summary, viewer.text) == (summary, None)
    assert entry_of(Hit(Stream.TIMER, at, rows[0][1]), False).due_at == at.isoformat()  # type: ignore[union-attr]
    flag_action = AuditEntry(id=7, actor="ana", role="researcher", action="resolve_flag", participant_id="p",
                             created_at=at)
    assert entry_of(Hit(Stream.TEAM_ACTION, at, flag_action), False) is None
