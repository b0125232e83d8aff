"""Who may do what through the HTTP API and the dashboard: a ``viewer`` reads pseudonymised data only."""

from __future__ import annotations

import hashlib
import re
import secrets
from enum import StrEnum

__all__ = ["NEEDED_TO_READ", "SAFETY_FLAGS", "TOKEN_NAME", "Role", "allows", "hash_token", "may_read", "new_token"]

class Role(StrEnum):
    """What a token may do, each role all the roles before it may."""

    VIEWER = "viewer"
    RESEARCHER = "researcher"
    ADMIN = "admin"


TOKEN_PREFIX = "pp_"
TOKEN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
"""A token's name: letters, digits and ``. _ @ -``, 1 to 64 characters (it is shown in logs)."""


def allows(role: str, needed: Role) -> bool:
    """Whether ``role`` (as a token has it) may do what ``needed`` may."""
    ranks = tuple(Role)
    return role in ranks and ranks.index(role) >= ranks.index(needed)


SAFETY_FLAGS = "safety flags"
NEEDED_TO_READ = {SAFETY_FLAGS: Role.RESEARCHER}
"""What a viewer may not read even by participant id, and the role it needs (API and dashboard both ask
:func:`may_read`): that someone is in crisis is health data, pseudonymous or not."""


def may_read(role: str, what: str) -> bool:
    return allows(role, NEEDED_TO_READ[what])


def new_token() -> str:
    """A fresh secret: 256 random bits, prefixed so it is recognisable in a leaked file."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """SHA-256 of the secret: with 256 random bits a fast hash is enough (slow ones protect guessable passwords)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
