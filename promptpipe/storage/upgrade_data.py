"""What an upgrade fills in on a database an earlier release made: columns that replaced an older
way of storing the same fact, and the consent ledger of people enrolled before it existed.

Each step is idempotent and runs on every start, so a database an earlier upgrade left half done
(the columns added but left NULL, the ledger left empty) is mended too.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import and_, case, exists, false, insert, select, update

from promptpipe.storage.models import ConsentEvent, InboxItem, Participant, Transition, table_of

__all__ = ["LEDGER_FROM_TRANSITIONS", "fill_upgraded"]

_P, _CONSENT, _TRANSITION, _INBOX = (table_of(model) for model in (Participant, ConsentEvent, Transition, InboxItem))

LEDGER_FROM_TRANSITIONS = {
    "enrolled": ("enrolled", None), "opted_out": ("opted_out", "participant"), "opted_in": ("opted_in", "participant"),
    "paused_by_researcher": ("paused", "researcher"), "resumed_by_researcher": ("resumed", "researcher"),
    "withdrawn_by_researcher": ("withdrawn", "researcher"), "erased_by_researcher": ("erased", "researcher"),
}
"""The consent event each status transition records, and who caused it when the log does not say."""


def fill_upgraded(conn: Any, added: set[tuple[str, str]]) -> None:
    """Fill what the columns in ``added`` (just created) and the consent ledger should hold."""
    if ("participant", "opted_out") in added or ("participant", "researcher_paused") in added:
        # was: paused_by = 'participant' | 'researcher' (NULL unless paused)
        conn.execute(update(_P).values(
            opted_out=case((_P.c.paused_by.like("%participant%"), True), else_=False),
            researcher_paused=case((_P.c.paused_by.like("%researcher%"), True), else_=False)))
    for flag in (_P.c.opted_out, _P.c.researcher_paused):  # an earlier upgrade left them NULL when not paused
        conn.execute(update(_P).where(flag.is_(None)).values({flag.name: false()}))
    _rebuild_consent_ledger(conn)


def _rebuild_consent_ledger(conn: Any) -> None:
    """People with no consent event at all were enrolled before the ledger existed (every later
    enrolment writes one): their ledger is rebuilt from the transition log, marked reconstructed."""
    missing = conn.execute(select(_P.c.id, _P.c.enrolled_at).where(
        ~exists().where(_CONSENT.c.participant_id == _P.c.id))).all()
    if not missing:
        return
    enrolled_at = dict(missing)
    by_the_team = set(conn.execute(select(_INBOX.c.participant_id).where(
        _INBOX.c.participant_id.in_(list(enrolled_at)), _INBOX.c.key.startswith("enroll:"))).scalars())
    history: dict[str, list[Any]] = defaultdict(list)
    for row in conn.execute(select(_TRANSITION).where(
            and_(_TRANSITION.c.participant_id.in_(list(enrolled_at)), _TRANSITION.c.kind == "status"))
            .order_by(_TRANSITION.c.id)):
        history[row.participant_id].append(row)
    rows = []
    for pid, at in enrolled_at.items():
        enrolment = "researcher" if pid in by_the_team else "server"
        changes = history[pid]
        if not any(change.name == "enrolled" for change in changes):
            rows.append(_ledger_row(pid, "enrolled", enrolment, "", at))
        for change in changes:
            if change.name not in LEDGER_FROM_TRANSITIONS:
                continue
            event, source = LEDGER_FROM_TRANSITIONS[change.name]
            source = getattr(change, "actor", None) or source or enrolment
            words = change.reason if source == "researcher" else ""
            rows.append(_ledger_row(pid, event, source, words, change.created_at))
    conn.execute(insert(_CONSENT), rows)


def _ledger_row(pid: str, event: str, source: str, words: str, at: Any) -> dict[str, Any]:
    return {"participant_id": pid, "event": event, "source": source, "actor": "", "created_at": at,
            "words": words, "reconstructed": True}
