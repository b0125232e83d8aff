"""Consent at send time: a queued message goes out only while its participant may be written to.

STOP, a withdrawal and a team pause cancel what was waiting for that participant in the same
transaction (:func:`cancel_unconsented`), and the outbox claim checks consent again
(:data:`MAY_SEND`), so a row written by someone who read the participant before the change (a
broadcast, a timer) is cancelled at its turn instead of sent. Replies to the participant's own
message (to a command, the safety message) always go: they answer what the person just wrote. A
team message written while the team pauses someone goes too (the team chose to write it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.states import WITHDRAWN
from promptpipe.storage.models import CANCELLED, PENDING, Message, OutboxItem, Participant, table_of

__all__ = ["MAY_SEND", "cancel_unconsented", "may_send"]

_OUTBOX, _PARTICIPANT = table_of(OutboxItem), table_of(Participant)
_P = _PARTICIPANT.c


@dataclass(frozen=True)
class _Parts:
    """The facts about a row of an outbox (the table or an alias of it) that consent turns on."""

    a_reply: Any
    """It answers the participant's own message (read from the key, so no other table is needed)."""
    by_the_team: Any
    without_consent: Any
    team_paused: Any

    @classmethod
    def of(cls, outbox: Any) -> _Parts:
        def participant_is(*conditions: Any) -> Any:
            return exists().where(_P.id == outbox.c.participant_id, or_(*conditions))

        def key_starts(*prefixes: str) -> Any:
            return or_(*(outbox.c.key.startswith(prefix, autoescape=True) for prefix in prefixes))

        return cls(a_reply=key_starts(keys.COMMAND_REPLY, keys.SAFETY), by_the_team=key_starts(keys.RESEARCHER_MESSAGE),
                   without_consent=participant_is(_P.opted_out, _P.status == WITHDRAWN, _P.erased_at.is_not(None)),
                   team_paused=participant_is(_P.researcher_paused))


def may_send(outbox: Any) -> Any:
    """The condition on a row of ``outbox`` (the table or an alias of it) that it may be sent now:
    a reply to the participant goes always; anything else only with their consent, and not
    while the team pauses them unless the team wrote it."""
    p = _Parts.of(outbox)
    return or_(p.a_reply, and_(~p.without_consent, or_(~p.team_paused, p.by_the_team)))


def _held_at_change(outbox: Any) -> Any:
    """What STOP, a withdrawal or a team pause cancels: everything queued before it but replies."""
    p = _Parts.of(outbox)
    return and_(~p.a_reply, or_(p.without_consent, p.team_paused))


MAY_SEND: Any = may_send(_OUTBOX)
"""The claim's condition on an outbox row."""

_CANCEL_REASON = "cancelled: the participant withdrew consent or was paused or withdrawn before it was sent"


def cancel_unconsented(session: Session, participant_id: str | None = None) -> int:
    """Cancel the pending rows that may no longer be sent: for one participant whose status just
    changed, everything queued but replies; for the claim (all participants), what
    :data:`MAY_SEND` refuses. Their transcript rows say ``cancelled`` too. Returns how many."""
    if participant_id is None:
        condition = and_(_OUTBOX.c.status == PENDING, ~MAY_SEND)
    else:
        condition = and_(_OUTBOX.c.participant_id == participant_id, _OUTBOX.c.status == PENDING,
                         _held_at_change(_OUTBOX))
    connection = session.connection()
    message_ids = list(connection.execute(select(_OUTBOX.c.message_id).where(condition)).scalars())
    if not message_ids:
        return 0
    connection.execute(update(_OUTBOX).where(_OUTBOX.c.message_id.in_(message_ids), _OUTBOX.c.status == PENDING)
                       .values(status=CANCELLED, last_error=_CANCEL_REASON))
    message = table_of(Message)
    connection.execute(update(message).where(message.c.id.in_(message_ids)).values(status=CANCELLED))
    return len(message_ids)
