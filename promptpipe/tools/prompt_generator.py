"""``generate_habit_prompt``: write the participant's personalised one-minute habit prompt."""

from __future__ import annotations

from typing import Any

from promptpipe.errors import ToolArgumentError
from promptpipe.llm import LLM
from promptpipe.state import PROMPT_REQUIRED_FIELDS, TurnState
from promptpipe.tools.base import Tool, ToolContext, optional_string

DELIVERY_MODES = ("immediate", "scheduled")
MAX_PROMPT_CHARS = 600
_BOOKKEEPING = {"updated_at", "counters", "last_prompt_sent_at", "intensity_poll_date"}


def generator_messages(state: TurnState, system_prompt: str, *, delivery_mode: str, notes: str) -> list[dict[str, str]]:
    """The two messages sent to the model to write one prompt (no history: it needs only the profile)."""
    profile = state.profile
    lines = [f"{name.replace('_', ' ')}: {profile[name]}" for name in sorted(profile)
             if name not in _BOOKKEEPING and profile[name]]
    situation = (
        "The participant asked for a prompt right now."
        if delivery_mode == "immediate"
        else "This prompt is the participant's scheduled daily nudge."
    )
    user = "\n".join(
        [
            f"Participant: {state.participant.name or 'unnamed'}",
            *lines,
            f"Delivery: {situation}",
            *( [f"Extra context from the conversation: {notes}"] if notes else [] ),
            "Write the prompt now. Reply with the prompt text only.",
        ]
    )
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]


async def write_habit_prompt(llm: LLM, state: TurnState, system_prompt: str, *, delivery_mode: str, notes: str = "") -> str:
    """Shared by the tool and (later) the daily scheduler. Raises ToolArgumentError when incomplete."""
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        raise ToolArgumentError(
            "the profile is missing " + " and ".join(missing) + "; ask the participant and save it first"
        )
    completion = await llm.complete(generator_messages(state, system_prompt, delivery_mode=delivery_mode, notes=notes))
    text = (completion.content or "").strip().strip('"').strip()
    if not text:
        raise ToolArgumentError("the prompt writer returned nothing; try again once")
    return text[:MAX_PROMPT_CHARS]


async def _generate(ctx: ToolContext, args: dict[str, Any]) -> str:
    mode = optional_string(args, "delivery_mode") or "immediate"
    if mode not in DELIVERY_MODES:
        raise ToolArgumentError(f"'delivery_mode' must be one of {', '.join(DELIVERY_MODES)}")
    notes = optional_string(args, "personalization_notes")
    text = await write_habit_prompt(ctx.llm, ctx.state, ctx.prompts.prompt_generator, delivery_mode=mode, notes=notes)
    ctx.state.profile = {**ctx.state.profile, "last_habit_prompt": text}
    return f"Habit prompt written. Give it to the participant exactly as written:\n{text}"


GENERATE_HABIT_PROMPT = Tool(
    name="generate_habit_prompt",
    description=(
        "Write the participant's personalised one-minute habit prompt from their saved profile. "
        "Needs prompt_anchor and preferred_time in the profile. Use it when the participant wants "
        "to try a prompt now; pass on the returned text unchanged."
    ),
    parameters={
        "type": "object",
        "properties": {
            "delivery_mode": {"type": "string", "enum": list(DELIVERY_MODES)},
            "personalization_notes": {"type": "string", "description": "Anything from this conversation the prompt should use."},
        },
        "additionalProperties": False,
    },
    handler=_generate,
)
