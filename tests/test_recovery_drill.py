"""The short recovery drill: the real service, SIGKILLed during a prompt burst, loses and
duplicates nothing; and so do three services sharing a PostgreSQL database, any of them killed
(each about 40-60 s: the services' clock runs ahead so that the prompts, due at a whole minute
of it, come --lead seconds after the start; recovery/drill.py runs longer versions)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HANG_GUARD_S = 1800
"""Only a hung drill is stopped: the drill itself judges by what arrived, however slow the machine."""


def _table(stdout: str) -> dict[str, list[str]]:
    """The drill's table: expected, delivered, lost, duplicated of prompts and reminders."""
    return {line.split()[0]: line.split()[-4:] for line in stdout.splitlines()
            if line.startswith(("prompts", "reminders"))}


@pytest.mark.long
def test_sigkill_drill_loses_and_duplicates_nothing() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "recovery" / "drill.py"), "--participants", "12", "--kills", "4",
         "--reminder-delay", "15", "--lead", "10", "--seed", "7", "--clock-ahead"],
        capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=ROOT,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    rows = _table(result.stdout)
    assert rows["prompts"] == ["12", "12", "0", "0"], report  # expected, delivered, lost, duplicated
    assert rows["reminders"] == ["12", "12", "0", "0"], report
    assert report.count("SIGKILL at") == 4
    # each prompt time is one decision point, drawn once, and the prompt sent is the one drawn
    assert "12 rows for 12 prompt times; more than one row: 0; none: 0; prompt not the one drawn: 0" in report


@pytest.mark.long
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_sigkills_among_three_services_lose_and_duplicate_nothing(database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "recovery" / "drill.py"), "--processes", "3", "--database-url", database_url,
         "--participants", "12", "--kills", "4", "--reminder-delay", "10", "--lead", "12", "--seed", "5",
         "--clock-ahead"],
        capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=ROOT,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report  # also 1 if a dead service's number or alarm clock was never taken over
    rows = _table(result.stdout)
    assert rows["prompts"] == ["12", "12", "0", "0"], report  # spread over 3 numbers, 3 services
    assert rows["reminders"] == ["12", "12", "0", "0"], report
    assert report.count("SIGKILL service") == 4
    assert "12 rows for 12 prompt times; more than one row: 0; none: 0; prompt not the one drawn: 0" in report
    assert "takeover (LEASE_TTL 4s, LEASE_HEARTBEAT 1s" in report and "never taken over" not in report


def test_a_drill_waits_for_prompts_a_slow_restart_held_up_and_ends_when_nothing_more_comes() -> None:
    """The drill judges by what arrives, not by the wall clock: prompts held up 105 s by a slow
    restart, then their reminders, are all waited for; after the last message it waits only the
    quiet time; and it never waits past its cap."""
    from recovery.services import Patience

    due = 1_000_000.0
    patience = Patience(quiet_s=115, since=due, cap=due + 600)
    assert patience.waiting(0, due + 105)  # nothing yet: a restart is still holding the prompts
    assert patience.waiting(12, due + 106)  # the prompts came
    assert patience.waiting(12, due + 200)  # their reminders are due 15 s later, a slow machine takes longer
    assert patience.waiting(24, due + 210)
    assert not patience.waiting(24, due + 210 + 115)  # nothing more for the quiet time: done (a loss shows)
    trickle = Patience(quiet_s=115, since=due, cap=due + 600)
    assert not all(trickle.waiting(n, due + 10 * n) for n in range(1, 70))  # the cap ends an endless trickle
