"""Participants whose id begins with, or whose phone's digits or name contain, what was searched for: one bounded
query on the participant table alone (an id's start reads the primary key's index)."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from promptpipe.domain.participant_search import SearchTerms
from promptpipe.storage.models import Participant, table_of

__all__ = ["search_ids"]

_P = table_of(Participant)


def search_ids(session: Session, terms: SearchTerms, *, limit: int) -> list[str]:
    """Up to ``limit`` matching ids, the oldest enrolment first; none for empty terms."""
    clauses: list[ColumnElement[bool]] = []
    if terms.id_start is not None:
        # The range lets the primary key's index find them; LIKE confirms (hex digits sort below "g").
        clauses.append(_P.c.id.between(terms.id_start, terms.id_start + "g")
                       & _P.c.id.startswith(terms.id_start, autoescape=True))
    if terms.phone_digits is not None:
        clauses.append(_P.c.phone.contains(terms.phone_digits, autoescape=True))
    if terms.name_part is not None:
        clauses.append(func.lower(_P.c.name).contains(terms.name_part, autoescape=True))
    if not clauses:
        return []
    query = select(_P.c.id).where(or_(*clauses)).order_by(_P.c.enrolled_at, _P.c.id).limit(limit)
    return list(session.execute(query).scalars())
