"""A message from the research team: sent as written, once, never against consent (it may have changed since)."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain import keys
from promptpipe.domain.consent import why_not_writable
from promptpipe.domain.conversation import TurnState
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.flow.turn import Outcome, Outgoing
from promptpipe.pipeline.events import ResearcherMessageQueued
from promptpipe.storage.inbox_rows import InboxRow
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["researcher_message_outcome"]


def researcher_message_outcome(state: TurnState, item: InboxRow, event: ResearcherMessageQueued,
                               quiet: QuietHours | None, now: datetime) -> Outcome:
    """Send the team's message (held for their quiet hours unless sent at once), or keep it unsent."""
    reason = why_not_writable(state.status, opted_out=state.opted_out)
    if reason is not None:
        return Outcome(answered=[], kept=[item], save_state=False, log=("researcher_message_not_sent", {
            "reason": reason, "inbox_id": item.id, "broadcast_id": event.broadcast_id}))
    held = quiet_period_end(quiet, now, zone_or_utc(state.timezone)) if event.quiet_hours == "hold" else None
    message = Outgoing(keys.researcher_outgoing(item.id), event.text, MessageKind.RESEARCHER,
                       {"by": event.by, "broadcast_id": event.broadcast_id}, not_before=held)
    return Outcome([message], answered=[item], save_state=False, log=("researcher_message_queued", {
        "inbox_id": item.id, "broadcast_id": event.broadcast_id, "chars": len(event.text),
        "held_until": held.isoformat() if held else None}))
