"""The pilot's chat shows the conversation as the phone saw it: a greeting written at night and held
for quiet hours comes where it went, after the messages sent before it."""

from __future__ import annotations

from datetime import UTC, datetime

from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.pilot.views import PilotMessage, in_sent_order


def _message(id_: int, hour: int, *, incoming: bool = False, kind: MessageKind = MessageKind.TEXT,
             status: MessageStatus = MessageStatus.SENT) -> PilotMessage:
    return PilotMessage(id=id_, at=datetime(2026, 1, 6, hour, tzinfo=UTC), incoming=incoming, kind=kind,
                        status=status, text=f"message {id_}")


def test_a_held_message_shows_where_it_was_sent_and_unsent_ones_last() -> None:
    greeting = _message(1, 4, kind=MessageKind.GREETING)  # written at 04:00, sent at 12:00
    question = _message(2, 5, incoming=True)
    answer = _message(3, 5)
    prompt = _message(4, 13, status=MessageStatus.QUEUED)  # not sent yet
    reminder = _message(5, 11, status=MessageStatus.QUEUED)
    sent_at = {1: datetime(2026, 1, 6, 12, tzinfo=UTC), 3: datetime(2026, 1, 6, 5, 1, tzinfo=UTC)}
    shown = in_sent_order([greeting, question, answer, prompt, reminder], sent_at)
    assert [m.id for m in shown] == [2, 3, 1, 5, 4]
