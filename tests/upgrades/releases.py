"""Databases made by earlier releases (dumps written by :mod:`tests.upgrades.make_release_fixture`),
loaded into a test's fresh database exactly as those releases left them."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from promptpipe.storage import schema
from promptpipe.storage.urls import sqlite_file, sync_url

RELEASES = Path(__file__).resolve().parent / "releases"

PEOPLE = {"Ana": "+14165550140", "Ben": "+14165550141", "Cleo": "+14165550142", "Dev": "+14165550143",
          "Eli": "+14165550144"}
"""Who the fixtures hold (see make_release_fixture.SCENARIO)."""


@dataclass(frozen=True)
class Release:
    name: str
    commit: str
    stopped_by: datetime
    """When the release's (faked) clock stopped: the upgraded service starts from here."""
    tokens: dict[str, str] = field(default_factory=dict)
    """The secret of the token made on each kind of database (releases with tokens)."""

    def __str__(self) -> str:
        return self.name

    @property
    def ran_a_study(self) -> bool:
        """Whether the release ran the fixture's study file (see make_release_fixture.STUDY)."""
        return "INSERT INTO study_protocol " in (RELEASES / f"{self.name}.sqlite.sql").read_text(encoding="utf-8")

    def had_table(self, table: str) -> bool:
        """Whether the release's own schema had this table."""
        dump = (RELEASES / f"{self.name}.sqlite.sql").read_text(encoding="utf-8")
        return f"CREATE TABLE {table} (" in dump or f'CREATE TABLE "{table}" (' in dump


def releases() -> list[Release]:
    """Every release a fixture was made of."""
    found = []
    for path in RELEASES.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        found.append(Release(path.stem, data["commit"], datetime.fromisoformat(data["stopped_by"]),
                             dict(data.get("tokens", {}))))
    return sorted(found, key=lambda release: release.name)


def load_release(url: str, name: str) -> None:
    """Fill the empty database at ``url`` with release ``name``'s database, made on the same kind
    of database."""
    path = sqlite_file(url)
    if path is not None:
        with sqlite3.connect(path) as conn:
            conn.executescript((RELEASES / f"{name}.sqlite.sql").read_text(encoding="utf-8"))
        return
    import psycopg

    dump = (RELEASES / f"{name}.postgresql.sql").read_text(encoding="utf-8")
    statements = "\n".join(line for line in dump.splitlines() if not line.startswith("\\"))  # psql's own commands
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute(statements.encode())


def downgrade(url: str, target: str) -> None:
    """Alembic's downgrade of the database at ``url`` to revision ``target``, in one transaction."""
    engine = sa.create_engine(sync_url(url), poolclass=sa.NullPool)
    try:
        with engine.begin() as conn:
            config = Config()
            config.set_main_option("script_location", str(schema.MIGRATIONS))
            config.attributes["connection"] = conn
            command.downgrade(config, target)
    finally:
        engine.dispose()
