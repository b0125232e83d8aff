"""The real WhatsApp library keeps a number's session where several services can all reach it: in
that number's own schema of the service's PostgreSQL database. neonize 0.5.2 (its Go library and
lib/pq) runs in a child process against this test's database; nothing reaches WhatsApp (there is
no network here: the library makes its tables, then fails to dial, and we stop it)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from sqlalchemy import text

from promptpipe.storage.db import Database
from promptpipe.storage.session_schemas import make_schemas
from promptpipe.transport.session_stores import session_schema

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

CHILD = """
import asyncio, sys
from neonize.aioze.client import NewAClient
from promptpipe.transport.session_stores import postgres_session_dsn

async def main():
    client = NewAClient(postgres_session_dsn(sys.argv[1], sys.argv[2]), uuid="promptpipe-" + sys.argv[2])
    await client.connect()
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _session_tables(session: object, schema: str) -> set[str]:
    return set(session.execute(text(  # type: ignore[attr-defined]
        "SELECT table_name FROM information_schema.tables WHERE table_schema = :schema"), {"schema": schema}).scalars())


async def test_a_numbers_session_is_made_in_its_own_schema_of_the_shared_database(database_url: str) -> None:
    number, schema = "north-1", session_schema("north-1")
    db = Database(database_url)
    await db.connect()
    child = subprocess.Popen([sys.executable, "-c", CHILD, database_url, number],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await db.run(lambda session: make_schemas(session, [schema]))
        await db.run(lambda session: make_schemas(session, [schema]))  # a second service starting: no error
        tables: set[str] = set()
        for _ in range(600):  # the library starts in about a second; give it a minute on a loaded machine
            tables = await db.run(lambda session: _session_tables(session, schema))
            if "whatsmeow_device" in tables:
                break
            await asyncio.sleep(0.1)
        assert {"whatsmeow_device", "whatsmeow_sessions", "whatsmeow_identity_keys"} <= tables
        ours = await db.run(lambda session: _session_tables(session, "public"))
        assert "participant" in ours and not any(name.startswith("whatsmeow") for name in ours)
    finally:
        child.kill()
        child.wait()
        await db.close()
