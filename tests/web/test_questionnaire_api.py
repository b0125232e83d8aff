"""Questionnaires in the API, after four participants met the same questionnaire: one answered
every item, one let it expire, one answered the first item only (partial), and one was paused
until its time had run out (not sent). ``GET /api/v1/questionnaires`` counts them with the
reasons, as ``promptpipe-admin questionnaire status`` does; ``GET /api/v1/participants/{id}/
questionnaires`` lists a participant's instances with their answers, which viewers do not see;
``GET /api/v1/questionnaires/{id}/responses`` lists everyone's instances of one questionnaire,
completed first and planned last, with the same answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from promptpipe.questionnaires.operations import questionnaire_status
from promptpipe.questionnaires.store.reads import EndCount, Reason, tally
from promptpipe.research import admin
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.study.store.tables import QuestionnaireInstance
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import QUIET, at
from tests.study_helpers import with_study
from tests.web.conftest import Web, serving

STUDY = '''name = "Sleep pilot"
length_days = 14

[[questionnaires]]
id = "baseline"
title = "Baseline"
send = { event = "enrollment", delay = "10m" }
open_for = "1h"

[[questionnaires.items]]
id = "slept_well"
text = "Did you sleep well last night?"
type = "yes_no"

[[questionnaires.items]]
id = "note"
text = "Anything you want to add?"
type = "text"
required = false
'''
QUESTION = "Did you sleep well last night?"
WORDS = "My neighbour Theodora played the cello until midnight"

COMPLETED, EXPIRED, PARTIAL, NOT_SENT = "+14165550131", "+14165550132", "+14165550133", "+14165550134"
NAMES = {COMPLETED: "Wilhelmina Oduya", EXPIRED: "Casimir Vantongeren", PARTIAL: "Ottilie Marchbanks",
         NOT_SENT: "Barnaby Quennell"}


@dataclass
class Met:
    """The running service and its web server after the questionnaire's hour."""

    web: Web
    transport: MemoryTransport
    ids: dict[str, str]
    """Phone -> participant id."""
    reasons: dict[str, str]
    """Phone -> why their questionnaire ended unfinished or was not sent, as the flow recorded it."""


async def _tap(transport: MemoryTransport, phone: str, option: str) -> None:
    [poll] = [item.message_id for item in transport.sent
              if item.to.phone == phone and item.kind == "poll" and item.text == QUESTION]
    await transport.inject(phone, "", vote=PollVote(poll, (poll_option_hash(option),)))


@asynccontextmanager
async def questionnaire_met(make_app: AppFactory, fake: FakeOpenAIServer) -> AsyncIterator[Met]:
    """Four participants enrolled at the same minute each get the baseline 10 minutes later; after
    the hour it stays open: one completed, one expired, one partial, one not sent."""
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET, **with_study(STUDY))
    ids = {}
    for phone, name in NAMES.items():
        fake.say(f"Hello {name}, welcome!", match=f"Participant: {name}")
        ids[phone] = (await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name,
                                                                            timezone="America/Toronto",
                                         study=app.settings.study))).id
    await app.run_until_idle()
    await admin.set_status(app.db, app.clock, phone=NOT_SENT, action="pause", reason="travelling")
    start = app.clock.now()
    await at(app, start + timedelta(minutes=10))
    await _tap(transport, COMPLETED, "Yes")
    await _tap(transport, PARTIAL, "No")
    await app.run_until_idle()
    await transport.inject(COMPLETED, WORDS)
    await app.run_until_idle()
    await at(app, start + timedelta(hours=1, minutes=15))
    await admin.set_status(app.db, app.clock, phone=NOT_SENT, action="resume")
    await app.run_until_idle()
    async with serving(app, ("viewer", "researcher")) as web:
        yield Met(web, transport, ids, await _reasons(app.db, ids))


async def _reasons(db: Database, ids: dict[str, str]) -> dict[str, str]:
    table = table_of(QuestionnaireInstance)
    rows = dict(await db.run(lambda session: session.execute(
        sa.select(table.c.participant_id, table.c.reason)).all()))
    found = {phone: rows[pid] for phone, pid in ids.items() if rows.get(pid)}
    assert set(found) == {EXPIRED, PARTIAL, NOT_SENT}, found  # each unfinished one says why
    return found


