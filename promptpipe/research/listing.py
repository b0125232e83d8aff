"""The participant list for the API and the dashboard: filtered, sorted and paged."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from promptpipe.clock import Clock
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.participant_filter import ParticipantFilter, ParticipantSort
from promptpipe.domain.states import Stage, Status
from promptpipe.errors import AdminError
from promptpipe.research.views import ListedRow, ParticipantPage, iso
from promptpipe.storage import participant_list as list_rows
from promptpipe.storage.db import Database
from promptpipe.study.rules.days import study_day

__all__ = ["MAX_PAGE", "check_filter", "check_page", "listed_row", "one_participant", "participant_list"]

MAX_PAGE = 500


def check_filter(flt: ParticipantFilter) -> ParticipantFilter:
    problems = flt.problems()
    if problems:
        raise AdminError("; ".join(problems))
    return flt


def check_page(limit: int, offset: int) -> None:
    """A page asked for: at most :data:`MAX_PAGE` rows, from a row that exists."""
    if not 1 <= limit <= MAX_PAGE:
        raise AdminError(f"limit: give a number from 1 to {MAX_PAGE}")
    if offset < 0:
        raise AdminError("offset: it cannot be negative")


async def participant_list(db: Database, clock: Clock, flt: ParticipantFilter, order: ParticipantSort, *,
                           limit: int = 50, offset: int = 0) -> ParticipantPage:
    """The page of participants ``flt`` matches, in ``order``."""
    check_filter(flt)
    check_page(limit, offset)
    now = clock.now()

    def read(session: Any) -> tuple[int, list[list_rows.ListedParticipant]]:
        return (list_rows.count_participants(session, flt, now),
                list_rows.participant_page(session, flt, order, limit=limit, offset=offset, now=now))

    total, rows = await db.run(read)
    return ParticipantPage(total=total, limit=limit, offset=offset, items=[listed_row(row, now) for row in rows])


def listed_row(row: list_rows.ListedParticipant, now: datetime) -> ListedRow:
    local_today = now.astimezone(zone_or_utc(row.timezone)).date()
    day = study_day(date.fromisoformat(row.day_one), local_today) if row.day_one else None
    return ListedRow(
        id=row.id, phone=row.phone, name=row.name, timezone=row.timezone, status=Status(row.status),
        stage=Stage(row.stage), arm=row.arm, study_day=day, day_one=row.day_one, extra_days=row.extra_days,
        enrolled_at=row.enrolled_at.isoformat(), completed_at=iso(row.completed_at),
        erased=row.erased_at is not None, last_in_at=iso(row.last_in_at), last_out_at=iso(row.last_out_at),
        prompts_sent=row.prompts_sent, prompts_answered=row.prompts_answered,
        answered_share=round(row.prompts_answered / row.prompts_sent, 3) if row.prompts_sent else None,
        current_streak=row.current_streak,
    )


async def one_participant(db: Database, clock: Clock, participant_id: str) -> ListedRow | None:
    """One participant as a row of the list (None: no such id)."""
    now = clock.now()
    row = await db.run(lambda session: list_rows.listed_participant(session, participant_id, now))
    return listed_row(row, now) if row is not None else None
