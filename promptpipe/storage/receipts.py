"""Delivery and read receipts WhatsApp reported for our messages, stored by WhatsApp id and read back per message.
Each (message, kind) keeps the earliest time; reading fills in what one implies (read: delivered, played: read).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select, type_coerce, update
from sqlalchemy.orm import Session

from promptpipe.storage.db import Database
from promptpipe.storage.models import Receipt, UTCDateTime, table_of

__all__ = ["IMPLIED_BY", "ReceiptTimes", "delivery_status", "forget_receipts", "receipt_columns", "receipt_times",
           "record_receipt"]

_RECEIPT = table_of(Receipt)
IMPLIED_BY = (("delivered", "read", "played"), ("read", "played"), ("played",))
"""The receipt kinds whose earliest time is ``delivered_at``, ``read_at`` and ``played_at`` (read implies delivered)."""
MAX_IDS_PER_RECEIPT = 100
"""WhatsApp groups a handful of ids per receipt; more than this is not a receipt we sent for."""


@dataclass(frozen=True)
class ReceiptTimes:
    delivered_at: datetime | None = None
    read_at: datetime | None = None
    played_at: datetime | None = None


def record_receipt(db: Database, session: Session, wa_message_ids: Iterable[str], kind: str, at: datetime,
                   now: datetime) -> int:
    """Store one receipt (these messages were delivered, read or played at ``at``); returns how many ids were new."""
    ids = sorted({mid for mid in wa_message_ids if mid})[:MAX_IDS_PER_RECEIPT]
    if not ids:
        return 0
    conn = session.connection()
    existing = set(conn.execute(select(_RECEIPT.c.wa_message_id).where(
        _RECEIPT.c.wa_message_id.in_(ids), _RECEIPT.c.kind == kind)).scalars())
    new = [{"wa_message_id": mid, "kind": kind, "at": at, "received_at": now} for mid in ids if mid not in existing]
    if new:
        db.insert_ignore(Receipt, ("wa_message_id", "kind"), returning=()).many(conn, new)
    if existing:  # a repeat keeps the earliest time
        conn.execute(update(_RECEIPT).where(
            _RECEIPT.c.wa_message_id.in_(existing), _RECEIPT.c.kind == kind, _RECEIPT.c.at > at).values(at=at))
    return len(new)


def receipt_times(session: Session, wa_message_ids: Iterable[str | None]) -> dict[str, ReceiptTimes]:
    """The receipts of these messages, with what each implies: read → delivered, played → read."""
    ids = sorted({mid for mid in wa_message_ids if mid})
    found: dict[str, dict[str, datetime]] = {}
    for chunk in Database.chunks(ids):
        for mid, kind, at in session.connection().execute(select(
                _RECEIPT.c.wa_message_id, _RECEIPT.c.kind, _RECEIPT.c.at).where(_RECEIPT.c.wa_message_id.in_(chunk))):
            found.setdefault(mid, {})[kind] = at
    times: dict[str, ReceiptTimes] = {}
    for mid, kinds in found.items():
        played = kinds.get("played")
        read = _earliest(kinds.get("read"), played)
        times[mid] = ReceiptTimes(delivered_at=_earliest(kinds.get("delivered"), read), read_at=read, played_at=played)
    return times


def delivery_status(sent_at: datetime | None, delivered_at: datetime | None, read_at: datetime | None, *,
                    receipts_expected: bool, cutoff: datetime) -> str:
    """``read``, ``delivered``, ``not_delivered`` (sent at or before ``cutoff`` without a receipt), ``sent`` (after
    it), or ``unknown`` where the transport reports no receipts."""
    if read_at is not None:
        return "read"
    if delivered_at is not None:
        return "delivered"
    if not receipts_expected or sent_at is None:
        return "unknown"
    return "not_delivered" if sent_at <= cutoff else "sent"


def receipt_columns(matches: Callable[[Any], ColumnElement[bool]]) -> list[Any]:
    """``delivered_at``, ``read_at`` and ``played_at`` as correlated columns over the receipts ``matches`` accepts
    (given their table), each the earliest of the kinds that imply it."""
    r = _RECEIPT

    def earliest(*kinds: str) -> Any:
        subquery = select(func.min(r.c.at)).where(matches(r), r.c.kind.in_(kinds)).scalar_subquery()
        return type_coerce(subquery, UTCDateTime())

    names = ("delivered_at", "read_at", "played_at")
    return [earliest(*kinds).label(name) for kinds, name in zip(IMPLIED_BY, names, strict=True)]


def forget_receipts(session: Session, wa_message_ids: Iterable[str | None]) -> None:
    ids = [mid for mid in wa_message_ids if mid]
    for chunk in Database.chunks(ids):
        session.connection().execute(delete(_RECEIPT).where(_RECEIPT.c.wa_message_id.in_(chunk)))


def _earliest(*values: datetime | None) -> datetime | None:
    return min((value for value in values if value is not None), default=None)
