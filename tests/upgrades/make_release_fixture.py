"""Make the database of an earlier release with that release's own code, for the upgrade tests.

    .venv/bin/python -m tests.upgrades.make_release_fixture COMMIT NAME

The release's tree is taken from this repository's history (``git archive``) into a scratch
directory and run from there with this virtual environment: its admin script enrolls five people,
its ``serve`` (dry-run, against a scripted model) greets them and handles what they and the team
do, as a study would have run it (see :data:`SCENARIO`). The resulting database is dumped twice,
once made on SQLite and once on PostgreSQL (TEST_POSTGRES_URL or the local server), as
``tests/upgrades/releases/NAME.sqlite.sql`` and ``NAME.postgresql.sql``; :mod:`tests.upgrades.releases`
loads them. The dumps are committed: the tests never run old code.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path

import sqlalchemy as sa

from tests.fakes.openai_server import FakeOpenAIServer

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RELEASES = HERE / "releases"
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"

PEOPLE = {
    "Ana": "+14165550140", "Ben": "+14165550141", "Cleo": "+14165550142", "Dev": "+14165550143",
    "Eli": "+14165550144",
}
"""Ana stays active; Ben sends STOP; Cleo is paused by the team; Dev is withdrawn; Eli sends STOP
and later START."""

SCENARIO: list[list[str]] = [
    ["simulate", "--phone", PEOPLE["Ana"], "I'd like to walk after lunch"],
    ["simulate", "--phone", PEOPLE["Ben"], "STOP"],
    ["pause", "--phone", PEOPLE["Cleo"], "--reason", "on holiday"],
    ["withdraw", "--phone", PEOPLE["Dev"], "--reason", "moved away"],
    ["simulate", "--phone", PEOPLE["Eli"], "STOP"],
    ["simulate", "--phone", PEOPLE["Eli"], "START"],
]
"""Admin commands run one by one against the running service, each waited out."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commit")
    parser.add_argument("name")
    args = parser.parse_args()
    RELEASES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pp-release-") as scratch, FakeOpenAIServer() as model:
        model.always("Hello! Glad you're here. What small habit would you like to build?", match="")
        tree = Path(scratch) / "tree"
        _extract(args.commit, tree)
        sqlite_db = Path(scratch) / "sqlite-state" / "promptpipe.db"
        _run_release(tree, f"sqlite:///{sqlite_db}", Path(scratch) / "sqlite-state", model.url)
        dump = subprocess.run(["sqlite3", str(sqlite_db), ".dump"], check=True, capture_output=True, text=True).stdout
        (RELEASES / f"{args.name}.sqlite.sql").write_text(dump, encoding="utf-8")
        with _postgres_database() as url:
            _run_release(tree, url, Path(scratch) / "pg-state", model.url)
            dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", "--inserts", "--dbname", url],
                                  check=True, capture_output=True, text=True).stdout
            (RELEASES / f"{args.name}.postgresql.sql").write_text(dump, encoding="utf-8")
    print(f"wrote {RELEASES / args.name}.sqlite.sql and .postgresql.sql from {args.commit}")
    return 0


def _extract(commit: str, tree: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", commit],
                             check=True, capture_output=True).stdout
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")


def _run_release(tree: Path, url: str, state: Path, model_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": url, "PROMPTPIPE_STATE_DIR": str(state), "PROMPTPIPE_TRANSPORT": "dry-run",
           "OPENAI_API_KEY": "fixture", "OPENAI_BASE_URL": model_url, "SEND_RATE_PER_SECOND": "0",
           "LLM_MAX_RETRIES": "0", "API_LISTEN": "", "PYTHONPATH": str(tree), "LOG_FORMAT": "json"}
    env.pop("PROMPTPIPE_STUDY_FILE", None)
    for name, phone in PEOPLE.items():
        _admin(tree, env, ["enroll", "--phone", phone, "--name", name, "--timezone", "America/Toronto"])
    serve = subprocess.Popen([sys.executable, "-c", _ENTRY.format(entry="main"), "serve"], cwd=tree, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        _wait_idle(engine, serve)
        for command in SCENARIO:
            _admin(tree, env, command)
            _wait_idle(engine, serve)
    finally:
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=60)
        engine.dispose()
    if serve.returncode != 0:
        raise SystemExit(f"the release's serve ended with {serve.returncode}:\n{err.decode()[-2000:]}")


_ENTRY = "import sys; from promptpipe.cli import {entry}; sys.exit({entry}(sys.argv[1:]))"


def _admin(tree: Path, env: dict[str, str], args: list[str]) -> None:
    result = subprocess.run([sys.executable, "-c", _ENTRY.format(entry="admin_main"), *args], cwd=tree, env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"promptpipe-admin {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


def _wait_idle(engine: sa.Engine, serve: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    """Until the running service has handled every input and sent every message (twice in a row,
    so a reply queued by the last turn is seen too)."""
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
        except sa.exc.OperationalError:
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
