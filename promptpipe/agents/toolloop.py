"""The bounded tool-calling loop shared by the intake and feedback modules. Tool results are shown in the next round, so
the model never announces a result it has not seen; every stop becomes a fallback reply in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from promptpipe.domain.limits import REPLY_CHARS
from promptpipe.domain.text import cap_reply, complete_sentences
from promptpipe.llm import LLM, Completion, Message, ToolCall
from promptpipe.logging import get_logger
from promptpipe.tools.base import Tool, ToolContext, format_tool_error

MAX_ROUNDS = 10
log = get_logger("promptpipe.toolloop")


class StopReason(StrEnum):
    """Why a loop's text is not simply the model's own reply (:attr:`LoopResult.stopped`; logged)."""

    EMPTY_REPLY = "empty_reply"  # neither text nor tool calls: the fallback
    TRUNCATED = "truncated"  # cut off with no whole sentence to keep: the fallback
    TOO_LONG = "too_long"  # longer than REPLY_CHARS with no whole sentence that fits: the fallback
    REPEATED_TOOL_CALL = "repeated_tool_call"  # a call made before with the same arguments: the fallback
    ROUND_LIMIT = "round_limit"  # still calling tools after ``max_rounds`` rounds: the fallback
    ENDED_BY_TOOL = "ended_by_tool"  # a tool decided the reply itself (an opt-out); the loop's text is empty
    SHORTENED = "shortened"  # not a stop: the text was cut off or too long, and its whole sentences are the reply


@dataclass(frozen=True)
class Reply:
    text: str
    shortened: bool = False  # the model's text was cut off or too long; this is its whole-sentence part


@dataclass(frozen=True)
class Stop:
    reason: StopReason


@dataclass(frozen=True)
class RoundPlan:
    """Tool calls to run this round, with the assistant message that asked for them."""

    assistant_message: Message
    calls: tuple[ToolCall, ...]


class LoopStopped(Exception):
    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class LoopResult:
    text: str
    rounds: int
    tools_called: list[str] = field(default_factory=list)
    stopped: StopReason | None = None
    """Why the text is not simply the model's reply (a fallback, or an interim text written alongside tool calls)."""


def plan_round(completion: Completion, seen: set[tuple[str, str]]) -> Reply | Stop | RoundPlan:
    """Decide what a completion means, without doing anything."""
    if not completion.tool_calls:
        text = (completion.content or "").strip()
        if not text:
            return Stop(StopReason.EMPTY_REPLY)
        if completion.truncated:  # cut off mid-thought: keep what is complete, or fall back
            whole = complete_sentences(text, REPLY_CHARS)
            return Reply(whole, shortened=True) if whole else Stop(StopReason.TRUNCATED)
        capped = cap_reply(text, REPLY_CHARS)
        return Reply(capped, shortened=capped != text) if capped else Stop(StopReason.TOO_LONG)
    if any(call.signature() in seen for call in completion.tool_calls):
        return Stop(StopReason.REPEATED_TOOL_CALL)
    assistant: Message = {
        "role": "assistant",
        "content": completion.content or None,
        "tool_calls": [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in completion.tool_calls
        ],
    }
    return RoundPlan(assistant_message=assistant, calls=completion.tool_calls)


async def execute(plan: RoundPlan, ctx: ToolContext, tools: dict[str, Tool], messages: list[Message],
                  seen: set[tuple[str, str]], called: list[str]) -> list[Message]:
    """Run the planned calls one after the other; every call gets a tool result message (the next round's messages)."""
    messages = [*messages, plan.assistant_message]
    for call in plan.calls:
        tool = tools.get(call.name)
        if tool is None:
            result = format_tool_error(
                call.name, f"there is no tool called {call.name!r}; use one of {', '.join(tools)}")
        else:
            if ctx.before_change is not None:
                ctx.before_change()
            result = await tool.invoke(ctx, call.arguments)
        seen.add(call.signature())
        called.append(call.name)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return messages


async def run_tool_loop(llm: LLM, messages: Sequence[Message], tools: Sequence[Tool], ctx: ToolContext, *,
                        fallback: str, max_rounds: int = MAX_ROUNDS) -> LoopResult:
    """Run rounds until the model replies; LLM errors propagate (the caller keeps the input)."""
    by_name = {tool.name: tool for tool in tools}
    specs = [tool.spec() for tool in tools] or None
    current = list(messages)
    seen: set[tuple[str, str]] = set()
    called: list[str] = []
    interim = ""
    rounds = 0
    try:
        for rounds in range(1, max_rounds + 1):
            completion = await llm.complete(current, specs)
            planned = plan_round(completion, seen)
            if isinstance(planned, Reply):
                return LoopResult(planned.text, rounds, called,
                                  stopped=StopReason.SHORTENED if planned.shortened else None)
            if isinstance(planned, Stop):
                raise LoopStopped(planned.reason)
            interim = cap_reply((completion.content or "").strip(), REPLY_CHARS) or interim
            current = await execute(planned, ctx, by_name, current, seen, called)
            if ctx.ends_turn:
                return LoopResult("", rounds, called, stopped=StopReason.ENDED_BY_TOOL)
        raise LoopStopped(StopReason.ROUND_LIMIT)
    except LoopStopped as stopped:
        log.warning("tool_loop_stopped", reason=stopped.reason, rounds=rounds,
                    participant_id=ctx.participant_id, tools_called=called)
        return LoopResult(interim or fallback, rounds, called, stopped=stopped.reason)
