"""The consent ledger: one row per consent event, with who caused it and the words that did, written in the change's
own transaction so the ledger and the participant's status never disagree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from promptpipe.domain.consent import HOLDS, LIFTED_BY, ConsentKind, ConsentRecord, ConsentSource
from promptpipe.domain.text import clean_for_storage
from promptpipe.storage.commit_hooks import after_commit, after_rollback, consent_board, queued_in
from promptpipe.storage.models import ConsentEvent, table_of

_CONSENT = table_of(ConsentEvent)
_INSERT = insert(_CONSENT)


def record_consent(session: Session, participant_id: str, records: list[ConsentRecord], now: datetime) -> None:
    """Write a change's ledger rows and tell the consent board: a hold refuses claimed rows now, a lifting at commit."""
    if not records:
        return
    session.connection().execute(_INSERT, [
        {"participant_id": participant_id, "event": r.event, "source": r.source, "actor": clean_for_storage(r.actor),
         "words": clean_for_storage(r.words), "created_at": now, "said_at": r.said_at}
        for r in records
    ])
    board = consent_board(session)
    if board is None:
        return
    for record in records:
        if record.event in HOLDS:
            written = board.hold(participant_id, record.event, queued_in(session, participant_id))
            after_rollback(session, functools.partial(board.take_back, participant_id, record.event, written))
        elif record.event in LIFTED_BY:
            after_commit(session, functools.partial(board.lift, participant_id, record.event, board.stamp()))


@dataclass(frozen=True)
class LedgerEntry:
    id: int
    at: str
    event: ConsentKind
    source: ConsentSource
    actor: str
    words: str
    reconstructed: bool
    said_at: str | None = None
    """The participant's own opt-out or opt-in: when they sent it (their WhatsApp's clock)."""


def consent_history(session: Session, participant_id: str) -> list[LedgerEntry]:
    rows = session.execute(
        select(ConsentEvent).where(_CONSENT.c.participant_id == participant_id).order_by(_CONSENT.c.id)
    ).scalars().all()
    return [LedgerEntry(row.id or 0, row.created_at.isoformat(), ConsentKind(row.event), ConsentSource(row.source),
                        row.actor, row.words, bool(row.reconstructed),
                        row.said_at.isoformat() if row.said_at else None) for row in rows]
