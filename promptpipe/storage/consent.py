"""The consent ledger: one row per consent-relevant event (enrolled, opted out, opted in, paused
or resumed by a researcher, withdrawn, erased), with who caused it and the words that did.

Rows are written in the transaction of the change they record, so the ledger and the
participant's status never disagree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from promptpipe.domain.consent import ConsentRecord
from promptpipe.domain.text import clean_for_storage
from promptpipe.storage.models import ConsentEvent, table_of

_CONSENT = table_of(ConsentEvent)

_INSERT = insert(table_of(ConsentEvent))


def record_consent(session: Session, participant_id: str, records: list[ConsentRecord], now: datetime) -> None:
    if not records:
        return
    session.connection().execute(_INSERT, [
        {"participant_id": participant_id, "event": r.event, "source": r.source, "actor": clean_for_storage(r.actor),
         "words": clean_for_storage(r.words), "created_at": now}
        for r in records
    ])


def consent_history(session: Session, participant_id: str) -> list[dict[str, Any]]:
    rows = session.execute(
        select(ConsentEvent).where(_CONSENT.c.participant_id == participant_id).order_by(_CONSENT.c.id)
    ).scalars().all()
    return [{"id": row.id, "at": row.created_at.isoformat(), "event": row.event, "source": row.source,
             "actor": row.actor, "words": row.words, "reconstructed": bool(row.reconstructed)} for row in rows]
