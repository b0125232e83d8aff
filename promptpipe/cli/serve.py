"""``promptpipe``: serve (the service), chat (play a participant in this terminal), check, and ``study check FILE``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from promptpipe.cli._common import fail, load, run, stop_on_signals
from promptpipe.cli._db import db_command
from promptpipe.cli._evaluate_args import add_arguments
from promptpipe.cli._health import health_command
from promptpipe.clock import Clock, SystemClock
from promptpipe.config import Settings, TransportName
from promptpipe.config.generate import what_differs
from promptpipe.config.process_env import (
    QR_RENEWAL_ENV,
    RECONNECT_ENV,
    bot_tag_off,
    count_restart,
    restarts_so_far,
    set_bot_tag_off,
)
from promptpipe.domain.text import for_terminal
from promptpipe.errors import PromptPipeError
from promptpipe.logging import configure_logging, get_logger
from promptpipe.research import admin
from promptpipe.research.status import read_status
from promptpipe.storage.db import Database
from promptpipe.storage.files import PRIVATE_UMASK, LooseMode, loose_modes, tighten
from promptpipe.storage.state_dir import ensure_state_dir, first_missing
from promptpipe.storage.urls import sqlite_file
from promptpipe.study.rules.file import StudyFileError, load_study
from promptpipe.study.rules.summary import SEED_IN_DATABASE_WARNING, describe
from promptpipe.study.rules.words import word_warnings
from promptpipe.study.store.protocol import protocol_history

__all__ = ["QR_RENEWAL_ENV", "RESTART", "STOP_DEADLINE_S", "main"]


def _state_files(settings: Settings) -> list[LooseMode]:
    """State files (and the SQLite database, wherever it lives) that other users could read."""
    database = sqlite_file(settings.database_url)
    extra = [] if database is None else [database.with_name(database.name + suffix) for suffix in ("", "-wal", "-shm")]
    return loose_modes(settings.state_dir, extra)


async def _start_web(settings: Settings, db: Database, clock: Clock) -> Any:
    """The HTTP API and dashboard beside the service, imported only here: the web stack costs ~0.5-1 s of CPU to
    import, which every service with ``API_LISTEN`` off would otherwise pay."""
    from promptpipe.cli._web import start_web

    return await start_web(settings, db, clock)


async def _serve(settings: Settings, transport: Any = None, stop: asyncio.Event | None = None,
                 started: asyncio.Event | None = None, *, allow_protocol_change: bool = False) -> int:
    """Run the service until ``stop`` (a signal) or it must stop by itself; ``started`` is set once it runs (tests)."""
    from promptpipe.app import App

    settings.require_llm()
    created = first_missing(settings.state_dir)
    ensure_state_dir(settings.state_dir)
    for item in tighten(_state_files(settings)):
        get_logger("promptpipe.cli").warning("state_file_mode_tightened", path=str(item.path),
                                             was=f"{item.mode:04o}", now=f"{item.wanted:04o}")
    app = App.build(settings, transport=transport)
    stop = stop_on_signals(stop or asyncio.Event())
    try:
        await app.start(single_instance=True, allow_protocol_change=allow_protocol_change)
    except BaseException:
        if created is not None:  # refused: a new state directory must not look like a real one
            shutil.rmtree(created, ignore_errors=True)
        raise
    try:
        web = await _start_web(settings, app.db, app.clock) if settings.api_listen else None
    except BaseException:
        await app.stop()
        raise
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
            if web is not None:
                await web.stop()
            await app.stop()
        finally:
            deadline.cancel()
    if app.fatal.is_set():
        if app.restart:
            request = app.restart_request
            if getattr(request, "kind", "qr") == "reconnect":
                return RESTART_AFTER_CONNECT if getattr(request, "connected", False) else RESTART_UNCONNECTED
            return RESTART
        return fail(app.fatal_reason)
    return 0


RESTART = -1
"""What ``_serve`` returns when the service must start again in a fresh process (a new QR code)."""
RESTART_AFTER_CONNECT, RESTART_UNCONNECTED = -2, -3
"""The same because the WhatsApp library's session failed, after or without having connected."""
RESTARTS = (RESTART, RESTART_AFTER_CONNECT, RESTART_UNCONNECTED)
RECONNECT_DELAYS_S = (0.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0)
"""The wait before each such start in a row (the last repeats), so a failing library is not hammered."""
STOP_DEADLINE_S = 20.0
"""The outbox gets 10 s to settle and WhatsApp 5 s to disconnect; after this the process ends anyway."""
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
    """Like :func:`run`, but a thread still alive ``wait_for_threads_s`` after the service stopped is left with
    ``os._exit`` (neonize 0.5.2 can leave one blocked in Go, which Python would join at exit for ever)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        code = loop.run_until_complete(coro_factory()) or 0
    except PromptPipeError as exc:
        code = fail(str(exc))
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
    if stuck and code not in RESTARTS:  # a restart replaces the process with exec, stuck threads and all
        get_logger("promptpipe.cli").warning("threads_left_behind", threads=len(stuck))
        _flush_everything()
        os._exit(code)
    return code


def _serve_command(settings: Settings, *, allow_protocol_change: bool = False) -> int:
    """``promptpipe serve``; a new QR code means a fresh process, a bounded number of times."""
    code = _run_service(lambda: _serve(settings, allow_protocol_change=allow_protocol_change))
    if code in (RESTART_AFTER_CONNECT, RESTART_UNCONNECTED):
        _start_afresh_for_whatsapp(code)
    if code != RESTART:
        return code
    renewals = restarts_so_far(QR_RENEWAL_ENV) + 1
    if renewals > settings.whatsapp_qr_renewals:
        minutes = round(renewals * QR_LIFETIME_MIN)
        return fail(f"nobody linked the study phone: {renewals} QR codes expired over about {minutes} minutes. "
                     "Run `promptpipe serve` again when the phone is at hand (or set WHATSAPP_PAIR_PHONE to link "
                     "with a code).")
    count_restart(QR_RENEWAL_ENV, renewals)
    _flush_everything()
    os.execv(sys.executable, [sys.executable, "-m", "promptpipe.cli", *sys.argv[1:]])


def _start_afresh_for_whatsapp(code: int) -> None:
    """Replace this process (never two WhatsApp clients in one) after a wait growing as fresh ones fail to connect."""
    in_a_row = 0 if code == RESTART_AFTER_CONNECT else restarts_so_far(RECONNECT_ENV)
    delay_s = RECONNECT_DELAYS_S[min(in_a_row, len(RECONNECT_DELAYS_S) - 1)]
    get_logger("promptpipe.cli").warning("restarting_for_whatsapp", restarts_in_a_row=in_a_row + 1, wait_s=delay_s)
    count_restart(RECONNECT_ENV, in_a_row + 1)
    _flush_everything()
    time.sleep(delay_s)
    os.execv(sys.executable, [sys.executable, "-m", "promptpipe.cli", *sys.argv[1:]])


async def _chat(settings: Settings, phone: str, name: str) -> int:
    from promptpipe.transport.console import ConsoleTransport

    phone = admin.validate_phone(phone)
    settings.require_llm()
    ensure_state_dir(settings.state_dir)
    db = Database(settings.database_url)
    await db.connect()
    try:
        await admin.refuse_if_live(db, "promptpipe chat")
        if await admin.find(db, phone) is None:  # enrolled already: carry on that conversation
            await admin.enroll(db, SystemClock(), admin.Enrolment(
                phone=phone, name=name, timezone=settings.default_timezone, study=settings.study, strata={},
                numbers=settings.number_plan))
    finally:
        await db.close()
    stop = asyncio.Event()
    return await _serve(settings, transport=ConsoleTransport(phone, on_exit=stop.set), stop=stop)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="promptpipe", description="PromptPipe WhatsApp research agent.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the service (WhatsApp, or dry-run with PROMPTPIPE_TRANSPORT=dry-run)")
    serve.add_argument("--allow-protocol-change", action="store_true",
                       help="adopt a study file that differs from the one this database runs (logged and exported)")
    chat = sub.add_parser("chat", help="play a participant in this terminal")
    chat.add_argument("--phone", required=True, help="the participant's phone, E.164 (+14165550123)")
    chat.add_argument("--name", default="Console tester", help="name used if the phone is not enrolled yet")
    sub.add_parser("web", help="only the HTTP API and dashboard on API_LISTEN, in a process of their own beside "
                   "`serve` (run serve with API_LISTEN empty); for large studies")
    sub.add_parser("check", help="validate settings and the database connection, then exit")
    sub.add_parser("health", help="ask the running service's /health on API_LISTEN (0: ok; the image's HEALTHCHECK)")
    database = sub.add_parser("db", help="the database schema: `promptpipe db current | history | upgrade`")
    database.add_argument("db_action", choices=("current", "history", "upgrade"),
                          help="current: its version; history: every version; upgrade: bring a database made by an "
                               "older release to this one's (a SQLite file is copied first)")
    study = sub.add_parser("study", help="the study file: `promptpipe study check FILE`")
    study_actions = study.add_subparsers(dest="study_action", required=True)
    study_check = study_actions.add_parser("check", help="validate a study file and summarise it")
    study_check.add_argument("file", help="the study file (TOML)")
    study_check.add_argument("--unblind", action="store_true",
                             help="also show the allocation's block sizes (keep them from whoever enrolls)")
    evaluate = sub.add_parser("evaluate", help="vet the coach before launch: simulated participants and hard cases "
                              "through the real engine on a virtual clock, checked and judged, into a report")
    add_arguments(evaluate)
    args = parser.parse_args(argv)
    if args.command == "study":
        return _study_check(args.file, unblind=args.unblind)
    os.umask(PRIVATE_UMASK)  # what the service and its libraries create is for this user only
    settings = load()
    if settings is None:
        return 1
    if args.command == "health":
        return health_command(settings)
    if args.command == "serve":
        _reexec_without_bot_label(settings)
        return _serve_command(settings, allow_protocol_change=args.allow_protocol_change)
    if args.command == "chat":
        return run(lambda: _chat(settings, args.phone, args.name))
    if args.command == "web":
        from promptpipe.cli._web import web_command  # see _start_web

        return run(lambda: web_command(settings, niceness=settings.web_niceness))
    if args.command == "evaluate":  # its sandboxes' service logs would bury its progress lines
        configure_logging(settings.log_format, debug=settings.debug, quiet=True)
        from promptpipe.cli._evaluate import evaluate_command

        return run(lambda: evaluate_command(settings, args))
    if args.command == "db":
        return run(lambda: db_command(settings, args.db_action))
    return run(lambda: _check(settings))


def _protocol_line(settings: Settings, running: str | None) -> str:
    """Whether the study file is the protocol this database runs (``serve`` refuses otherwise)."""
    study = settings.study
    if running not in (None, study.hash if study.in_use else ""):
        return ("study: the study file differs from the protocol this database runs; `promptpipe serve` will refuse "
                "to start unless given --allow-protocol-change")
    if not study.in_use:
        return "study: none (open-ended, one arm)"
    return (f"study: {study.name!r}, adopted when the service first starts" if running is None
            else f"study: {study.name!r} (hash {study.hash[:12]}), as this database runs it")


def _study_check(path: str, *, unblind: bool) -> int:
    """``promptpipe study check FILE``: every problem with the key and the fix, or a summary."""
    try:
        study = load_study(Path(path))
    except StudyFileError as exc:
        print(f"{path}: {len(exc.problems)} problem(s):", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {for_terminal(problem)}", file=sys.stderr)
        return 1
    for line in describe(study, unblind=unblind).splitlines():
        print(for_terminal(line))
    print(f"hash: {study.hash}")
    for warning in word_warnings(study):
        print(f"warning: {for_terminal(warning)}", file=sys.stderr)
    if study.seed_in_database:
        print(f"warning: {SEED_IN_DATABASE_WARNING}. Leave seed_in_database out to keep the seed in a 0600 file "
              "in the state directory (the database then keeps only its fingerprint).", file=sys.stderr)
    return 0


def _reexec_without_bot_label(settings: Settings) -> None:
    """neonize (Go) reads NEONIZE_BOT_TAG only at process start: turning the label off takes a restart with it set."""
    label_off = bot_tag_off()
    if settings.transport != TransportName.WHATSAPP or settings.whatsapp_bot_label or label_off:
        return
    set_bot_tag_off()
    os.execv(sys.executable, [sys.executable, "-m", "promptpipe.cli", *sys.argv[1:]])


async def _check(settings: Settings) -> int:
    settings.require_llm()
    ensure_state_dir(settings.state_dir)
    db = Database(settings.database_url)
    try:
        state = await db.connect()
        report = await read_status(db)
        history = await db.run(protocol_history)
    finally:
        await db.close()
    print(f"settings ok; database ok ({db.dialect}); transport {settings.transport}")
    for line in what_differs(settings):
        print(f"  {for_terminal(line)}")
    print(f"database schema: {state.describe()}")
    print(for_terminal(_protocol_line(settings, history[-1].hash if history else None)))
    for line in report.lines():
        print(for_terminal(line))
    for item in _state_files(settings):
        print(f"warning: {item.describe()}", file=sys.stderr)
    return 0
