"""Make the database of an earlier release with that release's own code, for the upgrade tests.

    .venv/bin/python -m tests.upgrades.make_release_fixture COMMIT NAME

The release's tree is taken from this repository's history (``git archive``) into a scratch
directory and run from there with this virtual environment, under libfaketime (Debian's package
``faketime``) so that its clock starts two and a half minutes before a participant's midnight
(:data:`START`). Its admin script enrolls five people; its ``serve`` (dry-run, against a scripted
model) greets them, takes Ana through intake to a daily schedule just after midnight (in a study
that draws a decision at each prompt, where the release knows studies), and handles what the
others and the team do (see :data:`SCENARIO`); the first daily prompt goes out, leaving its
reminder and hand-over timers pending, and a token is made where the release has tokens. What the
release cannot do yet is left out.

The database is dumped twice, once made on SQLite and once on PostgreSQL (TEST_POSTGRES_URL or
the local server), as ``tests/upgrades/releases/NAME.sqlite.sql`` and ``NAME.postgresql.sql``, with
``NAME.json`` saying when its clock stopped; :mod:`tests.upgrades.releases` loads them. The dumps
are committed: the tests never run old code.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from io import BytesIO
from pathlib import Path

import sqlalchemy as sa

from tests.fakes.openai_server import FakeOpenAIServer

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RELEASES = HERE / "releases"
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
FAKETIME_LIB = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")

START = datetime(2026, 1, 6, 4, 57, 30, tzinfo=timezone.utc)
"""23:57:30 on Monday 5 January in Toronto, where everyone lives."""
ZONE = "America/Toronto"
HABIT_TIME = "00:01"
"""Ana's daily prompt: a minute after her midnight, the first minute of study day 1."""

PEOPLE = {
    "Ana": "+14165550140", "Ben": "+14165550141", "Cleo": "+14165550142", "Dev": "+14165550143",
    "Eli": "+14165550144",
}
"""Ana completes intake and gets her first prompt; Ben sends STOP; Cleo is paused by the team; Dev
is withdrawn; Eli sends STOP and later START."""

ANA_PLAN = "I'd like to walk around the block after dinner, just after midnight works"
SCENARIO: list[list[str]] = [
    ["simulate", "--phone", PEOPLE["Ben"], "STOP"],
    ["pause", "--phone", PEOPLE["Cleo"], "--reason", "on holiday"],
    ["withdraw", "--phone", PEOPLE["Dev"], "--reason", "moved away"],
    ["simulate", "--phone", PEOPLE["Eli"], "STOP"],
    ["simulate", "--phone", PEOPLE["Eli"], "START"],
    ["token", "create", "--name", "fixture-admin", "--role", "admin"],
]
"""Admin commands run one by one against the running service (each waited out); a command the
release does not have is skipped."""

