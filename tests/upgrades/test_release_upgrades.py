"""A database made by each earlier release, upgraded by this one (`promptpipe db upgrade`): every
row is kept, the schema is the one the models declare, what the newer schema records (the consent
ledger, who holds a pause) is filled in from what the older release recorded, tokens still sign
in, and every timer and daily prompt that was pending still fires."""

from __future__ import annotations

import asyncio
import csv
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from promptpipe.clock import ManualClock
from promptpipe.export.files import export_study
from promptpipe.research import admin, oversight
from promptpipe.research.tokens import Caller
from promptpipe.storage import schema
from promptpipe.storage.db import Database
from promptpipe.storage.schema import include_object
from promptpipe.storage.urls import sync_url
from promptpipe.transport.memory import MemoryTransport
from promptpipe.web.identity import identify
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.study_helpers import with_study
from tests.upgrades.make_release_fixture import STUDY
from tests.upgrades.releases import PEOPLE, Release, load_release, releases
from tests.upgrades.releases import RELEASES as RELEASES_DIR

RELEASES = releases()


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(sync_url(url))


def _keys(url: str) -> dict[str, set[tuple[Any, ...]]]:
    """Every row of every table, by its primary key."""
    engine = _engine(url)
    try:
        with engine.connect() as conn:
            found = {}
            for name in sa.inspect(conn).get_table_names():
                table = sa.Table(name, sa.MetaData(), autoload_with=conn)
                columns = list(table.primary_key.columns) or list(table.columns)
                found[name] = {tuple(row) for row in conn.execute(sa.select(*columns))}
            return found
    finally:
        engine.dispose()


@pytest.fixture(params=RELEASES, ids=str)
def release(request: pytest.FixtureRequest) -> Release:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
async def upgraded(database_url: str, release: Release) -> AsyncIterator[tuple[Database, dict[str, Any]]]:
    """The release's database, upgraded as `promptpipe db upgrade` does it; with the rows the
    release left, by table."""
    load_release(database_url, release.name)
    before = _keys(database_url)
    with pytest.raises(schema.SchemaBehind, match="promptpipe db upgrade"):
        refused = Database(database_url)
        try:
            await refused.connect()
        finally:
            await refused.close()
    done = await asyncio.to_thread(schema.upgrade, database_url)
    assert done.after == schema.head() and done.before is None
    db = Database(database_url)
    await db.connect()
    yield db, before
    await db.close()


RENAMED = {"lid_mapping": "whatsapp_lid"}
"""Tables a revision renamed: old name to new."""


def _every_row_is_still_there(before: dict[str, Any], database_url: str) -> None:
    after = _keys(database_url)
    moved = {"self_report"}  # its rows become questionnaire instances (see test_self_report_upgrade)
    assert {table: rows - after[RENAMED.get(table, table)] for table, rows in before.items() if table not in moved} == {
        table: set() for table in before if table not in moved}


def _the_release_itself_would_stop_at_start(release: Release, database_url: str) -> None:
    """What every release from before versions does first when it starts (SQLAlchemy's
    ``create_all``): create each of its tables that is missing, with its own statement. On the
    upgraded database its ``lid_mapping`` table cannot be made, so it stops with that error instead
    of running on a schema it does not know."""
    kind = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    dump = (RELEASES_DIR / f"{release.name}.{kind}.sql").read_text(encoding="utf-8")
    create = re.search(r"CREATE TABLE (?:public\.)?lid_mapping \(.*?\);", dump, re.DOTALL)
    assert create is not None, "every release before versions had the table"
    engine = _engine(database_url)
    try:
        with engine.connect() as conn:
            assert not sa.inspect(conn).has_table("lid_mapping")
            with pytest.raises(sa.exc.DatabaseError, match="lid_mapping") as stopped:
                conn.execute(sa.text(create.group(0)))
            assert "already" in str(stopped.value.orig)
    finally:
        engine.dispose()


def _the_schema_is_the_one_the_models_declare(database_url: str) -> None:
    engine = _engine(database_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True, "include_object": include_object})
            assert compare_metadata(context, SQLModel.metadata) == []
    finally:
        engine.dispose()


async def _who_holds_a_pause_is_known_for_everyone(db: Database, release: Release) -> None:
    held = {name: ((row := await admin.show(db, phone)).opted_out, row.researcher_paused, row.status)
            for name, phone in PEOPLE.items()}
    if release.name == "release-0039ceb":  # before STOP and the team's pause existed: everyone is active
        assert set(held.values()) == {(False, False, "active")}
        return
    assert held == {"Ana": (False, False, "active"), "Ben": (True, False, "paused"),
                    "Cleo": (False, True, "paused"), "Dev": (False, False, "withdrawn"),
                    "Eli": (False, False, "active")}


async def _everyone_has_a_consent_ledger(db: Database, release: Release) -> None:
    ledgers = {name: [(e.event, e.source) for e in (await oversight.consent(db, phone)).events]
               for name, phone in PEOPLE.items()}
    if release.name == "release-0039ceb":
        assert set(map(tuple, ledgers.values())) == {(("enrolled", "researcher"),)}
        return
    assert ledgers == {
        "Ana": [("enrolled", "researcher")],
        "Ben": [("enrolled", "researcher"), ("opted_out", "participant")],
        "Cleo": [("enrolled", "researcher"), ("paused", "researcher")],
        "Dev": [("enrolled", "researcher"), ("withdrawn", "researcher")],
        "Eli": [("enrolled", "researcher"), ("opted_out", "participant"), ("opted_in", "participant")],
    }


