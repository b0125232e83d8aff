"""What became of a daily prompt, and the counters the profile shows: pure functions over the ``prompt_delivery`` rows,
so the numbers are always recomputed from the facts (a changed or withdrawn vote can never count twice)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from promptpipe.domain.states import Vote


class Outcome(StrEnum):
    """What became of a daily prompt: the two votes, or why there was none. ``reminder_sent``: no answer, and the
    reminder went out; ``no_reply``: no answer, no reminder; ``not_delivered``: no answer, and WhatsApp never reported
    the prompt reached the phone within the receipt window (the participant cannot have ignored what they never got)."""

    DONE = Vote.DONE.value
    NOT_THIS_TIME = Vote.NOT_THIS_TIME.value
    FREE_TEXT_REPLY = "free_text_reply"
    REMINDER_SENT = "reminder_sent"
    NO_REPLY = "no_reply"
    NOT_DELIVERED = "not_delivered"


COUNTER_INTS = ("prompts_sent", "successes", "misses", "current_streak", "best_streak")
COUNTER_DATES = ("last_success_date", "last_miss_date")
"""The counters :func:`counters` keeps on the profile (numbers default to 0, dates to None)."""


def delivery_outcome(vote: str | None, replied_at: datetime | None, reminder_at: datetime | None,
                     *, not_delivered: bool = False) -> Outcome:
    """One word for a delivery: the vote if there is one, else a written reply, else why silent."""
    if vote in (Vote.DONE, Vote.NOT_THIS_TIME):
        return Outcome(vote)
    if replied_at is not None:
        return Outcome.FREE_TEXT_REPLY
    if not_delivered:
        return Outcome.NOT_DELIVERED
    return Outcome.REMINDER_SENT if reminder_at is not None else Outcome.NO_REPLY


@dataclass(frozen=True)
class DeliveryFact:
    """What the counters need of one delivery (oldest first when passed in)."""

    local_date: str
    vote: str | None


def counters(deliveries: Sequence[DeliveryFact]) -> dict[str, int | str | None]:
    """Prompts sent, successes, misses and "done" streaks (an unanswered newest day breaks none yet)."""
    done_days = {d.local_date for d in deliveries if d.vote == Vote.DONE}
    voted_days = {d.local_date for d in deliveries if d.vote in (Vote.DONE, Vote.NOT_THIS_TIME)}
    days = sorted({d.local_date for d in deliveries})
    best = run = 0
    for day in days:
        run = run + 1 if day in done_days else 0
        best = max(best, run)
    current = 0
    for index, day in enumerate(reversed(days)):
        if day in done_days:
            current += 1
        elif index == 0 and day not in voted_days:
            continue  # today's prompt may still be answered
        else:
            break
    misses = [d.local_date for d in deliveries if d.vote == Vote.NOT_THIS_TIME]
    return {
        "prompts_sent": len(deliveries),
        "successes": sum(1 for d in deliveries if d.vote == Vote.DONE),
        "misses": len(misses),
        "current_streak": current,
        "best_streak": best,
        "last_success_date": max(done_days) if done_days else None,
        "last_miss_date": max(misses) if misses else None,
    }
