"""Researcher operations on the study itself: the protocol check, strata, an extension and the allocation counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.states import Status
from promptpipe.errors import AdminError, Forbidden
from promptpipe.pipeline.events import TeamAction, TeamChange
from promptpipe.research._common import get_participant, researcher_name, validate_text
from promptpipe.research.team_requests import request_change
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.study.rules.allocation import stratum_key
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.protocol import adopt_protocol
from promptpipe.study.store.tables import AllocationRow

__all__ = ["MAX_EXTENSION_DAYS", "allocation_counts", "check_protocol", "extend", "validate_strata"]

MAX_EXTENSION_DAYS = 365
_ALLOCATION = table_of(AllocationRow)


def check_protocol(session: Session, study: Study, now: datetime) -> None:
    """Study operations run only on the protocol the database runs; the first one with a study file adopts it."""
    adopt_protocol(session, study, allow_change=False, now=now, by=f"admin script, {researcher_name()}")


def validate_strata(study: Study, strata: Mapping[str, str]) -> dict[str, str]:
    """The enrollment fields a stratified study needs, checked against the study file."""
    fields = study.allocation.stratum_fields
    unknown = sorted(set(strata) - set(fields))
    if unknown:
        allowed = f"this study stratifies by {', '.join(fields)}" if fields else "this study is not stratified"
        raise AdminError(f"--stratum {unknown[0]}=…: {allowed}; check the study file's [allocation.strata]")
    cleaned = {name: validate_text(f"--stratum {name}", value, 100, required=True) for name, value in strata.items()}
    if study.in_use:
        try:
            stratum_key(study.allocation, cleaned)
        except ValueError as exc:
            raise AdminError(str(exc)) from None
    return cleaned


async def extend(db: Database, clock: Clock, *, study: Study, phone: str, days: int, by: str = "") -> str:
    """Add ``days`` to one participant's study (a completed one is brought back); returns a line saying so."""
    if not study.in_use or study.length_days is None:
        raise Forbidden("extend needs a study file with length_days: set PROMPTPIPE_STUDY_FILE")
    if not 1 <= days <= MAX_EXTENSION_DAYS:
        raise AdminError(f"--days: give a whole number of days from 1 to {MAX_EXTENSION_DAYS}")
    participant, _ = await get_participant(db, phone)
    if participant.status == Status.WITHDRAWN:
        raise Forbidden(f"{participant.phone} was withdrawn from the study; that cannot be undone or changed")
    by = validate_text("--by", by or researcher_name(), 200)
    await db.run(lambda session: check_protocol(session, study, clock.now()))
    outcome = await request_change(db, clock, participant.id,
                                   TeamChange(action=TeamAction.EXTEND, value=str(days), by=by), study=study)
    return outcome.said_for(participant.phone)


@dataclass(frozen=True)
class AllocationCounts:
    """Participants per arm, overall and per stratum, beside the designed ratios."""

    study: str
    arms: dict[str, int]
    ratios: dict[str, int]
    strata: dict[str, dict[str, int]]
    """Per stratum (``site=toronto``, or ``(not stratified)``), participants per arm."""
    block_sizes: list[int] | None
    """Only when unblinded: with the counts, they tell whoever enrolls where a block ends."""


async def allocation_counts(db: Database, study: Study, *, unblind: bool = False) -> AllocationCounts:
    """Never the sequence itself; the block sizes only with ``unblind``."""
    def read(session: Session) -> AllocationCounts:
        rows = session.connection().execute(
            select(_ALLOCATION.c.stratum, _ALLOCATION.c.arm, func.count())
            .group_by(_ALLOCATION.c.stratum, _ALLOCATION.c.arm)).all()
        arms = [arm.name for arm in study.arms]
        by_arm = dict.fromkeys(arms, 0)
        strata: dict[str, dict[str, int]] = {}
        for stratum, arm, count in rows:
            by_arm[arm] = by_arm.get(arm, 0) + count
            strata.setdefault(stratum or "(not stratified)", dict.fromkeys(arms, 0))[arm] = count
        ratios = {arm.name: arm.ratio for arm in study.arms}
        return AllocationCounts(study=study.name, arms=by_arm, ratios=ratios, strata=strata,
                                block_sizes=list(study.allocation.block_sizes) if unblind else None)

    return await db.run(read)
