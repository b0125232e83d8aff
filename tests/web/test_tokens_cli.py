"""``promptpipe-admin token``: the secret is printed once, lists never show it, a revoked token
stops working, and mistakes are one clear line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from promptpipe.cli import admin_main
from promptpipe.research.tokens import Caller, authenticate
from promptpipe.storage.db import Database


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = admin_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def caller_of(database_url: str, secret: str) -> Caller | None:
    async def check() -> Caller | None:
        db = Database(database_url)
        try:
            return await authenticate(db, secret)
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
