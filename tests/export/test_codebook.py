"""The export's codebook: every column of every file the export writes is described (type,
values, meaning, source) in ``codebook.csv`` and, file by file, in ``README.md``. The data comes
from the running service: two participants of a randomised study, their daily decision points,
prompts, a vote and a reply."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from promptpipe.app import App
from promptpipe.export.codebook import codebook_rows
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.export.rows import FILE_NAMES
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, PROFILE, QUIET, at, phone_marker, utc
from tests.study_helpers import with_study

STUDY = """
name = "Codebook pilot"
length_days = 3
day_one = "after_enrollment"
fixed_prompts = ["Take a short walk after dinner."]

[[arms]]
name = "coach"

[[arms]]
name = "fixed_text"
prompt_style = "fixed"

[allocation]
block_size = 2

[allocation.strata]
site = ["toronto", "montreal"]

[decision]
p = 0.5
"""
ANA, RAVI = "+14165550110", "+14165550111"
TYPES = {"string", "integer", "number", "boolean", "datetime", "date", "json"}
DATA_FILES = [*FILE_NAMES, "identifiers"]


async def two_enrolled(make_app: AppFactory, fake: FakeOpenAIServer, study: str) -> App:
    """Ana and Ravi enrolled in ``study`` (Toronto, two sites), each with a daily 08:00 prompt."""
    app = await make_app(MemoryTransport(), **with_study(study, **QUIET))
    fake.always(NUDGE, match="scheduled daily nudge")
    for phone, name, site in ((ANA, "Ana", "toronto"), (RAVI, "Ravi", "montreal")):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="America/Toronto",
                           study=app.settings.study, strata={"site": site}))
        fake.call_tool("save_user_profile", PROFILE, match=phone_marker(name))
        fake.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"},
                       match=phone_marker(name))
        fake.say(f"Welcome {name}!", match=phone_marker(name))
        await app.run_until_idle()
    return app


async def run_study(make_app: AppFactory, fake: FakeOpenAIServer) -> App:
    """Two participants through four daily prompt times (the first before day one), a prompt
    sent by hand, a vote on it and a written reply."""
    app = await two_enrolled(make_app, fake, STUDY)
    for day in range(5, 9):
        await at(app, utc(2026, 1, day, 12, 50))
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()
    await admin.simulate_vote(app.db, app.clock, phone=ANA, option="Done")
    fake.say("Thanks for telling me!", match="it was a lovely walk")
    await admin.simulate(app.db, app.clock, phone=ANA, text="it was a lovely walk")
    await app.run_until_idle()
    return app


def read_codebook(out: Path) -> list[dict[str, str]]:
    with (out / "codebook.csv").open(encoding="utf-8", newline="") as stream:
        reader = csv.DictReader(stream)
        assert reader.fieldnames == ["file", "column", "type", "values", "meaning", "source"]
        return list(reader)


def exported_columns(out: Path, fmt: str) -> dict[str, list[str]]:
    """Each file's columns as written: the CSV header, or the keys of every JSONL line (a JSONL
    file without rows shows none; its CSV header is compared instead)."""
    columns: dict[str, list[str]] = {}
    for name in DATA_FILES:
        path = out / f"{name}.{fmt}"
        if fmt == "csv":
            with path.open(encoding="utf-8", newline="") as stream:
                columns[name] = next(csv.reader(stream))
        else:
            lines = [list(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
            assert all(keys == lines[0] for keys in lines), path.name
            if lines:
                columns[name] = lines[0]
    columns["study.json"] = list(json.loads((out / "study.json").read_text(encoding="utf-8")))
    with (out / "questionnaire_items.csv").open(encoding="utf-8", newline="") as stream:
        columns["questionnaire_items.csv"] = next(csv.reader(stream))
    return columns


async def test_every_exported_column_is_in_the_codebook(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    app = await run_study(make_app, fake_openai)
    for fmt in ("csv", "jsonl"):
        out = tmp_path / fmt
        result = await export_study(app.db, out, ExportOptions(fmt=fmt, include_identifiers=True, now=app.clock.now(),
                                    model=app.settings.genai_model, system_prompts={"intake": "x"}))
        assert result.rows["decisions"] == 8 and result.rows["participants"] == 2
        described: dict[str, list[str]] = {}
        for row in read_codebook(out):
            described.setdefault(row["file"], []).append(row["column"])
            assert row["type"] in TYPES, row
            assert row["values"] and row["meaning"] and row["source"], row
        exported = exported_columns(out, fmt)
        for name, columns in exported.items():
            missing = [column for column in columns if column not in described.get(name, [])]
            assert not missing, f"{name}.{fmt}: columns missing from the codebook: {missing}"
            assert described[name] == columns, f"{name}: the codebook describes columns the file does not have"
        assert set(described) >= set(exported)
        if fmt == "csv":
            assert set(described) == set(exported)
        assert "stratum_site" in exported["participants"]
    # A column nobody described is left out of the codebook (so the comparison above fails for it).
    assert [row["column"] for row in codebook_rows({"decisions": ["vote", "brand_new_column"]})] == ["vote"]


async def test_readme_explains_every_file_and_column(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    app = await run_study(make_app, fake_openai)
    out = tmp_path / "out"
    await export_study(app.db, out, ExportOptions(now=app.clock.now()))
    readme = (out / "README.md").read_text(encoding="utf-8")
    for name in DATA_FILES:  # the key file is described even when it was not written
        assert f"## {name} (`{name}.csv` or `{name}.jsonl`)" in readme
    assert "## study.json" in readme
    for row in read_codebook(out):
        assert f"| `{row['column']}` | {row['type']} |" in readme, row
    for words in ("## Pseudonyms", "[phone]", "--include-identifiers", "## Decisions and deliveries", "delivery_id",
                  "prompt_sent", "seed_ref"):
        assert words in readme
    decisions = [row for row in read_codebook(out) if row["file"] == "decisions"]
    assert {row["column"]: row["type"] for row in decisions}["available"] == "boolean"
    assert {row["column"]: row["values"] for row in decisions}["action_treatment"].startswith("1, 0")


REASONS_STUDY = STUDY + ('\n[self_report]\ntime = "20:00"\nwindow = "2h"\n\n'
                         '[[questionnaires]]\nid = "exit"\ntitle = "exit"\nsend = { event = "study_end" }\n'
                         'open_for = "2d"\n\n[[questionnaires.items]]\nid = "again"\n'
                         'text = "Would you take part again?"\ntype = "yes_no"\n')


def code_list(codebook: list[dict[str, str]], file: str, column: str) -> set[str]:
    """The codes the codebook lists for a column (its values, up to the first "; ")."""
    values = next(row["values"] for row in codebook if (row["file"], row["column"]) == (file, column))
    return set(values.split("; ")[0].split(", "))


async def test_every_reason_a_questionnaire_ended_or_was_not_asked_is_a_code_of_the_codebook(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Ana answers nothing and is withdrawn on day 2; Ravi is paused on day 1 and resumed on day 3: the
    instances' reasons (self-report days unanswered, stopped, not sent; Ana's exit questionnaire) and the decisions'
    self_report_reason are each one of the codes the codebook lists, not sentences."""
    app = await two_enrolled(make_app, fake_openai, REASONS_STUDY)
    await admin.set_status(app.db, app.clock, phone=RAVI, action="pause", by="test")
    for day in range(5, 10):
        for moment in (utc(2026, 1, day, 12, 50), utc(2026, 1, day + 1, 1, 30), utc(2026, 1, day + 1, 3, 30)):
            await at(app, moment)  # after the prompt at 08:00, the question at 20:00 and its window's end, in Toronto
        if day == 6:
            await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="test")
        if day == 7:
            await admin.set_status(app.db, app.clock, phone=RAVI, action="resume", by="test")
    out = tmp_path / "out"
    await export_study(app.db, out, ExportOptions(now=app.clock.now()))
    codebook = read_codebook(out)
    with (out / "questionnaire_instances.csv").open(encoding="utf-8", newline="") as stream:
        instances = list(csv.DictReader(stream))
    with (out / "decisions.csv").open(encoding="utf-8", newline="") as stream:
        decisions = list(csv.DictReader(stream))
    reasons = {row["reason"] for row in instances} - {""}
    assert {"withdrawn", "paused", "window_closed"} <= reasons, reasons
    assert reasons <= code_list(codebook, "questionnaire_instances", "reason")
    self_report = {row["self_report_reason"] for row in decisions} - {""}
    assert self_report and self_report <= code_list(codebook, "decisions", "self_report_reason"), self_report
