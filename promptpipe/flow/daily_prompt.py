"""Delivery of a daily prompt: the event a participant's daily alarm writes to their inbox.

The prompt is written by the prompt generator from the profile, then sent as two messages: the
prompt itself and a "did you do it?" poll, both in the transcript so the feedback module sees what
is being answered. If the profile cannot carry a prompt yet, the participant is handed back to
intake with a message that says what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.polls import DONE_PURPOSE, POLL_OPTIONS, POLL_QUESTION
from promptpipe.domain.profile import PROMPT_REQUIRED_FIELDS
from promptpipe.domain.timers import NudgePolicy
from promptpipe.errors import LLMUnavailable, ToolArgumentError
from promptpipe.flow import intensity
from promptpipe.flow.timers import arm_after_prompt, lateness
from promptpipe.flow.turn import CommitHook, FlowDeps, Outcome, Outgoing, TurnContext
from promptpipe.llm import LLM
from promptpipe.pipeline.events import DailyPromptDue
from promptpipe.storage.deliveries import record_delivery, recount
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.tools import write_habit_prompt

_FIELD_WORDS = {
    "prompt_anchor": "the everyday moment your habit can follow",
    "preferred_time": "when you'd like to get your nudge",
}


def missing_fields_message(missing: list[str]) -> str:
    needed = " and ".join(_FIELD_WORDS.get(name, name.replace("_", " ")) for name in missing)
    return (
        f"It's time for your daily nudge, but I can't write it yet: I still need to know {needed}. "
        "Could you tell me?"
    )


async def prepare_daily_prompt(
    llm: LLM, state: TurnState, generator_prompt: str, *, inbox_id: int, now: datetime, policy: NudgePolicy,
    local_day: date,
) -> list[Outgoing]:
    """What to send for one daily-prompt event; changes ``state`` (counters and timers, or back
    to intake)."""
    missing = state.missing_fields(PROMPT_REQUIRED_FIELDS)
    if missing:
        state.apply("feedback_to_intake", actor="server",
                    reason="daily prompt due but the profile lacks " + ", ".join(missing))
        return [Outgoing(keys.reply(inbox_id), missing_fields_message(missing), "text")]
    try:
        text = await write_habit_prompt(llm, state, generator_prompt, delivery_mode="scheduled")
    except ToolArgumentError as exc:  # the writer answered nothing: try again later
        raise LLMUnavailable(f"prompt generator gave no prompt ({exc})") from exc
    record = state.profile.record
    record.last_habit_prompt, record.last_prompt_sent_at, record.last_prompt_vote = text, now.isoformat(), None
    arm_after_prompt(state, policy, now, inbox_id)
    outgoing = [
        Outgoing(keys.prompt_text(inbox_id), text, "prompt"),
        Outgoing(keys.prompt_poll(inbox_id), POLL_QUESTION, "poll",
                 {"options": list(POLL_OPTIONS), "purpose": DONE_PURPOSE}),
    ]
    if policy.intensity_poll and intensity.poll_due(state, local_day):
        options = intensity.mark_poll_sent(state, local_day)
        outgoing.append(Outgoing(keys.intensity_poll(inbox_id), intensity.QUESTION, "poll",
                                 {"options": options, "purpose": intensity.PURPOSE}))
    return outgoing


def delivery_hook(state: TurnState, outgoing: list[Outgoing], *, inbox_id: int, schedule_id: str | None,
                  local_day: date, now: datetime) -> CommitHook:
    """Record the prompt as a delivery (its poll is how votes find it) and recount the profile."""
    prompt = next((o for o in outgoing if o.kind == "prompt"), None)

    def write(session: Session, message_ids: Mapping[str, int | None]) -> None:
        if prompt is None:
            return
        record_delivery(session, participant_id=state.participant.id, inbox_id=inbox_id, schedule_id=schedule_id,
                        local_date=local_day.isoformat(), prompt_text=prompt.text,
                        prompt_message_id=message_ids.get(keys.prompt_text(inbox_id)),
                        poll_message_id=message_ids.get(keys.prompt_poll(inbox_id)), now=now)
        state.profile.record.counters = recount(session, state.participant.id)
        intensity_poll = message_ids.get(keys.intensity_poll(inbox_id))
        if intensity_poll is not None:
            state.profile.record.intensity_poll_message = intensity_poll

    return write


async def daily_prompt_outcome(deps: FlowDeps, context: TurnContext, item: InboxRow, event: DailyPromptDue) -> Outcome:
    """Write and send the day's prompt (from a schedule, or asked for by hand), and record it."""
    state, now = context.state, deps.clock.now()
    local_day = (date.fromisoformat(event.local_date) if event.local_date
                 else now.astimezone(zone_or_utc(state.timezone)).date())
    outgoing = await prepare_daily_prompt(deps.llm, state, deps.prompts.prompt_generator, inbox_id=item.id, now=now,
                                          policy=deps.config.policy, local_day=local_day)
    hook = delivery_hook(state, outgoing, inbox_id=item.id, local_day=local_day, now=now, schedule_id=event.schedule_id)
    return Outcome(outgoing, hook=hook, log=("daily_prompt_done", {
        "sent": [o.kind for o in outgoing], "local_date": local_day.isoformat(),
        "late_s": lateness(event.due_at, now)}))
