"""Each setting is declared once, on its Settings field: the parsing, .env.example, the README's
table and `promptpipe check` all come from that declaration, and this fails when they differ."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

from promptpipe.config import Settings, load_settings
from promptpipe.config.declared import declared
from promptpipe.config.generate import env_example, readme_table, variables, what_differs

ROOT = Path(__file__).resolve().parents[1]
UNDECLARED = {"study", "extra"}
"""Settings fields that are derived from others, not read from a variable."""


def test_every_field_is_declared_once_and_every_variable_read_once() -> None:
    fields = {spec_field.name for spec_field in dataclasses.fields(Settings) if declared(spec_field) is None}
    assert fields == UNDECLARED
    assert [name for name, count in Counter(variables()).items() if count > 1] == []


def test_env_example_is_the_one_the_declarations_make() -> None:
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == env_example(), (
        "regenerate it: python -m promptpipe.config.generate --env-example > .env.example")


def test_the_readme_table_is_the_one_the_declarations_make() -> None:
    assert readme_table() in (ROOT / "README.md").read_text(encoding="utf-8"), (
        "regenerate it: python -m promptpipe.config.generate --readme-table")


def test_every_variable_of_env_example_is_read_with_its_example_value(tmp_path: Path) -> None:
    """Every line of .env.example, loaded as it stands, parses to the declared default."""
    env = {}
    for line in env_example().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    loaded = load_settings(env, env_file=None)
    defaults = load_settings({}, env_file=None)
    assert {name: getattr(loaded, name) for name in _declared_names()} == {
        name: getattr(defaults, name) for name in _declared_names()}


def test_check_lists_what_differs_from_the_defaults_and_hides_secrets() -> None:
    seed = "ab" * 32
    settings = load_settings({"OPENAI_API_KEY": "sk-secret", "LLM_TIMEOUT": "90s", "PROMPTPIPE_STUDY_SEED": seed,
                              "DATABASE_URL": "postgresql://ana:pw@db.example.org/study"}, env_file=None)
    shown = what_differs(settings)
    assert "OPENAI_API_KEY=set" in shown and "PROMPTPIPE_STUDY_SEED=set" in shown
    assert "LLM_TIMEOUT=90s" in shown and "DATABASE_URL=postgresql://ana:***@db.example.org/study" in shown
    assert not any("sk-secret" in line or seed in line or ":pw@" in line for line in shown)
    assert what_differs(load_settings({}, env_file=None)) == []


def _declared_names() -> list[str]:
    return [spec_field.name for spec_field in dataclasses.fields(Settings) if declared(spec_field) is not None]
