"""Allocation stays concealed from whoever enrolls: block sizes only with --unblind, the seed can
live outside the database (only its fingerprint inside, checked at every start), a database that
allocated before the portable scheme keeps its sequence, and the allocation list leaves only in an
unblinded export."""

from __future__ import annotations

import asyncio
import csv
import json
import os
from pathlib import Path

import pytest
from sqlalchemy import delete, select

from promptpipe.app import App
from promptpipe.config import load_settings
from promptpipe.errors import ConfigError
from promptpipe.research import admin
from promptpipe.storage.models import table_of
from promptpipe.study.rules.allocation import LEGACY_SCHEME, SCHEME, arm_at, new_seed, seed_fingerprint
from promptpipe.study.store.allocation import allocation_scheme
from promptpipe.study.store.seed import SeedMismatch, study_seed
from promptpipe.study.store.tables import StudySecret
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin
from tests.study.test_protocol import PHONES, TWO_ARMS, enroll_by_script, run_main
from tests.study_helpers import study_file, with_study

MIXED = TWO_ARMS.replace("block_size = 6", "block_sizes = [3, 6]")
_SECRET = table_of(StudySecret)


def seed_file(tmp_path: Path, seed: bytes, name: str = "seed.hex") -> str:
    path = tmp_path / name
    path.write_text(seed.hex() + "\n", encoding="utf-8")
    path.chmod(0o600)
    return str(path)


async def enroll(app: App, phones: list[str], site: str = "toronto") -> list[str]:
    arms = []
    for n, phone in enumerate(phones):
        row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=f"P{n}",
                                                                    timezone="America/Toronto",
                                 study=app.settings.study, strata={"site": site}))
        arms.append(row.arm)
    return arms


async def test_the_allocation_command_hides_block_sizes_unless_unblinded(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(MIXED))
    await enroll_by_script(capsys, PHONES[:4])
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation", "--json")
    assert code == 0 and "block" not in out and sum(json.loads(out)["arms"].values()) == 4
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation")
    assert "concealed" in out and "3 or 6" not in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation", "--json", "--unblind")
    assert json.loads(out)["block_sizes"] == [3, 6]
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation", "--unblind")
    assert "blocks of 3 or 6" in out


def test_study_check_hides_block_sizes_unless_unblinded(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "study", "check", study_file(MIXED))
    assert code == 0 and "concealed" in out and "3 or 6" not in out
    code, out, _ = run_main(capsys, "study", "check", study_file(MIXED), "--unblind")
    assert code == 0 and "blocks of 3 or 6" in out


