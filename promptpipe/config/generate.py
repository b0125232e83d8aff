"""Files made from the settings' declarations (``.env.example``, the README's table, ``promptpipe check``'s list);
``tests/test_settings_declared.py`` fails while they differ. Regenerate after declaring a setting::

    python -m promptpipe.config.generate --env-example > .env.example
    python -m promptpipe.config.generate --readme-table   # paste over the README's table
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from promptpipe.config import Settings
from promptpipe.config.declared import SECTIONS, as_written, declarations
from promptpipe.domain.text import mask_credentials

__all__ = ["env_example", "readme_table", "variables", "what_differs"]

ENV_EXAMPLE_HEADER = """\
# PromptPipe settings. Copy to .env and edit; variables set in the environment win over this file.
# Made from the declarations in promptpipe/config (python -m promptpipe.config.generate --env-example).
# Durations accept 90s, 15m, 5h, 1h30m (or a number of seconds). On/off accepts on/off, true/false, yes/no, 1/0.
"""


def variables() -> tuple[str, ...]:
    """Every environment variable a setting reads."""
    return tuple(spec.env for _, spec in declarations(Settings))


def env_example() -> str:
    lines = [ENV_EXAMPLE_HEADER.rstrip("\n")]
    for section, heading in SECTIONS.items():
        specs = [spec for _, spec in declarations(Settings) if spec.section == section]
        if not specs:
            continue
        lines += ["", f"# --- {heading} ---"]
        for spec in specs:
            lines += textwrap.wrap(spec.meaning, width=110, initial_indent="# ", subsequent_indent="# ")
            lines.append(f"{spec.env}={spec.example}")
    return "\n".join(lines) + "\n"


def readme_table() -> str:
    rows = ["| Variable | Default | Meaning |", "|---|---|---|"]
    rows += [f"| `{spec.env}` | {spec.shown_default} | {spec.meaning.replace('|', '/')} |"
             for _, spec in declarations(Settings) if spec.readme]
    return "\n".join(rows) + "\n"


def what_differs(settings: Settings) -> list[str]:
    """``NAME=value`` for each setting not at its default (secrets as "set", URL credentials masked)."""
    defaults = Settings()
    found = []
    for name, spec in declarations(Settings):
        value: Any = getattr(settings, name)
        derived = name == "database_url" or name.endswith("_prompt_file")  # unset: made from other settings
        if value == getattr(defaults, name) or (derived and not settings.extra.get(spec.env)):
            continue
        shown = "set" if spec.secret else mask_credentials(as_written(value))
        found.append(f"{spec.env}={shown}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="files made from the settings' declarations")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--env-example", action="store_true")
    which.add_argument("--readme-table", action="store_true")
    args = parser.parse_args(argv)
    sys.stdout.write(env_example() if args.env_example else readme_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
