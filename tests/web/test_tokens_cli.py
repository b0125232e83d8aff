"""``promptpipe-admin token``: the secret is printed once, lists never show it, a revoked or
expired token stops working, changes are audited, and mistakes are one clear line."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from promptpipe.cli import admin_main
from promptpipe.research.tokens import Caller
from promptpipe.storage.access import audit_entries
from promptpipe.storage.db import Database
from promptpipe.web.identity import identify


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = admin_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def caller_of(database_url: str, secret: str, now: datetime | None = None) -> Caller | None:
    async def check() -> Caller | None:
        db = Database(database_url)
        try:
            found = await identify(db, secret, now or datetime.now(UTC))
            return found if isinstance(found, Caller) else None
        finally:
            await db.close()

    return asyncio.run(check())


def test_create_list_and_revoke(cli_env: Path, database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "token", "create", "--name", "ana", "--role", "researcher", "--by", "lead")
    assert code == 0
    secret = next(line for line in out.splitlines() if line.startswith("pp_"))
    caller = caller_of(database_url, secret)
    assert caller is not None and (caller.name, caller.role) == ("ana", "researcher")
    code, listed, _ = run(capsys, "token", "list")
    assert code == 0 and "ana" in listed and "researcher" in listed and secret not in listed
    code, out, _ = run(capsys, "token", "revoke", "ana")
    assert code == 0 and "revoked" in out
    assert caller_of(database_url, secret) is None


@pytest.mark.parametrize(("args", "message"), [
    (["token", "create", "--name", "ana bob", "--role", "viewer"], "may hold only letters"),
    (["token", "revoke", "nobody"], "there is no token named 'nobody'"),
])
def test_mistakes_are_one_clear_line(cli_env: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                     message: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 1 and message in err and "Traceback" not in err


def test_a_name_is_taken_once(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "token", "create", "--name", "ana", "--role", "viewer")[0] == 0
    code, _, err = run(capsys, "token", "create", "--name", "ana", "--role", "admin")
    assert code == 1 and "exists already" in err


def test_a_token_made_to_expire_works_until_then_and_the_list_shows_it(cli_env: Path, database_url: str,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "token", "create", "--name", "ana", "--role", "viewer", "--expires", "30d")
    assert code == 0 and "valid until" in out
    secret = next(line for line in out.splitlines() if line.startswith("pp_"))
    code, listed, _ = run(capsys, "token", "list", "--json")
    (row,) = json.loads(listed)
    expires_at = datetime.fromisoformat(row["expires_at"])
    assert timedelta(days=29, hours=23) < expires_at - datetime.now(UTC) <= timedelta(days=30)
    assert row["last_used_at"] is None
    assert caller_of(database_url, secret, expires_at - timedelta(seconds=1)) is not None
    assert caller_of(database_url, secret, expires_at) is None
    run(capsys, "token", "create", "--name", "bo", "--role", "admin", "--expires", "2099-12-31")
    code, table, _ = run(capsys, "token", "list")
    lines = table.splitlines()
    assert "EXPIRES_AT" in lines[0] and "LAST_USED_AT" in lines[0]
    assert "2100-01-01" in next(line for line in lines if line.startswith("bo "))  # through Dec 31 (UTC here)
    assert "never" in next(line for line in lines if line.startswith("ana "))  # never used yet


@pytest.mark.parametrize(("expires", "message"), [("30", "neither a time from now"),
                                                  ("2020-01-01", "not in the future")])
def test_a_wrong_expiry_is_one_clear_line(cli_env: Path, capsys: pytest.CaptureFixture[str], expires: str,
                                         message: str) -> None:
    code, _, err = run(capsys, "token", "create", "--name", "ana", "--role", "viewer", "--expires", expires)
    assert code == 1 and "--expires" in err and message in err and "Traceback" not in err
    assert run(capsys, "token", "list")[1].strip() == "(none)"


def test_token_changes_from_the_admin_script_are_audited(cli_env: Path, database_url: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "token", "create", "--name", "ana", "--role", "viewer", "--by", "lead")
    run(capsys, "token", "revoke", "ana", "--by", "lead")

    async def entries() -> list[tuple[str, str, str, object]]:
        db = Database(database_url)
        try:
            return await db.run(lambda s: [(e.actor, e.action, e.via, e.detail.get("name")) for e in audit_entries(s)])
        finally:
            await db.close()

    assert asyncio.run(entries())[::-1] == [("lead", "token_create", "cli", "ana"),
                                            ("lead", "token_revoke", "cli", "ana")]
