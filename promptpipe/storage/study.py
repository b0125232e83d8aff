"""Queries on the study's tables: the protocol as run (adopted once, changed only on purpose),
the secret seed (by default a 0600 file in the state directory, its fingerprint in the database),
the allocation sequence, and the decision points."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from promptpipe.domain.allocation import (
    LEGACY_SCHEME,
    SCHEME,
    SEED_BYTES,
    arm_at,
    new_seed,
    seed_fingerprint,
    stratum_key,
)
from promptpipe.domain.study import Study
from promptpipe.errors import ConfigError
from promptpipe.logging import get_logger
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import Participant, table_of
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.study_tables import AllocationRow, Decision, StudyProtocol, StudySecret

__all__ = [
    "NO_STUDY_FILE", "Adoption", "Allocated", "ProtocolChanged", "ProtocolVersion", "SeedMismatch", "adopt_protocol",
    "allocate", "allocation_scheme", "allocations", "protocol_history", "record_decision", "secret_value", "seed_kept",
    "seed_path", "study_seed",
]

log = get_logger("promptpipe.storage.study")

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

    def __init__(self, message: str, situation: str = "") -> None:
        super().__init__(message)
        self.situation = situation or message
        """What differs, without the operator's way out (the API and the dashboard say their own)."""


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


class Adoption(StrEnum):
    """What :func:`adopt_protocol` did (logged as the service starts)."""

    NONE = "none"
    """no study file, and the database never ran one"""
    ADOPTED = "adopted"
    """the study file's first use: stored, with a new secret seed"""
    UNCHANGED = "unchanged"
    """the database runs this protocol already"""
    CHANGED = "changed"
    """a changed protocol, allowed on purpose: stored as a new version"""


def adopt_protocol(session: Session, study: Study, *, allow_change: bool, now: datetime, by: str) -> Adoption:
    """Make sure the database runs ``study``: stored at first use (with a new secret seed),
    refused when it differs from the stored one unless ``allow_change``, then stored as a new
    version. Returns what happened."""
    history = protocol_history(session)
    current = history[-1] if history else None
    wanted_hash = study.hash if study.in_use else ""
    if current is None:
        if not study.in_use:
            return Adoption.NONE
        if _has_participants(session) and not allow_change:
            situation = ("this database has participants enrolled without a study file; adopting one now changes "
                         "their study")
            raise ProtocolChanged(
                f"{situation}. Start the service once with `promptpipe serve --allow-protocol-change` to do it on "
                "purpose (it is logged and exported), or use a new database.", situation)
        _store(session, study, None, now, f"first use ({by})")
        study_seed(session, now, study.outside_seed)
        return Adoption.ADOPTED
    if current.hash == wanted_hash:
        if study.in_use:
            study_seed(session, now, study.outside_seed)  # a wrong or missing outside seed stops the start
        return Adoption.UNCHANGED
    if not allow_change:
        raise ProtocolChanged(_refusal(current, study), _situation(current, study))
    _store(session, study, current.hash, now, f"allowed change ({by})")
    study_seed(session, now, study.outside_seed)
    return Adoption.CHANGED


def _has_participants(session: Session) -> bool:
    return session.connection().execute(select(_PARTICIPANT.c.id).limit(1)).first() is not None


def _situation(current: ProtocolVersion, study: Study) -> str:
    since = current.adopted_at.strftime("%Y-%m-%d %H:%M UTC")
    running = f"the study {current.name!r}" if current.hash else "no study file"
    if not study.in_use:
        found = "no PROMPTPIPE_STUDY_FILE is set"
    else:
        found = f"the study file now reads {study.name!r} (hash {study.hash[:12]}…)"
    return f"this database runs {running} since {since} (hash {current.hash[:12] or '-'}…), but {found}"


def _refusal(current: ProtocolVersion, study: Study) -> str:
    return (f"{_situation(current, study)}. A protocol change in the middle of a study must be deliberate: restore "
            "the file, or start the service once with `promptpipe serve --allow-protocol-change` (the change is "
            "logged and exported).")


def _store(session: Session, study: Study, previous: str | None, now: datetime, by: str) -> None:
    session.connection().execute(insert(_PROTOCOL).values(
        name=study.name if study.in_use else NO_STUDY_FILE, hash=study.hash if study.in_use else "",
        contents=study.source, previous_hash=previous, adopted_at=now, adopted_by=by))


