"""``promptpipe-admin token create|list|revoke``: the bearer tokens of the HTTP API and the dashboard (a secret is
printed once and stored only as a hash; creating and revoking are audited)."""

from __future__ import annotations

import argparse
from typing import Any

from promptpipe.cli._common import print_json, print_table
from promptpipe.domain.access import Role
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.research import tokens
from promptpipe.research.views import as_json

__all__ = ["add_token_parser", "token_command"]


def add_token_parser(sub: Any) -> None:
    token = sub.add_parser("token", help="API and dashboard tokens: `token create --name N --role R`, "
                           "`token list`, `token revoke NAME`")
    actions = token.add_subparsers(dest="token_action", required=True)
    create = actions.add_parser("create", help="make a token (its secret is printed once)")
    create.add_argument("--name", required=True, help="who or what uses it, e.g. ana or dashboard-laptop")
    create.add_argument("--role", required=True, choices=tuple(Role),
                        help="viewer: pseudonymised reading; researcher: everything and actions; admin: tokens too")
    create.add_argument("--expires", metavar="WHEN", help=tokens.EXPIRES_HELP)
    create.add_argument("--by", help="who made it (default: your user name)")
    listing = actions.add_parser("list", help="every token by name and role, its expiry and last use (never the "
                                 "secret)")
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="revoke a token: requests with it fail from now on")
    revoke.add_argument("name")
    revoke.add_argument("--by", help="who revoked it (default: your user name)")


async def token_command(args: argparse.Namespace, env: Any) -> None:
    if args.token_action == "create":
        expires_at = tokens.expiry(args.expires or "", env.clock.now(), zone_or_utc(env.settings.researcher_timezone))
        secret, row = await tokens.create_token(env.db, env.clock, name=args.name, role=args.role, by=args.by or "",
                                                expires_at=expires_at)
        await tokens.audit_cli(env.db, env.clock, "token_create", by=row.created_by,
                               detail={"name": row.name, "role": row.role, "expires_at": row.expires_at})
        until = f", valid until {row.expires_at}" if row.expires_at else ""
        print(f"token {row.name!r} ({row.role}{until}) created. Its secret, shown this once:")
        print(secret)
        print("Keep it like a password; it is stored only as a hash. Use it as `Authorization: Bearer …` "
              "or to sign in to the dashboard.")
    elif args.token_action == "list":
        rows = await tokens.tokens(env.db)
        if args.json:
            print_json(as_json(rows))
        else:
            print_table([{**as_json(row), "revoked_at": row.revoked_at or "-", "expires_at": row.expires_at or "never",
                          "last_used_at": row.last_used_at or "never"} for row in rows],
                        ["name", "role", "created_at", "created_by", "expires_at", "last_used_at", "revoked_at"])
    else:
        print(await tokens.revoke(env.db, env.clock, name=args.name, by=args.by or ""))
        await tokens.audit_cli(env.db, env.clock, "token_revoke", by=args.by or "", detail={"name": args.name})
