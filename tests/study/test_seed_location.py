"""Where the study's secret seed lives (issue 27). By default the service keeps it in a 0600 file
in its state directory and the database keeps only its fingerprint, so whoever reads the database
(or a backup of it) cannot predict the arms and draws to come. Keeping it in the database is an
explicit choice (``seed_in_database = true``) that ``study check`` and the report flag. A database
that kept its seed before moves it out at its next start and goes on with the same seed; a lost
or different seed file stops the start rather than changing the sequence midway."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from promptpipe.app import App
from promptpipe.config import load_settings
from promptpipe.errors import ConfigError
from promptpipe.research import admin
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.study.report.reading import study_report
from promptpipe.study.report.text import format_report
from promptpipe.study.rules.allocation import SCHEME, arm_at, new_seed, seed_fingerprint
from promptpipe.study.rules.summary import SEED_IN_DATABASE_WARNING
from promptpipe.study.store import seed as storage_study
from promptpipe.study.store.seed import SeedMismatch, study_seed
from promptpipe.study.store.tables import StudySecret
from tests.conftest import AppFactory, make_settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.study.test_protocol import PHONES, TWO_ARMS, run_main
from tests.study_helpers import study_file, with_study

IN_DATABASE = "seed_in_database = true\n" + TWO_ARMS
NOW = datetime(2026, 3, 2, 13, 0, tzinfo=timezone.utc)
_SECRET = table_of(StudySecret)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A permissive umask, as on many servers: the seed file must be private by itself."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def seed_files(state: Path) -> list[Path]:
    return sorted(state.glob("study-seed*"))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def stored(db: Database) -> dict[str, str]:
    rows = await db.run(lambda s: s.connection().execute(select(_SECRET.c.name, _SECRET.c.value)).all())
    return {name: value for name, value in rows}


async def enroll(app: App, phones: list[str]) -> list[str | None]:
    arms = []
    for n, phone in enumerate(phones):
        row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=f"P{n}",
                                                                    timezone="America/Toronto",
                                 study=app.settings.study, strata={"site": "toronto"}))
        arms.append(row.arm)
    return arms


def sequence(seed: bytes, app: App, places: range) -> list[str]:
    return [arm_at(seed, app.settings.study.arms, (6,), "site=toronto", n) for n in places]


def seed_home(database_url: str, state: Path) -> bytes | Path | None:
    """Where the settings of a service with this state directory say the seed lives."""
    return make_settings(database_url, state, "http://127.0.0.1:9", **with_study(TWO_ARMS)).study.outside_seed


async def test_a_new_study_keeps_its_seed_in_a_private_file_and_only_its_fingerprint_in_the_database(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path, open_umask: None,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    first = await enroll(app, PHONES[:4])
    (path,) = seed_files(tmp_path / "state")
    assert mode(path) == 0o600
    seed = bytes.fromhex(path.read_text(encoding="utf-8"))
    secrets = await stored(app.db)
    assert "seed" not in secrets and secrets["seed_fingerprint"] == seed_fingerprint(seed)
    assert seed.hex() not in json.dumps(secrets)
    assert first == sequence(seed, app, range(1, 5))
    await app.stop()

    again = await make_app(**with_study(TWO_ARMS))  # a restart reads the same file; nothing is made anew
    assert await enroll(again, PHONES[4:8]) == sequence(seed, again, range(5, 9))
    assert seed_files(tmp_path / "state") == [path] and bytes.fromhex(path.read_text(encoding="utf-8")) == seed


def test_the_settings_say_where_the_seed_lives(tmp_path: Path) -> None:
    """The state directory by default; the database only when the study file chooses it; a seed
    given from outside wins over both."""
    state = tmp_path / "state"
    assert load_settings({"PROMPTPIPE_STATE_DIR": str(state), **with_study(TWO_ARMS)},
                         env_file=None).study.outside_seed == state
    assert load_settings({"PROMPTPIPE_STATE_DIR": str(state), **with_study(IN_DATABASE)},
                         env_file=None).study.outside_seed is None
    given = new_seed()
    assert load_settings({"PROMPTPIPE_STUDY_SEED": given.hex(), **with_study(IN_DATABASE)},
                         env_file=None).study.outside_seed == given


async def test_first_uses_at_once_agree_on_one_seed(database_url: str, tmp_path: Path) -> None:
    """Two processes (each its own connections) making the seed at the same moment, four times each."""
    state = tmp_path / "state"
    home = seed_home(database_url, state)
    assert home == state
    processes = [Database(database_url), Database(database_url)]
    for db in processes:
        await db.connect()
    try:
        seeds = await asyncio.gather(*(db.run(lambda s: study_seed(s, NOW, home)) for db in processes
                                       for _ in range(4)))
        assert len(set(seeds)) == 1
        assert seed_files(state) == [storage_study.seed_path(state, seed_fingerprint(seeds[0]))]
        assert await stored(processes[0]) == {"seed_fingerprint": seed_fingerprint(seeds[0])}
    finally:
        for db in processes:
            await db.close()


async def test_a_process_that_loses_the_race_uses_the_winners_seed(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rival stores its seed between our look (none yet) and our write: we end with its seed
    and leave no file of our own behind. (SQLite runs one writer at a time, from the look on.)"""
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite begins every transaction IMMEDIATE: a rival cannot write between our look and our write")
    state = tmp_path / "state"
    home = seed_home(database_url, state)
    ours, rival = Database(database_url), Database(database_url)
    await ours.connect()
    await rival.connect()
    winner: list[bytes] = []
    made = storage_study.new_seed

    def new_seed_after_the_rival_won() -> bytes:
        if not winner:
            winner.append(b"")  # the rival's own call makes a seed as usual
            winner[0] = rival.submit(lambda s: study_seed(s, NOW, home)).result()
        return made()

    monkeypatch.setattr(storage_study, "new_seed", new_seed_after_the_rival_won)
    try:
        seed = await ours.run(lambda s: study_seed(s, NOW, home))
        assert seed == winner[0]
        assert seed_files(state) == [storage_study.seed_path(state, seed_fingerprint(seed))]
    finally:
        await ours.close()
        await rival.close()


