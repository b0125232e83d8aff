"""The intake agent end to end: real openai client, fake server, memory transport."""

from __future__ import annotations

import json

import pytest

from promptpipe.agents import MAX_ROUNDS
from promptpipe.agents.intake import INTAKE_FALLBACK
from promptpipe.flow import APOLOGY
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA = "+15145550101"


async def enroll_ana(app, fake: FakeOpenAIServer, greeting: str = "Hi Ana! What habit shall we build?") -> None:  # type: ignore[no-untyped-def]
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                       background="Night-shift nurse"))
    fake.say(greeting, match="just been enrolled")
    await app.run_until_idle()


async def test_enrollment_sends_a_generated_greeting(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai, "Hello Ana, welcome to the study!")

    assert transport.texts_to(ANA) == ["Hello Ana, welcome to the study!"]
    request = fake_openai.requests[0]
    situation = request["messages"][1]["content"]
    assert "Ana" in situation and "America/Toronto" in situation and "Night-shift nurse" in situation
    assert not any(m["role"] == "user" for m in request["messages"]), "the enrollment cue is not a user message"
    rows = await admin.transcript(app.db, ANA)
    assert [(r.direction, r.kind, r.status) for r in rows] == [("out", "greeting", "sent")]
    assert app.flow.turns == 1  # the greeting is the model's turn
    fake_openai.assert_complete()


async def test_multi_turn_intake_saves_profile_and_hands_over_to_feedback(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)

    fake_openai.call_tool("save_user_profile", {"habit_domain": "stretching"}, match="I want to stretch more")
    fake_openai.say("Lovely. What moment of your day could it follow?", match="SAVED 1 field")
    await transport.inject(ANA, "I want to stretch more")
    await app.run_until_idle()

    fake_openai.call_tool("save_user_profile", {"prompt_anchor": "after my coffee", "preferred_time": "07:30",
                                                "motivational_frame": "less back pain"}, match="after my coffee")
    fake_openai.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "intake complete"},
                          match="SAVED 3 field")
    fake_openai.say("All set! I'll check in after your first nudge.", match="now in FEEDBACK")
    await transport.inject(ANA, "after my coffee at 7:30, it would ease my back pain")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-2:] == ["Lovely. What moment of your day could it follow?",
                                             "All set! I'll check in after your first nudge."]
    shown = await admin.show(app.db, ANA)
    assert shown.sub_state == "FEEDBACK"
    assert shown.profile["habit_domain"] == "stretching"
    assert shown.profile["prompt_anchor"] == "after my coffee"
    assert shown.profile["preferred_time"] == "07:30"

    # The next message is answered by the feedback module, which sees the whole history.
    fake_openai.say("How did the stretch go?", match="I did it")
    await transport.inject(ANA, "I did it this morning")
    await app.run_until_idle()
    feedback_request = fake_openai.requests[-1]
    assert "hear how the habit went" in feedback_request["messages"][0]["content"] or \
        "you hear how it went" in feedback_request["messages"][0]["content"]
    tool_names = {t["function"]["name"] for t in feedback_request["tools"]}
    # no prompt writing in feedback
    assert tool_names == {"save_user_profile", "scheduler", "transition_state", "flag_concern", "opt_out"}
    assert "I want to stretch more" in json.dumps(feedback_request["messages"])
    fake_openai.assert_complete()


async def test_tool_error_goes_back_to_the_model(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)

    fake_openai.call_tool("generate_habit_prompt", {"delivery_mode": "immediate"}, match="give me a prompt")
    fake_openai.say("Before I write one: when would you like your nudge?", match="ERROR from generate_habit_prompt")
    await transport.inject(ANA, "give me a prompt now")
    await app.run_until_idle()

    tool_result = fake_openai.requests[-1]["messages"][-1]
    assert tool_result["role"] == "tool"
    assert "prompt_anchor" in tool_result["content"] and "preferred_time" in tool_result["content"]
    assert transport.texts_to(ANA)[-1] == "Before I write one: when would you like your nudge?"
    fake_openai.assert_complete()


