"""Queries on the study's tables: the protocol as run (adopted once, changed only on purpose),
the secret seed, the allocation sequence, and the decision points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from promptpipe.domain.allocation import LEGACY_SCHEME, SCHEME, arm_at, new_seed, seed_fingerprint, stratum_key
from promptpipe.domain.study import Study
from promptpipe.errors import ConfigError
from promptpipe.storage.models import Participant, table_of
from promptpipe.storage.study_tables import AllocationRow, Decision, StudyProtocol, StudySecret

__all__ = [
    "NO_STUDY_FILE", "Allocated", "ProtocolChanged", "ProtocolVersion", "SeedMismatch", "adopt_protocol",
    "allocate", "allocation_scheme", "allocations", "protocol_history", "record_decision", "secret_value",
    "study_seed",
]

_PROTOCOL = table_of(StudyProtocol)
_SECRET = table_of(StudySecret)
_ALLOCATION = table_of(AllocationRow)
_DECISION = table_of(Decision)
_PARTICIPANT = table_of(Participant)
_SEED = "seed"
_SEED_FINGERPRINT = "seed_fingerprint"
_SCHEME = "allocation_scheme"
NO_STUDY_FILE = "(no study file)"


class ProtocolChanged(ConfigError):
    """The study file differs from the protocol this database runs, and nobody allowed it."""


class SeedMismatch(ConfigError):
    """The seed given from outside is not the one this study has been running with (or none was
    given for a study whose seed lives outside): allocation and draws would change midway."""


@dataclass(frozen=True)
class ProtocolVersion:
    name: str
    hash: str
    previous_hash: str | None
    adopted_at: datetime
    adopted_by: str
    contents: str


def protocol_history(session: Session) -> list[ProtocolVersion]:
    """Every protocol this database ran, oldest first (empty: it never ran with a study file)."""
    rows = session.connection().execute(
        select(_PROTOCOL.c.name, _PROTOCOL.c.hash, _PROTOCOL.c.previous_hash, _PROTOCOL.c.adopted_at,
               _PROTOCOL.c.adopted_by, _PROTOCOL.c.contents).order_by(_PROTOCOL.c.id)).all()
    return [ProtocolVersion(*row) for row in rows]


def adopt_protocol(session: Session, study: Study, *, allow_change: bool, now: datetime, by: str) -> str:
    """Make sure the database runs ``study``: stored at first use (with a new secret seed),
    refused when it differs from the stored one unless ``allow_change``, then stored as a new
    version. Returns what happened: ``none`` | ``adopted`` | ``unchanged`` | ``changed``."""
    history = protocol_history(session)
    current = history[-1] if history else None
    wanted_hash = study.hash if study.in_use else ""
    if current is None:
        if not study.in_use:
            return "none"
        if _has_participants(session) and not allow_change:
            raise ProtocolChanged(
                "this database has participants enrolled without a study file; adopting one now changes their "
                "study. Start the service once with `promptpipe serve --allow-protocol-change` to do it on purpose "
                "(it is logged and exported), or use a new database.")
        _store(session, study, None, now, f"first use ({by})")
        study_seed(session, now, study.outside_seed)
        return "adopted"
    if current.hash == wanted_hash:
        if study.in_use:
            study_seed(session, now, study.outside_seed)  # a wrong or missing outside seed stops the start
        return "unchanged"
    if not allow_change:
        raise ProtocolChanged(_refusal(current, study))
    _store(session, study, current.hash, now, f"allowed change ({by})")
    study_seed(session, now, study.outside_seed)
    return "changed"


def _has_participants(session: Session) -> bool:
    return session.connection().execute(select(_PARTICIPANT.c.id).limit(1)).first() is not None


def _refusal(current: ProtocolVersion, study: Study) -> str:
    since = current.adopted_at.strftime("%Y-%m-%d %H:%M UTC")
    running = f"the study {current.name!r}" if current.hash else "no study file"
    if not study.in_use:
        found = "no PROMPTPIPE_STUDY_FILE is set"
    else:
        found = f"the study file now reads {study.name!r} (hash {study.hash[:12]}…)"
    return (f"this database runs {running} since {since} (hash {current.hash[:12] or '-'}…), but {found}. "
            "A protocol change in the middle of a study must be deliberate: restore the file, or start the "
            "service once with `promptpipe serve --allow-protocol-change` (the change is logged and exported).")


def _store(session: Session, study: Study, previous: str | None, now: datetime, by: str) -> None:
    session.connection().execute(insert(_PROTOCOL).values(
        name=study.name if study.in_use else NO_STUDY_FILE, hash=study.hash if study.in_use else "",
        contents=study.source, previous_hash=previous, adopted_at=now, adopted_by=by))


def study_seed(session: Session, now: datetime | None = None, outside: bytes | None = None) -> bytes:
    """The study's secret seed. Given from ``outside`` (PROMPTPIPE_STUDY_SEED_FILE), the database
    keeps only its fingerprint, checked at every use, and a clear copy left from before is removed
    once the two agree. Otherwise it is made on first use and kept in the database (two processes
    making it at once agree on one)."""
    conn = session.connection()
    fingerprint = _stored(session, _SEED_FINGERPRINT)
    if outside is None:
        if fingerprint is not None and _stored(session, _SEED) is None:
            raise SeedMismatch(
                f"this study's seed is kept outside the database (fingerprint {fingerprint[:12]}…): set "
                "PROMPTPIPE_STUDY_SEED_FILE to the file that holds it.")
        return bytes.fromhex(secret_value(session, _SEED, now))
    clear = _stored(session, _SEED)
    if clear is not None and bytes.fromhex(clear) != outside:
        raise SeedMismatch(
            "PROMPTPIPE_STUDY_SEED_FILE holds another seed than the one this database has been using; switching "
            "would change the allocation sequence and the draws midway. Use the database's seed or a new database.")
    wanted = seed_fingerprint(outside)
    if fingerprint is None:
        fingerprint = _insert_once(session, _SEED_FINGERPRINT, wanted, now)
    if fingerprint != wanted:
        raise SeedMismatch(
            f"PROMPTPIPE_STUDY_SEED_FILE is not the seed this study runs with (its fingerprint starts "
            f"{wanted[:12]}, the study's {fingerprint[:12]}): point it at the study's seed file.")
    if clear is not None:
        conn.execute(delete(_SECRET).where(_SECRET.c.name == _SEED))
    return outside


def allocation_scheme(session: Session, now: datetime | None = None) -> str:
    """How this database draws its allocation sequence: fixed at its first enrollment, so a
    database that allocated before the portable scheme keeps its own (see
    :mod:`promptpipe.domain.allocation`)."""
    scheme = _stored(session, _SCHEME)
    if scheme is None:
        allocated = session.connection().execute(select(_ALLOCATION.c.sequence).limit(1)).first() is not None
        scheme = _insert_once(session, _SCHEME, LEGACY_SCHEME if allocated else SCHEME, now)
    return scheme


def _stored(session: Session, name: str) -> str | None:
    value = session.connection().execute(select(_SECRET.c.value).where(_SECRET.c.name == name)).scalar_one_or_none()
    return None if value is None else str(value)


def _insert_once(session: Session, name: str, value: str, now: datetime | None) -> str:
    """Store ``value`` under ``name`` unless a row is there already; the stored value either way."""
    conn = session.connection()
    stmt: Any = pg_insert(_SECRET) if conn.dialect.name == "postgresql" else sqlite_insert(_SECRET)
    conn.execute(stmt.values(name=name, value=value, created_at=now or datetime.now(timezone.utc))
                 .on_conflict_do_nothing(index_elements=["name"]))
    return str(conn.execute(select(_SECRET.c.value).where(_SECRET.c.name == name)).scalar_one())


def secret_value(session: Session, name: str, now: datetime | None = None) -> str:
    """A server-side secret (32 random bytes as hex), made on first use; two processes making it
    at once agree on one."""
    value = _stored(session, name)
    return value if value is not None else _insert_once(session, name, new_seed().hex(), now)


def allocate(session: Session, study: Study, participant_id: str, strata: Mapping[str, str], now: datetime,
             *, strict: bool = True) -> str | None:
    """The participant's arm (None without a study file): the next place in their stratum's
    concealed sequence. ``strict`` (a researcher's enrollment) requires every stratum field;
    otherwise (someone enrolled by writing in) a missing one is recorded as ``?``. Two enrollments
    at once cannot take the same place (a unique key: the later transaction fails with
    DuplicateKey and the caller tries again)."""
    if not study.in_use:
        return None
    if strict:
        key = stratum_key(study.allocation, strata)
    else:
        key = "|".join(f"{name}={strata.get(name) or '?'}" for name in study.allocation.stratum_fields)
    sequence = _next_sequence(session, key)
    seed = study_seed(session, now, study.outside_seed)
    arm = arm_at(seed, study.arms, study.allocation.block_sizes, key, sequence, allocation_scheme(session, now))
    session.connection().execute(insert(_ALLOCATION).values(
        participant_id=participant_id, stratum=key, sequence=sequence, arm=arm, created_at=now))
    return arm


def _next_sequence(session: Session, stratum: str) -> int:
    last = session.connection().execute(
        select(func.max(_ALLOCATION.c.sequence)).where(_ALLOCATION.c.stratum == stratum)).scalar_one_or_none()
    return int(last or 0) + 1


_INSERT_DECISION = insert(_DECISION)


def record_decision(session: Session, decision: Decision) -> None:
    """One decision point (the daily prompt's commit writes it; its inbox id is unique). The
    statement is built once and run with the row's values (every daily prompt writes one)."""
    session.connection().execute(_INSERT_DECISION, decision.model_dump(exclude={"id"}))


@dataclass(frozen=True)
class Allocated:
    participant_id: str
    stratum: str
    sequence: int
    arm: str
    created_at: datetime


def allocations(session: Session) -> list[Allocated]:
    """Every place handed out, by stratum and sequence (for an unblinded export only)."""
    rows = session.connection().execute(
        select(_ALLOCATION.c.participant_id, _ALLOCATION.c.stratum, _ALLOCATION.c.sequence, _ALLOCATION.c.arm,
               _ALLOCATION.c.created_at).order_by(_ALLOCATION.c.stratum, _ALLOCATION.c.sequence)).all()
    return [Allocated(*row) for row in rows]
