"""The schema's versions: the migrations and the models agree; a database behind this release is
refused with the command that upgrades it (or upgraded by itself when asked); one ahead of it is
refused; a failed upgrade leaves the database as it was and names the revision that failed."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from promptpipe.cli import main
from promptpipe.storage import schema
from promptpipe.storage.db import Database
from promptpipe.storage.urls import sqlite_file, sync_url
from tests.conftest import AppFactory
from tests.databases import execute_raw
from tests.upgrades.releases import load_release

OLDEST = "release-0039ceb"


def _differences(url: str) -> list[Any]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "include_object": schema.include_object})
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def _dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's columns and rows, to tell whether anything changed."""
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            found = {}
            for name in sorted(sa.inspect(conn).get_table_names()):
                columns = tuple(column["name"] for column in sa.inspect(conn).get_columns(name))
                rows = sorted(tuple(map(repr, row)) for row in conn.execute(sa.text(f'SELECT * FROM "{name}"')))
                found[name] = [columns, *rows]
            return found
    finally:
        engine.dispose()


async def test_every_revision_from_an_empty_database_gives_what_the_models_declare(database_url: str) -> None:
    """CI's check that a change of the models came with its revision (and the other way round)."""
    done = await asyncio.to_thread(schema.upgrade, database_url)
    assert done.applied == tuple(revision.id for revision in schema.history()) and done.after == schema.head()
    assert _differences(database_url) == []


async def test_a_new_database_is_made_at_the_newest_revision_at_once(database_url: str) -> None:
    db = Database(database_url)
    state = await db.connect()
    await db.close()
    assert state.at_head and _differences(database_url) == []


async def test_a_database_from_a_newer_release_is_refused(database_url: str, capsys: pytest.CaptureFixture[str],
                                                          cli_env: Path) -> None:
    db = Database(database_url)
    await db.connect()
    await execute_raw(db, "UPDATE alembic_version SET version_num = '0099_from_the_future'")
    await db.close()
    again = Database(database_url)
    with pytest.raises(schema.SchemaAhead, match="newer PromptPipe release"):
        await again.connect()
    await again.close()
    assert await asyncio.to_thread(main, ["db", "upgrade"]) == 1
    assert "0099_from_the_future" in capsys.readouterr().err


async def test_serve_refuses_a_database_an_older_release_made_and_names_the_command(
    database_url: str, make_app: AppFactory,
) -> None:
    load_release(database_url, OLDEST)
    before = _dump(database_url)
    with pytest.raises(schema.SchemaBehind, match=r"run `promptpipe db upgrade` once"):
        await make_app()
    assert _dump(database_url) == before


async def test_db_current_history_and_upgrade_on_the_command_line(
    database_url: str, cli_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    load_release(database_url, OLDEST)
    assert await asyncio.to_thread(main, ["db", "current"]) == 0
    assert "a release before versioned migrations, behind this release's" in capsys.readouterr().out
    assert await asyncio.to_thread(main, ["db", "history"]) == 0
    listed = capsys.readouterr().out
    assert f"{schema.head()} (head)" in listed and "records no revision" in listed
    assert await asyncio.to_thread(main, ["db", "upgrade"]) == 0
    said = capsys.readouterr().out
    assert f"to {schema.head()}" in said
    path = sqlite_file(database_url)
    if path is not None:  # the copy from before the upgrade is named and kept
        [copy] = path.parent.glob(f"{path.name}.before-upgrade-unversioned-*")
        assert str(copy) in said and copy.stat().st_mode & 0o077 == 0
    assert await asyncio.to_thread(main, ["db", "upgrade"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert await asyncio.to_thread(main, ["db", "current"]) == 0
    assert "(the newest this release knows)" in capsys.readouterr().out


async def test_serve_upgrades_by_itself_when_asked_and_keeps_a_copy(database_url: str, make_app: AppFactory) -> None:
    load_release(database_url, OLDEST)
    app = await make_app(DB_AUTO_UPGRADE="on")
    assert app.db.upgraded is not None and app.db.upgraded.after == schema.head()
    assert (app.db.upgraded.copy is not None) == (sqlite_file(database_url) is not None)
    assert _differences(database_url) == []


@pytest.fixture
def failing_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The migrations with one more revision after the newest, which fails half-way."""
    copy = tmp_path / "migrations"
    shutil.copytree(schema.MIGRATIONS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    head = schema.head()
    (copy / "versions" / "0999_fails.py").write_text(
        f'"""Fails after changing something."""\n\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
        f'revision = "0999_fails"\ndown_revision = "{head}"\nbranch_labels = None\ndepends_on = None\n\n\n'
        'def upgrade() -> None:\n'
        '    op.add_column("participant", sa.Column("nickname", sa.String(), nullable=True))\n'
        '    op.execute("UPDATE participant SET nickname = no_such_column")\n\n\n'
        'def downgrade() -> None:\n    pass\n', encoding="utf-8")
    monkeypatch.setattr(schema, "MIGRATIONS", copy)
    schema._script.cache_clear()
    yield "0999_fails"
    schema._script.cache_clear()


async def test_a_failed_upgrade_leaves_the_database_as_it_was_and_names_the_revision(
    database_url: str, failing_revision: str,
) -> None:
    load_release(database_url, OLDEST)
    before = _dump(database_url)
    with pytest.raises(schema.MigrationFailed, match=f"revision {failing_revision} failed") as failed:
        await asyncio.to_thread(schema.upgrade, database_url)
    assert "the database is as it was before the upgrade" in str(failed.value)
    assert _dump(database_url) == before


def test_the_newest_revision_named_in_the_code_is_the_newest_revision_file() -> None:
    """A new revision file comes with :data:`schema.HEAD` moved to it: a new database is stamped with it, and one at an
    older revision is told to upgrade."""
    assert schema.alembic_head() == schema.HEAD


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_service_on_a_database_at_the_newest_revision_never_loads_alembic(database_url: str) -> None:
    """Alembic is ~8 MB of a service's memory, needed only to upgrade (or to name an unknown revision)."""
    import subprocess
    import sys

    script = ("import asyncio, sys\n"
              "from promptpipe.storage.db import Database\n"
              "async def start():\n"
              f"    db = Database({database_url!r})\n"
              "    await db.connect()\n"
              "    await db.close()\n"
              "asyncio.run(start())\n"  # the first start makes the schema, the second finds it current
              "asyncio.run(start())\n"
              "print(sorted({name.split('.')[0] for name in sys.modules if name.startswith('alembic')}))\n")
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stderr
