"""What a tool is, what it may touch, and how its failures reach the model."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from promptpipe.clock import Clock
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.text import clean_value
from promptpipe.domain.timers import NudgePolicy
from promptpipe.errors import LLMError, ToolArgumentError
from promptpipe.llm import LLM, ToolSpec
from promptpipe.study.rules.protocol import OPEN_STUDY, Study


@dataclass
class ToolContext:
    """Bound on the server: a tool can only reach the participant whose turn this is."""

    state: TurnState
    llm: LLM
    clock: Clock
    prompts: PromptTexts
    policy: NudgePolicy = field(default_factory=NudgePolicy)
    inbound: tuple[str, ...] = ()
    """What the participant wrote in this turn (kept as the words behind a consent change)."""
    ends_turn: bool = False
    """Set by a tool whose effect decides the reply (an opt-out): the loop stops after its round."""
    study: Study = OPEN_STUDY
    """The study's protocol (quiet hours, when study days begin)."""
    before_change: Callable[[], None] | None = None
    """Called before each tool runs (tools are what change ``state``): a turn keeps the state a retry starts from."""

    @property
    def participant_id(self) -> str:
        return self.state.participant.id

    def now(self) -> datetime:
        return self.clock.now()


@dataclass(frozen=True)
class PromptTexts:
    """System prompts read once at start."""

    intake: str
    feedback: str
    prompt_generator: str
    summary: str = ""


def arguments(properties: Mapping[str, object], *required: str) -> dict[str, Any]:
    """A tool's ``parameters``: a JSON object of these properties and no others."""
    return {"type": "object", "properties": properties, **({"required": list(required)} if required else {}),
            "additionalProperties": False}


ToolArguments = dict[str, object]
"""A tool call's arguments as the model wrote them: a JSON object each tool checks field by field."""
Invoke = Callable[[ToolContext, ToolArguments], Awaitable[str]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Invoke

    def spec(self) -> ToolSpec:
        """The OpenAI ``tools`` entry for this tool."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.parameters}}

    async def invoke(self, ctx: ToolContext, raw_arguments: str) -> str:
        """Run the tool; bad input and refusals come back as text the model can act on."""
        try:
            return await self.handler(ctx, parse_arguments(raw_arguments))
        except ToolArgumentError as exc:
            return format_tool_error(self.name, str(exc))
        except LLMError as exc:
            return format_tool_error(self.name, f"the helper model could not answer right now ({exc})")


def parse_arguments(raw: str) -> ToolArguments:
    if not raw or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        msg, pos = getattr(exc, "msg", str(exc)), getattr(exc, "pos", "?")
        raise ToolArgumentError(f"the arguments are not valid JSON ({msg} at position {pos})") from None
    if not isinstance(value, dict):
        raise ToolArgumentError("the arguments must be a JSON object")
    cleaned = clean_value(value)  # a NUL or lone surrogate never reaches storage
    assert isinstance(cleaned, dict)
    return cleaned


def format_tool_error(tool_name: str, reason: str) -> str:
    """The one format every tool failure takes when it goes back to the model."""
    return f"ERROR from {tool_name}: {reason}. Nothing was changed by this call; fix the call or tell the participant."


def optional_string(args: ToolArguments, name: str) -> str:
    value = args.get(name)
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)):
        raise ToolArgumentError(f"'{name}' must be a string")
    return str(value).strip()