def study_seed(session: Session, now: datetime | None = None, outside: bytes | Path | None = None) -> bytes:
    """The study's secret seed, from where ``outside`` (the study's ``outside_seed``) says:

    * the seed itself (PROMPTPIPE_STUDY_SEED_FILE): the database keeps only its fingerprint,
      checked at every use, and a clear copy left from before is removed once the two agree;
    * a directory (the state directory, by default): the seed is a 0600 file there, made at first
      use (two processes making it at once agree on one), and the database keeps its fingerprint;
      a seed an older release kept in the database moves into that file and out of the database;
    * None (``seed_in_database = true``): the database makes the seed on first use and keeps it.

    A seed that cannot be found, or is not the one the study runs with, stops with SeedMismatch:
    another seed would change the allocation sequence and the draws midway."""
    if isinstance(outside, Path):
        return _seed_in(session, outside, now)
    fingerprint = _stored(session, _SEED_FINGERPRINT)
    if outside is None:
        if fingerprint is not None and _stored(session, _SEED) is None:
            raise SeedMismatch(
                f"this study's seed is kept outside the database (fingerprint {fingerprint[:12]}…), and nothing says "
                "where: set PROMPTPIPE_STUDY_SEED_FILE to the file that holds it, or remove seed_in_database = true "
                "from the study file so that the service reads it from its state directory.")
        return bytes.fromhex(secret_value(session, _SEED, now))
    return _checked(session, outside, fingerprint, now, _GIVEN)


@dataclass(frozen=True)
class _Source:
    """Where a seed came from, for the lines that refuse it."""

    name: str
    fix: str


_GIVEN = _Source("PROMPTPIPE_STUDY_SEED_FILE", "point it at the study's seed file")


def _checked(session: Session, seed: bytes, fingerprint: str | None, now: datetime | None, source: _Source) -> bytes:
    """``seed`` if it is the study's (its fingerprint stored now if none was); a clear copy left
    in the database is removed once the two agree."""
    clear = _stored(session, _SEED)
    if clear is not None and bytes.fromhex(clear) != seed:
        raise SeedMismatch(
            f"{source.name} holds another seed than the one this database has been using; switching would change "
            "the allocation sequence and the draws midway. Use the database's seed or a new database.")
    wanted = seed_fingerprint(seed)
    if fingerprint is None:
        fingerprint = _insert_once(session, _SEED_FINGERPRINT, wanted, now)
    if fingerprint != wanted:
        raise SeedMismatch(
            f"{source.name} is not the seed this study runs with (its fingerprint starts {wanted[:12]}, the "
            f"study's {fingerprint[:12]}): {source.fix}.")
    if clear is not None:
        session.connection().execute(delete(_SECRET).where(_SECRET.c.name == _SEED))
    return seed


def seed_path(directory: Path, fingerprint: str) -> Path:
    """The file in ``directory`` holding the seed of this fingerprint: named by it, so a new
    database never takes up the seed another one left in the same state directory."""
    return directory / f"study-seed-{fingerprint[:16]}"


def _seed_in(session: Session, directory: Path, now: datetime | None) -> bytes:
    """The seed kept in a file of ``directory`` (see :func:`study_seed`)."""
    fingerprint = _stored(session, _SEED_FINGERPRINT)
    if fingerprint is not None:
        return _read_kept(session, directory, fingerprint, now)
    clear = _stored(session, _SEED)
    if clear is not None:  # kept in clear by an older release: the same seed moves out, so nothing changes
        seed = bytes.fromhex(clear)
        path = _keep(directory, seed)
        log.warning("study_seed_moved_out_of_database", path=str(path.absolute()),
                    why="the database keeps only its fingerprint now: back this file up apart from the database; "
                        "without it the study cannot go on")
        return _checked(session, seed, None, now, _Source(str(path.absolute()), "restore it from its backup"))
    seed = new_seed()
    path = _keep(directory, seed)
    stored = _insert_once(session, _SEED_FINGERPRINT, seed_fingerprint(seed), now)
    if stored != seed_fingerprint(seed):  # another process stored its seed first (its file is written): use it
        path.unlink(missing_ok=True)
        return _read_kept(session, directory, stored, now)
    log.info("study_seed_made", path=str(path.absolute()),
             why="kept out of the database: back this file up apart from the database")
    return seed


