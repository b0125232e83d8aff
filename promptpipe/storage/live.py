"""Whether real people can be reached from this database: the first ``serve`` over WhatsApp or the Cloud API marks it
live for good, and nothing may then act as a participant (``simulate``, ``chat``): a real person would get the answer
and their consent could change in their name. Simulated inputs still waiting are closed unanswered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.messages import MessageStatus
from promptpipe.storage.models import Message, ServiceStatus, table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus
from promptpipe.storage.service_status import save_status

__all__ = ["DEPLOYMENT", "LIVE", "Deployment", "Live", "deployment", "go_live", "is_simulated", "live_since",
           "record_deployment"]

LIVE = "live"
"""The service_status row that records when the database first reached people."""
DEPLOYMENT = "deployment"
"""The service_status row that records the transport the database was last served over."""
_STATUS, _INBOX, _MESSAGE = table_of(ServiceStatus), table_of(InboxItem), table_of(Message)
SET_ASIDE = "simulated before the database went live: not answered"


@dataclass(frozen=True)
class Live:
    transport: str
    since: datetime


def _status(session: Session, name: str) -> tuple[dict[str, object], datetime] | None:
    row = session.connection().execute(select(_STATUS.c.value, _STATUS.c.updated_at)
                                       .where(_STATUS.c.name == name)).first()
    return None if row is None else (dict(row[0] or {}), row[1])


def live_since(session: Session) -> Live | None:
    """When (and over which transport) this database first reached real people; None for a pilot."""
    found = _status(session, LIVE)
    return None if found is None else Live(str(found[0].get("transport", "")), found[1])


@dataclass(frozen=True)
class Deployment:
    transport: str
    reaches_people: bool
    since: datetime


def record_deployment(session: Session, transport: str, reaches_people: bool, now: datetime) -> None:
    """A service starts serving the database over ``transport``."""
    save_status(session, DEPLOYMENT, {"transport": transport, "reaches_people": reaches_people}, now)


def deployment(session: Session) -> Deployment | None:
    """The transport the database was last served over; None: no service has served it yet."""
    if (found := _status(session, DEPLOYMENT)) is None:
        return None
    return Deployment(str(found[0].get("transport", "")), bool(found[0].get("reaches_people")), found[1])


def is_simulated(wa_message_id: str | None) -> bool:
    """Whether ``simulate`` (a researcher acting as the participant) wrote an input: an id WhatsApp never gives."""
    return wa_message_id is not None and wa_message_id.startswith(keys.SIMULATED)


def go_live(session: Session, transport: str, now: datetime) -> int:
    """Mark the database live (the first time is kept); close the simulated inputs still waiting, returning how many."""
    connection = session.connection()
    if live_since(session) is None:
        connection.execute(insert(_STATUS).values(name=LIVE, value={"transport": transport}, updated_at=now))
    waiting = (_INBOX.c.key.startswith(keys.inbound(keys.SIMULATED), autoescape=True)
               & (_INBOX.c.status == InboxStatus.PENDING))
    message_ids = [m for m in connection.execute(select(_INBOX.c.message_id).where(waiting)).scalars() if m]
    closed = connection.execute(update(_INBOX).where(waiting)
                                .values(status=InboxStatus.DONE, processed_at=now, last_error=SET_ASIDE)).rowcount
    if message_ids:
        connection.execute(update(_MESSAGE).where(_MESSAGE.c.id.in_(message_ids)).values(status=MessageStatus.KEPT))
    return int(closed or 0)