def as_before_issue_27(session: Session, seed: bytes) -> None:
    """What an older release left: the seed in clear in the database, no fingerprint."""
    conn = session.connection()
    conn.execute(delete(_SECRET).where(_SECRET.c.name == "seed_fingerprint"))
    conn.execute(insert(_SECRET).values(name="seed", value=seed.hex(), created_at=NOW))


async def test_an_older_database_moves_its_seed_out_and_keeps_drawing_the_same_arms(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path: Path,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    first = await enroll(app, PHONES[:2])
    (path,) = seed_files(tmp_path / "state")
    seed = bytes.fromhex(path.read_text(encoding="utf-8"))
    await app.db.run(lambda s: as_before_issue_27(s, seed))
    await app.stop()
    path.unlink()

    upgraded = await make_app(**with_study(TWO_ARMS))
    later = await enroll(upgraded, PHONES[2:6])
    assert first + later == sequence(seed, upgraded, range(1, 7))
    assert await stored(upgraded.db) == {"seed_fingerprint": seed_fingerprint(seed),
                                         "allocation_scheme": SCHEME}
    assert seed_files(tmp_path / "state") == [path] and mode(path) == 0o600
    assert bytes.fromhex(path.read_text(encoding="utf-8")) == seed


async def test_a_seed_file_that_disagrees_with_the_database_is_refused(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    await enroll(app, PHONES[:1])
    await app.stop()
    (path,) = seed_files(tmp_path / "state")
    path.write_text(new_seed().hex() + "\n", encoding="utf-8")
    with pytest.raises(SeedMismatch, match="not the seed this study runs with"):
        await make_app(**with_study(TWO_ARMS))
    path.chmod(0o644)
    with pytest.raises(ConfigError, match=f"can be read by other users.*chmod 600 {re.escape(str(path))}"):
        await make_app(**with_study(TWO_ARMS))


async def test_a_lost_seed_file_stops_the_start_instead_of_making_a_new_seed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, database_url: str, tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    app = await make_app(**with_study(TWO_ARMS))
    first = await enroll(app, PHONES[:2])
    (path,) = seed_files(state)
    backup = path.read_text(encoding="utf-8")
    before = await stored(app.db)
    await app.stop()
    shutil.rmtree(state)

    with pytest.raises(SeedMismatch, match="kept outside the database") as refused:
        await make_app(**with_study(TWO_ARMS))
    assert str(path.absolute()) in str(refused.value) and "PROMPTPIPE_STUDY_SEED_FILE" in str(refused.value)
    assert seed_files(state) == []
    db = Database(database_url)
    await db.connect()
    try:
        assert await stored(db) == before
    finally:
        await db.close()

    state.mkdir(mode=0o700)
    path.write_text(backup, encoding="utf-8")  # restored from its backup: the study goes on
    path.chmod(0o600)
    restored = await make_app(**with_study(TWO_ARMS))
    assert first + await enroll(restored, PHONES[2:4]) == sequence(bytes.fromhex(backup), restored, range(1, 5))


async def test_keeping_the_seed_in_the_database_is_a_choice_that_check_and_report_flag(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    app = await make_app(**with_study(IN_DATABASE))
    arms = await enroll(app, PHONES[:3])
    secrets = await stored(app.db)
    seed = bytes.fromhex(secrets["seed"])
    assert "seed_fingerprint" not in secrets and seed_files(tmp_path / "state") == []
    assert arms == sequence(seed, app, range(1, 4))

    report = await study_report(app.db, app.settings.study, now=NOW)
    assert report.seed.kept == "database" and report.seed.warning is not None
    assert SEED_IN_DATABASE_WARNING in report.seed.warning and SEED_IN_DATABASE_WARNING in format_report(report)
    code, out, err = run_main(capsys, "study", "check", study_file(IN_DATABASE))
    assert code == 0 and f"warning: {SEED_IN_DATABASE_WARNING}" in err
    assert "Seed: kept in the database (seed_in_database = true)" in out
    assert SEED_IN_DATABASE_WARNING == ("the randomisation seed is kept in the database: anyone who can read the "
                                        "database can predict future arms and draws")


async def test_the_default_is_neither_flagged_by_check_nor_by_the_report(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    report = await study_report(app.db, app.settings.study, now=NOW)
    assert (report.seed.kept, report.seed.warning) == ("outside", None)
    assert "Seed: kept outside the database" in format_report(report)
    code, out, err = run_main(capsys, "study", "check", study_file(TWO_ARMS))
    assert code == 0 and "warning" not in err and "Seed: kept outside the database" in out
