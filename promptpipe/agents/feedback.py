"""Feedback: hear how the habit went and adjust the plan. The situation block names the prompt answered, so the model
talks about it rather than guess which one is meant."""

from __future__ import annotations

import contextlib
from datetime import datetime

from promptpipe.agents.agent import AgentModule, profile_lines, schedule_lines, situation_basics
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import local_label, zone_or_utc
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.states import VOTE_WORDS
from promptpipe.tools import FLAG_CONCERN, OPT_OUT, SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE

FEEDBACK_FALLBACK = "Thank you for telling me. How did it feel to try it?"


def describe_feedback_situation(state: TurnState, now: datetime) -> str:
    record = state.profile.record
    lines = situation_basics(state, now)
    prompt, sent_at = record.last_habit_prompt, record.last_prompt_sent_at
    if prompt:
        when = ""
        if sent_at:
            with contextlib.suppress(ValueError):
                when = f" (sent {local_label(datetime.fromisoformat(sent_at), zone_or_utc(state.timezone))})"
        vote = VOTE_WORDS.get(str(record.last_prompt_vote), "no vote yet")
        lines += [f"The prompt they are answering{when}: {prompt}", f"Their answer on its poll: {vote}"]
    else:
        lines.append("The prompt they are answering: none has been sent yet.")
    if record.counter("prompts_sent"):
        lines.append(
            f"Track record: {record.counter('prompts_sent')} prompts sent, done {record.counter('successes')}, "
            f"not this time {record.counter('misses')}; current streak {record.counter('current_streak')} day(s), "
            f"best {record.counter('best_streak')}."
        )
    known = profile_lines(state)
    lines += ["Habit profile:", *known] if known else ["Habit profile: nothing saved yet."]
    if record.recent_barriers:
        lines.append("Recent barriers (oldest first):")
        lines += [f"- {barrier.local_date}: {barrier.text}" for barrier in record.recent_barriers]
    lines += schedule_lines(state)
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        lines.append("The plan cannot carry a daily prompt: it lacks " + ", ".join(missing)
                     + ". Hand the conversation back to INTAKE to fill it in.")
    return "\n".join(lines)


FEEDBACK = AgentModule(name="feedback", system_prompt=lambda ctx: ctx.prompts.feedback,
                       tools=(SAVE_USER_PROFILE, SCHEDULER, TRANSITION_STATE, FLAG_CONCERN, OPT_OUT),
                       fallback=FEEDBACK_FALLBACK, situation=describe_feedback_situation)
