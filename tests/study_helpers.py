"""Study files for tests: a short study, written once per text and reused."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

SHORT_STUDY = """
name = "Two-day pilot"
length_days = 2
day_one = "after_intake"
"""
"""Two study days after intake, no quiet hours, one arm, no randomisation."""


def study_file(text: str = SHORT_STUDY) -> str:
    """The path of a study file with this text (content-addressed in the temp directory)."""
    folder = Path(tempfile.gettempdir()) / "promptpipe-test-studies"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.toml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return str(path)


def with_study(text: str = SHORT_STUDY, **settings: str) -> dict[str, str]:
    """Settings that run the app with this study file."""
    return {"PROMPTPIPE_STUDY_FILE": study_file(text), **settings}
