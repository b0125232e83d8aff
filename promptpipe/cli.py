"""Command line: ``promptpipe`` (serve, chat) and ``promptpipe-admin``. Thin: parse, build
settings, call one function; a PromptPipeError becomes one line on stderr and exit code 1."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from promptpipe.clock import SystemClock
from promptpipe.config import Settings, load_settings
from promptpipe.domain.text import for_terminal
from promptpipe.errors import AdminError, PromptPipeError
from promptpipe.logging import configure_logging, get_logger
from promptpipe.research import admin, oversight
from promptpipe.research.status import read_status
from promptpipe.storage.db import Database, sqlite_file
from promptpipe.storage.files import PRIVATE_UMASK, LooseMode, loose_modes, tighten
from promptpipe.storage.state_dir import ensure_state_dir


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


def _run(coro_factory: Callable[[], Coroutine[Any, Any, int | None]]) -> int:
    try:
        return asyncio.run(coro_factory()) or 0
    except PromptPipeError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


# ---------------------------------------------------------------- promptpipe

def _state_files(settings: Settings) -> list[LooseMode]:
    """State files (and the SQLite database, wherever it lives) that other users could read."""
    database = sqlite_file(settings.database_url)
    extra = [] if database is None else [database.with_name(database.name + suffix) for suffix in ("", "-wal", "-shm")]
    return loose_modes(settings.state_dir, extra)


async def _serve(
    settings: Settings, transport: Any = None, stop: asyncio.Event | None = None, started: asyncio.Event | None = None,
) -> int:
    """Run the service until ``stop`` (a signal) or until it must stop by itself; ``started`` is
    set once it runs (for tests)."""
    from promptpipe.app import App

    settings.require_llm()
    ensure_state_dir(settings.state_dir)
    for item in tighten(_state_files(settings)):
        get_logger("promptpipe.cli").warning("state_file_mode_tightened", path=str(item.path),
                                             was=f"{item.mode:04o}", now=f"{item.wanted:04o}")
    app = App.build(settings, transport=transport)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Where the loop cannot take signal handlers (Windows, a non-main thread), Ctrl-C still
        # ends the service through KeyboardInterrupt in _run.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await app.start(single_instance=True)
    if started is not None:
        started.set()
    try:
        stopped, fatal = asyncio.ensure_future(stop.wait()), asyncio.ensure_future(app.fatal.wait())
        await asyncio.wait((stopped, fatal), return_when=asyncio.FIRST_COMPLETED)
        for waiter in (stopped, fatal):
            waiter.cancel()
    finally:
        deadline = _stop_deadline(STOP_DEADLINE_S)
        try:
            await app.stop()
        finally:
            deadline.cancel()
    if app.fatal.is_set():
        if app.restart:
            return RESTART
        return _fail(app.fatal_reason)
    return 0


RESTART = -1
"""What ``_serve`` returns when the service must start again in a fresh process."""
STOP_DEADLINE_S = 20.0
"""The outbox gets 10 s to settle and WhatsApp 5 s to disconnect; after this the process ends anyway."""
QR_RENEWAL_ENV = "PROMPTPIPE_QR_RENEWAL"
"""How many times this ``serve`` was started again for a new QR code (set on the new process)."""
QR_LIFETIME_MIN = 170 / 60
"""Minutes one round of QR codes lasts before the restart."""


def _flush_everything() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()


def _stop_deadline(seconds: float) -> threading.Timer:
    """A stop that hangs (a call stuck inside the WhatsApp library) still ends the process."""

    def give_up() -> None:
        get_logger("promptpipe.cli").error("stop_forced", waited_s=seconds,
                                           hint="a call into the WhatsApp library did not return")
        _flush_everything()
        os._exit(1)

    timer = threading.Timer(seconds, give_up)
    timer.daemon = True
    timer.start()
    return timer


def _run_service(coro_factory: Callable[[], Coroutine[Any, Any, int | None]], *,
                 wait_for_threads_s: float = 2.0) -> int:
    """Like :func:`_run`, but never waits for ever on a worker thread: neonize 0.5.2 can leave one
    blocked inside its Go library (waiting for a login that cannot come), and Python would join it
    at exit. Threads that have not ended ``wait_for_threads_s`` after the service stopped are left
    behind with ``os._exit``, once logs and output are flushed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        code = loop.run_until_complete(coro_factory()) or 0
    except PromptPipeError as exc:
        code = _fail(str(exc))
    except KeyboardInterrupt:
        code = 130
    finally:
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()  # shuts the default executor down without waiting for its threads
        asyncio.set_event_loop(None)
    end = time.monotonic() + wait_for_threads_s
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(end - time.monotonic(), 0.0))
    stuck = [t for t in threading.enumerate() if t.is_alive() and not t.daemon and t is not threading.current_thread()]
    if stuck and code != RESTART:  # a restart replaces the process with exec, stuck threads and all
        get_logger("promptpipe.cli").warning("threads_left_behind", threads=len(stuck))
        _flush_everything()
        os._exit(code)
    return code


