"""Messages from the research team, each an inbox row for the running service. Consent is never overridden: ``send``
refuses whoever may not be written to, a broadcast skips them, and the flow checks again when it sends."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.consent import NOT_WRITABLE, why_not_writable
from promptpipe.domain.limits import NAME_CHARS, RESEARCHER_MESSAGE_CHARS
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.errors import AdminError, Conflict, Forbidden, NotFound
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import ResearcherMessageQueued, as_input
from promptpipe.research._common import get_participant, researcher_name, validate_text
from promptpipe.research.broadcast_plan import broadcast_plan
from promptpipe.research.listing import check_filter
from promptpipe.research.quiet_check import quiet_hours_wait
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import add_input, add_inputs, count_keyed
from promptpipe.storage.participant_list import count_participants, matching_ids
from promptpipe.storage.participants import consent_facts, participant_by_id
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["BroadcastPreview", "BroadcastQueued", "MessageQueued", "broadcast", "broadcast_count",
           "broadcast_preview", "send_message"]

log = get_logger("promptpipe.research.messaging")


@dataclass(frozen=True)
class MessageQueued:
    inbox_id: int
    participant_id: str
    held_until: str | None
    """When (ISO, UTC) the study's quiet hours end on the participant's clock, or None (sent now)."""


@dataclass(frozen=True)
class BroadcastPreview:
    """What a broadcast would do now: ``matches`` (confirm with this), ``recipients`` and ``skipped``."""

    matches: int
    recipients: int
    skipped: int


BROADCAST_ID = re.compile(r"b_[0-9a-f]{6,32}")


@dataclass(frozen=True)
class BroadcastQueued:
    broadcast_id: str
    queued: int
    skipped: int
    repeated: bool = False  # queued before (the same form confirmed again): nothing more was queued


async def send_message(db: Database, clock: Clock, *, who: str, text: str, by: str = "",
                       quiet: QuietHours | None = None, anyway: bool = False,
                       after_quiet_hours: bool = False) -> MessageQueued:
    """Queue a team message to ``who`` (phone or id); quiet hours as in :func:`quiet_hours_wait`."""
    text = validate_text("text", text, RESEARCHER_MESSAGE_CHARS, required=True)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    participant, _ = await get_participant(db, who)
    now = clock.now()
    held = quiet_hours_wait(quiet, who=participant.phone, timezone=participant.timezone, now=now,
                            what="the message", anyway=anyway, after_quiet_hours=after_quiet_hours)
    event = ResearcherMessageQueued(text=text, by=by, quiet_hours="send" if anyway else "hold")
    key = keys.researcher_message(participant.id, secrets.token_hex(6))

    def write(session: Session) -> int:
        current = participant_by_id(session, participant.id)  # as it is now, in the writing transaction
        if current is None:
            raise NotFound(f"no participant has the id {participant.id}")
        erased = current.erased_at is not None
        reason = why_not_writable(current.status, opted_out=current.opted_out, erased=erased)
        if reason is not None:
            raise Forbidden(f"{current.id if erased else current.phone}: not sent, because {NOT_WRITABLE[reason]}")
        inbox_id = add_input(db, session, as_input(event, key=key, participant_id=current.id), now)
        assert inbox_id is not None  # the key is new
        return inbox_id

    inbox_id = await db.run(write)
    log.info("researcher_message_accepted", participant_id=participant.id, inbox_id=inbox_id, chars=len(text))
    return MessageQueued(inbox_id=inbox_id, participant_id=participant.id,
                         held_until=held.isoformat(timespec="seconds") if held else None)


async def broadcast_count(db: Database, clock: Clock, flt: ParticipantFilter) -> int:
    """How many participants the filter matches now (the number a broadcast is confirmed with)."""
    check_filter(flt)
    now = clock.now()
    return await db.run(lambda session: count_participants(session, flt, now))


def _split(db: Database, session: Session, flt: ParticipantFilter, now: datetime) -> tuple[list[str], list[str]]:
    matched = matching_ids(session, flt, now)
    facts = consent_facts(db, session, matched)
    recipients = [pid for pid in matched if (f := facts.get(pid)) is not None
                  and why_not_writable(f.status, opted_out=f.opted_out, erased=f.erased) is None]
    return matched, recipients


async def broadcast_preview(db: Database, clock: Clock, flt: ParticipantFilter) -> BroadcastPreview:
    """What a broadcast would do now (the dashboard's :func:`broadcast_plan` without its detail)."""
    plan = await broadcast_plan(db, clock, flt, quiet=None)
    return BroadcastPreview(matches=plan.matches, recipients=plan.recipients, skipped=plan.matches - plan.recipients)


async def broadcast(db: Database, clock: Clock, *, text: str, flt: ParticipantFilter, by: str = "",
                    expected: int | None = None, anyway: bool = False,
                    broadcast_id: str | None = None) -> BroadcastQueued:
    """Queue one team message for everyone the filter matches who may be written to. ``expected``: the count confirmed
    (another now: Conflict). ``broadcast_id`` makes it idempotent across processes (a double click)."""
    text = validate_text("text", text, RESEARCHER_MESSAGE_CHARS, required=True)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    check_filter(flt)
    if broadcast_id is not None and not BROADCAST_ID.fullmatch(broadcast_id):
        raise AdminError("broadcast id: write b_ and 6 to 32 hexadecimal digits")
    now = clock.now()
    broadcast_id = broadcast_id or "b_" + secrets.token_hex(6)
    event = ResearcherMessageQueued(text=text, by=by, broadcast_id=broadcast_id,
                                    quiet_hours="send" if anyway else "hold")

    def write(session: Session) -> tuple[list[str], list[str], int, bool]:
        # one transaction: the count checked is the count queued, and a crash queues all or none
        matched, recipients = _split(db, session, flt, now)
        before = count_keyed(session, keys.broadcast_message(broadcast_id, ""))
        if before:
            return matched, recipients, before, True
        if expected is not None and len(matched) != expected:
            raise Conflict(f"the filter now matches {len(matched)} participants, not {expected}; count again")
        return matched, recipients, _queue(db, session, event=event, ids=recipients, now=now), False

    matched, recipients, queued, repeated = await db.run(write)
    skipped = len(matched) - len(recipients)
    log.info("broadcast_queued", broadcast_id=broadcast_id, queued=queued, skipped=skipped, filter=flt.describe(),
             chars=len(text), repeated=repeated)
    return BroadcastQueued(broadcast_id=broadcast_id, queued=queued, skipped=skipped, repeated=repeated)


def _queue(db: Database, session: Session, *, event: ResearcherMessageQueued, ids: Sequence[str], now: datetime) -> int:
    rows = [as_input(event, key=keys.broadcast_message(event.broadcast_id or "", pid), participant_id=pid)
            for pid in ids]
    return len(add_inputs(db, session, rows, now))