def _read_kept(session: Session, directory: Path, fingerprint: str, now: datetime | None) -> bytes:
    path = seed_path(directory, fingerprint).absolute()
    seed = _read_seed_file(path)
    if seed is None:
        raise SeedMismatch(
            f"this study's seed is kept outside the database (fingerprint {fingerprint[:12]}…), but {path} does not "
            "exist and neither PROMPTPIPE_STUDY_SEED_FILE nor PROMPTPIPE_STUDY_SEED gives it. Restore the file from "
            "its backup (or point PROMPTPIPE_STUDY_SEED_FILE at it); a new seed would change the allocation sequence "
            "and the draws midway, so none is made.")
    return _checked(session, seed, fingerprint, now, _Source(str(path), "restore the file from its backup"))


def _read_seed_file(path: Path) -> bytes | None:
    """The seed in ``path``; None when there is no such file."""
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read the study's seed file {path} ({exc.strerror or exc}): let the service's "
                          "user read it.") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(f"{path} can be read by other users; keep the seed secret: chmod 600 {path}")
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        seed = b""
    if len(seed) < SEED_BYTES:
        raise ConfigError(f"{path} does not hold a study seed (64 or more hex digits): restore it from its backup.")
    return seed


def _keep(directory: Path, seed: bytes) -> Path:
    """The seed's file in ``directory``, written now unless it is there already (then it must
    hold the same seed)."""
    path = seed_path(directory, seed_fingerprint(seed))
    if not _create_once(path, seed.hex() + "\n") and _read_seed_file(path) != seed:
        raise SeedMismatch(f"{path.absolute()} holds another seed than the one this database has been using; "
                           "switching would change the allocation sequence and the draws midway. Move that file "
                           "away (it may belong to another database) and start again.")
    return path


def _create_once(path: Path, text: str) -> bool:
    """Create ``path`` (0600) holding ``text``, on disk before this returns, whole or not at all and
    never over a file already there: written under a temporary name, then linked to its own.
    True when this call made it."""
    make_private_dir(path.parent)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    try:
        _write_synced(temp, text)
        try:
            os.link(temp, path)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: an exclusive create in place
            try:
                _write_synced(path, text)
            except FileExistsError:
                return False
        directory = os.open(path.parent, os.O_RDONLY)  # the new name is on disk too, before anything relies on it
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        return True
    finally:
        temp.unlink(missing_ok=True)


def _write_synced(path: Path, text: str) -> None:
    with open_private(path) as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())


def seed_kept(session: Session) -> str:
    """Where this database's study seed is: ``database`` (in clear: anyone who can read the
    database can predict the arms and draws to come), ``outside`` (only its fingerprint is
    here) or ``none`` (no seed made yet)."""
    names = set(session.connection().execute(
        select(_SECRET.c.name).where(_SECRET.c.name.in_((_SEED, _SEED_FINGERPRINT)))).scalars())
    return "database" if _SEED in names else "outside" if names else "none"


def allocation_scheme(session: Session, now: datetime | None = None) -> str:
    """How this database draws its allocation sequence: fixed at its first enrollment, so a
    database that allocated before the portable scheme keeps its own (see
    :mod:`promptpipe.domain.allocation`)."""
    scheme = _stored(session, _SCHEME)
    if scheme is None:
        allocated = session.connection().execute(select(_ALLOCATION.c.sequence).limit(1)).first() is not None
        scheme = _insert_once(session, _SCHEME, LEGACY_SCHEME if allocated else SCHEME, now)
    return scheme


def stored_secret(session: Session, name: str) -> str | None:
    """A server-side secret if it was made (never makes it)."""
    return _stored(session, name)


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


_INSERT_DECISION = Prepared(insert(_DECISION))


@dataclass(frozen=True)
class DecisionValues:
    """A ``decision`` row to write; each column is described on
    :class:`~promptpipe.storage.study_tables.Decision`. A plain value: every daily prompt builds
    one and changes it twice, and the table's model cost more to build than the row to write."""

    participant_id: str
    inbox_id: int
    local_date: str
    decided_at: datetime
    local_time: str
    timezone: str
    available: bool
    action: str
    schedule_id: str | None = None
    arm: str | None = None
    study_day: int | None = None
    scheduled_for: datetime | None = None
    unavailable_reason: str | None = None
    probability: float | None = None
    draw: float | None = None
    seed_ref: str = ""
    prompt_message_id: int | None = None
    prompt_style: str | None = None
    model: str | None = None
    system_prompt_hash: str | None = None
    protocol_hash: str | None = None
    not_sent_reason: str | None = None


def record_decision(session: Session, decision: DecisionValues) -> None:
    """One decision point (the daily prompt's commit writes it; its inbox id is unique). The
    statement is built once and run with the row's values (every daily prompt writes one)."""
    _INSERT_DECISION.rows(session.connection(), vars(decision))


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
