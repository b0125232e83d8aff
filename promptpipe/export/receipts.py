"""WhatsApp's receipts for a chunk of exported rows, read in one grouped join per chunk (three correlated subqueries per
row cost more than the rest of the read), and the chunk that carries them to its formatting."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, or_, select
from sqlalchemy.engine import Connection

from promptpipe.export.cells import StoredTime, from_stored, stored_time
from promptpipe.storage.models import Message, Receipt, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.receipts import IMPLIED_BY, delivery_status

__all__ = ["NO_RECEIPTS", "Chunk", "ReceiptTimes", "delivery_receipts", "driver_rows", "receipt_times", "stored_status"]

_RECEIPT, _DELIVERY = table_of(Receipt), table_of(PromptDelivery)
ReceiptTimes = tuple[StoredTime | None, StoredTime | None, StoredTime | None]
"""delivered_at, read_at, played_at: each the earliest of the kinds that imply it (as ``storage.receipts``)."""
NO_RECEIPTS: ReceiptTimes = (None, None, None)


def driver_rows(conn: Connection, query: Any) -> list[Any]:
    """The rows of ``query`` as the database driver hands them, without SQLAlchemy's per-value types (a fifth of the
    reading): SQLite's times and JSON as text and its booleans as 0 or 1 (PostgreSQL's driver decodes all three)."""
    result = conn.execute(query)
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()


class Chunk(list[Any]):
    """A chunk's rows, with the receipts of each row (by its id) and the cut-off for ``not_delivered``. ``json_text``:
    JSON columns read as stored are text (SQLite) rather than values (the PostgreSQL driver decodes them).
    ``reports``: each row's self-report cells (``decisions``), None when the study asks for none. Rows are tuples
    (:func:`driver_rows`), the id first, except in ``decisions``."""

    def __init__(self, rows: Iterable[Any], receipts: dict[Any, ReceiptTimes], cutoff: datetime,
                 json_text: bool = False, reports: list[tuple[Any, ...]] | None = None) -> None:
        super().__init__(rows)
        self.receipts, self.cutoff, self.json_text, self.reports = receipts, cutoff, json_text, reports


def stored_status(sent_at: StoredTime | None, delivered_at: StoredTime | None, read_at: StoredTime | None,
                  expected: Any, cutoff: datetime) -> str:
    """:func:`~promptpipe.storage.receipts.delivery_status` of stored times (the send time is read only when no
    receipt decides)."""
    sent = from_stored(sent_at) if read_at is None and delivered_at is None else None
    return delivery_status(sent, delivered_at, read_at,  # type: ignore[arg-type]  # only compared with None
                           receipts_expected=bool(expected), cutoff=cutoff)


def _earliest(*kinds: str) -> Any:
    r = _RECEIPT
    return stored_time(func.min(case((r.c.kind.in_(kinds), r.c.at))))


_TIMES = tuple(_earliest(*kinds) for kinds in IMPLIED_BY)


def receipt_times(conn: Connection, key: Any, messages: Any, source: Any, *where: Any) -> dict[Any, ReceiptTimes]:
    """The receipt times of the rows ``where`` selects from ``source``, by ``key``; ``messages`` is the message table
    in ``source`` whose WhatsApp ids the receipts name. Rows without a receipt are left out."""
    query = (select(key, *_TIMES)
             .select_from(source.join(_RECEIPT, _RECEIPT.c.wa_message_id == messages.c.wa_message_id))
             .where(*where).group_by(key))
    return {key: (delivered, read, played) for key, delivered, read, played in driver_rows(conn, query)}


def delivery_receipts(conn: Connection, *where: Any) -> dict[Any, ReceiptTimes]:
    """The receipts of the deliveries ``where`` selects (of their prompt and their poll), by delivery id."""
    d, m = _DELIVERY, table_of(Message).alias("sent")
    joined = d.join(m, or_(m.c.id == d.c.prompt_message_id, m.c.id == d.c.poll_message_id))
    return receipt_times(conn, d.c.id, m, joined, *where)
