"""A database URL's driver and SQLite file (apart from :mod:`.db`: the schema's upgrades open no database)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["sqlite_file", "sync_url"]


def sync_url(url: str) -> str:
    """The driver for a plain sqlite:// or postgresql:// URL (psycopg 3 for PostgreSQL)."""
    scheme, rest = url.split("://", 1)
    base = scheme.split("+", 1)[0]
    if base == "sqlite":
        return f"sqlite://{rest}"
    if base == "postgresql":
        return f"postgresql+psycopg://{rest}"
    raise ValueError(f"unsupported database URL scheme {scheme!r}")


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///…`` URL (None for PostgreSQL or an in-memory database)."""
    if url.split("://", 1)[0].split("+", 1)[0] != "sqlite":
        return None
    path = url.split(":///", 1)[-1]
    return Path(path) if path and path != ":memory:" else None
