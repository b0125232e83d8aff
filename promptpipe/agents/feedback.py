"""Feedback: hear how the habit went, keep what helped and what got in the way, adjust the plan.

Its situation block shows the prompt being answered, the vote on its poll, the participant's
track record (kept by the server from their votes) and their recent barriers, so the model can
talk about this prompt rather than guess which one is meant.
"""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain.localtime import local_label, zone_or_utc
from promptpipe.agents.agent import AgentModule, profile_lines, schedule_lines, situation_basics
from promptpipe.domain.conversation import PROMPT_REQUIRED_FIELDS, TurnState
from promptpipe.tools import FLAG_CONCERN, OPT_OUT, SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE
from promptpipe.tools.profile import RECENT_BARRIERS

FEEDBACK_FALLBACK = "Thank you for telling me. How did it feel to try it?"

VOTE_WORDS = {"done": "done", "not_this_time": "not this time"}


def describe_feedback_situation(state: TurnState, now: datetime) -> str:
    profile = state.profile
    lines = situation_basics(state, now)
    prompt = str(profile.get("last_habit_prompt") or "")
    sent_at = profile.get("last_prompt_sent_at")
    if prompt:
        when = ""
        if isinstance(sent_at, str):
            try:
                when = f" (sent {local_label(datetime.fromisoformat(sent_at), zone_or_utc(state.timezone))})"
            except ValueError:
                when = ""
        vote = VOTE_WORDS.get(str(profile.get("last_prompt_vote")), "no vote yet")
        lines += [f"The prompt they are answering{when}: {prompt}", f"Their answer on its poll: {vote}"]
    else:
        lines.append("The prompt they are answering: none has been sent yet.")
    counts = profile.get("counters") or {}
    if counts.get("prompts_sent"):
        lines.append(
            f"Track record: {counts.get('prompts_sent', 0)} prompts sent, done {counts.get('successes', 0)}, "
            f"not this time {counts.get('misses', 0)}; current streak {counts.get('current_streak', 0)} day(s), "
            f"best {counts.get('best_streak', 0)}."
        )
    known = profile_lines(state)
    lines += ["Habit profile:", *known] if known else ["Habit profile: nothing saved yet."]
    barriers = [entry for entry in profile.get(RECENT_BARRIERS) or [] if isinstance(entry, dict)]
    if barriers:
        lines.append("Recent barriers (oldest first):")
        lines += [f"- {entry.get('date', '?')}: {entry.get('text', '')}" for entry in barriers]
    lines += schedule_lines(state)
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        lines.append("The plan cannot carry a daily prompt: it lacks " + ", ".join(missing)
                     + ". Hand the conversation back to INTAKE to fill it in.")
    return "\n".join(lines)


FEEDBACK = AgentModule(
    name="feedback",
    system_prompt=lambda ctx: ctx.prompts.feedback,
    tools=(SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE, FLAG_CONCERN, OPT_OUT),
    fallback=FEEDBACK_FALLBACK,
    situation=describe_feedback_situation,
)
