"""Feedback: hear how the habit went. A short first version; the feedback issue deepens it."""

from __future__ import annotations

from promptpipe.modules.agent import AgentModule
from promptpipe.tools import SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE

FEEDBACK_FALLBACK = "Thank you for telling me. How did it feel to try it?"

FEEDBACK = AgentModule(
    name="feedback",
    system_prompt=lambda ctx: ctx.prompts.feedback,
    tools=(SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE),
    fallback=FEEDBACK_FALLBACK,
)
