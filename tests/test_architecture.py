"""docs/ARCHITECTURE.md stays true where a machine can tell: its layers are the import contract CI
enforces, every module it names exists, and every table has a row saying who writes it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from sqlmodel import SQLModel

from promptpipe.storage import db  # noqa: F401  (registers the tables)

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = DOC.index(f"## {title}")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end != -1 else None]


def test_the_layers_are_the_import_contract() -> None:
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [layers] = [c["layers"] for c in contract["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    documented = []
    for line in _section("Layers and what each may import").splitlines():
        match = re.match(r"\| \d+ \| (.+?) \|", line)
        if match:  # joined by + : siblings that may import each other (":" in the contract)
            siblings = " : " if "` + `" in match.group(1) else " | "
            documented.append(siblings.join(re.findall(r"`(promptpipe[\w.]*)`", match.group(1))))
    assert documented == layers


def test_every_module_the_page_names_exists() -> None:
    named = set(re.findall(r"`((?:[a-z_]+/)+[a-z_]+\.py)", DOC))
    missing = [path for path in sorted(named) if not (ROOT / "promptpipe" / path).exists()
               and not (ROOT / path).exists()]
    assert named and missing == []


def test_every_table_says_who_writes_it() -> None:
    rows = _section("Who writes each table")
    documented = set(re.findall(r"^\| ((?:`\w+`(?:, )?)+) \|", rows, re.MULTILINE))
    tables = {name for cell in documented for name in re.findall(r"`(\w+)`", cell)}
    ours = {table.name for table in SQLModel.metadata.sorted_tables}
    assert tables == ours | {"alembic_version", "apscheduler_jobs"}


OPEN_DATA = {
    # JSON that is open by nature: the model's tool calls and messages, stored JSON columns and
    # the payloads serialised into them, a study file as parsed TOML, rows of an export file.
    "agents/agent.py": "messages for the model",
    "agents/toolloop.py": "messages for the model and tool-call arguments",
    "llm.py": "messages and tool schemas for the model",
    "tools/base.py": "a tool's JSON schema",
    "domain/conversation.py": "the profile, tone and timer payloads (JSON columns)",
    "domain/profile.py": "the habit profile (a JSON column the model fills)",
    "domain/outcomes.py": "the profile's counters (kept in its JSON column)",
    "domain/tone.py": "the tone (a JSON column)",
    "study/rules/checks.py": "a study file as parsed TOML (TomlTable, which the study file's readers take)",
    "questionnaires/rules/definition.py": "the questionnaire under way (a JSON column)",
    "study/rules/summary.py": "the protocol as run, written to study.json",
    "pipeline/spool.py": "a spooled message (a JSON line on disk)",
    "flow/turn.py": "an outgoing message's payload and a log line's fields",
    "flow/team_changes.py": "a team change's outcome (the inbox row's JSON)",
    "scheduling/trigger.py": "APScheduler's pickled trigger state",
    "scheduling/reconcile.py": "an APScheduler job's keyword arguments",
    "transport/connection_state.py": "the connection state (a JSON column)",
    "transport/_cloud_payloads.py": "the WhatsApp Cloud API's webhook notifications",
    "transport/_cloud_states.py": "the WhatsApp Cloud API's answers about a number (its status or an error)",
    "transport/_cloud_webhook.py": "an ASGI scope and messages (the webhook's HTTP surface)",
    "export/allocation.py": "rows of an export file",
    "research/reports.py": "the profile's JSON fields shown by `show`",
    "research/views.py": "the profile's counters and an input's payload (JSON columns)",
    "storage/models.py": "JSON columns",
    "storage/queue_tables.py": "JSON columns",
    "storage/access.py": "an audit entry's detail (a JSON column)",
    "storage/access_tables.py": "an audit entry's detail (a JSON column)",
    "storage/deliveries.py": "the profile's counters; a poll message's payload (a JSON column)",
    "storage/inbox_rows.py": "an input's payload (a JSON column)",
    "storage/outbox_rows.py": "an outgoing message's payload (a JSON column)",
    "storage/transcript.py": "a message's payload (a JSON column)",
    "storage/service_status.py": "a status row's value (a JSON column)",
    "storage/migrations/versions/0002_consent_reconstructed.py": "rows written by a migration",
    "config/load.py": "values read from the environment before they are parsed",
    "evaluation/records.py": "a persona as written in its file (shown in the report)",
    "evaluation/personas.py": "a personas file as parsed TOML",
    "evaluation/recording.py": "messages, tool schemas and tool-call arguments of the model",
    "evaluation/model_json.py": "a model's JSON answer before it is checked",
    "evaluation/setup_coach.py": "messages and tool-call arguments of the model",
    "logging.py": "structlog's event dictionary",
    "web/api.py": "the OpenAPI description of error responses",
    "web/errors.py": "the OpenAPI document (a 405 names the methods it lists for the path)",
    "web/schemas.py": "strata and counters inside a participant's details (open objects in the OpenAPI document)",
    "web/schemas_study.py": "the status response's JSON columns (open objects in the OpenAPI document)",
    "web/pages/flags.py": "a template's context",
    "web/pages/participants.py": "a template's context",
}


def test_data_crossing_a_module_boundary_has_a_type() -> None:
    """``dict[str, Any]`` only where the data is open by nature (listed above, with why): what the
    research operations, the API and the pipeline hand each other is a dataclass or a model. A
    new module that needs an open dictionary is added here with its reason."""
    package = ROOT / "promptpipe"
    found = {path.relative_to(package).as_posix() for path in package.rglob("*.py")
             if "dict[str, Any]" in path.read_text(encoding="utf-8")}
    assert sorted(found - set(OPEN_DATA)) == []
    assert sorted(set(OPEN_DATA) - found) == [], "typed since: take it off the list"