@pytest.fixture
async def met(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[Met]:
    async with questionnaire_met(make_app, fake_openai) as running:
        yield running


async def every_check(met: Met, checks: Sequence[Callable[[Met], Awaitable[None]]]) -> None:
    """Each check on the one state (making it costs seconds: one per check was most of these
    modules' time); every check runs, and the failures are reported by the check's name."""
    failed = []
    for check in checks:
        try:
            await check(met)
        except AssertionError as exc:
            failed.append(f"{check.__name__}: {exc}")
    assert not failed, "\n\n".join(failed)


async def test_the_api_after_four_participants_met_the_questionnaire(met: Met) -> None:
    await every_check(met, [each_questionnaire_is_counted_with_why_the_unfinished_ones_ended,
                            a_participants_questionnaires_carry_their_answers_for_researchers,
                            viewers_see_how_far_it_got_but_not_the_answers, pages_of_instances_and_unknown_participants,
                            a_questionnaires_responses_come_completed_first_with_the_answers,
                            without_a_token_nothing_is_read, the_schema_describes_both_endpoints])


def answers_of(page: dict[str, Any]) -> list[tuple[str, str | None, str | None, str | None, str | None]]:
    [instance] = page["items"]
    return [(a["item_id"], a["raw"], a["coded"], a["source"], a["missing"]) for a in instance["answers"]]


async def each_questionnaire_is_counted_with_why_the_unfinished_ones_ended(met: Met) -> None:
    async with met.web.client("viewer") as client:
        answer = await client.get("/api/v1/questionnaires")
    assert answer.status_code == 200, answer.text
    [baseline] = answer.json()
    assert (baseline["id"], baseline["title"]) == ("baseline", "Baseline")
    assert baseline["outcomes"] == {"planned": 0, "under_way": 0, "completed": 1, "partial": 1, "expired": 1,
                                    "stopped": 0, "not_sent": 1}
    assert baseline["sent"] == 3 and baseline["completion_rate"] == pytest.approx(1 / 3)
    why = met.reasons
    assert baseline["reasons"] == [{"outcome": "partial", "reason": why[PARTIAL], "count": 1},
                                   {"outcome": "expired", "reason": why[EXPIRED], "count": 1},
                                   {"outcome": "not_sent", "reason": why[NOT_SENT], "count": 1}]
    assert baseline["by_status"] == {"completed": 1, "expired": 2, "not_sent": 1}
    admin_script = {row.status: row.count for row in await questionnaire_status(met.web.app.db)}
    assert baseline["by_status"] == admin_script  # the same counts as promptpipe-admin questionnaire status


async def a_participants_questionnaires_carry_their_answers_for_researchers(met: Met) -> None:
    async with met.web.client("researcher") as client:
        completed = (await client.get(f"/api/v1/participants/{met.ids[COMPLETED]}/questionnaires")).json()
        partial = (await client.get(f"/api/v1/participants/{met.ids[PARTIAL]}/questionnaires")).json()
        not_sent = (await client.get(f"/api/v1/participants/{met.ids[NOT_SENT]}/questionnaires")).json()
    [instance] = completed["items"]
    assert (instance["questionnaire_id"], instance["status"], instance["outcome"]) == ("baseline", "completed",
                                                                                       "completed")
    assert instance["occasion"] == "enrollment" and instance["sent_at"] and instance["ended_at"]
    assert answers_of(completed) == [("slept_well", "Yes", "1", "tap", None), ("note", WORDS, "", "typed", None)]
    assert (partial["items"][0]["outcome"], partial["items"][0]["reason"]) == ("partial", met.reasons[PARTIAL])
    assert answers_of(partial) == [("slept_well", "No", "0", "tap", None), ("note", None, None, None, "expired")]
    assert not_sent["total"] == 1 and not_sent["items"][0]["status"] == "not_sent"
    assert not_sent["items"][0]["sent_at"] is None and not_sent["items"][0]["answers"] == []


async def viewers_see_how_far_it_got_but_not_the_answers(met: Met) -> None:
    async with met.web.client("viewer") as client:
        page = await client.get(f"/api/v1/participants/{met.ids[COMPLETED]}/questionnaires")
        others = [await client.get("/api/v1/questionnaires"),
                  *[await client.get(f"/api/v1/participants/{met.ids[phone]}/questionnaires") for phone in NAMES]]
    assert page.status_code == 200
    assert answers_of(page.json()) == [("slept_well", None, None, "tap", None), ("note", None, None, "typed", None)]
    for answer in (page, *others):
        for secret in (WORDS, "Theodora", "travelling", *NAMES, *(phone[1:] for phone in NAMES), *NAMES.values()):
            assert secret not in answer.text, (str(answer.url), secret)  # no answer, phone, name or team's note


async def pages_of_instances_and_unknown_participants(met: Met) -> None:
    pid = met.ids[EXPIRED]
    async with met.web.client("researcher") as client:
        first = (await client.get(f"/api/v1/participants/{pid}/questionnaires", params={"limit": 1})).json()
        beyond = (await client.get(f"/api/v1/participants/{pid}/questionnaires", params={"offset": 1})).json()
        unknown = await client.get("/api/v1/participants/p_0123456789abcdef/questionnaires")
        phone = await client.get(f"/api/v1/participants/{EXPIRED}/questionnaires")
        too_many = await client.get(f"/api/v1/participants/{pid}/questionnaires", params={"limit": 100_000})
    assert (first["total"], first["limit"], len(first["items"])) == (1, 1, 1)
    assert first["items"][0]["outcome"] == "expired" and first["items"][0]["reason"] == met.reasons[EXPIRED]
    assert (beyond["total"], beyond["items"]) == (1, [])
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")
    assert phone.status_code == 404  # ids only, never a phone number in a path
    assert too_many.status_code == 422 and too_many.json()["error"]["code"] == "invalid_request"


async def a_questionnaires_responses_come_completed_first_with_the_answers(met: Met) -> None:
    path = "/api/v1/questionnaires/baseline/responses"
    async with met.web.client("researcher") as client:
        everyone = (await client.get(path)).json()
        second = (await client.get(path, params={"limit": 1, "offset": 1})).json()
        unknown = await client.get("/api/v1/questionnaires/weekly/responses")
    async with met.web.client("viewer") as client:
        seen = await client.get(path)
    order = [met.ids[phone] for phone in (COMPLETED, PARTIAL, EXPIRED, NOT_SENT)]
    assert (everyone["questionnaire_id"], everyone["total"]) == ("baseline", 4)
    assert [item["participant_id"] for item in everyone["items"]] == order
    assert [item["outcome"] for item in everyone["items"]] == ["completed", "partial", "expired", "not_sent"]
    assert answers_of({"items": everyone["items"][:1]}) == [("slept_well", "Yes", "1", "tap", None),
                                                            ("note", WORDS, "", "typed", None)]
    assert [item["participant_id"] for item in second["items"]] == order[1:2] and second["total"] == 4
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")
    assert seen.status_code == 200 and [item["participant_id"] for item in seen.json()["items"]] == order
    assert answers_of({"items": seen.json()["items"][:1]}) == [("slept_well", None, None, "tap", None),
                                                               ("note", None, None, "typed", None)]
    for secret in (WORDS, *NAMES, *NAMES.values()):
        assert secret not in seen.text, secret  # no answer, phone or name for a viewer


async def without_a_token_nothing_is_read(met: Met) -> None:
    pid = met.ids[COMPLETED]
    async with met.web.client(None) as client:
        answers = [await client.get("/api/v1/questionnaires"),
                   await client.get(f"/api/v1/participants/{pid}/questionnaires"),
                   await client.get("/api/v1/questionnaires/baseline/responses")]
    assert [answer.status_code for answer in answers] == [401, 401, 401]
    assert all(answer.json()["error"]["code"] == "unauthorized" and WORDS not in answer.text for answer in answers)


async def the_schema_describes_both_endpoints(met: Met) -> None:
    async with met.web.client("viewer") as client:
        schema = (await client.get("/openapi.json")).json()
    assert "get" in schema["paths"]["/api/v1/questionnaires"]
    assert "get" in schema["paths"]["/api/v1/participants/{participant_id}/questionnaires"]
    assert "get" in schema["paths"]["/api/v1/questionnaires/{questionnaire_id}/responses"]
    missing = schema["components"]["schemas"]["QuestionnaireAnswerOut"]["properties"]["missing"]
    ref = next(option["$ref"] for option in missing["anyOf"] if "$ref" in option)
    assert schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]["enum"] == [
        "skipped", "invalid", "not_shown", "expired", "stopped", "not_sent"]


