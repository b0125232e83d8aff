"""The study's secret seed (by default a 0600 file, its fingerprint in the database) and other secrets."""

from __future__ import annotations

import os
import secrets
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from promptpipe.errors import ConfigError
from promptpipe.logging import get_logger
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import table_of
from promptpipe.study.rules.allocation import SEED_BYTES, new_seed, seed_fingerprint
from promptpipe.study.store.tables import StudySecret

__all__ = ["SeedMismatch", "insert_once", "secret_value", "seed_kept", "seed_path", "stored_secret", "study_seed"]

log = get_logger("promptpipe.storage.study")

_SECRET = table_of(StudySecret)
_SEED = "seed"
_SEED_FINGERPRINT = "seed_fingerprint"


class SeedMismatch(ConfigError):
    """The seed from outside is not the study's (or is missing): allocation and draws would change midway."""


def study_seed(session: Session, now: datetime | None = None, outside: bytes | Path | None = None) -> bytes:
    """The study's secret seed, from ``outside``: the seed itself (its fingerprint checked at every use), a directory
    (a 0600 file made at first use; a seed an older release kept in the database moves into it), or None (the database
    keeps it). A seed missing or not the study's raises SeedMismatch."""
    if isinstance(outside, Path):
        return _seed_in(session, outside, now)
    fingerprint = stored_secret(session, _SEED_FINGERPRINT)
    if outside is None:
        if fingerprint is not None and stored_secret(session, _SEED) is None:
            raise SeedMismatch(
                f"this study's seed is kept outside the database (fingerprint {fingerprint[:12]}…), and nothing says "
                "where: set PROMPTPIPE_STUDY_SEED_FILE to the file that holds it, or remove seed_in_database = true "
                "from the study file so that the service reads it from its state directory.")
        return bytes.fromhex(secret_value(session, _SEED, now))
    return _checked(session, outside, fingerprint, now, "PROMPTPIPE_STUDY_SEED_FILE",
                    "point it at the study's seed file")


def _checked(session: Session, seed: bytes, fingerprint: str | None, now: datetime | None, source: str,
             fix: str) -> bytes:
    """``seed`` if it is the study's (fingerprint stored if none was); a clear copy in the database is then removed.
    ``source``: where the seed came from, ``fix``: what to do, for the lines that refuse it."""
    clear = stored_secret(session, _SEED)
    if clear is not None and bytes.fromhex(clear) != seed:
        raise SeedMismatch(
            f"{source} holds another seed than the one this database has been using; switching would change "
            "the allocation sequence and the draws midway. Use the database's seed or a new database.")
    wanted = seed_fingerprint(seed)
    if fingerprint is None:
        fingerprint = insert_once(session, _SEED_FINGERPRINT, wanted, now)
    if fingerprint != wanted:
        raise SeedMismatch(
            f"{source} is not the seed this study runs with (its fingerprint starts {wanted[:12]}, the "
            f"study's {fingerprint[:12]}): {fix}.")
    if clear is not None:
        session.connection().execute(delete(_SECRET).where(_SECRET.c.name == _SEED))
    return seed


def seed_path(directory: Path, fingerprint: str) -> Path:
    """Named by the fingerprint, so a new database never takes up another one's seed in the same directory."""
    return directory / f"study-seed-{fingerprint[:16]}"


def _seed_in(session: Session, directory: Path, now: datetime | None) -> bytes:
    fingerprint = stored_secret(session, _SEED_FINGERPRINT)
    if fingerprint is not None:
        return _read_kept(session, directory, fingerprint, now)
    clear = stored_secret(session, _SEED)
    if clear is not None:  # kept in clear by an older release: the same seed moves out, so nothing changes
        seed = bytes.fromhex(clear)
        path = _keep(directory, seed)
        log.warning("study_seed_moved_out_of_database", path=str(path.absolute()),
                    why="the database keeps only its fingerprint now: back this file up apart from the database; "
                        "without it the study cannot go on")
        return _checked(session, seed, None, now, str(path.absolute()), "restore it from its backup")
    seed = new_seed()
    path = _keep(directory, seed)
    stored = insert_once(session, _SEED_FINGERPRINT, seed_fingerprint(seed), now)
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
    return _checked(session, seed, fingerprint, now, str(path), "restore the file from its backup")


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
    """The seed's file in ``directory``, written now unless it is there already (then it must hold the same seed)."""
    path = seed_path(directory, seed_fingerprint(seed))
    if not _create_once(path, seed.hex() + "\n") and _read_seed_file(path) != seed:
        raise SeedMismatch(f"{path.absolute()} holds another seed than the one this database has been using; "
                           "switching would change the allocation sequence and the draws midway. Move that file "
                           "away (it may belong to another database) and start again.")
    return path


def _create_once(path: Path, text: str) -> bool:
    """Create ``path`` (0600) holding ``text``, synced, whole or not at all and never over a file already there (a
    temporary file linked to its name); True when this call made it."""
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
    """Where this database's study seed is: ``database`` (in clear), ``outside`` (its fingerprint here) or ``none``."""
    names = set(session.connection().execute(
        select(_SECRET.c.name).where(_SECRET.c.name.in_((_SEED, _SEED_FINGERPRINT)))).scalars())
    return "database" if _SEED in names else "outside" if names else "none"


def stored_secret(session: Session, name: str) -> str | None:
    """A server-side secret if it was made (never makes it)."""
    value = session.connection().execute(select(_SECRET.c.value).where(_SECRET.c.name == name)).scalar_one_or_none()
    return None if value is None else str(value)


def insert_once(session: Session, name: str, value: str, now: datetime | None) -> str:
    """Store ``value`` under ``name`` unless a row is there already; the stored value either way."""
    conn = session.connection()
    stmt: Any = pg_insert(_SECRET) if conn.dialect.name == "postgresql" else sqlite_insert(_SECRET)
    conn.execute(stmt.values(name=name, value=value, created_at=now or datetime.now(timezone.utc))
                 .on_conflict_do_nothing(index_elements=["name"]))
    return str(conn.execute(select(_SECRET.c.value).where(_SECRET.c.name == name)).scalar_one())


def secret_value(session: Session, name: str, now: datetime | None = None) -> str:
    """A server-side secret (32 random bytes as hex), made on first use (two processes at once agree on one)."""
    value = stored_secret(session, name)
    return value if value is not None else insert_once(session, name, new_seed().hex(), now)
