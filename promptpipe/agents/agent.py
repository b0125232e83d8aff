"""A conversation module: a system prompt, a context block, a set of tools and the shared loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from promptpipe.agents.toolloop import LoopResult, run_tool_loop
from promptpipe.domain.conversation import HistoryEntry, TurnState
from promptpipe.domain.limits import MODEL_CHARS_PER_BATCH, MODEL_CHARS_PER_HISTORY_ENTRY, MODEL_CHARS_PER_MESSAGE
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.profile import INTAKE_FIELDS
from promptpipe.domain.text import shorten
from promptpipe.domain.tone import ToneState, tone_guide
from promptpipe.llm import Message
from promptpipe.tools.base import Tool, ToolContext

GREETING_CUE = (
    "[Event, not written by the participant] The participant has just been enrolled in the study "
    "and has not written anything yet. Send them your first message now."
)
CHECK_IN_CUE = (
    "[Event, not written by the participant] Since their daily habit prompt the participant has not "
    "written anything. Send one short, warm message asking how it went with today's step. Do not "
    "repeat the prompt and do not call any tool unless they have told you something new."
)
FOLLOW_UP_CUE = (
    "[Event, not written by the participant] The participant has still not answered your last "
    "question about today's step. Send one brief, low-pressure follow-up that is easy to answer "
    "(a word like 'done' or 'not today' is enough). This is the last nudge today."
)


SAFETY_CUE = (
    "[Event, not written by the participant] The server's safety screen found words of possible crisis "
    "in the participant's message and has already sent them the study's safety message (emergency "
    "services, the study team). Answer with warmth and care, in a few sentences; do not repeat the "
    "safety information unless they ask, and do not push the habit now."
)

SUMMARY_HEADER = "Summary of your earlier conversation with this participant (older messages are not shown):"
LEFT_OUT = "[{count} earlier message(s) of this turn left out: too long to show]"


@dataclass(frozen=True)
class Budget:
    """How much of the conversation one request shows; after a context-length rejection the next, smaller one."""

    history_share: float  # of the history window (1.0: all of it)
    per_message: int
    per_batch: int
    per_history_entry: int


BUDGETS = (Budget(1.0, MODEL_CHARS_PER_MESSAGE, MODEL_CHARS_PER_BATCH, MODEL_CHARS_PER_HISTORY_ENTRY),
           Budget(0.25, 1_500, 4_000, 600), Budget(0.0, 600, 1_500, 0))


def batch_for_model(texts: Sequence[str], budget: Budget) -> list[str]:
    """Each shortened to ``per_message``, the newest first given their share of ``per_batch`` (a late "are you
    there?" is always seen whole); older ones that no longer fit are replaced by one note."""
    kept: list[str] = []
    left = budget.per_batch
    for index, text in enumerate(reversed(texts)):
        if left < 200 and kept:
            kept.append(LEFT_OUT.format(count=len(texts) - index))
            break
        shown = shorten(text, min(budget.per_message, max(left, 200)))
        kept.append(shown)
        left -= len(shown)
    return list(reversed(kept))


@dataclass(frozen=True)
class AgentModule:
    name: str
    system_prompt: Callable[[ToolContext], str]
    tools: tuple[Tool, ...]
    fallback: str
    """Sent when the loop is cut short and the model gave no usable text."""
    situation: Callable[[TurnState, datetime], str] = field(default=lambda state, now: describe_situation(state, now))
    """The facts block shown every turn."""

    def build_messages(self, ctx: ToolContext, history: Sequence[HistoryEntry], new_messages: Sequence[str], *,
                       cue: str | None = None, budget: Budget = BUDGETS[0]) -> list[Message]:
        """System prompt, situation, tone guide, summary, history window and what is new, within ``budget``."""
        state = ctx.state
        history = history[len(history) - int(len(history) * budget.history_share):] if history else history
        new_messages = batch_for_model(new_messages, budget)
        messages: list[Message] = [{"role": "system", "content": self.system_prompt(ctx)},
                                   {"role": "system", "content": self.situation(state, ctx.now())}]
        guide = tone_guide(ToneState.from_json(state.tone).active)
        if guide:
            messages.append({"role": "system", "content": guide})
        if state.summary.strip():
            messages.append({"role": "system", "content": f"{SUMMARY_HEADER}\n{state.summary.strip()}"})
        messages += [{"role": entry.role, "content": shorten(entry.text, budget.per_history_entry)}
                     for entry in history]
        if cue:  # an event the model must react to, e.g. the greeting of a new participant
            messages.append({"role": "system", "content": cue})
        messages += [{"role": "user", "content": text} for text in new_messages]
        return messages

    async def respond(self, ctx: ToolContext, history: Sequence[HistoryEntry], new_messages: Sequence[str], *,
                      cue: str | None = None, budget: Budget = BUDGETS[0]) -> LoopResult:
        messages = self.build_messages(ctx, history, new_messages, cue=cue, budget=budget)
        return await run_tool_loop(ctx.llm, messages, self.tools, ctx, fallback=self.fallback)


def describe_situation(state: TurnState, now: datetime) -> str:
    """The facts the model needs every turn, written out plainly."""
    lines = situation_basics(state, now)
    known = profile_lines(state)
    lines.append("Habit profile so far:" if known else "Habit profile so far: nothing saved yet.")
    lines += known
    missing = state.missing_fields(INTAKE_FIELDS)
    lines.append("Still missing for intake: "
                 + (", ".join(missing) if missing else "nothing; the profile is complete."))
    lines += schedule_lines(state)
    if state.profile.record.last_habit_prompt:
        lines.append(f"Last habit prompt they were given: {state.profile.record.last_habit_prompt}")
    return "\n".join(lines)


def situation_basics(state: TurnState, now: datetime) -> list[str]:
    person = state.participant
    zone = zone_or_utc(state.timezone)  # an invalid zone never stops a turn
    clock = now.astimezone(zone).strftime("%A %Y-%m-%d %H:%M") + f" ({zone.key})"
    lines = [f"Participant: {person.name or 'name not given'}", f"Their local time: {clock}",
             f"Conversation stage: {state.sub_state}"]
    if person.background.strip():
        lines.append(f"Researcher's notes about them: {person.background.strip()}")
    return lines


def profile_lines(state: TurnState) -> list[str]:
    return [f"- {name}: {value}" for name, value in state.profile.habit.filled().items()]


def schedule_lines(state: TurnState) -> list[str]:
    schedules = state.active_schedules()
    if not schedules:
        return ["Daily prompt schedule: none yet."]
    return [f"Daily prompt schedule: habit at {entry.spec().describe()}, prompt sent {entry.prep_minutes} "
            f"minutes before ({state.timezone})" for entry in schedules]