@pytest.mark.parametrize(("status", "answered", "outcome"), [
    ("scheduled", False, "planned"), ("sent", False, "under_way"), ("started", True, "under_way"),
    ("completed", True, "completed"), ("expired", False, "expired"), ("expired", True, "partial"),
    ("stopped", False, "stopped"), ("stopped", True, "partial"), ("not_sent", False, "not_sent"),
])
def test_each_instance_counts_once_under_its_outcome(status: str, answered: bool, outcome: str) -> None:
    counted = tally([EndCount("q", status, None, answered, 2)])
    assert counted.by_status == {status: 2}
    assert {key: value for key, value in counted.by_outcome.items() if value} == {outcome: 2}


def test_the_completion_rate_is_of_those_sent_and_reasons_come_most_frequent_first() -> None:
    counted = tally([EndCount("q", "completed", None, True, 3), EndCount("q", "sent", None, False, 1),
                     EndCount("q", "scheduled", None, False, 5), EndCount("q", "not_sent", "paused", False, 1),
                     EndCount("q", "not_sent", "service down", False, 2), EndCount("q", "stopped", "STOP", True, 1),
                     EndCount("q", "expired", "time ran out", True, 1)])
    assert counted.sent == 6 and counted.completion_rate == pytest.approx(3 / 6)
    assert counted.reasons == (Reason("partial", "STOP", 1), Reason("partial", "time ran out", 1),
                               Reason("not_sent", "service down", 2), Reason("not_sent", "paused", 1))
    assert tally([EndCount("q", "not_sent", "paused", False, 1)]).completion_rate is None
