"""Consent at send time: a queued message goes out only while its participant may be written to.

STOP, a withdrawal and a team pause cancel what was waiting for that participant in the same
transaction (:func:`cancel_unconsented`), and the outbox claim checks consent again
(:data:`MAY_SEND`), so a row written by someone who read the participant before the change (a
broadcast, a timer) is cancelled at its turn instead of sent. Replies to the participant's own
message (to a command, the safety message) always go: they answer what the person just wrote. A
team message written while the team pauses someone goes too (the team chose to write it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.states import WITHDRAWN
from promptpipe.storage.models import CANCELLED, PENDING, Message, OutboxItem, Participant, table_of

__all__ = ["MAY_SEND", "cancel_unconsented"]

_OUTBOX, _PARTICIPANT = table_of(OutboxItem), table_of(Participant)
_P = _PARTICIPANT.c


def _participant_is(*conditions: Any) -> Any:
    return exists().where(_P.id == _OUTBOX.c.participant_id, or_(*conditions))


def _key_starts(*prefixes: str) -> Any:
    return or_(*(_OUTBOX.c.key.startswith(prefix, autoescape=True) for prefix in prefixes))


_A_REPLY = _key_starts(keys.COMMAND_REPLY, keys.SAFETY)
"""Rows that answer the participant's own message (read from the outbox key, so the claim needs
no other table): sent whatever their status."""
_BY_THE_TEAM = _key_starts(keys.RESEARCHER_MESSAGE)
_WITHOUT_CONSENT = _participant_is(_P.opted_out, _P.status == WITHDRAWN, _P.erased_at.is_not(None))
_TEAM_PAUSED = _participant_is(_P.researcher_paused)

MAY_SEND: Any = or_(_A_REPLY, and_(~_WITHOUT_CONSENT, or_(~_TEAM_PAUSED, _BY_THE_TEAM)))
"""The claim's condition on an outbox row: a reply to the participant goes always; anything else
only with their consent, and not while the team pauses them unless the team wrote it."""
_HELD_AT_CHANGE: Any = and_(~_A_REPLY, or_(_WITHOUT_CONSENT, _TEAM_PAUSED))
"""What STOP, a withdrawal or a team pause cancels: everything queued before it but replies."""

_CANCEL_REASON = "cancelled: the participant withdrew consent or was paused or withdrawn before it was sent"


def cancel_unconsented(session: Session, participant_id: str | None = None) -> int:
    """Cancel the pending rows that may no longer be sent: for one participant whose status just
    changed, everything queued but replies; for the claim (all participants), what
    :data:`MAY_SEND` refuses. Their transcript rows say ``cancelled`` too. Returns how many."""
    if participant_id is None:
        condition = and_(_OUTBOX.c.status == PENDING, ~MAY_SEND)
    else:
        condition = and_(_OUTBOX.c.participant_id == participant_id, _OUTBOX.c.status == PENDING, _HELD_AT_CHANGE)
    connection = session.connection()
    message_ids = list(connection.execute(select(_OUTBOX.c.message_id).where(condition)).scalars())
    if not message_ids:
        return 0
    connection.execute(update(_OUTBOX).where(_OUTBOX.c.message_id.in_(message_ids), _OUTBOX.c.status == PENDING)
                       .values(status=CANCELLED, last_error=_CANCEL_REASON))
    message = table_of(Message)
    connection.execute(update(message).where(message.c.id.in_(message_ids)).values(status=CANCELLED))
    return len(message_ids)
