"""Schemas for what is not ours but lives in our database: with several services, each number's WhatsApp session."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.orm import Session

from promptpipe.storage.schema import SCHEMA_LOCK_KEY

__all__ = ["make_schemas"]

SCHEMAS_LOCK_KEY = SCHEMA_LOCK_KEY
"""One service at a time makes the schemas (CREATE SCHEMA IF NOT EXISTS is not safe against a concurrent one);
the schema's own lock, so making them also waits for an upgrade under way."""
SAFE_NAME = re.compile(r"[a-z0-9_-]{1,63}")


def make_schemas(session: Session, names: Sequence[str]) -> None:
    """Create each schema that does not exist yet (PostgreSQL only)."""
    unsafe = [name for name in names if not SAFE_NAME.fullmatch(name)]
    if unsafe:
        raise ValueError(f"not a schema name: {unsafe[0]!r}")
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMAS_LOCK_KEY})
    for name in names:
        session.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{name}"'))
