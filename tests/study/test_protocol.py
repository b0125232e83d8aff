"""The study file as a study lead uses it: checked before the study, adopted once, changed only on
purpose; enrollment by the allocation rule (stratified, concealed), and the counts per arm."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from promptpipe.cli import main
from promptpipe.errors import AdminError, ConfigError
from promptpipe.research import admin
from promptpipe.study.store.protocol import protocol_history
from promptpipe.study.store.seed import study_seed
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin
from tests.study_helpers import study_file, with_study

PROJECT = Path(__file__).resolve().parents[2]
TWO_ARMS = """
name = "Walking pilot"
length_days = 28
fixed_prompts = ["Put your shoes by the door tonight."]

[[arms]]
name = "coach"
ratio = 2

[[arms]]
name = "fixed"
prompt_style = "fixed"

[allocation]
block_size = 6
[allocation.strata]
site = ["toronto", "montreal"]
"""
PHONES = [f"+1416555{n:04d}" for n in range(100, 130)]


async def enroll_by_script(capsys: pytest.CaptureFixture[str], phones: list[str], site: str = "toronto") -> None:
    """Enroll each phone with the admin script, in ``site``; each gets an arm."""
    for n, phone in enumerate(phones):
        code, out, err = await asyncio.to_thread(run_admin, capsys, "enroll", "--phone", phone, "--name", f"P{n}",
                                                 "--timezone", "America/Toronto", "--stratum", f"site={site}")
        assert code == 0 and " in arm " in out, err


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_study_check_summarises_a_good_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "study", "check", str(PROJECT / "study.example.toml"))
    assert code == 0
    assert "28 days" in out and "hash:" in out


def test_study_check_lists_every_problem_with_its_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "study.toml"
    bad.write_text('name = "x"\nlength_days = 0\n[decision]\np = 1.5\n', encoding="utf-8")
    code, _, err = run_main(capsys, "study", "check", str(bad))
    assert code == 1
    assert "length_days" in err and "decision.p" in err


async def test_the_protocol_is_adopted_once_and_a_change_is_refused_unless_allowed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **with_study(TWO_ARMS))
    first_hash = app.settings.study.hash
    await app.stop()
    await (await make_app(transport, **with_study(TWO_ARMS))).stop()  # the same file: starts
    changed = TWO_ARMS.replace("length_days = 28", "length_days = 35")
    with pytest.raises(ConfigError, match="--allow-protocol-change"):
        await make_app(transport, **with_study(changed))
    with pytest.raises(ConfigError, match="no PROMPTPIPE_STUDY_FILE is set"):
        await make_app(transport)  # running without the file is a change too
    app = await make_app(transport, start=False, **with_study(changed))
    await app.start(background=False, allow_protocol_change=True)
    history = await app.db.run(protocol_history)
    assert [(v.hash, v.previous_hash) for v in history] == [(first_hash, None), (app.settings.study.hash, first_hash)]
    assert "allowed change" in history[-1].adopted_by and "length_days = 35" in history[-1].contents


async def test_the_admin_script_refuses_a_changed_protocol(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    changed = with_study(TWO_ARMS.replace("ratio = 2", "ratio = 1"))
    from promptpipe.config import load_settings

    other = load_settings({**{k: v for k, v in app.settings.extra.items()}, **changed}, env_file=None)
    with pytest.raises(ConfigError, match="this database runs the study 'Walking pilot'"):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=PHONES[0], name="Ana", timezone="America/Toronto",
                           study=other.study, strata={"site": "toronto"}))
    assert await admin.list_participants(app.db) == []


async def test_enrollment_allocates_by_stratum_in_the_designed_ratio(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    study = app.settings.study
    arms: dict[str, list[str]] = {"toronto": [], "montreal": []}
    for n, phone in enumerate(PHONES[:24]):
        site = "toronto" if n % 2 else "montreal"
        row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=f"P{n}",
                                                                    timezone="America/Toronto",
                                 study=study, strata={"site": site}))
        arms[site].append(row.arm)
    for site_arms in arms.values():  # two full blocks of six per site: exactly 2:1
        assert (site_arms.count("coach"), site_arms.count("fixed")) == (8, 4)
    counts = await admin.allocation_counts(app.db, study)
    assert counts.arms == {"coach": 16, "fixed": 8}
    assert counts.strata == {"site=montreal": {"coach": 8, "fixed": 4}, "site=toronto": {"coach": 8, "fixed": 4}}
    shown = await admin.show(app.db, PHONES[0])
    assert shown.arm in ("coach", "fixed") and shown.strata == {"site": "montreal"}


@pytest.mark.parametrize(("strata", "message"), [
    ({}, "this study stratifies by site"),
    ({"site": "ottawa"}, "one of toronto, montreal"),
    ({"site": "toronto", "age": "40"}, "--stratum age"),
])
async def test_enrollment_needs_the_study_s_stratum_fields(
    strata: dict[str, str], message: str, make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app = await make_app(**with_study(TWO_ARMS))
    with pytest.raises(AdminError, match=message):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=PHONES[0], name="Ana", timezone="America/Toronto",
                           study=app.settings.study, strata=strata))
    assert await admin.list_participants(app.db) == []


async def test_the_allocation_command_shows_counts_never_the_sequence(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(TWO_ARMS))
    await enroll_by_script(capsys, PHONES[:3])
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation", "--json")
    data = json.loads(out)
    assert sum(data["arms"].values()) == 3 and data["ratios"] == {"coach": 2, "fixed": 1}
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "allocation")
    assert "site=toronto" in out and "2/3" in out
    code, _, err = await asyncio.to_thread(run_admin, capsys, "enroll", "--phone", PHONES[5], "--name", "X",
                                           "--timezone", "UTC", "--stratum", "site")
    assert code == 1 and "FIELD=VALUE" in err


async def test_the_secret_seed_is_never_shown(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(TWO_ARMS))
    await asyncio.to_thread(run_admin, capsys, "enroll", "--phone", PHONES[0], "--name", "Ana",
                            "--timezone", "America/Toronto", "--stratum", "site=montreal")
    app = await make_app(**with_study(TWO_ARMS))
    seed = (await app.db.run(lambda s: study_seed(s, None, app.settings.study.outside_seed))).hex()
    printed = ""
    for command in (["allocation", "--json"], ["show", "--phone", PHONES[0], "--json"], ["list", "--json"]):
        printed += (await asyncio.to_thread(run_admin, capsys, *command))[1]
    assert seed not in printed and seed[:16] not in printed


async def test_report_and_extend_from_the_command_line(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    enroll = ["enroll", "--phone", PHONES[0], "--name", "Ana", "--timezone", "America/Toronto"]
    assert (await asyncio.to_thread(run_admin, capsys, *enroll))[0] == 0
    code, _, err = await asyncio.to_thread(run_admin, capsys, "extend", "--phone", PHONES[0], "--days", "3")
    assert code == 1 and "needs a study file with length_days" in err
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(TWO_ARMS))
    code, _, err = await asyncio.to_thread(run_admin, capsys, "report")
    assert code == 1 and "enrolled without a study file" in err and "--allow-protocol-change" in err


async def test_report_shows_the_study_at_a_glance(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PROMPTPIPE_STUDY_FILE", study_file(TWO_ARMS))
    enroll = ["enroll", "--phone", PHONES[0], "--name", "Ana", "--timezone", "America/Toronto",
              "--stratum", "site=toronto"]
    assert (await asyncio.to_thread(run_admin, capsys, *enroll))[0] == 0
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "report")
    assert code == 0 and "Walking pilot" in out
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "report", "--json")
    assert code == 0 and sum(json.loads(out)["participants"]["by_arm"].values()) == 1
    code, out, _ = await asyncio.to_thread(run_admin, capsys, "extend", "--phone", PHONES[0], "--days", "3")
    assert code == 0 and "extended by 3 days" in out and "not set yet" in out
