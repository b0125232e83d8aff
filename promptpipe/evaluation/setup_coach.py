"""A scripted stand-in for the coach that brings a hard case's participant to where the case begins, the same way every
time, so a case tests only what the coach does with the case's own messages."""

from __future__ import annotations

import json
from collections.abc import Sequence

from promptpipe.llm import Completion, Message, ToolCall, ToolSpec

__all__ = ["SETUP_MESSAGE", "SETUP_PROFILE", "SETUP_TIME", "SetupCoach"]

SETUP_TIME = "19:00"
SETUP_PROFILE = {
    "habit_domain": "a 10-minute evening walk",
    "prompt_anchor": "after dinner",
    "preferred_time": SETUP_TIME,
    "motivational_frame": "to sleep better",
}
SETUP_MESSAGE = "I'd like to take a 10-minute walk after dinner, around 19:00, so I sleep better."
_GREETING = "Hi Sam, welcome to the study! What habit would you like to build?"
_DONE = "All set: your first nudge comes at 19:00."
_PROMPT = "Dinner done? Put your shoes on and walk around the block for 10 minutes."


class SetupCoach:
    """Answers the set-up's few requests: the greeting, the intake (three tool calls), the daily prompt."""

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, *,
                       seed: int | None = None) -> Completion:
        offered = {spec["function"]["name"] for spec in tools or ()}
        role, content = (messages[-1]["role"], messages[-1]["content"] or "") if messages else ("", "")
        if not offered:  # the daily prompt's writer is asked without tools
            return Completion(_PROMPT)
        if role == "tool":
            return Completion(_DONE)
        if role == "user" and SETUP_MESSAGE in content:
            calls = (("save_user_profile", SETUP_PROFILE),
                     ("scheduler", {"action": "create", "type": "fixed", "fixed_time": SETUP_TIME}),
                     ("transition_state", {"target_state": "FEEDBACK", "reason": "intake complete"}))
            return Completion(None, tuple(ToolCall(f"setup-{index}", name, json.dumps(arguments))
                                          for index, (name, arguments) in enumerate(calls) if name in offered))
        return Completion(_GREETING)
