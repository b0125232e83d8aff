"""Finding a participant by name, phone number or id (the dashboard's search box and
``GET /api/v1/participants/search``). What a viewer may search is decided here, once: ids only."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.participant_search import MAX_QUERY_CHARS, SearchTerms
from promptpipe.errors import AdminError
from promptpipe.research.listing import listed_row
from promptpipe.research.views import ListedRow
from promptpipe.storage.db import Database
from promptpipe.storage.participant_list import ListedParticipant, listed_participant
from promptpipe.storage.participant_search import search_ids

__all__ = ["MAX_HITS", "SearchResult", "search_participants"]

MAX_HITS = 20
"""The most shown at once; more means the search should be narrower."""


@dataclass(frozen=True)
class SearchResult:
    query: str
    items: list[ListedRow]
    more: bool
    """More participants match than are listed."""


async def search_participants(db: Database, clock: Clock, query: str, *, identified: bool,
                              limit: int = MAX_HITS) -> SearchResult:
    """Participants matching ``query``: by name, phone or id for researchers (``identified``), by id for viewers."""
    text = query.replace("\x00", "").strip()  # a NUL is no search, and PostgreSQL refuses it
    if not text:
        raise AdminError("q: type a name, a phone number or an id to search for" if identified
                         else "q: type a participant id (p_ and at least 4 of its letters and digits)")
    if len(text) > MAX_QUERY_CHARS:
        raise AdminError(f"q: at most {MAX_QUERY_CHARS} characters")
    if not 1 <= limit <= MAX_HITS:
        raise AdminError(f"limit: give a number from 1 to {MAX_HITS}")
    terms = SearchTerms.parse(text, identified=identified)
    now = clock.now()

    def read(session: Session) -> tuple[list[ListedParticipant], bool]:
        ids = search_ids(session, terms, limit=limit + 1)
        rows = [listed_participant(session, pid, now) for pid in ids[:limit]]
        return [row for row in rows if row is not None], len(ids) > limit

    rows, more = await db.run(read)
    return SearchResult(query=text, items=[listed_row(row, now) for row in rows], more=more)
