"""What researchers follow during a study: consent histories, safety flags and the inputs that could not be answered."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.limits import NAME_CHARS, REASON_CHARS
from promptpipe.domain.states import Status
from promptpipe.errors import Conflict, NotFound
from promptpipe.pipeline.events import InboxKind
from promptpipe.research._common import get_participant, researcher_name, validate_text
from promptpipe.research.views import ConsentView, InputView
from promptpipe.storage.consent import consent_history
from promptpipe.storage.db import Database
from promptpipe.storage.flags import FlagEntry, list_flags, resolve_flag
from promptpipe.storage.inbox_rows import close_input, get_input, reopen_input
from promptpipe.storage.models import Participant, table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus

_INBOX = table_of(InboxItem)
_PARTICIPANT = table_of(Participant)


async def consent(db: Database, phone: str) -> ConsentView:
    """A participant's consent ledger, oldest first, and their status now."""
    participant, _ = await get_participant(db, phone)
    events = await db.run(lambda session: consent_history(session, participant.id))
    return ConsentView(participant.id, participant.phone, Status(participant.status), participant.opted_out,
                       participant.researcher_paused, events)


async def flags(db: Database, *, include_resolved: bool = False) -> list[FlagEntry]:
    """Safety flags, oldest first (open ones only unless ``include_resolved``)."""
    return await db.run(lambda session: list_flags(session, include_resolved=include_resolved))


async def resolve(db: Database, clock: Clock, *, flag_id: int, note: str, by: str = "") -> str:
    return (await resolve_naming(db, clock, flag_id=flag_id, note=note, by=by))[0]


async def resolve_naming(db: Database, clock: Clock, *, flag_id: int, note: str, by: str = "") -> tuple[str, str]:
    """Resolve the flag: what :func:`resolve` says, and the participant's id (for the audit entry)."""
    note = validate_text("--note", note, REASON_CHARS, required=True)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()
    flag = await db.run(lambda session: resolve_flag(session, flag_id, note=note, by=by, now=now))
    return f"flag {flag.id} ({flag.severity}, participant {flag.participant_id}) resolved by {by}", flag.participant_id


STUCK_ATTEMPTS = 3
"""A pending input that failed this often is listed as stuck too (it is still being retried)."""


async def inbox_rows(db: Database, *, stuck_only: bool, participant_id: str | None = None,
                     limit: int | None = None) -> list[InputView]:
    """Inputs not answered yet (failed or pending), oldest first; ``stuck_only``: failed or failing repeatedly."""

    def read(session: Session) -> list[tuple[InboxItem, str]]:
        query = (select(InboxItem, _PARTICIPANT.c.phone).join(Participant, _PARTICIPANT.c.id == _INBOX.c.participant_id)
                 .where(_INBOX.c.status.in_((InboxStatus.PENDING, InboxStatus.FAILED)))
                 .order_by(_INBOX.c.id).limit(limit))
        if stuck_only:
            query = query.where((_INBOX.c.status == InboxStatus.FAILED) | (_INBOX.c.attempts >= STUCK_ATTEMPTS))
        if participant_id is not None:
            query = query.where(_INBOX.c.participant_id == participant_id)
        return [(row, phone) for row, phone in session.execute(query).all()]

    rows = await db.run(read)
    return [
        InputView(id=row.id or 0, participant_id=row.participant_id, phone=phone, kind=InboxKind(row.kind),
                  status=InboxStatus(row.status), attempts=row.attempts, last_error=row.last_error or "",
                  at=row.created_at.isoformat(),
                  retry_at=row.available_at.isoformat() if row.status == InboxStatus.PENDING else None)
        for row, phone in rows
    ]


async def retry_inbox(db: Database, clock: Clock, *, inbox_id: int, participant_id: str | None = None) -> str:
    """Put a failed (or waiting) input back in the queue, to be tried now from scratch."""
    now = clock.now()
    row = await db.run(lambda session: _change(session, inbox_id, "retry",
                                               lambda: reopen_input(session, inbox_id, now), participant_id))
    return f"inbox row {row.id} ({row.kind}) is queued again; the running service tries it within seconds"


async def skip_inbox(db: Database, clock: Clock, *, inbox_id: int, by: str = "",
                     participant_id: str | None = None) -> str:
    """Give up on an input for good (it stays in the transcript, marked skipped)."""
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()
    row = await db.run(lambda session: _change(session, inbox_id, "skip",
                                               lambda: close_input(session, inbox_id, now, why=f"skipped by {by}"),
                                               participant_id))
    return f"inbox row {row.id} ({row.kind}) skipped; it will not be answered"


def _change(session: Session, inbox_id: int, action: str, change: Callable[[], None],
            participant_id: str | None = None) -> InboxItem:
    """Change an input that is not done yet (and its transcript message with it)."""
    row = get_input(session, inbox_id)
    if row is not None and participant_id is not None and row.participant_id != participant_id:
        row = None  # someone else's: as if it did not exist
    if row is None:
        where = "of this participant" if participant_id else "; `promptpipe-admin inbox --stuck` lists them"
        raise NotFound(f"there is no inbox row {inbox_id} {where}".replace(" ;", ";"))
    if row.status == InboxStatus.DONE:
        raise Conflict(f"inbox row {inbox_id} was handled already; there is nothing to {action}")
    change()
    return row