async def test_a_seed_from_outside_allocates_and_only_its_fingerprint_is_stored(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    seed = new_seed()
    app = await make_app(**with_study(MIXED, PROMPTPIPE_STUDY_SEED_FILE=seed_file(tmp_path, seed)))
    arms = await enroll(app, PHONES[:9])
    assert arms == [arm_at(seed, app.settings.study.arms, (3, 6), "site=toronto", n) for n in range(1, 10)]
    stored = await app.db.run(lambda s: s.connection().execute(select(_SECRET.c.name, _SECRET.c.value)).all())
    assert seed.hex() not in json.dumps([list(row) for row in stored])
    assert dict(stored)["seed_fingerprint"] == seed_fingerprint(seed)
    await app.stop()

    with pytest.raises(SeedMismatch, match="not the seed this study runs with"):
        await make_app(**with_study(MIXED, PROMPTPIPE_STUDY_SEED_FILE=seed_file(tmp_path, new_seed(), "other")))
    with pytest.raises(SeedMismatch, match="kept outside the database"):
        await make_app(**with_study(MIXED))
    again = await make_app(**with_study(MIXED, PROMPTPIPE_STUDY_SEED=seed.hex()))  # the same seed: starts
    await again.stop()


async def test_a_seed_kept_in_the_database_moves_out_only_to_the_same_seed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    in_database = "seed_in_database = true\n" + TWO_ARMS  # a seed given from outside wins over the choice
    app = await make_app(**with_study(in_database))
    first = await enroll(app, PHONES[:2])
    inside = await app.db.run(study_seed)
    await app.stop()
    with pytest.raises(SeedMismatch, match="another seed than the one this database has been using"):
        await make_app(**with_study(in_database, PROMPTPIPE_STUDY_SEED_FILE=seed_file(tmp_path, new_seed())))
    moved = await make_app(**with_study(in_database, PROMPTPIPE_STUDY_SEED_FILE=seed_file(tmp_path, inside, "same")))
    names = await moved.db.run(lambda s: s.connection().execute(select(_SECRET.c.name)).scalars().all())
    assert "seed" not in names and "seed_fingerprint" in names  # the clear copy is gone
    later = await enroll(moved, PHONES[2:6])
    study = moved.settings.study
    assert first + later == [arm_at(inside, study.arms, (6,), "site=toronto", n) for n in range(1, 7)]


@pytest.mark.parametrize(("value", "mode", "message"), [
    ("00" * 31, 0o600, "at least 32 bytes"),
    ("zz" * 32, 0o600, "64 or more hex digits"),
    ("ab" * 32, 0o640, "can be read by other users"),
    ("", 0o600, "at least 32 bytes"),
])
def test_a_bad_seed_file_is_refused_with_the_fix(tmp_path: Path, value: str, mode: int, message: str) -> None:
    path = tmp_path / "seed.hex"
    path.write_text(value, encoding="utf-8")
    os.chmod(path, mode)
    with pytest.raises(ConfigError, match=message):
        load_settings({"PROMPTPIPE_STUDY_SEED_FILE": str(path)}, env_file=None)
    with pytest.raises(ConfigError, match="not both"):
        load_settings({"PROMPTPIPE_STUDY_SEED_FILE": str(path), "PROMPTPIPE_STUDY_SEED": "ab" * 32}, env_file=None)


async def test_a_database_that_allocated_before_the_portable_scheme_keeps_its_sequence(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    await enroll(app, PHONES[:1])
    assert await app.db.run(allocation_scheme) == SCHEME
    await app.db.run(lambda s: s.connection().execute(delete(_SECRET).where(_SECRET.c.name == "allocation_scheme")))
    later = await enroll(app, PHONES[1:6])  # as an older database would go on
    assert await app.db.run(allocation_scheme) == LEGACY_SCHEME
    seed = await app.db.run(lambda s: study_seed(s, None, app.settings.study.outside_seed))
    arms = app.settings.study.arms
    assert later == [arm_at(seed, arms, (6,), "site=toronto", n, LEGACY_SCHEME) for n in range(2, 7)]


async def test_the_allocation_list_is_exported_only_when_unblinded(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(MIXED))
    await enroll_by_script(capsys, PHONES[:4])
    await enroll_by_script(capsys, PHONES[4:5], site="montreal")
    code, out, err = await asyncio.to_thread(run_admin, capsys, "export", "--out", "plain")
    assert code == 0, err
    assert not (cli_env / "plain" / "allocation_list.csv").exists() and "allocation_list" not in out
    code, out, err = await asyncio.to_thread(run_admin, capsys, "export", "--out", "audit", "--unblind")
    assert code == 0 and "UNBLINDED" in out, err
    with (cli_env / "audit" / "allocation_list.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    toronto = [row for row in rows if row["stratum"] == "site=toronto"]
    assert [row["sequence"] for row in toronto[:4]] == ["1", "2", "3", "4"]
    assert all(row["participant_id"] for row in toronto[:4])
    last_block = toronto[3]["block"]
    rest = toronto[4:]
    assert all(row["block"] == last_block and not row["participant_id"] for row in rest)  # the block's rest
    assert len(toronto) == sum(int(row["block_size"]) for row in {r["block"]: r for r in toronto}.values())
    assert {row["stratum"] for row in rows} == {"site=toronto", "site=montreal"}
    assert oct((cli_env / "audit" / "allocation_list.csv").stat().st_mode & 0o777) == "0o600"
    code, _, err = await asyncio.to_thread(run_admin, capsys, "export", "--out", "audit", "--unblind")
    assert code == 1 and "--force" in err
