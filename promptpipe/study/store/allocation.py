"""The allocation sequence: each enrolment's place in its stratum and the arm it draws."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from promptpipe.storage.models import table_of
from promptpipe.study.rules.allocation import LEGACY_SCHEME, SCHEME, arm_at, stratum_key
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.seed import insert_once, stored_secret, study_seed
from promptpipe.study.store.tables import AllocationRow

__all__ = ["Allocated", "allocate", "allocation_scheme", "allocations"]

_ALLOCATION = table_of(AllocationRow)
_SCHEME = "allocation_scheme"


def allocation_scheme(session: Session, now: datetime | None = None) -> str:
    """How this database draws its allocation sequence: fixed at its first enrollment, so it never changes."""
    scheme = stored_secret(session, _SCHEME)
    if scheme is None:
        allocated = session.connection().execute(select(_ALLOCATION.c.sequence).limit(1)).first() is not None
        scheme = insert_once(session, _SCHEME, LEGACY_SCHEME if allocated else SCHEME, now)
    return scheme


def allocate(session: Session, study: Study, participant_id: str, strata: Mapping[str, str], now: datetime,
             *, strict: bool = True) -> str | None:
    """The participant's arm (None without a study file): the next place in their stratum's sequence. ``strict``
    requires every stratum field (else a missing one is ``?``); two enrollments at once fail one with DuplicateKey."""
    if not study.in_use:
        return None
    key = (stratum_key(study.allocation, strata) if strict
           else "|".join(f"{name}={strata.get(name) or '?'}" for name in study.allocation.stratum_fields))
    last = session.connection().execute(
        select(func.max(_ALLOCATION.c.sequence)).where(_ALLOCATION.c.stratum == key)).scalar_one_or_none()
    sequence = int(last or 0) + 1
    seed = study_seed(session, now, study.outside_seed)
    arm = arm_at(seed, study.arms, study.allocation.block_sizes, key, sequence, allocation_scheme(session, now))
    session.connection().execute(insert(_ALLOCATION).values(
        participant_id=participant_id, stratum=key, sequence=sequence, arm=arm, created_at=now))
    return arm


@dataclass(frozen=True)
class Allocated:
    participant_id: str
    stratum: str
    sequence: int
    arm: str
    created_at: datetime


def allocations(session: Session) -> list[Allocated]:
    """Every place handed out, by stratum and sequence (for an unblinded export only)."""
    rows = session.connection().execute(select(*(_ALLOCATION.c[spec.name] for spec in fields(Allocated)))
                                        .order_by(_ALLOCATION.c.stratum, _ALLOCATION.c.sequence)).all()
    return [Allocated(*row) for row in rows]
