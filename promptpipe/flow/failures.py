"""A failed turn: retried with backoff (for ever only for an outage); the participant hears once that we are late."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.backoff import Backoff
from promptpipe.domain.limits import CONTEXT_REJECTIONS_BEFORE_FAILING
from promptpipe.domain.messages import MessageKind
from promptpipe.domain.states import Status
from promptpipe.errors import ContextTooLong, LLMError, LLMRejected, PromptPipeError
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import InboxKind
from promptpipe.storage.inbox_rows import InboxRow, record_attempt
from promptpipe.storage.participants import participant_by_id
from promptpipe.storage.queue_tables import InboxStatus
from promptpipe.storage.service_status import LAST_MODEL_ERROR, model_error_value, save_status
from promptpipe.storage.transcript import queue_outgoing

log = get_logger("promptpipe.flow")

APOLOGY = (
    "Sorry, I can't give you a proper answer right now. I've kept your message and will reply "
    "as soon as I can. (To stop all messages from this study, send STOP.)"
)
GAVE_UP = (
    "Sorry, I still can't answer your last message. I've kept it and passed it to the research "
    "team. You can write to me again at any time."
)
TOO_LONG = (
    "Sorry, I couldn't work with your last message, perhaps because it was very long. I've kept it "
    "for the research team. Could you tell me again in a few shorter sentences?"
)
TURN_RETRY = Backoff(first_s=30.0, max_s=15 * 60.0)
"""30 s, 60 s, 2 min … capped at 15 min."""
MAX_ATTEMPTS_FOR_BUGS = 8
"""An unexpected error (a bug) gives up after this many tries; an LLM outage never does."""
MAX_ATTEMPTS_FOR_REJECTIONS = 3
"""A request the model server refuses (400, 404, 422 …) gives up after this many tries."""


@dataclass(frozen=True)
class FailureOutcome:
    is_bug: bool
    gave_up: bool


def record_failure(session: Session, participant_id: str, batch: list[InboxRow], error: BaseException,
                   now: datetime) -> FailureOutcome:
    """Count the try on every input and set its retry time (or give up); the apology goes once per outage."""
    if isinstance(error, LLMError):  # `promptpipe-admin status` shows the last one
        save_status(session, LAST_MODEL_ERROR, model_error_value(error, now), now)
    is_bug = not isinstance(error, PromptPipeError)
    too_long = isinstance(error, ContextTooLong)
    limit = (MAX_ATTEMPTS_FOR_BUGS if is_bug else CONTEXT_REJECTIONS_BEFORE_FAILING if too_long
             else MAX_ATTEMPTS_FOR_REJECTIONS if isinstance(error, LLMRejected) else None)
    first_failure = all(item.attempts == 0 for item in batch)
    has_message = any(item.kind == InboxKind.MESSAGE for item in batch)
    gave_up = limit is not None and max(item.attempts for item in batch) + 1 >= limit
    for item in batch:
        item.attempts += 1
        item.last_error = f"{type(error).__name__}: {error}"[:500]
        item.available_at = now + TURN_RETRY.delay(item.attempts)
        if gave_up:
            item.status = InboxStatus.FAILED
        record_attempt(session, item)
    line = ((keys.too_long, TOO_LONG) if too_long and gave_up
            else (keys.gave_up, GAVE_UP) if gave_up and not first_failure  # promised an answer: say it will not come
            else (keys.apology, APOLOGY) if first_failure and not too_long else None)
    if line is not None and has_message:
        queue_outgoing(session, participant_id=participant_id, key=line[0](batch[-1].id), text=line[1], now=now,
                       kind=MessageKind.APOLOGY)
    return FailureOutcome(is_bug=is_bug, gave_up=gave_up)


def apologise_if_blocked(session: Session, participant_id: str, rows: list[InboxRow], now: datetime) -> None:
    """A participant's message waits behind a failed input's retry: the apology now, once per such input."""
    blocker = rows[0]
    if blocker.kind == InboxKind.MESSAGE or blocker.attempts == 0 or blocker.available_at <= now:
        return
    if not any(row.kind == InboxKind.MESSAGE and row.attempts == 0 for row in rows[1:]):
        return
    person = participant_by_id(session, participant_id)
    if person is None or person.status != Status.ACTIVE:
        return
    if queue_outgoing(session, participant_id=participant_id, key=keys.apology(blocker.id), text=APOLOGY, now=now,
                      kind=MessageKind.APOLOGY) is not None:
        log.info("apology_for_waiting_message", participant_id=participant_id, blocked_by=blocker.kind)
