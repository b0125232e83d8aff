"""One word for a participant's study day, for the adherence heatmap: the best of that day's prompt outcomes (in
:data:`CELL_OUTCOMES` order), or ``no_prompt`` when nothing was sent that day."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from promptpipe.domain.outcomes import Outcome

__all__ = ["CELL_OUTCOMES", "NO_PROMPT", "REPLIED", "best_outcome", "heatmap_first_day"]

REPLIED, NO_PROMPT = "replied", "no_prompt"
CELL_OUTCOMES = (Outcome.DONE, Outcome.NOT_THIS_TIME, REPLIED, Outcome.NO_REPLY, Outcome.NOT_DELIVERED, NO_PROMPT)
"""Best first; the heatmap's legend in this order."""
_RANK = {outcome: index for index, outcome in enumerate(CELL_OUTCOMES)}
_AS_CELL: dict[str, str] = {Outcome.FREE_TEXT_REPLY: REPLIED, Outcome.REMINDER_SENT: Outcome.NO_REPLY}


def best_outcome(outcomes: Iterable[str]) -> str:
    """The day's cell from its deliveries' outcomes (see :func:`promptpipe.domain.outcomes.delivery_outcome`)."""
    cells = [_AS_CELL.get(outcome, outcome) for outcome in outcomes]
    return min(cells, key=lambda cell: _RANK.get(cell, len(CELL_OUTCOMES)), default=NO_PROMPT)


def heatmap_first_day(day_one: str | None, enrolled_on: date) -> date:
    """Column 1 of a participant's row: study day 1 when set, else the day they enrolled."""
    return date.fromisoformat(day_one) if day_one else enrolled_on
