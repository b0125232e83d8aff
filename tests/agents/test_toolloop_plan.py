"""plan_round is pure: every way a completion can end a round, without a server."""

from __future__ import annotations

from promptpipe.agents.toolloop import Reply, RoundPlan, Stop, StopReason, plan_round
from promptpipe.llm import Completion, ToolCall


def test_text_without_tool_calls_is_the_reply() -> None:
    assert plan_round(Completion(content="  Hello!  "), set()) == Reply("Hello!")


def test_empty_answer_stops_the_loop() -> None:
    assert plan_round(Completion(content=""), set()) == Stop(StopReason.EMPTY_REPLY)
    assert plan_round(Completion(content=None), set()) == Stop(StopReason.EMPTY_REPLY)


def test_tool_calls_are_planned_with_the_assistant_message() -> None:
    call = ToolCall(id="c1", name="save_user_profile", arguments='{"habit_domain": "x"}')
    plan = plan_round(Completion(content="one moment", tool_calls=(call,)), set())
    assert isinstance(plan, RoundPlan)
    assert plan.assistant_message["tool_calls"][0]["function"]["name"] == "save_user_profile"
    assert plan.assistant_message["content"] == "one moment"


def test_a_call_identical_to_an_earlier_one_stops_even_with_reordered_keys() -> None:
    earlier = ToolCall(id="c1", name="save_user_profile", arguments='{"a": "1", "b": "2"}')
    again = ToolCall(id="c2", name="save_user_profile", arguments='{"b": "2", "a": "1"}')
    assert plan_round(Completion(content=None, tool_calls=(again,)),
                      {earlier.signature()}) == Stop(StopReason.REPEATED_TOOL_CALL)


def test_same_tool_with_other_arguments_is_not_a_repeat() -> None:
    earlier = ToolCall(id="c1", name="save_user_profile", arguments='{"a": "1"}')
    other = ToolCall(id="c2", name="save_user_profile", arguments='{"a": "2"}')
    assert isinstance(plan_round(Completion(content=None, tool_calls=(other,)), {earlier.signature()}), RoundPlan)
