"""Consent in the outbox's SQL, by :mod:`promptpipe.domain.consent`: a hold cancels in its own transaction what was
queued for the participant before it (:func:`cancel_unconsented`; the STOP's confirmation stays), and the claim checks
consent again (:data:`MAY_SEND`), so a row written by someone who read the participant before the change (a broadcast,
a timer) is cancelled, not sent. Rows already claimed are refused at their send (:mod:`.consent_board`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, and_, exists, false, or_, select, true, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.consent import HOLDS, SENT_FROM_BEFORE, SENT_WHILE_HELD, ConsentKind, Outgoing
from promptpipe.domain.messages import MessageStatus
from promptpipe.domain.states import Status
from promptpipe.storage.commit_hooks import queued_in
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, Participant, table_of
from promptpipe.storage.queue_tables import OutboxItem, OutboxStatus

__all__ = ["MAY_SEND", "cancel_queued", "cancel_unconsented", "may_send"]

_OUTBOX, _PARTICIPANT, _MESSAGE = table_of(OutboxItem), table_of(Participant), table_of(Message)
_P = _PARTICIPANT.c

_HELD: dict[ConsentKind, Any] = {
    ConsentKind.OPTED_OUT: _P.opted_out,
    ConsentKind.PAUSED: _P.researcher_paused,
    ConsentKind.WITHDRAWN: _P.status == Status.WITHDRAWN,
    ConsentKind.ERASED: _P.erased_at.is_not(None),
}
"""Each hold as the participant row shows it."""
_PREFIX = {Outgoing.REPLY: keys.COMMAND_REPLY, Outgoing.SAFETY: keys.SAFETY, Outgoing.TEAM: keys.RESEARCHER_MESSAGE}


def _is(outbox: Any, kinds: frozenset[Outgoing]) -> Any:
    """The row's key says it is one of ``kinds`` (read from the key: no other table is needed)."""
    if Outgoing.OTHER in kinds:
        raise ValueError("OTHER is what no prefix names")
    conditions = [outbox.c.key.startswith(_PREFIX[kind], autoescape=True) for kind in sorted(kinds)]
    return or_(*conditions) if conditions else false()


def _refused_by(outbox: Any, rules: dict[ConsentKind, frozenset[Outgoing]]) -> Any:
    """The participant of a row of ``outbox`` holds something that refuses it, by ``rules``."""
    held = [and_(_HELD[hold], ~_is(outbox, rules[hold])) if rules[hold] else _HELD[hold] for hold in HOLDS]
    return exists().where(_P.id == outbox.c.participant_id, or_(*held))


def may_send(outbox: Any) -> Any:
    """The condition on a row of ``outbox`` (the table or an alias of it) that it may be sent now."""
    return ~_refused_by(outbox, SENT_WHILE_HELD)


MAY_SEND: Any = may_send(_OUTBOX)
"""The claim's condition on an outbox row."""

_CANCEL_REASON = "cancelled: the participant withdrew consent or was paused or withdrawn before it was sent"


def cancel_unconsented(session: Session, participant_id: str | None = None) -> int:
    """Cancel the pending rows that may no longer be sent (returns how many): for one participant whose status just
    changed, what was queued before this transaction (:data:`SENT_FROM_BEFORE`); for all, what :data:`MAY_SEND` bars."""
    if participant_id is None:
        condition = and_(_OUTBOX.c.status == OutboxStatus.PENDING, ~MAY_SEND)
    else:
        just_queued = queued_in(session, participant_id)
        condition = and_(_OUTBOX.c.participant_id == participant_id, _OUTBOX.c.status == OutboxStatus.PENDING,
                         _refused_by(_OUTBOX, SENT_FROM_BEFORE),
                         _OUTBOX.c.key.not_in(sorted(just_queued)) if just_queued else true())
    return cancel_queued(session, select(_OUTBOX.c.message_id).where(condition), _CANCEL_REASON)


def cancel_queued(session: Session, waiting: Select[Any], reason: str) -> int:
    """Cancel the pending outbox and transcript rows of the messages ``waiting`` selects; returns how many."""
    conn = session.connection()
    message_ids = list(conn.execute(waiting).scalars())
    for chunk in Database.chunks(message_ids):
        conn.execute(update(_OUTBOX).where(_OUTBOX.c.message_id.in_(chunk), _OUTBOX.c.status == OutboxStatus.PENDING)
                     .values(status=OutboxStatus.CANCELLED, last_error=reason))
        conn.execute(update(_MESSAGE).where(_MESSAGE.c.id.in_(chunk)).values(status=MessageStatus.CANCELLED))
    return len(message_ids)

