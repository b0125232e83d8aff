"""Databases made by earlier releases (dumps written by :mod:`tests.upgrades.make_release_fixture`),
loaded into a test's fresh database exactly as those releases left them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from promptpipe.storage.db import sqlite_file

RELEASES = Path(__file__).resolve().parent / "releases"

PEOPLE = {"Ana": "+14165550140", "Ben": "+14165550141", "Cleo": "+14165550142", "Dev": "+14165550143",
          "Eli": "+14165550144"}
"""Who the fixtures hold (see make_release_fixture.SCENARIO)."""


def release_names() -> list[str]:
    return sorted(path.name.removesuffix(".sqlite.sql") for path in RELEASES.glob("*.sqlite.sql"))


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
