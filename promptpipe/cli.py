"""Command line: ``promptpipe`` (serve, chat) and ``promptpipe-admin``. Thin: parse, build
settings, call one function; a PromptPipeError becomes one line on stderr and exit code 1."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from promptpipe import admin
from promptpipe.clock import SystemClock
from promptpipe.config import Settings, ensure_state_dir, load_settings
from promptpipe.db import Database
from promptpipe.errors import PromptPipeError
from promptpipe.logging import configure_logging


def _fail(message: str) -> int:
    colour = sys.stderr.isatty()
    print(("\033[31m" if colour else "") + f"error: {message}" + ("\033[0m" if colour else ""), file=sys.stderr)
    return 1


def _settings() -> Settings | None:
    """Settings from the environment and .env, with logging set up; None after printing why not."""
    try:
        settings = load_settings()
    except PromptPipeError as exc:
        _fail(str(exc))
        return None
    configure_logging(settings.log_format, debug=settings.debug)
    return settings


def _run(coro_factory: Callable[[], Awaitable[int | None]]) -> int:
    try:
        return asyncio.run(coro_factory()) or 0  # type: ignore[arg-type]
    except PromptPipeError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


# ---------------------------------------------------------------- promptpipe

async def _serve(settings: Settings, transport: Any = None, stop: asyncio.Event | None = None) -> int:
    from promptpipe.app import App

    settings.require_llm()
    ensure_state_dir(settings)
    app = App.build(settings, transport=transport)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Where the loop cannot take signal handlers (Windows, a non-main thread), Ctrl-C still
        # ends the service through KeyboardInterrupt in _run.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await app.start(single_instance=True)
    try:
        await stop.wait()
    finally:
        await app.stop()
    return 0


async def _chat(settings: Settings, phone: str, name: str) -> int:
    from promptpipe.transport.console import ConsoleTransport

    phone = admin.validate_phone(phone)
    settings.require_llm()
    ensure_state_dir(settings)
    db = Database(settings.database_url)
    await db.connect()
    try:
        if await admin.find(db, phone) is None:  # enrolled already: carry on that conversation
            await admin.enroll(db, SystemClock(), phone=phone, name=name, timezone=settings.default_timezone)
    finally:
        await db.close()
    stop = asyncio.Event()
    return await _serve(settings, transport=ConsoleTransport(phone, on_exit=stop.set), stop=stop)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="promptpipe", description="PromptPipe WhatsApp research agent.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="run the service (WhatsApp, or dry-run with PROMPTPIPE_TRANSPORT=dry-run)")
    chat = sub.add_parser("chat", help="play a participant in this terminal")
    chat.add_argument("--phone", required=True, help="the participant's phone, E.164 (+15551234567)")
    chat.add_argument("--name", default="Console tester", help="name used if the phone is not enrolled yet")
    sub.add_parser("check", help="validate settings and the database connection, then exit")
    args = parser.parse_args(argv)
    settings = _settings()
    if settings is None:
        return 1
    if args.command == "serve":
        _reexec_without_bot_label(settings)
        return _run(lambda: _serve(settings))
    if args.command == "chat":
        return _run(lambda: _chat(settings, args.phone, args.name))
    return _run(lambda: _check(settings))


def _reexec_without_bot_label(settings: Settings) -> None:
    """neonize's Go library reads NEONIZE_BOT_TAG only from the environment the process started
    with, so turning the label off means starting again with the variable set."""
    if settings.transport != "whatsapp" or settings.whatsapp_bot_label or os.environ.get("NEONIZE_BOT_TAG") == "off":
        return
    os.environ["NEONIZE_BOT_TAG"] = "off"
    os.execv(sys.executable, [sys.executable, "-m", "promptpipe.cli", *sys.argv[1:]])


async def _check(settings: Settings) -> int:
    settings.require_llm()
    ensure_state_dir(settings)
    db = Database(settings.database_url)
    try:
        await db.connect()
    finally:
        await db.close()
    print(f"settings ok; database ok ({db.dialect}); transport {settings.transport}")
    return 0


# ---------------------------------------------------------------- promptpipe-admin

def _print_table(rows: list[dict[str, Any]], columns: Sequence[str]) -> None:
    if not rows:
        print("(none)")
        return
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in columns}
    print("  ".join(c.upper().ljust(widths[c]) for c in columns))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


async def _admin(args: argparse.Namespace, settings: Settings) -> int:
    db = Database(settings.database_url)
    clock = SystemClock()
    await db.connect()
    try:
        return await _admin_command(args, db, clock)
    finally:
        await db.close()


async def _admin_command(args: argparse.Namespace, db: Database, clock: SystemClock) -> int:
    if args.command == "enroll":
        row = await admin.enroll(db, clock, phone=args.phone, name=args.name, timezone=args.timezone,
                                 background=args.background or "")
        print(f"enrolled {row['name']} ({row['phone']}) as {row['id']}; the running service will send the greeting")
    elif args.command == "list":
        rows = await admin.list_participants(db)
        _print_json(rows) if args.json else _print_table(rows, ["id", "phone", "name", "timezone", "status", "sub_state"])
    elif args.command == "show":
        row = await admin.show(db, args.phone)
        if args.json:
            _print_json(row)
        else:
            for key, value in row.items():
                if isinstance(value, dict):
                    print(f"{key}:")
                    for field_name, field_value in value.items():
                        print(f"  {field_name}: {field_value if field_value not in ('', None) else '-'}")
                else:
                    print(f"{key}: {value if value not in ('', None) else '-'}")
    elif args.command == "simulate":
        inbox_id = await admin.simulate(db, clock, phone=args.phone, text=" ".join(args.text))
        print(f"stored as inbox row {inbox_id}; the running service will answer it")
    elif args.command in admin.STATUS_COMMANDS:
        print(await admin.set_status(db, clock, phone=args.phone, action=args.command, reason=args.reason or ""))
    elif args.command == "prompt-now":
        inbox_id = await admin.send_prompt_now(db, clock, phone=args.phone)
        print(f"daily prompt queued as inbox row {inbox_id}; the running service writes and sends it")
    elif args.command == "update":
        print(await admin.set_timezone(db, clock, phone=args.phone, timezone=args.timezone))
    elif args.command == "schedules":
        data = await admin.schedules(db, clock, phone=args.phone)
        if args.json:
            _print_json(data)
        else:
            print(f"{data['phone']} ({data['status']}, {data['timezone']})")
            if data["status"] != "active":
                print("not active: no prompt or timer will fire until they are resumed")
            print("schedules:")
            _print_table(data["schedules"], ["id", "habit", "prep_minutes", "next_prompt", "armed"])
            print("pending timers:")
            _print_table(data["timers"], ["kind", "due", "detail", "armed"])
    elif args.command == "timers":
        rows = await admin.pending_timers(db)
        _print_json(rows) if args.json else _print_table(rows, ["phone", "kind", "due", "armed"])
    elif args.command == "transcript":
        rows = await admin.transcript(db, args.phone)
        if args.json:
            _print_json(rows)
        else:
            for row in rows:
                arrow = "<-" if row["direction"] == "in" else "->"
                print(f"{row['at'][:19]} {arrow} [{row['kind']}/{row['status']}] {row['text']}")
    elif args.command == "export":
        from promptpipe.export import export_study

        counts = await export_study(db, args.out, fmt=args.format, force=args.force)
        for name, rows in counts.items():
            print(f"{name}.{args.format}: {rows} row{'' if rows == 1 else 's'}")
        print(f"written to {args.out}")
    return 0


def admin_main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="promptpipe-admin", description="Manage study participants.")
    sub = parser.add_subparsers(dest="command", required=True)
    enroll = sub.add_parser("enroll", help="enroll a participant; the service greets them")
    enroll.add_argument("--phone", required=True, help="E.164, e.g. +15551234567")
    enroll.add_argument("--name", required=True)
    enroll.add_argument("--timezone", required=True, help="IANA zone, e.g. America/Toronto")
    enroll.add_argument("--background", help="notes for the agent about this participant")
    listing = sub.add_parser("list", help="all participants")
    listing.add_argument("--json", action="store_true")
    show = sub.add_parser("show", help="one participant: status, stage, profile")
    show.add_argument("--phone", required=True)
    show.add_argument("--json", action="store_true")
    simulate = sub.add_parser("simulate", help="inject a message as if the participant sent it")
    simulate.add_argument("--phone", required=True)
    simulate.add_argument("text", nargs="+")
    transcript = sub.add_parser("transcript", help="every message in and out, with times and status")
    transcript.add_argument("--phone", required=True)
    transcript.add_argument("--json", action="store_true")
    for action, text in (("pause", "stop all scheduled messages to a participant"),
                         ("resume", "switch a paused participant back on"),
                         ("withdraw", "withdraw a participant from the study (final)")):
        status = sub.add_parser(action, help=text)
        status.add_argument("--phone", required=True)
        status.add_argument("--reason", help="kept in the audit log")
    prompt_now = sub.add_parser("prompt-now", help="send the participant's daily prompt now (for piloting)")
    prompt_now.add_argument("--phone", required=True)
    schedules = sub.add_parser("schedules", help="a participant's daily prompt schedules and pending timers")
    schedules.add_argument("--phone", required=True)
    schedules.add_argument("--json", action="store_true")
    timers = sub.add_parser("timers", help="every pending timer (reminders, hand-overs, check-ins)")
    timers.add_argument("--json", action="store_true")
    update = sub.add_parser("update", help="change a participant's time zone")
    update.add_argument("--phone", required=True)
    update.add_argument("--timezone", required=True, help="IANA zone, e.g. Europe/Berlin")
    export = sub.add_parser("export", help="write the study's data (participants, messages, deliveries, "
                            "transitions, tone changes) to files for analysis")
    export.add_argument("--out", required=True, help="directory for the files (created if missing)")
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv (default) or jsonl")
    export.add_argument("--force", action="store_true", help="overwrite files from an earlier export")
    args = parser.parse_args(argv)
    settings = _settings()
    if settings is None:
        return 1
    return _run(lambda: _admin(args, settings))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
