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
        if match:
            documented.append(" | ".join(re.findall(r"`(promptpipe[\w.]*)`", match.group(1))))
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