async def test_bad_tool_json_and_unknown_tool_are_reported_not_raised(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)

    fake_openai.call_tools([("save_user_profile", "{not json"), ("launch_rocket", {})], match="hello")
    fake_openai.say("Sorry, could you say that again?", match="no tool called")
    await transport.inject(ANA, "hello")
    await app.run_until_idle()

    results = [m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in results[0]
    assert "no tool called 'launch_rocket'" in results[1]
    assert transport.texts_to(ANA)[-1] == "Sorry, could you say that again?"
    fake_openai.assert_complete()


async def test_generated_prompt_is_relayed_and_remembered(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)
    fake_openai.call_tool("save_user_profile", {"prompt_anchor": "after coffee", "preferred_time": "8am"},
                          match="coffee at 8")
    fake_openai.call_tool("generate_habit_prompt", {"delivery_mode": "immediate"}, match="SAVED 2")
    fake_openai.say("After your coffee, roll your shoulders five times. Ready?", match="You write one habit nudge")
    fake_openai.say("Here it is: After your coffee, roll your shoulders five times. Ready?",
                    match="Habit prompt written")
    await transport.inject(ANA, "after coffee at 8, show me one")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1].endswith("roll your shoulders five times. Ready?")
    generator_request = next(r for r in fake_openai.requests
                             if "You write one habit nudge" in r["messages"][0]["content"])
    assert "after coffee" in generator_request["messages"][1]["content"]
    assert (await admin.show(app.db, ANA)).last_habit_prompt.startswith("After your coffee")
    fake_openai.assert_complete()


async def test_round_limit_gives_a_fallback_reply(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)
    for n in range(MAX_ROUNDS):
        fake_openai.call_tool("save_user_profile", {"additional_info": f"note {n}"})
    await transport.inject(ANA, "tell me more")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == INTAKE_FALLBACK
    assert len(fake_openai.requests) == 1 + MAX_ROUNDS  # greeting + exactly the limit, no 11th call
    assert (await admin.show(app.db, ANA)).profile["additional_info"] == f"note {MAX_ROUNDS - 1}"
    fake_openai.assert_complete()


async def test_repeated_identical_tool_call_stops_the_loop(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)
    fake_openai.call_tool("save_user_profile", {"habit_domain": "walking"}, text="Noted!")
    fake_openai.call_tool("save_user_profile", {"habit_domain": "walking"})
    await transport.inject(ANA, "walking")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == "Noted!"  # the model's own words from the round before
    assert len(fake_openai.requests) == 3
    fake_openai.assert_complete()


async def test_llm_outage_apologises_once_keeps_the_message_and_answers_on_retry(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)

    fake_openai.fail(500, match="are you there")
    await transport.inject(ANA, "are you there?")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == APOLOGY

    fake_openai.fail(429, match="are you there")  # still down at the first retry: no second apology
    app.clock.advance(31)
    await app.run_until_idle()
    assert transport.texts_to(ANA).count(APOLOGY) == 1

    fake_openai.say("Yes, I'm here! Sorry for the wait.", match="are you there")
    app.clock.advance(61)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Yes, I'm here! Sorry for the wait."
    rows = await admin.transcript(app.db, ANA)
    assert [r.status for r in rows if r.direction == "in"] == ["answered"]
    fake_openai.assert_complete()


async def test_llm_timeout_is_an_outage_not_a_crash(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, LLM_TIMEOUT="0.5s")
    await enroll_ana(app, fake_openai)
    fake_openai.hang(5, match="slow day")
    await transport.inject(ANA, "slow day")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == APOLOGY

    fake_openai.reset()
    fake_openai.say("Here now.", match="slow day")
    app.clock.advance(31)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Here now."
    fake_openai.assert_complete()


async def test_history_window_limits_what_the_model_sees(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, CHAT_HISTORY_LIMIT="2")
    await enroll_ana(app, fake_openai, "greeting text")
    for n in range(3):
        fake_openai.say(f"reply {n}", match=f"message {n}")
        await transport.inject(ANA, f"message {n}")
        await app.run_until_idle()
    last = fake_openai.requests[-1]["messages"]
    past = [m["content"] for m in last[2:-1]]
    assert past == ["message 1", "reply 1"]
    assert last[-1] == {"role": "user", "content": "message 2"}
    fake_openai.assert_complete()


async def test_a_bug_is_retried_a_few_times_then_marked_failed_and_kept(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from promptpipe.flow import conversation
    from promptpipe.flow.failures import GAVE_UP, MAX_ATTEMPTS_FOR_BUGS

    transport = MemoryTransport()
    app = await make_app(transport)
    await enroll_ana(app, fake_openai)

    def broken(*_: object) -> None:
        raise RuntimeError("a bug in routing")

    monkeypatch.setattr(conversation, "module_for", broken)
    await transport.inject(ANA, "this message hits a bug")
    for _ in range(MAX_ATTEMPTS_FOR_BUGS + 2):
        await app.run_until_idle()
        app.clock.advance(16 * 60)
    rows = await admin.transcript(app.db, ANA)
    assert [(r.direction, r.status) for r in rows][-3:] == [("in", "failed"), ("out", "sent"), ("out", "sent")]
    assert transport.texts_to(ANA).count(APOLOGY) == 1
    assert transport.texts_to(ANA)[-1] == GAVE_UP  # the promised answer will not come, and they hear so once
    assert app.flow.failures == MAX_ATTEMPTS_FOR_BUGS
    fake_openai.assert_complete()
