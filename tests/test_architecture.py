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
    # JSON that is open by nature: a tool's JSON schema, stored JSON columns and the payloads
    # serialised into them, a study file as parsed TOML, what comes from outside before it is checked.
    "tools/base.py": "a tool's JSON schema",
    "domain/conversation.py": "a timer's payload (a JSON column)",
    "domain/profile.py": "the habit profile (a JSON column the model fills)",
    "study/rules/checks.py": "a study file as parsed TOML (TomlTable, which the study file's readers take)",
    "study/rules/summary.py": "the protocol as run, written to study.json",
    "pipeline/spool.py": "a spooled message as read back from disk",
    "flow/turn.py": "an outgoing message's payload (a JSON column)",
    "flow/team_changes.py": "a team change's outcome as read back from the inbox row's JSON",
    "scheduling/reconcile.py": "an APScheduler job's keyword arguments",
    "transport/connection_state.py": "the connection state as read back from its JSON column",
    "transport/_cloud_payloads.py": "the WhatsApp Cloud API's webhook notifications",
    "transport/_cloud_states.py": "the WhatsApp Cloud API's answers about a number (its status or an error)",
    "transport/_cloud_webhook.py": "an ASGI scope and messages (the webhook's HTTP surface)",
    "research/views.py": "an input's payload (a JSON column)",
    "storage/models.py": "JSON columns",
    "storage/queue_tables.py": "JSON columns",
    "storage/access.py": "an audit entry's detail (a JSON column)",
    "storage/access_tables.py": "an audit entry's detail (a JSON column)",
    "storage/deliveries.py": "a poll message's payload (a JSON column)",
    "storage/inbox_rows.py": "an input's payload (a JSON column)",
    "storage/outbox_rows.py": "an outgoing message's payload (a JSON column)",
    "storage/transcript.py": "a message's payload (a JSON column)",
    "storage/service_status.py": "a status row's value (a JSON column)",
    "storage/migrations/versions/0002_consent_reconstructed.py": "rows written by a migration",
    "config/load.py": "values read from the environment before they are parsed",
    "evaluation/records.py": "a persona as written in its file (shown in the report)",
    "evaluation/personas.py": "a personas file as parsed TOML",
    "evaluation/model_json.py": "a model's JSON answer before it is checked",
    "web/api.py": "the OpenAPI description of error responses",
    "web/errors.py": "the OpenAPI document (a 405 names the methods it lists for the path)",
    "web/schemas.py": "strata and counters inside a participant's details (open objects in the OpenAPI document)",
    "web/schemas_study.py": "the status response's JSON columns (open objects in the OpenAPI document)",
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


MAX_OPEN_DICTS = 60
"""How many times the package may write ``dict[str, Any]``: data whose shape is known gets a type."""


def test_open_dictionaries_stay_few() -> None:
    """Each ``dict[str, Any]`` is a place where the type checker sees nothing; where the shape is
    known (a message for the model, a JSON column's document we write) it has a TypedDict."""
    package = ROOT / "promptpipe"
    where = [f"{path.relative_to(ROOT).as_posix()}:{number}" for path in sorted(package.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for _ in range(line.count("dict[str, Any]"))]
    assert len(where) <= MAX_OPEN_DICTS, f"{len(where)} dict[str, Any] (at most {MAX_OPEN_DICTS}):\n" + "\n".join(where)