STUDY = """\
name = "Upgrade fixture"
length_days = 14
day_one = "after_intake"

[decision]
actions = ["send", "no_send"]
p = 0.5
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commit")
    parser.add_argument("name")
    args = parser.parse_args()
    if not FAKETIME_LIB.exists():
        raise SystemExit(f"{FAKETIME_LIB} is missing: apt-get install faketime")
    RELEASES.mkdir(exist_ok=True)
    with (tempfile.TemporaryDirectory(prefix="pp-release-") as scratch, FakeOpenAIServer() as one_model,
          FakeOpenAIServer() as other_model):
        tree = Path(scratch) / "tree"
        _extract(args.commit, tree)
        sqlite_db = Path(scratch) / "sqlite-state" / "promptpipe.db"
        with _postgres_database() as pg_url:
            runs = {
                "sqlite": threading.Thread(target=_run_release, args=(
                    tree, f"sqlite:///{sqlite_db}", Path(scratch) / "sqlite-state", one_model)),
                "postgresql": threading.Thread(target=_run_release, args=(
                    tree, pg_url, Path(scratch) / "pg-state", other_model)),
            }
            for run in runs.values():
                run.start()
            for run in runs.values():
                run.join()
            if _failures:
                raise SystemExit("\n".join(_failures))
            dump = subprocess.run(["sqlite3", str(sqlite_db), ".dump"], check=True, capture_output=True,
                                  text=True).stdout
            (RELEASES / f"{args.name}.sqlite.sql").write_text(dump, encoding="utf-8")
            dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", "--inserts", "--dbname", pg_url],
                                  check=True, capture_output=True, text=True).stdout
            (RELEASES / f"{args.name}.postgresql.sql").write_text(dump, encoding="utf-8")
    (RELEASES / f"{args.name}.json").write_text(json.dumps(
        {"commit": args.commit, "started_at": START.isoformat(), "stopped_by": _stopped_by.isoformat(),
         "tokens": _tokens}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RELEASES / args.name}.* from {args.commit}")
    return 0


_failures: list[str] = []
_stopped_by = START
_tokens: dict[str, str] = {}
"""The secret of the token made on each database (a fixture, not a real credential)."""


def _script(model: FakeOpenAIServer) -> None:
    """Ana's plan comes with the tool calls that save it, schedule it and end intake (a release
    whose tools differ answers them with tool errors, and the model's text follows)."""
    model.call_tools([
        ("save_user_profile", {"habit_domain": "walking", "prompt_anchor": "after dinner",
                               "motivational_frame": "to sleep better", "preferred_time": HABIT_TIME}),
        ("scheduler", {"action": "create", "type": "fixed", "fixed_time": HABIT_TIME}),
        ("transition_state", {"target_state": "FEEDBACK", "reason": "the plan is set"}),
    ], match=ANA_PLAN)
    model.always("Lovely, your plan is set. I'll nudge you each day.", match="SAVED")
    model.always("Walk around the block right after dinner tonight: ten minutes is plenty.", match="")


def _extract(commit: str, tree: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", commit],
                             check=True, capture_output=True).stdout
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")


def _run_release(tree: Path, url: str, state: Path, model: FakeOpenAIServer) -> None:
    try:
        _script(model)
        _run(tree, url, state, model.url)
    except BaseException as exc:  # reported by main
        _failures.append(f"{url.split(':')[0]}: {exc}")


def _run(tree: Path, url: str, state: Path, model_url: str) -> None:
    global _stopped_by
    state.mkdir(parents=True)
    source = (tree / "promptpipe").as_posix()
    knows = _grep(source, "PROMPTPIPE_STUDY_FILE")
    env = {**os.environ, "DATABASE_URL": url, "PROMPTPIPE_STATE_DIR": str(state), "PROMPTPIPE_TRANSPORT": "dry-run",
           "OPENAI_API_KEY": "fixture", "OPENAI_BASE_URL": model_url, "SEND_RATE_PER_SECOND": "0",
           "LLM_MAX_RETRIES": "0", "API_LISTEN": "", "PYTHONPATH": str(tree), "LOG_FORMAT": "json",
           "SCHEDULER_PREP_TIME_MINUTES": "0", "LD_PRELOAD": str(FAKETIME_LIB), "DONT_FAKE_MONOTONIC": "1",
           "FAKETIME": START.strftime("@%Y-%m-%d %H:%M:%S"), "TZ": "UTC"}
    env.pop("PROMPTPIPE_STUDY_FILE", None)
    if knows:
        (state / "study.toml").write_text(STUDY, encoding="utf-8")
        env["PROMPTPIPE_STUDY_FILE"] = str(state / "study.toml")
    commands = _commands(tree, env)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    serve = subprocess.Popen([sys.executable, "-c", _ENTRY.format(entry="main"), "serve"], cwd=tree, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _elapsed(serve)
    try:
        for name, phone in PEOPLE.items():
            _admin(tree, env, serve, ["enroll", "--phone", phone, "--name", name, "--timezone", ZONE])
        _wait_idle(engine, serve)
        _admin(tree, env, serve, ["simulate", "--phone", PEOPLE["Ana"], ANA_PLAN])
        _wait_idle(engine, serve)
        for command in SCENARIO:
            if command[0] in commands:
                said = _admin(tree, env, serve, command)
                if command[0] == "token":
                    _tokens[url.split(":")[0]] = next(word for word in said.split() if word.startswith("pp_"))
                _wait_idle(engine, serve)
        if "scheduler" in _tools(tree):
            time.sleep(max(0.0, (_first_prompt() - START).total_seconds() - _elapsed(serve)) + 5)
            _wait_idle(engine, serve)
    finally:
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=60)
        engine.dispose()
    _stopped_by = max(_stopped_by, START + timedelta(seconds=_elapsed(serve)))
    if serve.returncode != 0:
        raise SystemExit(f"the release's serve ended with {serve.returncode}:\n{err.decode()[-2000:]}")


