"""Questionnaires on WhatsApp through the running service, as a participant meets them: one item
per message, polls for choices, a short re-ask when a typed answer does not fit (then the item is
recorded as invalid), branching, a thank-you at the end; STOP ends it at once, a question to the
coach is answered and the item follows, a reminder while it is open and its end when time is up;
a restart resumes at the same item. The coach never sees the answers."""

from __future__ import annotations

import csv
import json
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

from promptpipe.app import App
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.questionnaires.operations import questionnaire_status, send_questionnaire
from promptpipe.questionnaires.store.reads import InstanceCount
from promptpipe.research import admin, erasure, oversight
from promptpipe.storage.models import table_of
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, MONDAY_PROMPT, vote
from tests.schedule_helpers import NUDGE, QUIET, at
from tests.study_helpers import in_study, with_study

STUDY = '''name = "Smoking pilot"
length_days = 10

[[questionnaires]]
id = "evening"
title = "Evening check"
intro = "Three quick questions about today."
closing = "Thanks, all done for today!"
send = { study_days = [9], at = "19:00" }
open_for = "2h"
reminders = 1

[[questionnaires.items]]
id = "smoked"
text = "Did you smoke today?"
type = "yes_no"

[[questionnaires.items]]
id = "cigarettes"
text = "How many cigarettes?"
type = "number"
min = 0
max = 60
show_if = { item = "smoked", codes = [1] }

[[questionnaires.items]]
id = "note"
text = "Anything you want to add?"
type = "text"
required = false
'''
SMOKED = "Did you smoke today?"
HOW_MANY = "How many cigarettes?\n(Reply with a number from 0 to 60.)"
NOTE = 'Anything you want to add?\n(Reply in your own words, or "skip".)'


def poll_id(transport: MemoryTransport, question: str) -> str:
    return [item.message_id for item in transport.sent if item.kind == "poll" and item.text == question][-1]


async def sent_to_ana(app: App, transport: MemoryTransport) -> list[str]:
    return [item.text for item in transport.sent if item.to.phone == ANA]


async def started(make_app: AppFactory, fake: FakeOpenAIServer) -> tuple[App, MemoryTransport, int]:
    app, transport, _ = await in_study(make_app, fake, STUDY)
    before = len(transport.sent)
    sent = await send_questionnaire(app.db, app.clock, app.settings.study, phone=ANA, questionnaire_id="evening")
    await app.run_until_idle()
    assert [item.text for item in transport.sent[before:]] == ["Three quick questions about today.", SMOKED]
    return app, transport, sent.instance_id


async def answers(app: App) -> list[tuple[str, str | None, str | None, str | None, int]]:
    rows = await app.db.run(lambda session: session.execute(
        sa.select(table_of(QuestionnaireAnswer)).order_by(sa.column("id"))).all())
    return [(row.item_id, row.raw, row.coded, row.missing, row.tries) for row in rows]


async def instance(app: App) -> sa.Row:  # type: ignore[type-arg]
    """The instance the team sent (the study file also plans one for study day 9)."""
    table = table_of(QuestionnaireInstance)
    return (await app.db.run(lambda session: session.execute(
        sa.select(table).where(table.c.schedule_kind == "manual")).all()))[0]


