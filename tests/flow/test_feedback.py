"""The feedback stage with the fake model: a day from prompt to vote to feedback to the next
prompt, barriers and tweaks reaching the next prompt, schedule changes, and the way back to
intake when the plan cannot carry a prompt."""

from __future__ import annotations

import json

from sqlalchemy import select

from promptpipe.domain.polls import POLL_OPTIONS
from promptpipe.flow import votes
from promptpipe.research import admin
from promptpipe.storage.models import Transition
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, deliveries, polls, prompted, vote
from tests.schedule_helpers import NUDGE, at, utc

DONE, NOT_THIS_TIME = POLL_OPTIONS
TUESDAY_NUDGE = "After your coffee, stretch for thirty seconds at the kitchen table. Ready?"


def system_texts(request: dict) -> str:  # type: ignore[type-arg]
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


def generator_request(fake: FakeOpenAIServer) -> dict:  # type: ignore[type-arg]
    return [r for r in fake.requests if "You write one habit nudge" in r["messages"][0]["content"]][-1]


async def test_a_full_day_vote_feedback_and_the_next_prompt_built_on_it(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await prompted(make_app, fake_openai)
    calls_before_vote = len(fake_openai.requests)

    await vote(app, transport, polls(transport)[-1], DONE)
    assert len(fake_openai.requests) == calls_before_vote  # the server answered the vote, not the model
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY["done"]
    shown = await admin.show(app.db, ANA)
    assert shown.sub_state == "FEEDBACK"  # their next words are feedback
    assert shown.counters["successes"] == 1 and shown.counters["current_streak"] == 1
    assert shown.counters["last_success_date"] == "2026-01-05"

    fake_openai.call_tool("save_user_profile", {"last_motivator": "the mat was already out",
                                                "last_successful_prompt": NUDGE}, match="mat was out")
    fake_openai.say("Lovely, keeping the mat out clearly helps!", match="mat was out")
    await transport.inject(ANA, "easy, the mat was out already")
    await app.run_until_idle()
    feedback = fake_openai.requests[-1]
    assert "you hear how it went" in feedback["messages"][0]["content"]
    situation = feedback["messages"][1]["content"]
    assert f"The prompt they are answering (sent Monday 2026-01-05 07:50 (America/Toronto)): {NUDGE}" in situation
    assert "Their answer on its poll: done" in situation
    assert "Track record: 1 prompts sent, done 1, not this time 0; current streak 1 day(s)" in situation
    assert transport.texts_to(ANA)[-1] == "Lovely, keeping the mat out clearly helps!"

    fake_openai.say(TUESDAY_NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    assert transport.texts_to(ANA)[-2:] == [TUESDAY_NUDGE, "Did you do it?"]
    writer = generator_request(fake_openai)["messages"][1]["content"]
    assert "What helped them last time: the mat was already out" in writer
    assert f"A prompt that worked for them: {NUDGE}" in writer
    assert "Track record: done 1 of 1 prompts, current streak 1 day(s)." in writer
    counters = (await admin.show(app.db, ANA)).counters
    assert (counters["prompts_sent"], counters["successes"], counters["current_streak"]) == (2, 1, 1)
    rows = await deliveries(app, pid)
    assert [(d.local_date, d.vote) for d in rows] == [("2026-01-05", "done"), ("2026-01-06", None)]
    assert rows[0].replied_at is not None and rows[1].replied_at is None
    fake_openai.assert_complete()


async def test_a_barrier_and_the_tweak_it_leads_to_shape_the_next_prompt(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _pid = await prompted(make_app, fake_openai)
    await vote(app, transport, polls(transport)[-1], NOT_THIS_TIME)
    assert transport.texts_to(ANA)[-1] == votes.FIRST_REPLY["not_this_time"]
    counters = (await admin.show(app.db, ANA)).counters
    assert (counters["misses"], counters["current_streak"], counters["last_miss_date"]) == (1, 0, "2026-01-05")

    fake_openai.call_tool("save_user_profile", {"last_barrier": "rushing to catch the bus"}, match="bus")
    fake_openai.say("That sounds hectic. Would a 30-second version help?", match="bus")
    await transport.inject(ANA, "I was rushing for the bus")
    await app.run_until_idle()
    fake_openai.call_tool("save_user_profile", {"last_tweak": "make it a 30-second stretch"}, match="30 seconds")
    fake_openai.say("Done, tomorrow's will be shorter.", match="30 seconds")
    await transport.inject(ANA, "yes, 30 seconds would work")
    await app.run_until_idle()
    situation = fake_openai.requests[-1]["messages"][1]["content"]
    assert "Recent barriers (oldest first):\n- 2026-01-05: rushing to catch the bus" in situation

    fake_openai.say(TUESDAY_NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    writer = generator_request(fake_openai)["messages"][1]["content"]
    assert "What got in the way last time (make the step easier around it): rushing to catch the bus" in writer
    assert "A change they asked for (apply it): make it a 30-second stretch" in writer
    assert transport.texts_to(ANA)[-2] == TUESDAY_NUDGE
    fake_openai.assert_complete()


async def test_send_it_at_8_instead_moves_the_schedule(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    seven = {"action": "create", "type": "fixed", "fixed_time": "07:00"}
    app, transport, _pid = await prompted(make_app, fake_openai, schedule=seven, prompt_at=utc(2026, 1, 5, 11, 50))
    before = (await admin.schedules(app.db, app.clock, phone=ANA)).schedules
    await vote(app, transport, polls(transport)[-1], DONE)

    fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"},
                          match="at 8 instead")
    fake_openai.say("Sure, from tomorrow it comes at 7:50.", match="at 8 instead")
    await transport.inject(ANA, "can you send it at 8 instead")
    await app.run_until_idle()
    after = (await admin.schedules(app.db, app.clock, phone=ANA)).schedules
    assert [s.id for s in after] == [s.id for s in before]  # replaced in place: never two prompts a day
    assert "08:00" in after[0].habit

    await at(app, utc(2026, 1, 6, 11, 55))  # the old time passes quietly
    assert transport.texts_to(ANA)[-1] == "Sure, from tomorrow it comes at 7:50."
    fake_openai.say(TUESDAY_NUDGE, match="scheduled daily nudge")
    await at(app, utc(2026, 1, 6, 12, 50))  # 07:50 in Toronto
    assert transport.texts_to(ANA)[-2:] == [TUESDAY_NUDGE, "Did you do it?"]
    fake_openai.assert_complete()


async def test_feedback_without_what_a_prompt_needs_goes_back_to_intake(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app = await make_app()
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.call_tool("save_user_profile", {"habit_domain": "stretching"})
    fake_openai.call_tool("transition_state", {"target_state": "FEEDBACK"})  # too early: no anchor, no time
    fake_openai.say("Welcome, Ana!")
    await app.run_until_idle()
    assert (await admin.show(app.db, ANA)).sub_state == "FEEDBACK"

    fake_openai.say("Which everyday moment could your stretch follow?", match="how are you")
    await app.transport.inject(ANA, "hi, how are you")  # type: ignore[attr-defined]
    await app.run_until_idle()
    request = fake_openai.requests[-1]
    assert request["messages"][0]["content"] == app.flow.deps.prompts.intake  # intake answered, not feedback
    shown = await admin.show(app.db, ANA)
    assert shown.sub_state == "INTAKE"
    trail = await app.db.run(lambda s: s.execute(select(Transition.name, Transition.reason).where(
        Transition.kind == "sub_state").order_by(Transition.id)).all())
    assert trail[-1] == ("feedback_to_intake", "in FEEDBACK but the profile lacks prompt_anchor, preferred_time")
    fake_openai.assert_complete()


async def test_the_feedback_model_hands_a_changed_habit_back_to_intake(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    await vote(app, transport, polls(transport)[-1], DONE)
    fake_openai.call_tool("transition_state", {"target_state": "INTAKE", "reason": "new habit"}, match="reading")
    fake_openai.say("Let's rework your plan: what would you like to read?", match="reading")
    await transport.inject(ANA, "I'd rather build a reading habit")
    await app.run_until_idle()
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"
    fake_openai.say("Great choice. When do you usually have a quiet minute?", match="novels")
    await transport.inject(ANA, "novels, mostly")
    await app.run_until_idle()
    assert fake_openai.requests[-1]["messages"][0]["content"] == app.flow.deps.prompts.intake
    fake_openai.assert_complete()


async def test_feedback_and_intake_see_the_whole_prompt_history_in_the_export_row_by_row(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from promptpipe.export.files import ExportOptions, export_study

    app, transport, pid = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="5h")
    await vote(app, transport, polls(transport)[-1], DONE)
    fake_openai.say(TUESDAY_NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await at(app, MONDAY_PROMPT + DAY * 1.25)  # six hours later: Tuesday's reminder went out
    await vote(app, transport, polls(transport)[0], NOT_THIS_TIME)  # an outdated vote: recorded, not counted

    await export_study(app.db, tmp_path / "out", ExportOptions(fmt="jsonl"))
    lines = (tmp_path / "out" / "deliveries.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [(r["local_date"], r["vote"], r["outcome"], r["reminder_sent"]) for r in rows] == [
        ("2026-01-05", "done", "done", False),
        ("2026-01-06", None, "reminder_sent", True),
    ]
    assert rows[0]["sent_at_local"] == "2026-01-05T07:50:00-05:00" and rows[0]["participant_id"] == pid
    messages = [json.loads(line) for line in (tmp_path / "out" / "messages.jsonl").read_text().splitlines()]
    handled = [(m["vote_chosen"], m["handled_as"]) for m in messages if m["handled_as"]]
    assert handled == [(["Done"], "counted"), (["Not this time"], "outdated")]
    transitions = [json.loads(line) for line in (tmp_path / "out" / "transitions.jsonl").read_text().splitlines()]
    assert ("intake_to_feedback", "answered the daily poll") in [(t["name"], t["reason"]) for t in transitions]
    fake_openai.assert_complete()
