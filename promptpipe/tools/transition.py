"""``transition_state``: hand the conversation between intake and feedback."""

from __future__ import annotations

from typing import Any

from promptpipe.errors import ToolArgumentError
from promptpipe.models import SUB_STATES
from promptpipe.tools.base import Tool, ToolContext, optional_string


async def _transition(ctx: ToolContext, args: dict[str, Any]) -> str:
    target = optional_string(args, "target_state").upper()
    if target not in SUB_STATES:
        raise ToolArgumentError(f"'target_state' must be one of {', '.join(SUB_STATES)}")
    reason = optional_string(args, "reason") or "requested by the assistant"
    if not ctx.state.move_to(target, reason=reason):
        return f"The conversation is already in {target}; nothing changed."
    return f"Done: the conversation is now in {target}. Your next reply is sent from there."


TRANSITION_STATE = Tool(
    name="transition_state",
    description=(
        "Move the conversation to INTAKE (building or repairing the habit profile) or FEEDBACK "
        "(hearing how the habit went). Takes effect immediately."
    ),
    parameters={
        "type": "object",
        "properties": {
            "target_state": {"type": "string", "enum": list(SUB_STATES)},
            "reason": {"type": "string", "description": "Why, in a few words (kept in the audit log)."},
        },
        "required": ["target_state"],
        "additionalProperties": False,
    },
    handler=_transition,
)
