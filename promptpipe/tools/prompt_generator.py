"""``generate_habit_prompt``: write the participant's personalised one-minute habit prompt."""

from __future__ import annotations

from promptpipe.domain.conversation import TurnState
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS, Intensity
from promptpipe.domain.text import cap_reply, complete_sentences
from promptpipe.domain.tone import ToneState, tone_guide
from promptpipe.errors import ToolArgumentError
from promptpipe.llm import LLM, Message
from promptpipe.tools.base import Tool, ToolArguments, ToolContext, arguments, optional_string

DELIVERY_MODES = ("immediate", "scheduled")
MAX_PROMPT_CHARS = 600
_PLAN_FIELDS = (
    ("habit_domain", "Habit"),
    ("prompt_anchor", "Everyday moment it hangs on"),
    ("motivational_frame", "Why it matters to them"),
    ("preferred_time", "When they want the nudge"),
    ("additional_info", "Other things to know"),
)
_LEARNED_FIELDS = (
    ("last_successful_prompt", "A prompt that worked for them"),
    ("last_motivator", "What helped them last time"),
    ("last_barrier", "What got in the way last time (make the step easier around it)"),
    ("last_tweak", "A change they asked for (apply it)"),
)
_INTENSITY: dict[str, str] = {
    Intensity.LOW: "They asked for lighter steps: make the action smaller and easier than usual.",
    Intensity.HIGH: "They asked for more ambitious steps: make the action a little bigger than usual.",
}


def generator_messages(state: TurnState, system_prompt: str, *, delivery_mode: str, notes: str) -> list[Message]:
    """The messages to write one prompt: no history, the profile, feedback and tone guide are all it needs."""
    habit, record = state.profile.habit, state.profile.record
    lines = [f"Participant: {state.participant.name or 'unnamed'}"]
    lines += [f"{label}: {habit.value(name)}" for name, label in _PLAN_FIELDS if habit.value(name)]
    learned = [f"{label}: {habit.value(name)}" for name, label in _LEARNED_FIELDS if habit.value(name)]
    if learned:
        lines += ["From their feedback so far:", *learned]
    if record.counter("prompts_sent"):
        lines.append(f"Track record: done {record.counter('successes')} of {record.counter('prompts_sent')} prompts, "
                     f"current streak {record.counter('current_streak')} day(s).")
    if record.intensity in _INTENSITY:
        lines.append(_INTENSITY[record.intensity])
    lines.append("Delivery: " + ("The participant asked for a prompt right now." if delivery_mode == "immediate"
                                 else "This prompt is the participant's scheduled daily nudge."))
    if notes:
        lines.append(f"Extra context from the conversation: {notes}")
    lines.append("Write the prompt now. Reply with the prompt text only.")
    guide = tone_guide(ToneState.from_json(state.tone).active)
    system = f"{system_prompt}\n\n{guide}" if guide else system_prompt
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


async def write_habit_prompt(llm: LLM, state: TurnState, system_prompt: str, *, delivery_mode: str,
                             notes: str = "") -> str:
    """Shared by the tool and (later) the daily scheduler. Raises ToolArgumentError when incomplete."""
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        raise ToolArgumentError(
            "the profile is missing " + " and ".join(missing) + "; ask the participant and save it first"
        )
    completion = await llm.complete(generator_messages(state, system_prompt, delivery_mode=delivery_mode, notes=notes))
    text = (completion.content or "").strip().strip('"').strip()
    if completion.truncated:  # cut off mid-sentence: keep its whole sentences
        text = complete_sentences(text, MAX_PROMPT_CHARS)
    if not text:
        raise ToolArgumentError("the prompt writer returned nothing; try again once")
    capped = cap_reply(text, MAX_PROMPT_CHARS)
    if not capped:
        raise ToolArgumentError(f"the prompt writer's text was longer than {MAX_PROMPT_CHARS} characters without a "
                                "sentence that fits; try again once, shorter")
    return capped


async def _generate(ctx: ToolContext, args: ToolArguments) -> str:
    mode = optional_string(args, "delivery_mode") or "immediate"
    if mode not in DELIVERY_MODES:
        raise ToolArgumentError(f"'delivery_mode' must be one of {', '.join(DELIVERY_MODES)}")
    notes = optional_string(args, "personalization_notes")
    text = await write_habit_prompt(ctx.llm, ctx.state, ctx.prompts.prompt_generator, delivery_mode=mode, notes=notes)
    ctx.state.profile.record.last_habit_prompt = text
    return f"Habit prompt written. Give it to the participant exactly as written:\n{text}"


GENERATE_HABIT_PROMPT = Tool(
    name="generate_habit_prompt",
    description=(
        "Write the participant's personalised one-minute habit prompt from their saved profile. "
        "Needs prompt_anchor and preferred_time in the profile. Use it when the participant wants "
        "to try a prompt now; pass on the returned text unchanged."
    ),
    parameters=arguments({
        "delivery_mode": {"type": "string", "enum": list(DELIVERY_MODES)},
        "personalization_notes": {
            "type": "string", "description": "Anything from this conversation the prompt should use."},
    }),
    handler=_generate,
)
