"""One participant, two questionnaires: the morning one at enrolment (answered, its words starting
like a spreadsheet formula), the evening one three hours later. While the evening one is still
planned, the participant's page lists the finished morning one first; once both are answered,
each questionnaire's responses (page, CSV and API) hold its own answers and none of the other's."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

from promptpipe.research import admin
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import QUIET, at
from tests.study_helpers import with_study
from tests.web.browser import signed_in
from tests.web.conftest import serving

STUDY = '''name = "Two questionnaires"
length_days = 14

[[questionnaires]]
id = "morning"
title = "Morning check"
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

[[questionnaires]]
id = "evening"
title = "Evening check"
send = { event = "enrollment", delay = "3h" }
open_for = "1h"

[[questionnaires.items]]
id = "day"
text = "How was your day, in a few words?"
type = "text"
'''
PHONE, NAME = "+14165550141", "Philippa Arkwright"
FORMULA = "=SUM(A1:A9) slept badly"
EVENING = "Long walk by the lake with my sister"


def titles_in_order(page: str) -> list[str]:
    """The questionnaires' titles as the participant's page lists them."""
    section = page[page.index('id="questionnaires-title"'):page.index('id="transcript-title"')]
    return re.findall(r"<h3>([^<]+?) <span", section)


async def test_each_questionnaire_has_its_own_responses_and_finished_ones_come_first(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET, **with_study(STUDY))
    fake_openai.say(f"Hello {NAME}, welcome!", match=f"Participant: {NAME}")
    pid = (await admin.enroll(app.db, app.clock, admin.Enrolment(phone=PHONE, name=NAME, timezone="America/Toronto",
                                                                 study=app.settings.study))).id
    await app.run_until_idle()
    start = app.clock.now()
    await at(app, start + timedelta(minutes=10))
    [poll] = [item.message_id for item in transport.sent if item.kind == "poll"]
    await transport.inject(PHONE, "", vote=PollVote(poll, (poll_option_hash("Yes"),)))
    await app.run_until_idle()
    await transport.inject(PHONE, FORMULA)
    await at(app, start + timedelta(hours=1, minutes=15))
    async with serving(app, ("viewer", "researcher")) as web, signed_in(web, "researcher") as client:
        person = (await client.get(f"/participants/{pid}")).text
        planned = (await client.get("/questionnaires/evening")).text
        assert titles_in_order(person) == ["Morning check", "Evening check"]  # finished before planned
        assert "outcome-planned" in planned and FORMULA not in planned

        await at(app, start + timedelta(hours=3))
        await transport.inject(PHONE, EVENING)
        await at(app, start + timedelta(hours=3, minutes=5))
        morning = list(csv.reader(io.StringIO((await client.get("/questionnaires/morning/responses.csv")).text)))
        evening = list(csv.reader(io.StringIO((await client.get("/questionnaires/evening/responses.csv")).text)))
        page = (await client.get("/questionnaires/evening")).text
        async with web.client("researcher") as api:
            answers = (await api.get("/api/v1/questionnaires/evening/responses")).json()
        async with signed_in(web, "viewer") as viewer:
            seen = (await viewer.get("/questionnaires/morning")).text

    assert morning[0][-4:] == ["slept_well", "slept_well_text", "note", "note_text"] and len(morning) == 2
    assert morning[1][morning[0].index("note_text")] == "'" + FORMULA  # a spreadsheet shows it, runs nothing
    assert evening[0][-2:] == ["day", "day_text"] and len(evening) == 2
    assert evening[1][evening[0].index("day_text")] == EVENING and FORMULA not in str(evening)
    assert EVENING in page and FORMULA not in page
    assert [(item["questionnaire_id"], [a["raw"] for a in item["answers"]]) for item in answers["items"]] == [
        ("evening", [EVENING])]
    assert pid in seen and "outcome-completed" in seen
    for secret in (NAME, PHONE, PHONE[1:], FORMULA):
        assert secret not in seen, secret  # a viewer sees who by id only, and no answer
