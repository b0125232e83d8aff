"""The suppression list: numbers whose owner sent STOP before their data was erased, kept only as a keyed hash
(HMAC-SHA256). Enrolled again, they are opted out until their own START lifts the entry. Someone holding the whole
database can test a number they already know against it; that is its purpose, and no more.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from promptpipe.storage.models import Suppression, table_of
from promptpipe.study.store.seed import secret_value, stored_secret

__all__ = ["KEY_NAME", "lift", "suppress", "suppressed_since"]

KEY_NAME = "suppression_key"
_TABLE = table_of(Suppression)


def _keyed(key: bytes, phone: str) -> str:
    return hmac.new(key, phone.encode("utf-8"), hashlib.sha256).hexdigest()


def _hash_if_any(session: Session, phone: str) -> str | None:
    """The number's hash, or None while nothing was ever suppressed (the key is made then, not at every enrolment)."""
    key = stored_secret(session, KEY_NAME)
    return None if key is None else _keyed(bytes.fromhex(key), phone)


def suppress(session: Session, phone: str, *, since: datetime, now: datetime) -> None:
    """Keep (a keyed hash of) the number of someone who opted out at ``since`` and is being erased."""
    number_hash = _keyed(bytes.fromhex(secret_value(session, KEY_NAME, now)), phone)
    if session.connection().execute(select(_TABLE.c.number_hash).where(_TABLE.c.number_hash == number_hash)).first():
        return
    session.connection().execute(insert(_TABLE).values(number_hash=number_hash, opted_out_at=since, erased_at=now))


def suppressed_since(session: Session, phone: str) -> tuple[datetime, datetime] | None:
    """When the number's owner opted out and when their data was erased, if it is on the list."""
    number_hash = _hash_if_any(session, phone)
    if number_hash is None:
        return None
    row = session.connection().execute(select(_TABLE.c.opted_out_at, _TABLE.c.erased_at).where(
        _TABLE.c.number_hash == number_hash)).first()
    return (row[0], row[1]) if row is not None else None


def lift(session: Session, phone: str) -> None:
    """The number's owner wrote START themselves: the entry goes."""
    number_hash = _hash_if_any(session, phone)
    if number_hash is not None:
        session.connection().execute(delete(_TABLE).where(_TABLE.c.number_hash == number_hash))
