"""The bounded tool-calling loop shared by the intake and feedback modules.

Each round asks the model once, turns its answer into a step with no I/O (:func:`plan_round`),
and runs the step. A completion with text and no tool calls ends the loop with that text. Tool
calls are run and their results shown to the model in the next round, so it never announces a
result it has not seen. The round limit, a repeated identical call and an empty answer raise one
signal, :class:`LoopStopped`, which becomes a fallback reply in one place: the participant always
gets an answer. A reply is at most :data:`~promptpipe.domain.limits.REPLY_CHARS` long and ends on a whole
sentence; a completion the model was cut off in keeps its whole sentences (or becomes the fallback).
A tool that decides the reply itself (an opt-out) ends the loop after its round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from promptpipe.domain.limits import REPLY_CHARS
from promptpipe.domain.text import cap_reply, complete_sentences
from promptpipe.llm import LLM, Completion, ToolCall
from promptpipe.logging import get_logger
from promptpipe.tools.base import Tool, ToolContext, format_tool_error

MAX_ROUNDS = 10
log = get_logger("promptpipe.toolloop")


@dataclass(frozen=True)
class Reply:
    text: str
    shortened: bool = False
    """The model's text was cut off or too long; this is its whole-sentence part."""


@dataclass(frozen=True)
class RunAgain:
    messages: list[dict[str, Any]]


@dataclass(frozen=True)
class Stop:
    reason: str
    """round_limit | repeated_tool_call | empty_reply | truncated | ended_by_tool"""


@dataclass(frozen=True)
class RoundPlan:
    """Tool calls to run this round, with the assistant message that asked for them."""

    assistant_message: dict[str, Any]
    calls: tuple[ToolCall, ...]


class LoopStopped(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class LoopResult:
    text: str
    rounds: int
    tools_called: list[str] = field(default_factory=list)
    stopped: str | None = None
    """Why the loop was cut short, when the text is a fallback."""


def plan_round(completion: Completion, seen: set[tuple[str, str]]) -> Reply | Stop | RoundPlan:
    """Decide what a completion means, without doing anything."""
    if not completion.tool_calls:
        text = (completion.content or "").strip()
        if not text:
            return Stop("empty_reply")
        if completion.truncated:  # cut off mid-thought: keep what is complete, or fall back
            whole = complete_sentences(text, REPLY_CHARS)
            return Reply(whole, shortened=True) if whole else Stop("truncated")
        capped = cap_reply(text, REPLY_CHARS)
        return Reply(capped, shortened=capped != text) if capped else Stop("too_long")
    if any(call.signature() in seen for call in completion.tool_calls):
        return Stop("repeated_tool_call")
    assistant = {
        "role": "assistant",
        "content": completion.content or None,
        "tool_calls": [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in completion.tool_calls
        ],
    }
    return RoundPlan(assistant_message=assistant, calls=completion.tool_calls)


async def execute(
    plan: RoundPlan,
    ctx: ToolContext,
    tools: dict[str, Tool],
    messages: list[dict[str, Any]],
    seen: set[tuple[str, str]],
    called: list[str],
) -> RunAgain:
    """Run the planned calls one after the other; every call gets a tool result message."""
    messages = [*messages, plan.assistant_message]
    for call in plan.calls:
        tool = tools.get(call.name)
        if tool is None:
            result = format_tool_error(
                call.name, f"there is no tool called {call.name!r}; use one of {', '.join(tools)}")
        else:
            result = await tool.invoke(ctx, call.arguments)
        seen.add(call.signature())
        called.append(call.name)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return RunAgain(messages)


async def run_tool_loop(
    llm: LLM,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[Tool],
    ctx: ToolContext,
    *,
    fallback: str,
    max_rounds: int = MAX_ROUNDS,
) -> LoopResult:
    """Run rounds until the model replies; LLM errors propagate (the caller keeps the input)."""
    by_name = {tool.name: tool for tool in tools}
    specs = [tool.spec() for tool in tools] or None
    current = list(messages)
    seen: set[tuple[str, str]] = set()
    called: list[str] = []
    interim = ""
    rounds = 0
    try:
        while True:
            if rounds >= max_rounds:
                raise LoopStopped("round_limit")
            rounds += 1
            completion = await llm.complete(current, specs)
            planned = plan_round(completion, seen)
            step: Reply | Stop | RunAgain
            if isinstance(planned, RoundPlan):
                interim = cap_reply((completion.content or "").strip(), REPLY_CHARS) or interim
                step = await execute(planned, ctx, by_name, current, seen, called)
                if ctx.ends_turn:
                    return LoopResult("", rounds, called, stopped="ended_by_tool")
            else:
                step = planned
            if isinstance(step, Reply):
                return LoopResult(step.text, rounds, called, stopped="shortened" if step.shortened else None)
            if isinstance(step, Stop):
                raise LoopStopped(step.reason)
            current = step.messages
    except LoopStopped as stopped:
        log.warning("tool_loop_stopped", reason=stopped.reason, rounds=rounds,
                    participant_id=ctx.participant_id, tools_called=called)
        return LoopResult(interim or fallback, rounds, called, stopped=stopped.reason)
