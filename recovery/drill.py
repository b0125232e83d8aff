"""Recovery drill: kill the service with SIGKILL at random moments and count what participants got.

It seeds N participants of a micro-randomised study (each daily prompt is drawn as personalised or
fixed with probability 0.5) whose daily prompt is due in the next minute or so (in several time
zones, all at the same instant), runs ``promptpipe serve`` in dry-run mode against a fake model,
kills it with SIGKILL several times at random moments while prompts are generated and sent and
reminders come due, restarts it each time, and finally lets it finish. The dry-run journal plays
the phone network; from it the drill counts, per participant, the prompts and reminders expected,
delivered, lost and duplicated, and checks that every decision point has exactly one row whose
drawn action matches the prompt that went out. Exit status 1 on any loss, duplicate or mismatch.

With ``--processes 3`` (PostgreSQL) three services share the database (``SEVERAL_SERVICES``), the
participants are spread over three numbers, any of the services is killed, and each kill's
takeover time is printed (recovery/several.py).

    .venv/bin/python recovery/drill.py                       # 30 participants, 5 kills, SQLite
    .venv/bin/python recovery/drill.py --participants 200 --kills 12
    .venv/bin/python recovery/drill.py --database-url postgresql://postgres@127.0.0.1:5432/drill
    .venv/bin/python recovery/drill.py --processes 3 --database-url postgresql://postgres@127.0.0.1:5432/drill3

See recovery/RUNBOOK.md for what the figures mean.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from promptpipe.domain.states import Stage, Status  # noqa: E402
from promptpipe.storage.db import Database  # noqa: E402
from promptpipe.storage.models import Conversation, Participant  # noqa: E402
from promptpipe.storage.prompt_tables import Schedule  # noqa: E402
from promptpipe.storage.queue_tables import InboxItem, OutboxItem  # noqa: E402
from promptpipe.study.rules.file import parse_study  # noqa: E402
from promptpipe.study.store.protocol import adopt_protocol  # noqa: E402
from promptpipe.study.store.tables import Decision  # noqa: E402
from recovery import several  # noqa: E402
from recovery.services import Patience, kill, read_journal, service_env, since_due, start_service, stop  # noqa: E402

DRILL_PROMPT = "Drill prompt: after your coffee, stretch for one minute."
FIXED_PROMPT = "Drill fixed prompt: take three slow breaths."
NUMBER_NAMES = ("a", "b", "c", "d", "e", "f", "g", "h", "i")
"""The deployment's numbers with ``--processes``: one per service."""
ZONES = ("UTC", "America/Toronto", "Europe/Berlin", "Asia/Kolkata")
AREA_CODES = ("416", "514", "604", "613", "647", "905", "212", "312", "415", "617")
STUDY = f"""
name = "Recovery drill"
length_days = 28
fixed_prompts = ["{FIXED_PROMPT}"]

[decision]
actions = ["personalised", "fixed"]
p = 0.5
"""


