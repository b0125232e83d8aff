"""The pieces of authentication on their own: the limit on failed attempts, session cookies
(signature, expiry, tampering), roles, token hashing, and the web settings."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from promptpipe.clock import ManualClock
from promptpipe.config import load_settings
from promptpipe.domain.access import Role, allows, hash_token, new_token
from promptpipe.errors import ConfigError
from promptpipe.research.tokens import Caller
from promptpipe.storage.db import Database
from promptpipe.web.auth import csrf_token, new_session_cookie, read_session
from promptpipe.web.context import WebContext
from promptpipe.web.ratelimit import FailedAttempts

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


def test_an_address_is_refused_after_ten_failures_until_the_window_passes() -> None:
    now = [0.0]
    attempts = FailedAttempts(limit=10, window_s=300, now=lambda: now[0])
    for _ in range(9):
        attempts.record("10.0.0.7")
    assert attempts.blocked_for("10.0.0.7") == 0
    attempts.record("10.0.0.7")
    assert attempts.blocked_for("10.0.0.7") == pytest.approx(300)
    assert attempts.blocked_for("10.0.0.8") == 0  # other addresses are not affected
    now[0] = 299.0
    assert attempts.blocked_for("10.0.0.7") == pytest.approx(1)
    now[0] = 300.5
    assert attempts.blocked_for("10.0.0.7") == 0


def test_the_failure_table_cannot_grow_without_bound() -> None:
    attempts = FailedAttempts(limit=2)
    for number in range(20_000):
        attempts.record(f"addr-{number}")
    assert len(attempts._failures) <= 10_000


@pytest.mark.parametrize(("role", "needed", "allowed"), [
    ("viewer", Role.VIEWER, True), ("viewer", Role.RESEARCHER, False), ("researcher", Role.RESEARCHER, True),
    ("researcher", Role.ADMIN, False), ("admin", Role.RESEARCHER, True), ("admin", Role.ADMIN, True),
    ("owner", Role.VIEWER, False),
])
def test_each_role_can_do_what_the_roles_below_it_can(role: str, needed: Role, allowed: bool) -> None:
    assert allows(role, needed) is allowed
    assert tuple(Role) == ("viewer", "researcher", "admin")


def test_tokens_are_random_and_only_their_hash_is_kept() -> None:
    first, second = new_token(), new_token()
    assert first != second and first.startswith("pp_") and len(first) > 40
    assert hash_token(first) != hash_token(second) and first not in hash_token(first)
    assert len(hash_token(first)) == 64


def _ctx(tmp_path: Path, lifetime: str = "8h") -> WebContext:
    settings = load_settings({"PROMPTPIPE_STATE_DIR": str(tmp_path), "WEB_SESSION_LIFETIME": lifetime,
                              "API_LISTEN": ""}, env_file=None)
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    return WebContext(settings, database, database, ManualClock(NOW), session_key=b"k" * 32)


def test_a_session_cookie_holds_until_it_expires_and_cannot_be_forged(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, "2h")
    cookie = new_session_cookie(ctx, Caller(7, "ana", "researcher"), NOW)
    session = read_session(ctx, cookie, NOW + timedelta(hours=1))
    assert session is not None and session.token_id == 7
    assert read_session(ctx, cookie, NOW + timedelta(hours=2, seconds=1)) is None
    body, _, signature = cookie.partition(".")
    forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + signature
    assert read_session(ctx, forged, NOW) is None
    assert read_session(ctx, "garbage", NOW) is None and read_session(ctx, None, NOW) is None
    other_key = _ctx(tmp_path)
    other_key.session_key = b"o" * 32
    assert read_session(other_key, cookie, NOW) is None
    assert csrf_token(ctx, session.nonce) != csrf_token(ctx, session.nonce + "x")


@pytest.mark.parametrize("value", ["8080", "localhost", "127.0.0.1:http", "127.0.0.1:70000", ":8080"])
def test_a_bad_listen_address_is_one_clear_error(value: str) -> None:
    with pytest.raises(ConfigError, match="API_LISTEN"):
        load_settings({"API_LISTEN": value}, env_file=None)


def test_the_api_listens_on_loopback_by_default_and_empty_turns_it_off() -> None:
    assert load_settings({}, env_file=None).api_listen == "127.0.0.1:8080"
    assert load_settings({"API_LISTEN": ""}, env_file=None).api_listen == ""
    assert load_settings({"API_LISTEN": "[::1]:9000"}, env_file=None).api_listen == "[::1]:9000"
    with pytest.raises(ConfigError, match="RESEARCHER_TIMEZONE"):
        load_settings({"RESEARCHER_TIMEZONE": "Mars/Base"}, env_file=None)
