"""The short recovery drill: the real service, SIGKILLed during a prompt burst, loses and
duplicates nothing (about a minute and a half; recovery/drill.py runs longer versions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.long
def test_sigkill_drill_loses_and_duplicates_nothing() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "recovery" / "drill.py"), "--participants", "12", "--kills", "4",
         "--reminder-delay", "15", "--lead", "10", "--seed", "7"],
        capture_output=True, text=True, timeout=400, cwd=ROOT,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    rows = {line.split()[0]: line.split()[-4:] for line in result.stdout.splitlines()
            if line.startswith(("prompts", "reminders"))}
    assert rows["prompts"] == ["12", "12", "0", "0"], report  # expected, delivered, lost, duplicated
    assert rows["reminders"] == ["12", "12", "0", "0"], report
    assert report.count("SIGKILL at") == 4
    # each prompt time is one decision point, drawn once, and the prompt sent is the one drawn
    assert "12 rows for 12 prompt times; more than one row: 0; none: 0; prompt not the one drawn: 0" in report
