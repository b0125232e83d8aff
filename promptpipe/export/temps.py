"""The export's own hidden temporary files in its target directory, and clean-up after a kill (it skips ``finally``)."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

__all__ = ["remove_stale_temps", "temp_name"]

_TEMP = re.compile(r"\.[\w.-]+\.[0-9a-f]{8}\.tmp")


def temp_name(out: Path, file_name: str) -> Path:
    return out / f".{file_name}.{secrets.token_hex(4)}.tmp"


def remove_stale_temps(out: Path) -> int:
    """Remove the partial files a killed export left in ``out`` (only names of our own form); returns how many."""
    removed = 0
    if out.is_dir():
        for path in out.iterdir():
            if _TEMP.fullmatch(path.name) and path.is_file():
                path.unlink(missing_ok=True)
                removed += 1
    return removed
