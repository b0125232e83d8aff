"""A database made by an earlier release, upgraded by this one: every row is kept, and what the
newer schema records (the consent ledger, who holds a pause) is filled in from what the older
release recorded, never left blank."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import sqlalchemy as sa

from promptpipe.research import admin, oversight
from promptpipe.research.export import export_study
from promptpipe.storage.db import Database, sync_url
from tests.upgrades.releases import PEOPLE, load_release

CONSENT_BEFORE_THE_LEDGER = "before-consent-ledger"


def _row_counts(url: str) -> dict[str, int]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            return {table: conn.execute(sa.text(f'SELECT count(*) FROM "{table}"')).scalar_one()
                    for table in sa.inspect(conn).get_table_names()}
    finally:
        engine.dispose()


@pytest.fixture
async def upgraded(database_url: str):  # type: ignore[no-untyped-def]
    """The release's database, then opened (and so upgraded) by this code; the row counts the
    release left are returned with it."""
    load_release(database_url, CONSENT_BEFORE_THE_LEDGER)
    before = _row_counts(database_url)
    db = Database(database_url)
    await db.connect()
    yield db, before
    await db.close()


async def test_every_row_an_earlier_release_wrote_is_still_there(upgraded, database_url: str) -> None:  # type: ignore[no-untyped-def]
    _, before = upgraded
    after = _row_counts(database_url)
    assert {table: after[table] for table in before} == before


async def test_who_holds_a_pause_is_known_for_everyone_after_the_upgrade(upgraded) -> None:  # type: ignore[no-untyped-def]
    db, _ = upgraded
    held = {name: ((row := await admin.show(db, phone))["opted_out"], row["researcher_paused"])
            for name, phone in PEOPLE.items()}
    assert held == {"Ana": (False, False), "Ben": (True, False), "Cleo": (False, True), "Dev": (False, False),
                    "Eli": (False, False)}


async def test_the_consent_ledger_is_rebuilt_from_the_transition_log_and_marked_so(upgraded) -> None:  # type: ignore[no-untyped-def]
    db, _ = upgraded
    ledgers = {name: (await oversight.consent(db, phone))["events"] for name, phone in PEOPLE.items()}

    assert {name: [(e["event"], e["source"]) for e in events] for name, events in ledgers.items()} == {
        "Ana": [("enrolled", "researcher")],
        "Ben": [("enrolled", "researcher"), ("opted_out", "participant")],
        "Cleo": [("enrolled", "researcher"), ("paused", "researcher")],
        "Dev": [("enrolled", "researcher"), ("withdrawn", "researcher")],
        "Eli": [("enrolled", "researcher"), ("opted_out", "participant"), ("opted_in", "participant")],
    }
    assert all(event["reconstructed"] for events in ledgers.values() for event in events)
    assert ledgers["Cleo"][1]["words"] == "on holiday" and ledgers["Dev"][1]["words"] == "moved away"


async def test_a_second_start_does_not_rebuild_the_ledger_again(upgraded, database_url: str) -> None:  # type: ignore[no-untyped-def]
    db, _ = upgraded
    once = (await oversight.consent(db, PEOPLE["Eli"]))["events"]
    again = Database(database_url)
    await again.connect()
    await again.close()
    assert (await oversight.consent(db, PEOPLE["Eli"]))["events"] == once


async def test_the_export_says_when_someone_withdrawn_before_the_upgrade_was_withdrawn(  # type: ignore[no-untyped-def]
    upgraded, tmp_path: Path,
) -> None:
    db, _ = upgraded
    await export_study(db, tmp_path / "export")
    with open(tmp_path / "export" / "participants.csv", encoding="utf-8") as handle:
        withdrawn_at = {row["id"]: row["withdrawn_at_utc"] for row in csv.DictReader(handle)}
    ids = {name: (await admin.show(db, phone))["id"] for name, phone in PEOPLE.items()}
    ledger = (await oversight.consent(db, PEOPLE["Dev"]))["events"]
    assert withdrawn_at.pop(ids["Dev"]) == ledger[-1]["at"][:19] + "+00:00"  # the export keeps whole seconds
    assert list(withdrawn_at.values()) == [""] * 4
