"""The safety net's step in a turn: screen new messages against the crisis phrases, before any
command or model, and make sure a flag (from the screen or the model's ``flag_concern``) always
comes with the study's safety message.

The screen's result is committed on its own, before the model is asked anything, so the
participant gets the safety message at once even while the model is down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from promptpipe.domain import keys
from promptpipe.domain.safety import NewFlag
from promptpipe.flow.daily_prompt import Outgoing
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, SCREEN_SEVERITY, CrisisScreen
from promptpipe.storage.inbox_rows import InboxRow

SCREENED = "safety"
"""Inbox payload key set on a message the screen flagged (so a re-run does not flag it twice)."""
SAFETY_KIND = "safety"


@dataclass(frozen=True)
class SafetyConfig:
    screen: CrisisScreen = field(default_factory=lambda: CrisisScreen.of(()))
    message: str = DEFAULT_SAFETY_MESSAGE
    alerts: bool = False
    """Whether flags are sent to ALERT_WEBHOOK_URL."""


def screen_batch(screen: CrisisScreen, batch: Sequence[InboxRow], texts: Mapping[int, str]) -> list[tuple[InboxRow, NewFlag]]:
    """The messages of the batch not screened before whose text holds a crisis phrase."""
    found = []
    for row in batch:
        if row.kind != "message" or row.payload.get(SCREENED):
            continue
        phrase = screen.match(texts.get(row.id, ""))
        if phrase is not None:
            found.append((row, NewFlag(source="screen", severity=SCREEN_SEVERITY, trigger=phrase,
                                       message_id=row.message_id)))
    return found


def was_screened(batch: Sequence[InboxRow]) -> bool:
    """Whether the screen flagged a message of this batch (the safety message went out already)."""
    return any(row.payload.get(SCREENED) for row in batch)


def with_safety_message(outgoing: list[Outgoing], message: str, inbox_id: int) -> list[Outgoing]:
    """The safety message first, unless it is among the messages already."""
    if any(o.kind == SAFETY_KIND for o in outgoing):
        return outgoing
    return [Outgoing(keys.safety(inbox_id), message, SAFETY_KIND), *outgoing]
