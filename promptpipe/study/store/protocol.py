"""The protocol as run: adopted at first use, refused when it changes unless allowed, each version kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from promptpipe.errors import ConfigError
from promptpipe.storage.models import Participant, table_of
from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.seed import study_seed
from promptpipe.study.store.tables import StudyProtocol

__all__ = ["NO_STUDY_FILE", "Adoption", "ProtocolChanged", "ProtocolVersion", "adopt_protocol", "protocol_history",
           "study_in_force"]

_PROTOCOL = table_of(StudyProtocol)
_PARTICIPANT = table_of(Participant)
NO_STUDY_FILE = "(no study file)"


class ProtocolChanged(ConfigError):
    """The study file differs from the protocol this database runs, and nobody allowed it."""

    def __init__(self, message: str, situation: str = "") -> None:
        super().__init__(message)
        self.situation = situation or message
        """What differs, without the operator's way out (the API and the dashboard say their own)."""


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
        select(*(_PROTOCOL.c[spec.name] for spec in fields(ProtocolVersion))).order_by(_PROTOCOL.c.id)).all()
    return [ProtocolVersion(*row) for row in rows]


def study_in_force(history: Sequence[ProtocolVersion]) -> tuple[Study | None, str | None]:
    """The newest version's study (None: no study file) and, when its text no longer reads, why."""
    current = history[-1] if history else None
    if current is None or not current.hash or not current.contents:
        return None, None
    try:
        return parse_study(current.contents.encode("utf-8"), "study_protocol"), None
    except StudyFileError as exc:  # stored by an older version whose format this one no longer reads
        return None, str(exc)


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
    """Make sure the database runs ``study``: stored at first use, refused when changed unless ``allow_change``."""
    history = protocol_history(session)
    current = history[-1] if history else None
    wanted_hash = study.hash if study.in_use else ""
    if current is None:
        if not study.in_use:
            return Adoption.NONE
        enrolled = session.connection().execute(select(_PARTICIPANT.c.id).limit(1)).first() is not None
        if enrolled and not allow_change:
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
        situation = _situation(current, study)
        raise ProtocolChanged(f"{situation}. A protocol change in the middle of a study must be deliberate: restore "
                              "the file, or start the service once with `promptpipe serve --allow-protocol-change` "
                              "(the change is logged and exported).", situation)
    _store(session, study, current.hash, now, f"allowed change ({by})")
    study_seed(session, now, study.outside_seed)
    return Adoption.CHANGED


def _situation(current: ProtocolVersion, study: Study) -> str:
    since = current.adopted_at.strftime("%Y-%m-%d %H:%M UTC")
    running = f"the study {current.name!r}" if current.hash else "no study file"
    found = (f"the study file now reads {study.name!r} (hash {study.hash[:12]}…)" if study.in_use
             else "no PROMPTPIPE_STUDY_FILE is set")
    return f"this database runs {running} since {since} (hash {current.hash[:12] or '-'}…), but {found}"


def _store(session: Session, study: Study, previous: str | None, now: datetime, by: str) -> None:
    session.connection().execute(insert(_PROTOCOL).values(
        name=study.name if study.in_use else NO_STUDY_FILE, hash=study.hash if study.in_use else "",
        contents=study.source, previous_hash=previous, adopted_at=now, adopted_by=by))
