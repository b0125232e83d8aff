"""``promptpipe serve`` as the drills run it: its environment, started as a child process, killed or
stopped, and the journal of what its dry-run transport sent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


def read_journal(journal: Path) -> list[dict[str, Any]]:
    if not journal.exists():
        return []
    entries = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:  # a line cut short by SIGKILL was never acknowledged as sent
            continue
    return entries


SERVICE = [sys.executable, "-m", "promptpipe.cli", "serve"]
SERVICE_AHEAD = [sys.executable, "-m", "recovery.ahead", "serve"]
"""The same service with its clock ahead by ``DRILL_CLOCK_AHEAD_S`` (recovery/ahead.py)."""


def service_env(model_url: str, database_url: str, workdir: Path, journal: Path, study_file: Path,
                **settings: str) -> dict[str, str]:
    """The environment ``promptpipe serve`` runs with in a drill: dry-run with the journal, the
    fake model, JSON logs, no API, no pacing; ``settings`` add to it or override it."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PROMPTPIPE_", "DATABASE_URL"))},
        "OPENAI_API_KEY": "drill", "OPENAI_BASE_URL": model_url, "LLM_MAX_RETRIES": "0", "LLM_TIMEOUT": "10s",
        "DATABASE_URL": database_url, "PROMPTPIPE_STATE_DIR": str(workdir / "state"),
        "PROMPTPIPE_TRANSPORT": "dry-run", "PROMPTPIPE_DRYRUN_JOURNAL": str(journal), "LOG_FORMAT": "json",
        "PROMPTPIPE_STUDY_FILE": str(study_file), "API_LISTEN": "",
        "SEND_RATE_PER_SECOND": "0", "POLL_INTERVAL": "0.2s", **settings,
    }


def start_service(env: dict[str, str], log: IO[bytes]) -> subprocess.Popen[bytes]:
    """``promptpipe serve`` as a child process, its output appended to ``log`` (its clock ahead
    when ``env`` sets ``DRILL_CLOCK_AHEAD_S``)."""
    command = SERVICE_AHEAD if "DRILL_CLOCK_AHEAD_S" in env else SERVICE
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def kill(service: subprocess.Popen[bytes]) -> None:
    """SIGKILL: no handler runs, nothing is flushed or closed."""
    service.send_signal(signal.SIGKILL)
    service.wait()


def stop(service: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as an operator stops it (SIGKILL if it has not ended within 30 s)."""
    service.send_signal(signal.SIGTERM)
    try:
        service.wait(timeout=30)
    except subprocess.TimeoutExpired:
        service.kill()


def since_due(due: datetime) -> str:
    """Now as an offset from the prompts' time: ``due-3.0s``, ``due+12.4s``."""
    offset = (datetime.now(timezone.utc) - due).total_seconds()
    return f"due{'+' if offset >= 0 else '-'}{abs(offset):.1f}s"


@dataclass
class Patience:
    """How long a drill waits for what is still missing, judged by what happens, not by the wall
    clock: as long as messages keep arriving, and ``quiet_s`` after the last one (or after the
    prompts' due time, before any came), since a restart may hold every prompt up for minutes and
    a reminder follows its prompt only later. ``cap`` (a Unix time) ends a drill that never settles."""

    quiet_s: float
    since: float
    """When the last message arrived (at first: when the prompts were due)."""
    cap: float
    seen: int = 0

    def waiting(self, count: int, now: float) -> bool:
        """Whether to wait on, now (a Unix time) that ``count`` messages are in."""
        if count > self.seen:
            self.seen, self.since = count, max(now, self.since)
        return now < self.cap and now - self.since < self.quiet_s
