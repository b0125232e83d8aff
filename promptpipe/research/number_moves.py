"""Moving a participant to another of the deployment's numbers, deliberately (they know the number they consented
with): the move runs in their lane, then the team's message tells them from the new number."""

from __future__ import annotations

from dataclasses import dataclass

from promptpipe.clock import Clock
from promptpipe.domain.limits import NAME_CHARS, RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.numbers import NumberPlan
from promptpipe.errors import Forbidden
from promptpipe.pipeline.events import TeamAction, TeamChange
from promptpipe.research._common import get_participant, researcher_name, validate_text
from promptpipe.research.messaging import send_message
from promptpipe.research.team_requests import request_change
from promptpipe.storage.db import Database
from promptpipe.study.rules.protocol import OPEN_STUDY, Study

__all__ = ["NumberMove", "move_to_number"]


@dataclass(frozen=True)
class NumberMove:
    line: str
    message_sent: bool
    """The team's message was queued (False: the move stands, but they may not be written to now)."""


async def move_to_number(db: Database, clock: Clock, *, who: str, to: str, text: str, numbers: NumberPlan,
                         by: str = "", study: Study = OPEN_STUDY) -> NumberMove:
    """Move ``who`` (phone or id) to the number ``to``, then queue ``text`` for them from it."""
    if to not in numbers.numbers:
        raise Forbidden(f"--to: there is no number {to!r}; this deployment has {', '.join(numbers.numbers)}")
    text = validate_text("--message", text, RESEARCHER_MESSAGE_CHARS, required=True)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    participant, _ = await get_participant(db, who)
    if numbers.of(participant.number) == to:
        raise Forbidden(f"{who} is written to from {to} already; nothing changed")
    outcome = await request_change(db, clock, participant.id, TeamChange(
        action=TeamAction.NUMBER, value=to, by=by, reason=f"moved to {to} by {by}"), study=study)
    line = outcome.said_for(who)
    try:
        await send_message(db, clock, who=participant.id, text=text, by=by, quiet=study.quiet_hours,
                           after_quiet_hours=True)  # inside their quiet hours it waits for the morning
    except Forbidden as exc:
        return NumberMove(f"{line}; the message was not sent: {exc}", message_sent=False)
    return NumberMove(f"{line}; the message goes from {to} now", message_sent=True)
