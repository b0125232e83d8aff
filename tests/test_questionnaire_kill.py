"""The questionnaire drill (recovery/questionnaire_drill.py): the real service, SIGKILLed four
times while eight participants answer a six-item questionnaire (polls and typed replies), asks
every item exactly once, records every answer exactly once with the value sent, skips nothing and
completes every instance, on SQLite and on PostgreSQL (about 45 s each)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD_S = 1800
"""Only a hung drill is stopped: the drill itself judges by what arrived, however slow the machine."""
PARTICIPANTS, ITEMS, KILLS = 8, 6, 4


@pytest.mark.long
def test_sigkill_mid_questionnaire_loses_and_repeats_nothing(database_url: str, tmp_path: Path) -> None:
    figures_file = tmp_path / "figures.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "recovery" / "questionnaire_drill.py"), "--participants", str(PARTICIPANTS),
         "--kills", str(KILLS), "--seed", "11", "--database-url", database_url, "--report", str(figures_file)],
        capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=ROOT,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    figures = json.loads(figures_file.read_text(encoding="utf-8"))
    every = PARTICIPANTS * ITEMS
    assert figures["items asked"] == {"expected": every, "delivered": every, "lost": 0, "repeated": 0}, report
    assert figures["answers recorded"] == {"expected": every, "recorded": every, "lost": 0, "repeated": 0}, report
    assert figures["wrong values"] == [], report  # each answer as the participant tapped or typed it
    framing = 2 * PARTICIPANTS  # the intro and the closing line, once each
    assert figures["intros and closings"] == {"expected": framing, "delivered": framing, "lost": 0,
                                              "repeated": 0}, report
    assert figures["other messages"] == 0, report  # no re-ask, no coach reply, no apology
    assert figures["transcripts not as sent"] == [], report  # the transcript holds what the phones got
    assert figures["instances"] == {"completed": PARTICIPANTS}, report
    assert figures["instances with an item under way"] == 0, report
    assert figures["database"] == {"inbox missed": 0, "inbox still pending": 0, "inbox failed": 0,
                                   "outbox not sent": 0}, report
    assert len(figures["kills"]) == KILLS and figures["service starts"] == KILLS + 1, report