async def _a_ledger_rebuilt_from_the_transition_log_says_so(db: Database, release: Release, tmp_path: Any) -> None:
    events = {name: (await oversight.consent(db, phone)).events for name, phone in PEOPLE.items()}
    rebuilt = {event.reconstructed for person in events.values() for event in person}
    assert rebuilt == ({False} if release.had_table("consent") else {True})
    if release.name == "release-0039ceb":
        return
    assert (events["Cleo"][1].words, events["Dev"][1].words) == ("on holiday", "moved away")
    await export_study(db, tmp_path / "export")
    with open(tmp_path / "export" / "participants.csv", encoding="utf-8") as handle:
        withdrawn_at = {row["id"]: row["withdrawn_at_utc"] for row in csv.DictReader(handle)}
    dev = (await admin.show(db, PEOPLE["Dev"])).id
    assert withdrawn_at.pop(dev) == events["Dev"][-1].at[:19] + "+00:00"  # the export keeps whole seconds
    assert set(withdrawn_at.values()) == {""}


async def _tokens_made_before_still_sign_in(db: Database, release: Release, database_url: str) -> None:
    secret = release.tokens.get(database_url.split(":")[0])
    if secret is None:  # the release had no tokens yet
        return
    caller = await identify(db, secret, datetime.now(UTC))
    assert isinstance(caller, Caller) and (caller.name, caller.role) == ("fixture-admin", "admin")


async def _pending_timers_and_daily_prompts_still_fire(db: Database, release: Release, make_app: AppFactory,
                                                       fake_openai: FakeOpenAIServer) -> None:
    """Last: it closes the upgraded database and runs the service on it."""
    pending = await db.run(lambda session: session.execute(sa.text(
        "SELECT id, kind, due_at FROM timer WHERE status = 'pending' ORDER BY due_at")).all())
    timers = await admin.pending_timers(db)
    prompts = await db.run(lambda session: session.execute(sa.text("SELECT count(*) FROM schedule WHERE active"))
                           .scalar())
    await db.close()
    fake_openai.always("How did it go today?", match="")
    transport = MemoryTransport()
    study = with_study(STUDY) if release.ran_a_study else {}  # the protocol it ran: the same file
    app = await make_app(transport, app_clock=ManualClock(release.stopped_by), **study)
    assert await admin.pending_timers(app.db) == timers  # kept, and armed as before
    next_prompt = release.stopped_by + timedelta(days=1)  # Ana's 00:01 comes again the next day
    events = sorted([(_aware(due), f"timer {kind} ({timer_id})") for timer_id, kind, due in pending]
                    + ([(next_prompt, "daily prompt")] if prompts else []))
    for due, what in events:  # each at its time, in order
        sent, decided = len(transport.sent), await _decisions(app.db)
        app.clock.set(max(app.clock.now(), due + timedelta(seconds=1)))
        await app.run_until_idle()
        if what == "daily prompt" and release.ran_a_study:  # a decision point, drawn to send or not
            assert await _decisions(app.db) == decided + 1, what
        elif what == "daily prompt":
            assert len(transport.sent) > sent and transport.sent[-1].to.phone == PEOPLE["Ana"], what
    ended = dict(await app.db.run(lambda session: session.execute(sa.text(
        "SELECT id, status FROM timer WHERE id IN :ids").bindparams(sa.bindparam("ids", expanding=True)),
        {"ids": [row[0] for row in pending] or [-1]}).all()))
    assert set(ended.values()) <= {"fired", "cancelled"} and ("fired" in ended.values() or not pending), ended



async def test_an_earlier_release_s_database_is_upgraded_whole(  # type: ignore[no-untyped-def]
    upgraded, release: Release, database_url: str, tmp_path: Any, make_app: AppFactory,
    fake_openai: FakeOpenAIServer,
) -> None:
    """One upgrade per release and database, every check on it (an upgrade costs 1-2 s: seven
    tests each upgrading for themselves were a fifth of the suite's time)."""
    db, before = upgraded
    _every_row_is_still_there(before, database_url)
    _the_schema_is_the_one_the_models_declare(database_url)
    _the_release_itself_would_stop_at_start(release, database_url)
    await _who_holds_a_pause_is_known_for_everyone(db, release)
    await _everyone_has_a_consent_ledger(db, release)
    await _a_ledger_rebuilt_from_the_transition_log_says_so(db, release, tmp_path)
    await _tokens_made_before_still_sign_in(db, release, database_url)
    await _pending_timers_and_daily_prompts_still_fire(db, release, make_app, fake_openai)

async def _decisions(db: Database) -> int:
    return int(await db.run(lambda session: session.execute(sa.text("SELECT count(*) FROM decision")).scalar()))


def _aware(value: Any) -> Any:
    from datetime import datetime, timezone

    value = datetime.fromisoformat(value) if isinstance(value, str) else value
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
