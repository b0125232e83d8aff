"""Intake: get to know the participant's habit plan and fill their profile."""

from __future__ import annotations

from promptpipe.agents.agent import AgentModule
from promptpipe.tools import FLAG_CONCERN, OPT_OUT, SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE
from promptpipe.tools.prompt_generator import GENERATE_HABIT_PROMPT

INTAKE_FALLBACK = ("Thanks, I've noted that. Could you tell me a little more about the habit you'd like to build?")

INTAKE = AgentModule(
    name="intake",
    system_prompt=lambda ctx: ctx.prompts.intake,
    tools=(SAVE_USER_PROFILE, GENERATE_HABIT_PROMPT, SCHEDULER, TRANSITION_STATE, FLAG_CONCERN, OPT_OUT),
    fallback=INTAKE_FALLBACK,
)