class FakeModel(ThreadingHTTPServer):
    """Answers every chat completion with the same short prompt, after a small delay."""

    daemon_threads = True
    request_queue_size = 256  # the service opens many connections at once in a burst

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        super().__init__(("127.0.0.1", 0), _ModelHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request whose service was SIGKILLed mid-answer: expected here, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class _ModelHandler(BaseHTTPRequestHandler):
    server: FakeModel

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.server.delay_s)
        body = json.dumps({
            "id": "drill", "object": "chat.completion", "created": int(time.time()), "model": "drill",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": DRILL_PROMPT}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


def phone_of(index: int) -> str:
    """Fictional lines (555-0100 to 555-0199) in real area codes: up to 1,000 participants."""
    return f"+1{AREA_CODES[index // 100 % len(AREA_CODES)]}555{100 + index % 100:04d}"


async def seed(database_url: str, participants: int, due: datetime, numbers: Sequence[str] = (),
               study_seed: bytes | None = None) -> None:
    """The study, and participants in it (study day 1 was yesterday) with a complete profile and
    one fixed schedule firing at ``due`` (prep 0); with ``numbers``, spread over them in turn.
    ``study_seed``: the study's seed is kept outside the database (PROMPTPIPE_STUDY_SEED), as
    services sharing a database need (by default each would look for it in its own state directory)."""
    db = Database(database_url)
    await db.connect()
    now = datetime.now(timezone.utc)
    study = replace(parse_study(STUDY.encode()), outside_seed=study_seed)

    def write(session: Any) -> None:
        adopt_protocol(session, study, allow_change=False, now=now, by="recovery drill")
        for index in range(participants):
            pid = f"p_drill{index:05d}"
            zone = ZONES[index % len(ZONES)]
            habit = due.astimezone(ZoneInfo(zone)).strftime("%H:%M")
            yesterday = (now.astimezone(ZoneInfo(zone)) - timedelta(days=1)).date().isoformat()
            session.add(Participant(id=pid, phone=phone_of(index), name=f"Drill {index}", timezone=zone,
                                    status=Status.ACTIVE, enrolled_at=now, updated_at=now, day_one=yesterday,
                                    number=numbers[index % len(numbers)] if numbers else None))
            session.flush()
            session.add(Conversation(participant_id=pid, sub_state=Stage.FEEDBACK, updated_at=now, profile={
                "habit_domain": "stretching", "prompt_anchor": "after coffee", "preferred_time": habit,
                "motivational_frame": "feel looser"}))
            session.add(Schedule(id=f"s_drill{index:05d}", participant_id=pid, kind="fixed", habit_time=habit,
                                 prep_minutes=0, created_at=now, updated_at=now))

    await db.run(write)
    await db.close()


async def database_report(database_url: str) -> dict[str, int]:
    db = Database(database_url)
    await db.connect()

    def read(session: Any) -> dict[str, int]:
        inbox = dict(session.execute(select(InboxItem.status, func.count()).group_by(InboxItem.status)).all())
        outbox = dict(session.execute(select(OutboxItem.status, func.count()).group_by(OutboxItem.status)).all())
        return {"inbox missed": inbox.get("missed", 0), "inbox still pending": inbox.get("pending", 0),
                "inbox failed": inbox.get("failed", 0),
                "outbox not sent": sum(v for k, v in outbox.items() if k != "sent")}

    report = await db.run(read)
    await db.close()
    return report


async def decision_rows(database_url: str) -> list[tuple[str, int, str]]:
    """(participant id, inbox id, drawn action) of every decision point."""
    db = Database(database_url)
    await db.connect()
    rows = await db.run(lambda session: session.execute(
        select(Decision.participant_id, Decision.inbox_id, Decision.action)).all())
    await db.close()
    return [tuple(row) for row in rows]


def check_decisions(rows: list[tuple[str, int, str]], sent: list[dict[str, Any]], participants: int) -> bool:
    """One row per participant (one prompt time each), and the prompt that went out is the one
    the row drew; prints the figures, returns whether all holds."""
    per_participant = Counter(pid for pid, _, _ in rows)
    texts = {e["to"]: e["text"] for e in sent if e["ref"].startswith("prompt-text:")}
    phone = {f"p_drill{index:05d}": phone_of(index) for index in range(participants)}
    mismatched = [pid for pid, _, action in rows
                  if texts.get(phone[pid]) != (FIXED_PROMPT if action == "fixed" else DRILL_PROMPT)]
    drawn = Counter(action for _, _, action in rows)
    print(f"decision points: {len(rows)} rows for {participants} prompt times; more than one row: "
          f"{sum(1 for n in per_participant.values() if n > 1)}; none: {participants - len(per_participant)}; "
          f"prompt not the one drawn: {len(mismatched)}; drawn {dict(drawn)}")
    return len(rows) == participants == len(per_participant) and not mismatched


def start_model(delay_s: float) -> FakeModel:
    """The fake model, answering on a thread of its own until :meth:`FakeModel.shutdown`."""
    model = FakeModel(delay_s)
    threading.Thread(target=model.serve_forever, daemon=True).start()
    return model


def service_starts(log_path: Path) -> tuple[int, int]:
    """From the service's log: how often it started, and how many sends a kill interrupted (settled
    on the next start)."""
    lines = log_path.read_bytes().splitlines()
    return (sum(1 for line in lines if b'"service_started"' in line),
            sum(1 for line in lines if b'"outbox_interrupted_send"' in line))


def count_deliveries(sent: list[dict[str, Any]], participants: int) -> bool:
    """Prints, per kind of message, how many were expected (one per participant), delivered, lost
    and duplicated; returns whether any was lost or duplicated."""
    phones = [phone_of(index) for index in range(participants)]
    failed = False
    print(f"{'':22}{'expected':>9}{'delivered':>10}{'lost':>6}{'duplicated':>11}")
    for label, prefix in (("prompts", "prompt-text:"), ("did-you-do-it polls", "prompt-poll:"),
                          ("reminders", "reminder:")):
        counter = Counter(e["to"] for e in sent if e["ref"].startswith(prefix))
        lost = sum(1 for phone in phones if counter[phone] == 0)
        duplicated = sum(counter[phone] - 1 for phone in phones if counter[phone] > 1)
        failed = failed or bool(lost or duplicated)
        print(f"{label:22}{len(phones):>9}{sum(counter.values()):>10}{lost:>6}{duplicated:>11}")
    return failed


def drill_settings(reminder_delay_s: int) -> dict[str, str]:
    """The service settings of every drill: the prompt at the schedule's time, its reminder
    ``reminder_delay_s`` later, nothing else that would send."""
    return {"SCHEDULER_PREP_TIME_MINUTES": "0", "DAILY_PROMPT_REMINDER_DELAY": f"{reminder_delay_s}s",
            "AUTO_FEEDBACK_AFTER_PROMPT_ENABLED": "off", "FEEDBACK_INITIAL_TIMEOUT": "0",
            "FEEDBACK_FOLLOWUP_DELAY": "0", "INTENSITY_POLL_ENABLED": "off"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=30)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--reminder-delay", type=int, default=20, help="seconds from prompt to reminder")
    parser.add_argument("--lead", type=int, default=20, help="at least this many seconds until the prompts are due")
    parser.add_argument("--llm-delay", type=float, default=0.2, help="seconds the fake model takes per answer")
    parser.add_argument("--database-url", help="default: a fresh SQLite file in the drill directory")
    parser.add_argument("--processes", type=int, default=1,
                        help="services sharing the database (2 to 9: needs --database-url postgresql://…; "
                             "as many numbers, participants spread over them)")
    parser.add_argument("--lease-ttl", type=int, default=4, help="with --processes: LEASE_TTL in seconds")
    parser.add_argument("--lease-heartbeat", type=int, default=1, help="with --processes: LEASE_HEARTBEAT in seconds")
    parser.add_argument("--seed", type=int, help="random seed for the kill moments (and which service, how long down)")
    parser.add_argument("--clock-ahead", action="store_true",
                        help="run the services' clock ahead (recovery/ahead.py) so that the prompts come --lead "
                             "seconds from now, not at the next whole minute")
    parser.add_argument("--keep", action="store_true", help="keep the drill directory (logs, database, journal)")
    args = parser.parse_args(argv)
    if not 1 <= args.processes <= 9:
        parser.error("--processes: 1 to 9")
    if args.processes > 1 and not (args.database_url or "").startswith(("postgresql://", "postgres://")):
        parser.error("--processes 2 or more needs --database-url postgresql://… (an empty database): "
                     "services share their work through PostgreSQL")
    return args


def run_one(env: dict[str, str], log_path: Path, kill_at: list[float], due: datetime,
            participants: int, patience: Patience) -> list[dict[str, Any]]:
    """One service: SIGKILLed at each of ``kill_at`` and restarted at once, then left to finish
    (until every prompt, poll and reminder is in, or nothing more comes: a loss shows as a count
    that never completes); returns the journal's entries."""
    journal = Path(env["PROMPTPIPE_DRYRUN_JOURNAL"])
    log = open(log_path, "ab")  # noqa: SIM115
    service = start_service(env, log)
    for moment in kill_at:
        time.sleep(max(0.0, moment - time.time()))
        kill(service)
        print(f"  SIGKILL at {since_due(due)}; restarting", flush=True)
        service = start_service(env, log)
    while (count := len(read_journal(journal))) < 3 * participants and patience.waiting(count, time.time()):
        time.sleep(1)
    time.sleep(3)  # anything extra (a duplicate) would show up now
    stop(service)
    log.close()
    return read_journal(journal)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="promptpipe-drill-"))
    database_url = args.database_url or f"sqlite:///{workdir / 'drill.db'}"
    study_file = workdir / "study.toml"
    study_file.write_bytes(STUDY.encode())  # the same bytes (and hash) as the protocol seeded
    now = datetime.now(timezone.utc)
    due = (now + timedelta(seconds=args.lead + 60)).replace(second=0, microsecond=0)
    """On the services' clock; ``due_wall`` is the same moment on the wall clock."""
    ahead = due - (now + timedelta(seconds=args.lead)) if args.clock_ahead else timedelta(0)
    due_wall = due - ahead
    numbers = NUMBER_NAMES[:args.processes] if args.processes > 1 else ()
    study_seed = secrets.token_hex(32) if numbers else ""
    asyncio.run(seed(database_url, args.participants, due, numbers, bytes.fromhex(study_seed) or None))
    model = start_model(args.llm_delay)
    end = due_wall + timedelta(seconds=args.reminder_delay + 10)
    """Kills happen before this moment: around the prompts and the reminders."""
    start_ts = time.time()
    starting_s = 2 + 4 * (args.processes - 1)  # services started together take longer (3 on 2 cores: ~10 s)
    window_start = max(start_ts + starting_s, due_wall.timestamp() - 5)  # mostly while prompts and reminders fire
    kill_at = sorted(rng.uniform(window_start, end.timestamp()) for _ in range(args.kills))
    print(f"drill: {args.participants} participants, prompts due {due:%H:%M:%S} UTC, reminders "
          f"{args.reminder_delay}s later, {args.kills} SIGKILLs"
          + (f", the services' clock {ahead.total_seconds():.1f}s ahead" if args.clock_ahead else "")
          + (f", {args.processes} services sharing the numbers {', '.join(numbers)}" if numbers else "")
          + f"; directory {workdir}", flush=True)

    settings = drill_settings(args.reminder_delay) | ({"PROMPTPIPE_STUDY_SEED": study_seed} if numbers else {}) \
        | ({"DRILL_CLOCK_AHEAD_S": str(ahead.total_seconds())} if args.clock_ahead else {})
    # Wait while messages keep coming, and up to the old margin (reminders + 100 s) after the last
    # one: a slow restart delays the prompts, and the reminders follow the prompts, not the clock.
    patience = Patience(quiet_s=args.reminder_delay + 100, since=due_wall.timestamp(), cap=end.timestamp() + 240)
    failed = False
    if not numbers:
        log_paths = [workdir / "service.log"]
        sent = run_one(service_env(model.url, database_url, workdir, workdir / "delivered.jsonl", study_file,
                                   **settings), log_paths[0], kill_at, due_wall, args.participants, patience)
    else:
        run = several.run_services(several.Plan(
            model_url=model.url, database_url=database_url, workdir=workdir, study_file=study_file,
            numbers=numbers, settings=settings, lease_ttl_s=args.lease_ttl, lease_heartbeat_s=args.lease_heartbeat,
            participants=args.participants, due=due_wall, patience=patience, clock_ahead=ahead), kill_at, rng)
        sent, log_paths, failed = run.sent, run.log_paths, not run.ok
    model.shutdown()

    failed = count_deliveries(sent, args.participants) or failed
    details = asyncio.run(database_report(database_url))
    print("database: " + ", ".join(f"{k} {v}" for k, v in details.items()))
    failed = not check_decisions(asyncio.run(decision_rows(database_url)), sent, args.participants) or failed
    starts = [service_starts(path) for path in log_paths]
    print(f"service starts: {sum(s for s, _ in starts)} ({args.processes} + {args.kills} after SIGKILL; a start "
          f"killed early logs none); sends interrupted by a kill and settled on restart or takeover: "
          f"{sum(i for _, i in starts)}")
    print("log: " + ", ".join(str(path) for path in log_paths))
    why = "loss, duplicate or a decision point not drawn once" + (", or a lease never taken over" if numbers else "")
    print("RESULT: " + (f"FAILED ({why})" if failed
                        else "ok: nothing lost, nothing duplicated, every decision point drawn once"))
    if not args.keep and not failed:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
