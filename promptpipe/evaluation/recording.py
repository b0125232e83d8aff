"""The coach's model as one conversation sees it: every tool call recorded and checked, every token counted."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from promptpipe.evaluation.records import TokenCount, ToolUse
from promptpipe.llm import LLM, Completion, Message, ToolCall, ToolSpec

__all__ = ["RecordingLLM", "call_problem"]


class RecordingLLM:
    """Wraps ``inner`` (swappable: a set-up may use a scripted model first). No ``close``: the run shares and closes
    the client. ``seed``: the conversation's, sent with every request (the engine itself sends none)."""

    def __init__(self, inner: LLM, *, now: Callable[[], datetime] | None = None, recording: bool = True,
                 seed: int | None = None) -> None:
        self.inner = inner
        self.seed = seed
        self.now: Callable[[], datetime] = now or (lambda: datetime.now(UTC))
        self.recording = recording
        self.tool_uses: list[ToolUse] = []
        self.tokens = TokenCount()

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, *,
                       seed: int | None = None) -> Completion:
        completion = await self.inner.complete(messages, tools, seed=self.seed if seed is None else seed)
        if self.recording:
            self.tokens = self.tokens + TokenCount(1, completion.prompt_tokens, completion.completion_tokens)
            offered = {spec["function"]["name"]: spec["function"].get("parameters") or {}
                       for spec in tools or () if isinstance(spec.get("function"), dict)}
            for call in completion.tool_calls:
                self.tool_uses.append(ToolUse(at=self.now(), name=call.name, arguments=call.arguments,
                                              offered=call.name in offered,
                                              error=call_problem(call, offered.get(call.name))))
        return completion


def call_problem(call: ToolCall, schema: Mapping[str, Any] | None) -> str | None:
    """Why the call does not fit the tool's declared parameters (None: it does)."""
    if schema is None:
        return f"the model called {call.name!r}, which was not offered"
    try:
        arguments = json.loads(call.arguments or "{}")
    except ValueError:
        return "the arguments are not valid JSON"
    if not isinstance(arguments, dict):
        return "the arguments are not a JSON object"
    properties = schema.get("properties") or {}
    missing = [name for name in schema.get("required", ()) if name not in arguments]
    if missing:
        return f"required argument(s) missing: {', '.join(missing)}"
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            return f"unknown argument(s): {', '.join(unknown)}"
    for name, value in arguments.items():
        choices = (properties.get(name) or {}).get("enum")
        if choices is not None and value not in choices:
            return f"{name!r} is {value!r}, not one of {', '.join(map(str, choices))}"
    return None