_ENTRY = "import sys; from promptpipe.cli import {entry}; sys.exit({entry}(sys.argv[1:]))"
_started: dict[int, float] = {}


def _elapsed(serve: subprocess.Popen[bytes]) -> float:
    return time.monotonic() - _started.setdefault(serve.pid, time.monotonic())


def _first_prompt() -> datetime:
    """When Ana's first daily prompt is due (UTC): HABIT_TIME on the next local day."""
    from zoneinfo import ZoneInfo

    local = START.astimezone(ZoneInfo(ZONE))
    hour, minute = map(int, HABIT_TIME.split(":"))
    due = (local + timedelta(days=1)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return due.astimezone(timezone.utc)


def _grep(source: str, needle: str) -> bool:
    return subprocess.run(["grep", "-rqs", needle, source]).returncode == 0


def _commands(tree: Path, env: dict[str, str]) -> set[str]:
    """The admin script's commands in this release."""
    result = subprocess.run([sys.executable, "-c", _ENTRY.format(entry="admin_main"), "--help"], cwd=tree, env=env,
                            capture_output=True, text=True)
    listed = result.stdout.split("{", 1)[1].split("}", 1)[0] if "{" in result.stdout else ""
    return {name.strip() for name in listed.split(",")}


def _tools(tree: Path) -> set[str]:
    return {name for name in ("scheduler", "transition_state") if _grep((tree / "promptpipe").as_posix(), name)}


def _admin(tree: Path, env: dict[str, str], serve: subprocess.Popen[bytes], args: list[str]) -> str:
    """One admin command, its faked clock started where serve's has got to; what it printed."""
    now = START + timedelta(seconds=_elapsed(serve))
    env = {**env, "FAKETIME": now.strftime("@%Y-%m-%d %H:%M:%S")}
    result = subprocess.run([sys.executable, "-c", _ENTRY.format(entry="admin_main"), *args], cwd=tree, env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"promptpipe-admin {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def _wait_idle(engine: sa.Engine, serve: subprocess.Popen[bytes], timeout_s: float = 90.0) -> None:
    """Until the running service has handled every input that is due and sent every message
    (twice in a row, so a reply queued by the last turn is seen too)."""
    deadline, quiet = time.monotonic() + timeout_s, 0
    while quiet < 2:
        if serve.poll() is not None:
            said = serve.stderr.read().decode()[-2000:] if serve.stderr else ""
            raise SystemExit(f"the release's serve stopped: {said}")
        if time.monotonic() > deadline:
            raise SystemExit("the release's serve did not settle in time")
        time.sleep(1.0)
        try:
            with engine.connect() as conn:
                waiting = conn.execute(sa.text(
                    "SELECT (SELECT count(*) FROM inbox WHERE status = 'pending')"
                    " + (SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending'))")).scalar_one()
        except sa.exc.SQLAlchemyError:
            waiting = 1  # the tables are not there yet
        quiet = quiet + 1 if waiting == 0 else 0


@contextmanager
def _postgres_database() -> Iterator[str]:
    import psycopg

    base = os.environ.get("TEST_POSTGRES_URL", DEFAULT_POSTGRES)
    name = "pp_fixture_" + secrets.token_hex(4)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    sys.exit(main())