async def test_items_go_one_by_one_with_a_reask_then_invalid_and_a_thank_you_at_the_end(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    assert transport.texts_to(ANA)[-1] == HOW_MANY
    await transport.inject(ANA, "lots")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Please reply with one whole number from 0 to 60."
    await transport.inject(ANA, "seventy or so")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == NOTE  # two replies that did not fit: recorded as invalid, moved on
    await transport.inject(ANA, "My brother visited")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Thanks, all done for today!"

    assert await answers(app) == [("smoked", "Yes", "1", None, 0), ("cigarettes", None, None, "invalid", 2),
                                  ("note", "My brother visited", "", None, 0)]
    row = await instance(app)
    assert (row.status, row.current_item) == ("completed", None) and row.first_answer_at and row.ended_at
    assert await questionnaire_status(app.db) == [InstanceCount("evening", "completed", 1)]  # day 9's: not
    # planned yet (study days are planned a week ahead)
    assert all("My brother visited" not in str(request) and "lots" not in str(request)
               for request in fake_openai.requests), "the coach saw an answer"


async def test_an_item_whose_condition_fails_is_not_asked(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await transport.inject(ANA, "no")  # typed instead of tapped
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == NOTE
    await transport.inject(ANA, "skip")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Thanks, all done for today!"
    assert await answers(app) == [("smoked", "no", "0", None, 0), ("cigarettes", None, None, "not_shown", 0),
                                  ("note", "skip", "", "skipped", 0)]


async def test_stop_ends_the_questionnaire_at_once(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    await transport.inject(ANA, "12")
    await app.run_until_idle()
    assert HOW_MANY not in transport.texts_to(ANA)[-2:] and NOTE not in transport.texts_to(ANA)
    assert await answers(app) == [("smoked", "Yes", "1", None, 0), ("cigarettes", None, None, "stopped", 0),
                                  ("note", None, None, "stopped", 0)]
    assert (await instance(app)).status == "stopped"


async def test_an_erasure_ends_the_questionnaire_as_a_withdrawal_does(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Erased mid-questionnaire without a withdrawal first: the item under way and the ones after
    it are coded stopped, as a withdrawal codes them, never left without a code."""
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr. Lee")
    await app.run_until_idle()
    assert [(item, missing) for item, _, _, missing, _ in await answers(app)] == [
        ("smoked", None), ("cigarettes", "stopped"), ("note", "stopped")]
    assert (await instance(app)).status == "stopped"


async def test_a_question_to_the_coach_is_answered_and_the_item_follows(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    fake_openai.say("It helps us see how your days go; you can skip anything optional.", match="why do you ask")
    await transport.inject(ANA, "why do you ask?")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-2:] == ["It helps us see how your days go; you can skip anything optional.",
                                            f"Back to the question:\n{HOW_MANY}"]
    await transport.inject(ANA, "6")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == NOTE
    assert ("cigarettes", "6", "6", None, 0) in await answers(app)
    fake_openai.assert_complete()


async def test_words_that_are_no_answer_reach_the_coach_who_can_flag_them(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Found by `promptpipe evaluate`: a distress message typed while a number item waited (in words
    the crisis list does not hold) was taken as a wrong answer, re-asked, and hidden from the
    coach, so nobody could flag it. A sentence that is no answer is conversation: the coach gets it."""
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    distress = "ya no aguanto más, a veces pienso que sería mejor no despertar mañana"
    fake_openai.call_tool("flag_concern", {"severity": "high", "reason": "may not want to wake up"}, match="aguanto")
    fake_openai.say("I'm really sorry it feels this heavy. You matter.", match="Flag recorded")
    await transport.inject(ANA, distress)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "I'm really sorry it feels this heavy. You matter."  # no item after it:
    assert [flag.source for flag in await oversight.flags(app.db)] == ["model"]  # it waits for its reminder
    await transport.inject(ANA, "lots")  # a slip of a few words is still a wrong answer: asked again
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Please reply with one whole number from 0 to 60."
    fake_openai.assert_complete()


async def test_a_tap_on_the_poll_asked_again_after_the_coach_answers_the_item(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    fake_openai.say("We ask so you can see your own pattern.", match="what is this for")
    await transport.inject(ANA, "what is this for?")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == f"Back to the question:\n{SMOKED}"
    await vote(app, transport, poll_id(transport, f"Back to the question:\n{SMOKED}"), "No")
    assert transport.texts_to(ANA)[-1] == NOTE  # answered: no cigarettes to count, the last item follows
    assert ("smoked", "No", "0", None, 0) in await answers(app)


async def test_a_daily_prompt_in_the_middle_is_followed_by_the_item_under_way(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, STUDY)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + timedelta(days=1, minutes=-10))
    await send_questionnaire(app.db, app.clock, app.settings.study, phone=ANA, questionnaire_id="evening")
    await app.run_until_idle()
    await at(app, MONDAY_PROMPT + timedelta(days=1))  # Tuesday's prompt, with SMOKED still waiting
    assert transport.texts_to(ANA)[-3:] == [NUDGE, "Did you do it?", f"Back to the question:\n{SMOKED}"]
    await vote(app, transport, poll_id(transport, f"Back to the question:\n{SMOKED}"), "No")
    assert transport.texts_to(ANA)[-1] == NOTE


async def test_a_reminder_while_open_then_the_end_when_time_is_up(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await at(app, MONDAY_PROMPT + timedelta(hours=1, minutes=1))
    assert transport.texts_to(ANA)[-1] == f"A gentle reminder: one question is still waiting for your answer.\n{SMOKED}"
    await vote(app, transport, poll_id(transport, transport.texts_to(ANA)[-1]), "No")  # the reminder's poll
    assert transport.texts_to(ANA)[-1] == NOTE
    await at(app, MONDAY_PROMPT + timedelta(hours=2, minutes=1))
    assert (await instance(app)).status == "expired"
    fake_openai.say("No worries, thanks for letting me know.", match="forgot the last one")
    await transport.inject(ANA, "sorry I forgot the last one")  # closed: the coach answers, nothing is recorded
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "No worries, thanks for letting me know."
    assert await answers(app) == [("smoked", "No", "0", None, 0), ("cigarettes", None, None, "not_shown", 0),
                                  ("note", None, None, "expired", 0)]


async def test_a_restart_in_the_middle_resumes_at_the_same_item(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    await app.stop()  # the service goes away between two items

    after = MemoryTransport()
    restarted = await make_app(after, **{**QUIET, **with_study(STUDY)})
    await after.inject(ANA, "4")
    await restarted.run_until_idle()
    assert after.texts_to(ANA) == [NOTE]  # the item after the one answered: none asked twice, none skipped
    assert transport.texts_to(ANA).count(HOW_MANY) == 1
    assert [row[:3] for row in await answers(restarted)] == [("smoked", "Yes", "1"), ("cigarettes", "4", "4"),
                                                             ("note", None, None)]


async def test_the_export_holds_every_item_answered_or_missed_with_its_codebook(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    app, transport, instance_id = await started(make_app, fake_openai)
    await vote(app, transport, poll_id(transport, SMOKED), "Yes")
    await transport.inject(ANA, "about 12")
    await app.run_until_idle()
    await transport.inject(ANA, "My name is Ana and I called +15145550101")  # their own words, pseudonymised
    await app.run_until_idle()
    await export_study(app.db, tmp_path / "out")

    with (tmp_path / "out" / "questionnaire_answers.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert [(r["instance_id"], r["questionnaire_id"], r["item_id"], r["coded"], r["source"], r["missing"])
            for r in rows] == [(str(instance_id), "evening", "smoked", "1", "tap", ""),
                               (str(instance_id), "evening", "cigarettes", "12", "typed", ""),
                               (str(instance_id), "evening", "note", "", "typed", "")]
    assert rows[2]["raw"] == "My name is [name] and I called [phone]"
    assert all(r["answered_at_utc"] and float(r["latency_s"]) >= 0 for r in rows)
    with (tmp_path / "out" / "questionnaire_instances.csv").open(encoding="utf-8") as stream:
        [instance_row] = [r for r in csv.DictReader(stream) if r["schedule_kind"] == "manual"]
    assert instance_row["status"] == "completed" and instance_row["protocol_hash"] == app.settings.study.hash
    with (tmp_path / "out" / "codebook.csv").open(encoding="utf-8") as stream:
        documented = {(r["file"], r["column"]) for r in csv.DictReader(stream)}
    assert {("questionnaire_answers", column) for column in rows[0]} <= documented
    # a statistician decodes the codes with study.json alone: the answers given come back
    protocol = json.loads((tmp_path / "out" / "study.json").read_text(encoding="utf-8"))["study_file"]
    [evening] = [q for q in protocol["questionnaires"] if q["id"] == "evening"]
    labels = {(item["id"], str(option["code"])): option["label"] for item in evening["items"]
              for option in item["options"]}
    types = {item["id"]: item["type"] for item in evening["items"]}
    decoded = [labels.get((r["item_id"], r["coded"])) if types[r["item_id"]] == "yes_no" else r["coded"]
               for r in rows]
    assert decoded == ["Yes", "12", ""]


async def test_a_pilot_taps_and_types_answers_with_simulate(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    await admin.simulate_vote(app.db, app.clock, phone=ANA, option="1")  # the item's poll comes first: Yes
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == HOW_MANY
    await admin.simulate(app.db, app.clock, phone=ANA, text="3")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == NOTE
    assert [row[:4] for row in await answers(app)][:2] == [("smoked", "Yes", "1", None), ("cigarettes", "3", "3", None)]


PLACES = '''name = "Places pilot"
length_days = 10

[[questionnaires]]
id = "places"
title = "Places"
send = { study_days = [9], at = "19:00" }
open_for = "2h"

[[questionnaires.items]]
id = "where"
text = "Where were you today?"
type = "multiple_choice"
options = ["Home", "Work", "Out"]
codes = [10, 20, 30]

[[questionnaires.items]]
id = "steps"
text = "How many thousand steps?"
type = "number"
min = 0
max = 50
'''


async def test_the_jsonl_export_types_each_answer_and_the_items_table_decodes_it(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """A statistician reads codes as numbers (a multiple choice as a list) and decodes them with
    questionnaire_items.csv alone, without study.json."""
    app, transport, _ = await in_study(make_app, fake_openai, PLACES)
    await send_questionnaire(app.db, app.clock, app.settings.study, phone=ANA, questionnaire_id="places")
    await app.run_until_idle()
    [where] = [item.message_id for item in transport.sent if item.kind == "poll_multiple"]
    await vote(app, transport, where, "Home", "Out")
    await transport.inject(ANA, "12")
    await app.run_until_idle()
    await export_study(app.db, tmp_path / "jsonl", ExportOptions(fmt="jsonl"))
    await export_study(app.db, tmp_path / "csv")
    lines = (tmp_path / "jsonl" / "questionnaire_answers.jsonl").read_text(encoding="utf-8").splitlines()
    coded = {row["item_id"]: row["coded"] for row in map(json.loads, lines) if row["missing"] is None}
    assert coded == {"where": [10, 30], "steps": 12}
    with (tmp_path / "csv" / "questionnaire_answers.csv").open(encoding="utf-8") as stream:
        assert {r["item_id"]: r["coded"] for r in csv.DictReader(stream) if not r["missing"]} == {
            "where": "10;30", "steps": "12"}
    for out in ("jsonl", "csv"):
        with (tmp_path / out / "questionnaire_items.csv").open(encoding="utf-8") as stream:
            items = {r["item_id"]: r for r in csv.DictReader(stream) if r["questionnaire_id"] == "places"}
        labels = dict(zip(items["where"]["codes"].split(";"), items["where"]["labels"].split(";"), strict=True))
        assert [labels[str(code)] for code in coded["where"]] == ["Home", "Out"]
        assert (items["steps"]["type"], items["steps"]["low"], items["steps"]["high"]) == ("number", "0", "50")
        assert items["where"]["protocol_hash"] == app.settings.study.hash
    with (tmp_path / "csv" / "codebook.csv").open(encoding="utf-8") as stream:
        documented = {(r["file"], r["column"]) for r in csv.DictReader(stream)}
    assert ("questionnaire_items.csv", "labels") in documented
