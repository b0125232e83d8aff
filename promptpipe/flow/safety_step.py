"""The safety net's step in a turn: screen new messages against the crisis phrases before any command or model (its
result committed on its own first, so the safety message goes even while the model is down); a flag always brings it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from promptpipe.domain import keys
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.safety import SCREEN_SEVERITY, FlagSource, NewFlag
from promptpipe.flow.turn import Outcome, Outgoing, SafetyConfig, TurnContext
from promptpipe.pipeline.events import InboxEvent, MessageReceived
from promptpipe.pipeline.turn_writes import InboxNote
from promptpipe.storage.inbox_rows import InboxRow

__all__ = ["SCREENED", "screen_outcome", "was_screened", "with_safety_message"]

SCREENED = "flagged"
"""What ``MessageReceived.screened`` says once the screen flagged the message (so a re-run does not flag it twice)."""


def screen_outcome(safety: SafetyConfig, context: TurnContext, batch: Sequence[InboxRow],
                   match: Callable[[str], str | None] | None = None) -> Outcome | None:
    """A flag and the safety message for each new message with a crisis phrase, whatever their status (None: none).
    ``match``: the screen's, remembered (see :class:`~promptpipe.flow.router.ConversationFlow`)."""
    match = match or safety.screen.match
    found: list[tuple[InboxRow, NewFlag]] = []
    for row, event in zip(batch, context.events, strict=True):
        if not isinstance(event, MessageReceived) or event.screened:
            continue
        phrase = match(context.texts.get(row.id, ""))
        if phrase is not None:
            found.append((row, NewFlag(source=FlagSource.SCREEN, severity=SCREEN_SEVERITY, trigger=phrase,
                                       message_id=row.message_id)))
    if not found:
        return None
    return Outcome([Outgoing(keys.safety(found[-1][0].id), safety.message, MessageKind.SAFETY)],
                   writes=[InboxNote(row, {"safety": SCREENED}) for row, _ in found],
                   answered=[], save_state=False, again=True, flags=[flag for _, flag in found])


def was_screened(events: Sequence[InboxEvent]) -> bool:
    """Whether the screen flagged a message of this batch (the safety message went out already)."""
    return any(isinstance(event, MessageReceived) and event.screened for event in events)


def with_safety_message(outgoing: list[Outgoing], message: str, inbox_id: int) -> list[Outgoing]:
    """The safety message first, unless it is among the messages already."""
    if any(o.kind == MessageKind.SAFETY for o in outgoing):
        return outgoing
    return [Outgoing(keys.safety(inbox_id), message, MessageKind.SAFETY), *outgoing]