def _serve_command(settings: Settings) -> int:
    """``promptpipe serve``; a new QR code means a fresh process, a bounded number of times."""
    code = _run_service(lambda: _serve(settings))
    if code != RESTART:
        return code
    renewals = int(os.environ.get(QR_RENEWAL_ENV, "0") or 0) + 1
    if renewals > settings.whatsapp_qr_renewals:
        minutes = round(renewals * QR_LIFETIME_MIN)
        return _fail(f"nobody linked the study phone: {renewals} QR codes expired over about {minutes} minutes. "
                     "Run `promptpipe serve` again when the phone is at hand (or set WHATSAPP_PAIR_PHONE to link "
                     "with a code).")
    os.environ[QR_RENEWAL_ENV] = str(renewals)
    _flush_everything()
    os.execv(sys.executable, [sys.executable, "-m", "promptpipe.cli", *sys.argv[1:]])


async def _chat(settings: Settings, phone: str, name: str) -> int:
    from promptpipe.transport.console import ConsoleTransport

    phone = admin.validate_phone(phone)
    settings.require_llm()
    ensure_state_dir(settings.state_dir)
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
    chat.add_argument("--phone", required=True, help="the participant's phone, E.164 (+14165550123)")
    chat.add_argument("--name", default="Console tester", help="name used if the phone is not enrolled yet")
    sub.add_parser("check", help="validate settings and the database connection, then exit")
    args = parser.parse_args(argv)
    os.umask(PRIVATE_UMASK)  # what the service and its libraries create is for this user only
    settings = _settings()
    if settings is None:
        return 1
    if args.command == "serve":
        _reexec_without_bot_label(settings)
        return _serve_command(settings)
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
    ensure_state_dir(settings.state_dir)
    db = Database(settings.database_url)
    try:
        await db.connect()
        report = await read_status(db)
    finally:
        await db.close()
    print(f"settings ok; database ok ({db.dialect}); transport {settings.transport}")
    for line in report.lines():
        print(for_terminal(line))
    for item in _state_files(settings):
        print(f"warning: {item.describe()}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- promptpipe-admin

def _cell(value: Any) -> str:
    """One table cell or value, safe for a terminal: a participant's control characters (screen
    clearing, clipboard writing, a newline in a name) are shown as escapes, never obeyed."""
    return for_terminal("" if value is None else value)


def _print_table(rows: list[dict[str, Any]], columns: Sequence[str]) -> None:
    if not rows:
        print("(none)")
        return
    cells = [{c: _cell(r.get(c, "")) for c in columns} for r in rows]
    widths = {c: max(len(c), *(len(row[c]) for row in cells)) for c in columns}
    print("  ".join(c.upper().ljust(widths[c]) for c in columns))
    for row in cells:
        print("  ".join(row[c].ljust(widths[c]) for c in columns))


def _receipt_marks(row: dict[str, Any]) -> str:
    """`` delivered 09:01:03 read 09:15:10`` for a sent message WhatsApp reported on (UTC times)."""
    marks = [f" {name} {row[name + '_at'][11:19]}" for name in ("delivered", "read", "played") if row.get(name + "_at")]
    return "".join(marks)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


async def _admin(args: argparse.Namespace, settings: Settings) -> int:
    db = Database(settings.database_url)
    clock = SystemClock()
    await db.connect()
    try:
        return await _admin_command(args, db, clock, settings)
    finally:
        await db.close()


async def _admin_command(args: argparse.Namespace, db: Database, clock: SystemClock, settings: Settings) -> int:
    if args.command == "enroll":
        row = await admin.enroll(db, clock, phone=args.phone, name=args.name, timezone=args.timezone,
                                 background=args.background or "", by=args.by or "")
        print(f"enrolled {_cell(row['name'])} ({row['phone']}) as {row['id']}; "
              "the running service will send the greeting")
    elif args.command == "list":
        rows = await admin.list_participants(db)
        if args.json:
            _print_json(rows)
        else:
            _print_table(rows, ["id", "phone", "name", "timezone", "status", "sub_state"])
    elif args.command == "show":
        row = await admin.show(db, args.phone)
        if args.json:
            _print_json(row)
        else:
            for key, value in row.items():
                if isinstance(value, dict):
                    print(f"{key}:")
                    for field_name, field_value in value.items():
                        print(f"  {field_name}: {_cell(field_value) if field_value not in ('', None) else '-'}")
                else:
                    print(f"{key}: {_cell(value) if value not in ('', None) else '-'}")
    elif args.command == "simulate":
        inbox_id = await _simulate_command(args, db, clock)
        print(f"stored as inbox row {inbox_id}; the running service will answer it")
    elif args.command in admin.STATUS_COMMANDS:
        print(await admin.set_status(db, clock, phone=args.phone, action=args.command, reason=args.reason or "",
                                     by=args.by or ""))
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
                print(f"{row['at'][:19]} {arrow} [{row['kind']}/{row['status']}{_receipt_marks(row)}] "
                      f"{_cell(row['text'])}")
    elif args.command == "status":
        report = await read_status(db)
        if args.json:
            _print_json(report.to_json())
        else:
            for line in report.lines():
                print(_cell(line))
    elif args.command == "consent":
        data = await oversight.consent(db, args.phone)
        if args.json:
            _print_json(data)
        else:
            print(f"{data['phone']} ({data['participant_id']}): {data['status']}"
                  + ("; opted out by themselves" if data["opted_out"] else "")
                  + ("; paused by the research team" if data["researcher_paused"] else ""))
            _print_table(data["events"], ["at", "event", "source", "actor", "words"])
    elif args.command == "flags":
        await _flags_command(args, db, clock)
    elif args.command == "erase":
        return await _erase_command(args, db, clock)
    elif args.command == "inbox":
        await _inbox_command(args, db, clock)
    elif args.command == "export":
        from promptpipe.research.export import export_study

        result = await export_study(db, args.out, fmt=args.format, force=args.force,
                                    include_identifiers=args.include_identifiers, now=clock.now(),
                                    receipt_window=settings.delivery_receipt_window)
        for name, count in result.rows.items():
            print(f"{name}.{args.format}: {count} row{'' if count == 1 else 's'}")
        if result.key_file is not None:
            print(f"{result.key_file.name}: {result.key_rows} row{'' if result.key_rows == 1 else 's'} "
                  "(the key to phone numbers and names: keep it apart from the data)")
        print(f"written to {args.out}")
        for warning in result.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0


async def _simulate_command(args: argparse.Namespace, db: Database, clock: SystemClock) -> int:
    text = " ".join(args.text)
    if args.vote is not None or args.react is not None:
        if text or args.kind != "text" or args.reply_to_prompt or (args.vote is not None and args.react is not None):
            raise AdminError("give one thing to simulate: a message (with --kind or --reply-to-prompt), "
                             "--vote or --react")
        if args.vote is not None:
            return await admin.simulate_vote(db, clock, phone=args.phone, option=args.vote)
        return await admin.simulate_reaction(db, clock, phone=args.phone, emoji=args.react, to=args.to)
    return await admin.simulate(db, clock, phone=args.phone, text=text, kind=args.kind,
                                reply_to_prompt=args.reply_to_prompt)


async def _erase_command(args: argparse.Namespace, db: Database, clock: SystemClock) -> int:
    from promptpipe.research import erasure

    plan = await erasure.plan(db, phone=args.phone)
    if not args.yes:
        print(f"This erases the personal data of {_cell(plan.name) or 'a participant'} ({plan.phone}, "
              f"{plan.participant_id}, {plan.status}): phone, name, notes, the texts of {plan.messages} message(s), "
              f"{plan.deliveries} prompt(s) and {plan.flags} flag(s), the profile. It cannot be undone; the "
              "pseudonymous id and the counts stay.")
        answer = await asyncio.to_thread(_ask, "Type the phone number again to confirm: ")
        if answer.strip().replace(" ", "") != plan.phone:
            return _fail("cancelled: the number did not match; nothing was changed")
    done = await erasure.erase(db, clock, phone=args.phone, by=args.by or "")
    print(f"erased {done.participant_id}: {done.messages} message text(s), {done.pending_inputs_closed} waiting "
          f"input(s) closed, {done.unsent_messages_dropped} unsent message(s) dropped; database log "
          f"checkpoint: {done.checkpoint}")
    return 0


def _ask(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        return ""


async def _flags_command(args: argparse.Namespace, db: Database, clock: SystemClock) -> None:
    if args.flags_action == "resolve":
        print(await oversight.resolve(db, clock, flag_id=args.flag_id, note=args.note, by=args.by or ""))
        return
    rows = await oversight.flags(db, include_resolved=args.all)
    if args.json:
        _print_json(rows)
        return
    _print_table(rows, ["id", "at", "participant_id", "severity", "source", "trigger", "status", "alert"]
                 + (["resolved_by", "note"] if args.all else []))


async def _inbox_command(args: argparse.Namespace, db: Database, clock: SystemClock) -> None:
    if args.inbox_action == "retry":
        print(await oversight.retry_inbox(db, clock, inbox_id=args.inbox_id))
    elif args.inbox_action == "skip":
        print(await oversight.skip_inbox(db, clock, inbox_id=args.inbox_id, by=args.by or ""))
    else:
        rows = await oversight.inbox_rows(db, stuck_only=args.stuck)
        if args.json:
            _print_json(rows)
        else:
            _print_table(rows, ["id", "at", "phone", "kind", "status", "attempts", "last_error"])


def _add_admin_follow_ups(sub: Any) -> None:
    """consent, flags and inbox: what researchers follow during a study."""
    erase = sub.add_parser("erase", help="remove a participant's personal data (asks to confirm; cannot be undone)")
    erase.add_argument("--phone", required=True)
    erase.add_argument("--yes", action="store_true", help="do not ask to confirm")
    erase.add_argument("--by", help="who erased them, for the consent record (default: your user name)")
    status = sub.add_parser("status", help="the service's WhatsApp state, outbox backlog, uncertain sends, "
                            "last model error")
    status.add_argument("--json", action="store_true")
    consent = sub.add_parser("consent", help="a participant's consent history (enrolled, opted out/in, paused ...)")
    consent.add_argument("--phone", required=True)
    consent.add_argument("--json", action="store_true")
    flags = sub.add_parser("flags", help="safety flags (open ones; --all for every flag); "
                           "`flags resolve ID --note ...`")
    flags.add_argument("--all", action="store_true", help="resolved flags too")
    flags.add_argument("--json", action="store_true")
    flag_actions = flags.add_subparsers(dest="flags_action")
    resolve = flag_actions.add_parser("resolve", help="mark a flag as dealt with")
    resolve.add_argument("flag_id", type=int)
    resolve.add_argument("--note", required=True, help="what was done (kept with the flag)")
    resolve.add_argument("--by", help="who resolved it (default: your user name)")
    inbox = sub.add_parser("inbox", help="inputs waiting to be answered; --stuck for those that failed "
                           "(`inbox retry ID`, `inbox skip ID`)")
    inbox.add_argument("--stuck", action="store_true", help="only inputs that failed or keep failing")
    inbox.add_argument("--json", action="store_true")
    inbox_actions = inbox.add_subparsers(dest="inbox_action")
    retry = inbox_actions.add_parser("retry", help="try a failed input again from scratch")
    retry.add_argument("inbox_id", type=int)
    skip = inbox_actions.add_parser("skip", help="give up on an input (it stays in the transcript)")
    skip.add_argument("inbox_id", type=int)
    skip.add_argument("--by", help="who skipped it (default: your user name)")


def admin_main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="promptpipe-admin", description="Manage study participants.")
    sub = parser.add_subparsers(dest="command", required=True)
    enroll = sub.add_parser("enroll", help="enroll a participant; the service greets them")
    enroll.add_argument("--phone", required=True, help="E.164, e.g. +14165550123")
    enroll.add_argument("--name", required=True)
    enroll.add_argument("--timezone", required=True, help="IANA zone, e.g. America/Toronto")
    enroll.add_argument("--background", help="notes for the agent about this participant")
    enroll.add_argument("--by", help="who enrolled them, for the consent record (default: your user name)")
    listing = sub.add_parser("list", help="all participants")
    listing.add_argument("--json", action="store_true")
    show = sub.add_parser("show", help="one participant: status, stage, profile")
    show.add_argument("--phone", required=True)
    show.add_argument("--json", action="store_true")
    simulate = sub.add_parser("simulate", help="act as the participant: a message, a vote, a reaction "
                              "(the running service answers as it would on WhatsApp)")
    simulate.add_argument("--phone", required=True)
    simulate.add_argument("text", nargs="*", help="the message text")
    simulate.add_argument("--kind", default="text", help="send a message without words instead: "
                          "voice, audio, image, video, sticker, document, location or contact")
    simulate.add_argument("--reply-to-prompt", metavar="DATE", help="a swipe reply to the daily prompt of that "
                          "local day (YYYY-MM-DD)")
    simulate.add_argument("--vote", metavar="OPTION", help="tap an option of the newest prompt's poll: its words "
                          "(\"Done\", \"Just right\") or its number on the newest poll")
    simulate.add_argument("--react", metavar="EMOJI", help="react to the newest daily prompt (\"\" takes it back)")
    simulate.add_argument("--to", choices=admin.REACTION_TARGETS, default="prompt",
                          help="with --react: the prompt (default) or its poll")
    transcript = sub.add_parser("transcript", help="every message in and out, with times and status")
    transcript.add_argument("--phone", required=True)
    transcript.add_argument("--json", action="store_true")
    for action, text in (("pause", "stop all scheduled messages to a participant"),
                         ("resume", "switch a paused participant back on"),
                         ("withdraw", "withdraw a participant from the study (final)")):
        status = sub.add_parser(action, help=text)
        status.add_argument("--phone", required=True)
        status.add_argument("--reason", help="kept in the audit log and the consent record")
        status.add_argument("--by", help="who did it, for the consent record (default: your user name)")
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
    export = sub.add_parser("export", help="write the study's data, pseudonymised (participants, messages, "
                            "deliveries, transitions, tone changes, consent, flags), to files for analysis")
    export.add_argument("--out", required=True, help="directory for the files (created if missing)")
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="csv (default) or jsonl")
    export.add_argument("--force", action="store_true", help="overwrite files from an earlier export")
    export.add_argument("--include-identifiers", action="store_true",
                        help="also write identifiers.<format>: participant id, phone and name (keep it apart)")
    _add_admin_follow_ups(sub)
    args = parser.parse_args(argv)
    os.umask(PRIVATE_UMASK)  # exports and a new SQLite file are for this user only
    settings = _settings()
    if settings is None:
        return 1
    return _run(lambda: _admin(args, settings))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
