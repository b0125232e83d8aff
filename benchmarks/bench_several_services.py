"""Several services on one PostgreSQL database (issue 30): 3 ``promptpipe serve`` processes, 3
numbers, 30,000 participants whose daily prompts fall due in the same minute. Figures: due ->
prompt (p50/p90/p99/max) and the last prompt, per process, missing and duplicate prompts; then a
failover run: the process holding the most numbers (the alarm clock breaking a tie) is SIGKILLed
mid-burst, once 30 % of the prompts are out, and the figures are the time until another process
holds each lease it had (read from ``number_lease``), and the last prompt.

Each run creates a fresh database (``bench_<random>`` on ``--server``, dropped at the end) and
seeds it in bulk: N active participants (INTAKE, complete profile) spread over five time zones
and over the numbers a, b, c, each with one fixed daily schedule whose prompt falls on the same
UTC instant, the first whole minute at least ``--lead`` seconds ahead, yesterday's prompt done.
Then it starts the real ``promptpipe serve`` N times (``SEVERAL_SERVICES=on``, ``WHATSAPP_NUMBERS=
a,b,c``, default LEASE_TTL 15 s and LEASE_HEARTBEAT 5 s, each with its own state directory, log and
dry-run journal, ``SEND_RATE_PER_SECOND=0``, auto feedback off so nothing else comes due during
the wait) against one fake OpenAI-compatible model answering every request after 200 ms. The
journals play the phone network (each send's time); they live on tmpfs when there is one, so
their fsync is not counted as the services' time. The script waits until every participant's
prompt and "did you do it?" poll are in the journals (gives up ``--give-up`` seconds after the
due instant), then 5 s more to catch a late duplicate.

A duplicate is a second prompt (or poll) to one participant. The dry-run transport recognises a
message it already sent by its outbox key only within its own journal; a send interrupted by the
SIGKILL goes back to pending (``resend_is_safe``) and is sent again by the new holder into another
journal: those same-key repeats are what an idempotent provider absorbs, and are counted apart.

Run: cd /work/main && .venv/bin/python benchmarks/bench_several_services.py [--participants N]
     [--processes P] [--skip-failover]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any
from zoneinfo import ZoneInfo

import psycopg
import sqlalchemy as sa
from _common import bench_phone, print_machine, summary, verdict
from bench_schedule_burst import PREP_MINUTES, PROMPT_TEXT, ZONES, habit_time_for, next_due
from sqlalchemy import insert
from sqlalchemy.engine import Connection

from promptpipe.domain import keys
from promptpipe.domain.localtime import FIXED, DailySpec, parse_hhmm
from promptpipe.domain.states import Stage, Status
from promptpipe.storage.db import Database
from promptpipe.storage.models import Conversation, Participant
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.storage.queue_tables import InboxItem, InboxStatus

ROOT = Path(__file__).resolve().parent.parent
PARTICIPANTS = 30_000
PROCESSES = 3
NUMBERS = ("a", "b", "c")
LLM_DELAY_S = 0.2
SERVER = "postgresql://postgres@127.0.0.1:5432/"
LEAD_S = 60.0
"""The due instant is the first whole minute at least this long after seeding."""
GIVE_UP_S = 600.0
"""After the due instant."""
AFTER_LAST_S = 5.0
KILL_AT_FRACTION = 0.3
"""The failover run kills when this share of the prompts is in the journals."""
STEP_S = 0.2
ROWS_PER_STATEMENT = 5_000

TARGET_LAST_PROMPT_S = 60.0  # issue 30: "prompts due in one minute"
TARGET_TAKEOVER_S = 30.0  # LEASE_TTL + LEASE_HEARTBEAT must be 30 s or less
TARGET_SEVERAL_OVER_ONE = 1.1  # issue 50: CPU per prompt with three services, against one (PostgreSQL)
TARGET_PG_OVER_SQLITE = 1.5  # issue 50: one service on PostgreSQL against one on SQLite

PROMPT, POLL, INTENSITY = "prompt-text:", "prompt-poll:", "intensity-poll:"


# --- the fake model ----------------------------------------------------------------------------


class FakeModel:
    """An OpenAI-compatible chat-completions endpoint on 127.0.0.1 answering every request with
    the prompt text after ``delay_s``: asyncio with HTTP/1.1 keep-alive on a thread of its own, so
    the hundreds of requests three services make at once cost it little CPU."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.requests = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-model", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        if self._thread.is_alive():  # not when seeding failed before it started
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length:
                    await reader.readexactly(length)
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                try:
                    await asyncio.sleep(self.delay_s)
                finally:
                    self.in_flight -= 1
                body = json.dumps({
                    "id": "bench", "object": "chat.completion", "created": int(time.time()), "model": "bench",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": PROMPT_TEXT}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body)
                await writer.drain()
                self.requests += 1
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()


# --- the database ------------------------------------------------------------------------------


def create_database(server: str) -> str:
    name = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(server + "postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(server: str, name: str) -> None:
    with psycopg.connect(server + "postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def seed(url: str, participants: int, due: datetime) -> list[str]:
    """Creates the schema, then bulk-inserts the participants (number ``NUMBERS[i % 3]``), their
    conversations, schedules and yesterday's prompt (done). Returns the phones."""
    db = Database(url)
    await db.connect()
    enrolled_at = datetime.now(timezone.utc) - timedelta(days=30)
    profile = {"habit": "a one-minute stretch", "prompt_anchor": "after my morning coffee",
               "preferred_time": "morning", "motivation": "my back hurts from sitting"}
    habits = {zone: habit_time_for(due, zone) for zone in ZONES}
    yesterday = {zone: DailySpec(kind=FIXED, habit_time=parse_hhmm(habits[zone]), prep_minutes=PREP_MINUTES)
                 .last_fire(due - timedelta(seconds=1), ZoneInfo(zone)) for zone in ZONES}
    people = [(f"p_bench{i:06d}", f"s_bench{i:06d}", bench_phone(i), ZONES[i % len(ZONES)], NUMBERS[i % len(NUMBERS)])
              for i in range(participants)]

    def write(conn: Connection) -> None:
        _insert(conn, Participant, [
            {"id": pid, "phone": phone, "lid": None, "name": f"Bench {i}", "timezone": zone, "status": Status.ACTIVE,
             "paused_by": None, "background": "", "enrolled_at": enrolled_at, "updated_at": enrolled_at,
             "number": number}
            for i, (pid, _, phone, zone, number) in enumerate(people)])
        _insert(conn, Conversation, [
            {"participant_id": pid, "sub_state": Stage.INTAKE, "profile": profile, "tone": {}, "summary": "",
             "version": 1, "updated_at": enrolled_at} for pid, *_ in people])
        _insert(conn, Schedule, [
            {"id": sid, "participant_id": pid, "kind": FIXED, "habit_time": habits[zone], "window_start": None,
             "window_end": None, "prep_minutes": PREP_MINUTES, "active": True, "created_at": enrolled_at,
             "updated_at": enrolled_at} for pid, sid, _, zone, _ in people])
        rows = []
        for pid, sid, _, zone, _ in people:
            day, when = yesterday[zone]
            rows.append({"key": keys.daily_prompt(pid, sid, day), "participant_id": pid, "kind": "daily_prompt",
                         "payload": {"schedule_id": sid, "local_date": day.isoformat(), "due_at": when.isoformat()},
                         "message_id": None, "status": InboxStatus.DONE, "attempts": 1, "available_at": when,
                         "created_at": when, "processed_at": when, "last_error": None})
        _insert(conn, InboxItem, rows)

    await db.run(lambda session: write(session.connection()))
    await db.close()
    return [phone for _, _, phone, _, _ in people]


def _insert(conn: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    table = model.__table__
    for start in range(0, len(rows), ROWS_PER_STATEMENT):
        conn.execute(insert(table), rows[start:start + ROWS_PER_STATEMENT])


@dataclass
class Lease:
    name: str
    holder: str
    expires_at: datetime


def read_leases(conn: psycopg.Connection[Any]) -> tuple[datetime, list[Lease]]:
    """The database's now and every lease row (numbers, ``@alarms``, presence rows)."""
    now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
    rows = conn.execute("SELECT name, holder, expires_at FROM number_lease").fetchall()
    return now, [Lease(name, holder, expires) for name, holder, expires in rows]


@dataclass
class ServerSample:
    """The database server's side of a run (a server on this machine): CPU of the backends serving the database, and
    its transactions, at one moment."""

    cpu_by_pid: dict[int, float]
    transactions: int
    rows_scanned: dict[str, int]
    """Per table, the rows read by sequential scans so far (a table read whole where an index would do shows here)."""

    @classmethod
    def read(cls, conn: psycopg.Connection[Any]) -> ServerSample:
        pids = [pid for (pid,) in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")]
        cpu = {}
        for pid in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            cpu[pid] = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
        conn.execute("SELECT pg_stat_clear_snapshot()")
        (transactions,) = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                       "WHERE datname = current_database()").fetchone()  # type: ignore[misc]
        scanned = {name: int(rows or 0) for name, rows in conn.execute(
            "SELECT relname, seq_tup_read FROM pg_stat_user_tables")}
        return cls(cpu, int(transactions), scanned)

    def since(self, earlier: ServerSample) -> tuple[float, int, dict[str, int]]:
        """CPU seconds, transactions and rows read by sequential scans per table from ``earlier`` to this sample (a
        backend started since counts whole)."""
        cpu = sum(now - earlier.cpu_by_pid.get(pid, 0.0) for pid, now in self.cpu_by_pid.items())
        scanned = {name: rows - earlier.rows_scanned.get(name, 0) for name, rows in self.rows_scanned.items()}
        return cpu, self.transactions - earlier.transactions, {name: n for name, n in scanned.items() if n}


def holder_pid(holder: str) -> int | None:
    """``host:pid:random`` -> pid."""
    parts = holder.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def held_by_pid(now: datetime, leases: list[Lease]) -> dict[int, list[str]]:
    """The live leases on numbers and ``@alarms``, by the holding process's pid."""
    held: dict[int, list[str]] = {}
    for lease in leases:
        pid = holder_pid(lease.holder)
        if pid is not None and lease.expires_at > now and not lease.name.startswith("@live"):
            held.setdefault(pid, []).append(lease.name)
    return held


def database_outcome(url: str) -> tuple[dict[str, int], dict[str, int], list[float]]:
    """Today's daily-prompt inbox rows and every outbox row, by status; when each of those inbox
    rows was written (wall-clock seconds)."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    since = datetime.now(timezone.utc) - timedelta(hours=1)
    today = "FROM inbox WHERE kind = 'daily_prompt' AND created_at > :since"
    try:
        with engine.connect() as conn:
            inbox = {status: n for status, n in conn.execute(
                sa.text(f"SELECT status, count(*) {today} GROUP BY status"), {"since": since})}
            written = [_epoch(at) for (at,) in conn.execute(sa.text(f"SELECT created_at {today}"), {"since": since})]
            by_status = sa.text("SELECT status, count(*) FROM outbox GROUP BY status")
            outbox = {status: n for status, n in conn.execute(by_status)}
    finally:
        engine.dispose()
    return inbox, outbox, written


def _epoch(at: datetime | str) -> float:
    """A stored time as wall-clock seconds (SQLite hands back text, stored in UTC)."""
    when = datetime.fromisoformat(at) if isinstance(at, str) else at
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


# --- the services ------------------------------------------------------------------------------


@dataclass
class Sent:
    kind: str
    ref: str
    to: str
    at: float
    """Wall-clock seconds."""


class Journal:
    """One service's dry-run journal, read as it grows (only whole lines)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sent: list[Sent] = []
        self._offset = 0
        self._rest = b""

    def read_new(self) -> list[Sent]:
        if not self.path.exists():
            return []
        with open(self.path, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
        self._offset += len(data)
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        new = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:  # torn by SIGKILL: never counted as sent
                continue
            ref = entry.get("ref", "")
            kind = next((k for k in (PROMPT, POLL, INTENSITY) if ref.startswith(k)), "other")
            new.append(Sent(kind, ref, entry["to"], datetime.fromisoformat(entry["at"]).timestamp()))
        self.sent.extend(new)
        return new


@dataclass
class Service:
    index: int
    process: subprocess.Popen[bytes]
    journal: Journal
    log_path: Path
    started_at: float
    killed_at: float | None = None
    peak_rss_mb: float | None = None
    cpu_s: float | None = None
    cpu_at_due_s: float | None = None
    """CPU time when the prompts fell due: what the burst cost is ``cpu_s`` minus this (start-up is not a prompt's)."""

    @property
    def pid(self) -> int:
        return self.process.pid

    def measure(self) -> None:
        """Peak RSS (VmHWM) and CPU time so far, from /proc (while the process still runs)."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                self.peak_rss_mb = int(line.split()[1]) / 1024
        self.cpu_s = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")

    def log_events(self, *names: str) -> list[tuple[str, float]]:
        """(event, wall time) of this service's log lines with these event names."""
        found = []
        for line in self.log_path.read_bytes().splitlines():
            if not any(f'"{name}"'.encode() in line for name in names):
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("event") in names and "timestamp" in entry:
                found.append((entry["event"], datetime.fromisoformat(entry["timestamp"]).timestamp()))
        return found


def service_env(model_url: str, database_url: str, workdir: Path, index: int, processes: int,
                shared: bool = True) -> dict[str, str]:
    """Service ``index`` of ``processes``: each number prefers one service (round robin), as a deployment that adds
    capacity would configure it; numbers stay with their service (they never move to balance). ``shared`` False: one
    service as deployed alone (``SEVERAL_SERVICES`` off, the default; always so on SQLite)."""
    several = "on" if shared and not database_url.startswith("sqlite") else "off"
    homes = ",".join(f"{number}=service-{place % processes}" for place, number in enumerate(NUMBERS))
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PROMPTPIPE_", "DATABASE_URL"))},
        "OPENAI_API_KEY": "bench", "OPENAI_BASE_URL": model_url, "LLM_MAX_RETRIES": "0",
        "DATABASE_URL": database_url, "PROMPTPIPE_STATE_DIR": str(workdir / f"state-{index}"),
        "PROMPTPIPE_TRANSPORT": "dry-run", "PROMPTPIPE_DRYRUN_JOURNAL": str(workdir / f"journal-{index}.jsonl"),
        "LOG_FORMAT": "json", "API_LISTEN": "", "SEND_RATE_PER_SECOND": "0",
        "SCHEDULER_PREP_TIME_MINUTES": str(PREP_MINUTES), "AUTO_FEEDBACK_AFTER_PROMPT_ENABLED": "off",
        "SEVERAL_SERVICES": several, "WHATSAPP_NUMBERS": ",".join(NUMBERS), "SERVICE_NAME": f"service-{index}",
        "PREFERRED_SERVICES": homes,
    }


def start_service(index: int, env: dict[str, str], workdir: Path, log: IO[bytes]) -> Service:
    process = subprocess.Popen([sys.executable, "-m", "promptpipe.cli", "serve"], env=env, cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT)
    return Service(index, process, Journal(workdir / f"journal-{index}.jsonl"), workdir / f"service-{index}.log",
                   time.time())


def stop_service(service: Service) -> None:
    if service.process.poll() is not None:
        return
    service.process.send_signal(signal.SIGTERM)
    try:
        service.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        service.process.kill()
        service.process.wait()


# --- one run -----------------------------------------------------------------------------------


@dataclass
class Takeover:
    victim: int
    """The killed service's index."""
    names: list[str]
    """What it held when killed."""
    killed_at: float
    prompts_before: int
    taken_at: dict[str, tuple[float, int]] = field(default_factory=dict)
    """Per name: when another service held it, and that service's index."""


@dataclass
class RunResult:
    label: str
    participants: int
    due: float
    seeded_in_s: float
    services: list[Service]
    held_at_due: dict[int, list[str]]
    settled_after_s: float | None
    """From the first start until every number and the alarm clock were held, one service each."""
    reconciled_at: list[float]
    sends: list[Sent]
    gave_up: bool
    takeover: Takeover | None
    inbox: dict[str, int]
    outbox: dict[str, int]
    inbox_written: list[float]
    model_requests: int
    model_peak_in_flight: int
    crashed: list[tuple[int, int]]
    server: tuple[float, int, dict[str, int]] | None = None
    """The database server's CPU seconds, transactions and rows read by sequential scans per table, from due to the
    last poll (PostgreSQL on this machine)."""
    """(service index, exit status) of services that ended by themselves."""


_WORKDIRS: list[Path] = []
"""Run directories to remove after their report (unless --keep)."""


def run(args: argparse.Namespace, failover: bool, *, sqlite: bool = False, shared: bool = True) -> RunResult:
    """One run on a fresh database: ``args.processes`` services on PostgreSQL, or one on a SQLite file (``sqlite``,
    on the disk the state directory would be on, as in production: no tmpfs). ``shared`` False: one service on
    PostgreSQL with ``SEVERAL_SERVICES`` off, as a study with one process runs it."""
    shared = shared and not sqlite
    label = "failover" if failover else "steady"
    workdir = Path(tempfile.mkdtemp(prefix="pp-bench-several-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    name = "" if sqlite else create_database(args.server)
    sqlite_dir = Path(tempfile.mkdtemp(prefix="pp-bench-sqlite-")) if sqlite else None
    url = f"sqlite:///{sqlite_dir}/promptpipe.db" if sqlite_dir else args.server + name
    processes = 1 if sqlite else args.processes
    model = FakeModel(LLM_DELAY_S)
    services: list[Service] = []
    logs: list[IO[bytes]] = []
    try:
        seeding = time.time()
        due = next_due(args.lead)
        phones = asyncio.run(seed(url, args.participants, due))
        if args.without_day_counts and not sqlite:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("DROP TRIGGER prompt_day_counts_delivery ON prompt_delivery")
        seeded_in_s = time.time() - seeding
        due_ts = due.timestamp()
        print(f"\n{label} run: database {name}, {args.participants:,} participants seeded in {seeded_in_s:.1f} s; "
              f"prompts due {due:%H:%M:%S} UTC ({due_ts - time.time():.0f} s from now); directory {workdir}",
              flush=True)
        model.start()
        for index in range(processes):
            log = open(workdir / f"service-{index}.log", "ab")  # noqa: SIM115
            logs.append(log)
            services.append(start_service(index, service_env(model.url, url, workdir, index, processes, shared),
                                          workdir, log))
        by_pid = {service.pid: service for service in services}
        first_start = services[0].started_at

        leases_conn = None if sqlite else psycopg.connect(url, autocommit=True)
        expected = set(phones)
        prompted: set[str] = set()
        polled: set[str] = set()
        sends: list[Sent] = []
        settled_after_s: float | None = None
        held_at_due: dict[int, list[str]] = {}
        takeover: Takeover | None = None
        kill_after = int(len(expected) * KILL_AT_FRACTION)
        give_up = due_ts + args.give_up
        complete_at: float | None = None
        gave_up = False
        crashed: list[tuple[int, int]] = []
        last_lease_read = 0.0
        server_at_due: ServerSample | None = None
        server: tuple[float, int, dict[str, int]] | None = None
        while True:
            now = time.time()
            for service in services:
                for sent in service.journal.read_new():
                    sends.append(sent)
                    if sent.kind == PROMPT:
                        prompted.add(sent.to)
                    elif sent.kind == POLL:
                        polled.add(sent.to)
            for service in services:
                status = service.process.poll()
                if status is not None and service.killed_at is None and (service.index, status) not in crashed:
                    crashed.append((service.index, status))
                    print(f"  service {service.index} (pid {service.pid}) ENDED by itself with status {status}; "
                          f"see {service.log_path}", flush=True)
            wants_leases = (settled_after_s is None or not held_at_due
                            or (takeover is not None and len(takeover.taken_at) < len(takeover.names)))
            if not shared and not held_at_due and now >= due_ts:  # one service, no leases: it holds everything
                settled_after_s = 0.0
                held_at_due = {0: ["@alarms", *NUMBERS]}
                for service in services:
                    service.measure()
                    service.cpu_at_due_s = service.cpu_s
                if leases_conn is not None:
                    server_at_due = ServerSample.read(leases_conn)
            if leases_conn is not None and wants_leases and now - last_lease_read >= STEP_S:
                last_lease_read = now
                db_now, leases = read_leases(leases_conn)
                held = held_by_pid(db_now, leases)
                if settled_after_s is None and _settled(held, processes):
                    settled_after_s = now - first_start
                    print(f"  leases settled {settled_after_s:.1f} s after the first start: "
                          + "; ".join(f"service {by_pid[pid].index} holds {', '.join(sorted(names))}"
                                      for pid, names in sorted(held.items(), key=lambda kv: by_pid[kv[0]].index)
                                      if pid in by_pid), flush=True)
                if not held_at_due and now >= due_ts:
                    for service in services:
                        service.measure()
                        service.cpu_at_due_s = service.cpu_s
                    server_at_due = ServerSample.read(leases_conn)
                    held_at_due = {by_pid[pid].index: sorted(names) for pid, names in held.items() if pid in by_pid}
                if takeover is not None:
                    victim_pid = services[takeover.victim].pid
                    for lease in leases:
                        pid = holder_pid(lease.holder)
                        if (lease.name in takeover.names and lease.name not in takeover.taken_at
                                and pid is not None and pid != victim_pid and lease.expires_at > db_now):
                            takeover.taken_at[lease.name] = (now, by_pid[pid].index if pid in by_pid else -1)
            if failover and leases_conn is not None and takeover is None and len(prompted) >= kill_after \
                    and now >= due_ts:
                takeover = kill_one(services, by_pid, read_leases(leases_conn), len(prompted), due_ts)
            if complete_at is None and prompted >= expected and polled >= expected:
                complete_at = now
                for service in services:
                    if service.killed_at is None:
                        service.measure()
                if leases_conn is not None and server_at_due is not None:
                    server = ServerSample.read(leases_conn).since(server_at_due)
            if complete_at is not None and now - complete_at >= AFTER_LAST_S and (
                    takeover is None or len(takeover.taken_at) == len(takeover.names) or now - takeover.killed_at > 60):
                break
            if now > give_up:
                gave_up = True
                break
            time.sleep(STEP_S)

        for service in services:
            if service.killed_at is None and complete_at is None:  # else measured when the last poll was out
                service.measure()
        inbox, outbox, inbox_written = database_outcome(url)
        if leases_conn is not None:
            leases_conn.close()
        reconciled = [at for service in services for event, at in service.log_events("alarms_reconciled")]
        return RunResult(
            label=label, participants=args.participants, due=due_ts, seeded_in_s=seeded_in_s, services=services,
            held_at_due=held_at_due, settled_after_s=settled_after_s, reconciled_at=reconciled, sends=sends,
            gave_up=gave_up, takeover=takeover, inbox=inbox, outbox=outbox, inbox_written=inbox_written,
            model_requests=model.requests,
            model_peak_in_flight=model.peak_in_flight, crashed=crashed, server=server)
    finally:
        for service in services:
            stop_service(service)
        for service_log in logs:
            service_log.close()
        model.stop()
        if name:
            drop_database(args.server, name)
        if sqlite_dir is not None:
            shutil.rmtree(sqlite_dir, ignore_errors=True)
        _WORKDIRS.append(workdir)  # removed once its report (which reads the logs) is printed


def _settled(held: dict[int, list[str]], processes: int) -> bool:
    """Every number and the alarm clock held, and no service holds more than its fair share."""
    names = [name for names in held.values() for name in names]
    fair = -(-len(NUMBERS) // processes)
    return (sorted(names) == sorted((*NUMBERS, "@alarms")) and len(held) == min(processes, len(NUMBERS) + 1)
            and all(sum(1 for name in names if name in NUMBERS) <= fair for names in held.values()))


def kill_one(services: list[Service], by_pid: dict[int, Service], leases: tuple[datetime, list[Lease]],
             prompts_before: int, due_ts: float) -> Takeover:
    """SIGKILL the service holding the most numbers, the alarm clock breaking a tie."""
    held = held_by_pid(*leases)
    candidates = [(sum(1 for name in names if name in NUMBERS), "@alarms" in names, pid)
                  for pid, names in held.items() if pid in by_pid]
    _, _, pid = max(candidates)
    victim = by_pid[pid]
    victim.measure()
    victim.process.send_signal(signal.SIGKILL)
    victim.killed_at = time.time()
    victim.process.wait()
    names = sorted(held[pid])
    print(f"  SIGKILL service {victim.index} (pid {pid}, holding {', '.join(names)}) at due+"
          f"{victim.killed_at - due_ts:.1f} s, {prompts_before:,} prompts in", flush=True)
    return Takeover(victim.index, names, victim.killed_at, prompts_before)


# --- the report --------------------------------------------------------------------------------


def report(result: RunResult, phones: int) -> float | None:
    """Prints the run's figures; returns the services' CPU per delivered prompt, from due until every prompt and poll
    was out (ms)."""
    due = result.due
    print(f"{result.label}: {len(result.services)} services, numbers {','.join(NUMBERS)}")
    starts = {s.index: [at for _, at in s.log_events("service_started")] for s in result.services}
    for service in result.services:
        started = starts[service.index]
        ready = f"started in {started[0] - service.started_at:.1f} s" if started else "never logged service_started"
        print(f"  service {service.index} (pid {service.pid}): {ready}; holds at due "
              f"{', '.join(result.held_at_due.get(service.index, [])) or 'nothing'}")
    if result.reconciled_at:
        first = min(result.reconciled_at)
        print(f"  alarm clock reconciled {first - result.services[0].started_at:.1f} s after the first start, "
              f"{due - first:.1f} s before due" + (f" (reconciled {len(result.reconciled_at)} times)"
                                                   if len(result.reconciled_at) > 1 else ""))
    if result.settled_after_s is None:
        print("  the leases never settled (one holder per number and one alarm clock)")
    elif result.services[0].started_at + result.settled_after_s > due:
        print(f"  WARNING: the leases settled {result.services[0].started_at + result.settled_after_s - due:.1f} s "
              "after the due instant")

    first_by_kind: dict[str, dict[str, float]] = {PROMPT: {}, POLL: {}, INTENSITY: {}}
    per_phone: dict[str, Counter[str]] = {kind: Counter() for kind in first_by_kind}
    refs: dict[str, Counter[str]] = {kind: Counter() for kind in first_by_kind}
    for sent in result.sends:
        if sent.kind in first_by_kind:
            times = first_by_kind[sent.kind]
            times[sent.to] = min(times.get(sent.to, sent.at), sent.at)
            per_phone[sent.kind][sent.to] += 1
            refs[sent.kind][sent.ref] += 1
    prompt_late = [at - due for at in first_by_kind[PROMPT].values()]
    pair_late = [max(at, first_by_kind[POLL][phone]) - due for phone, at in first_by_kind[PROMPT].items()
                 if phone in first_by_kind[POLL]]
    if result.inbox_written:
        print(f"  due -> inbox row         {summary([at - due for at in result.inbox_written], 's')}  "
              f"({len(result.inbox_written):,})")
    if prompt_late:
        print(f"  due -> prompt            {summary(prompt_late, 's')}  ({len(prompt_late):,})")
    if pair_late:
        print(f"  due -> prompt and poll   {summary(pair_late, 's')}")
    missing = phones - len(first_by_kind[PROMPT])
    missing_polls = phones - len(first_by_kind[POLL])
    same_key = {kind: sum(n - 1 for n in refs[kind].values() if n > 1) for kind in refs}
    duplicates = {kind: sum(n - 1 for n in per_phone[kind].values() if n > 1) - same_key[kind] for kind in per_phone}
    other = sum(1 for sent in result.sends if sent.kind == "other")
    print(f"  prompts {len(first_by_kind[PROMPT]):,} of {phones:,}, polls {len(first_by_kind[POLL]):,}, intensity "
          f"polls {len(first_by_kind[INTENSITY]):,}; missing prompts {missing}, missing polls {missing_polls}; "
          f"other messages {other}")
    print(f"  duplicates (a second outbox row to one participant): prompts {duplicates[PROMPT]}, polls "
          f"{duplicates[POLL]}, intensity polls {duplicates[INTENSITY]}")
    if any(same_key.values()):
        print(f"  the same outbox row sent again from another service's journal (a send the kill interrupted, "
              f"back to pending: the dry-run's resend_is_safe; an idempotent provider absorbs these, the Cloud API "
              f"would mark them uncertain): prompts {same_key[PROMPT]}, polls {same_key[POLL]}, intensity polls "
              f"{same_key[INTENSITY]}")
    for service in result.services:
        counts = Counter(sent.kind for sent in service.journal.sent)
        end = "killed" if service.killed_at is not None else "stopped"
        rss = f"peak RSS {service.peak_rss_mb:.0f} MB" if service.peak_rss_mb is not None else "peak RSS unknown"
        cpu = f", CPU {service.cpu_s:.0f} s" if service.cpu_s is not None else ""
        if service.cpu_s is not None and service.cpu_at_due_s is not None and counts[PROMPT]:
            burst = service.cpu_s - service.cpu_at_due_s
            cpu += f" ({burst:.1f} s from due until the last poll: {1000 * burst / counts[PROMPT]:.1f} ms per prompt)"
        own = [sent.at - due for sent in service.journal.sent if sent.kind == PROMPT]
        spread = f", prompts due+{min(own):.1f} .. due+{max(own):.1f} s" if own else ""
        print(f"  service {service.index}: prompts {counts[PROMPT]:,}, polls {counts[POLL]:,}, intensity "
              f"{counts[INTENSITY]:,}{spread}; {rss}{cpu} ({end})")
    burst_cpu = [s.cpu_s - s.cpu_at_due_s for s in result.services
                 if s.cpu_s is not None and s.cpu_at_due_s is not None]
    per_prompt = None
    if burst_cpu and len(burst_cpu) == len(result.services) and first_by_kind[PROMPT]:
        per_prompt = 1000 * sum(burst_cpu) / len(first_by_kind[PROMPT])
        print(f"  CPU from due until every prompt and poll was out, all services: {sum(burst_cpu):.1f} s, "
              f"{1000 * sum(burst_cpu) / len(first_by_kind[PROMPT]):.1f} ms per prompt delivered (its poll included)")
    if result.server is not None and first_by_kind[PROMPT]:
        server_cpu, transactions, scanned = result.server
        delivered = len(first_by_kind[PROMPT])
        print(f"  database server, from due until every prompt and poll was out: {server_cpu:.1f} s CPU "
              f"({1000 * server_cpu / delivered:.1f} ms per prompt), {transactions:,} transactions "
              f"({transactions / delivered:.1f} per prompt)")
        if scanned:
            print("  rows the database read by sequential scans, by table: " + ", ".join(
                f"{name} {rows:,}" for name, rows in sorted(scanned.items(), key=lambda kv: -kv[1])[:5]))
    print(f"  model requests {result.model_requests:,}, at most {result.model_peak_in_flight} at the same time")
    print(f"  database after: today's daily-prompt inbox rows {result.inbox}; outbox {result.outbox}")
    if result.takeover is not None:
        takeover = result.takeover
        for name in takeover.names:
            if name in takeover.taken_at:
                at, by = takeover.taken_at[name]
                print("  " + verdict(f"takeover of {name:<8} (kill -> held by service {by})", at - takeover.killed_at,
                                     TARGET_TAKEOVER_S, "s"))
            else:
                print(f"  takeover of {name}: NOT taken over")
        late = [at - due for at in first_by_kind[PROMPT].values() if at > takeover.killed_at]
        if late:
            print(f"  prompts after the kill: {len(late):,}, the last {max(late):.1f} s after due")
    for index, status in result.crashed:
        print(f"  CRASH: service {index} ended by itself with status {status}")
    if result.gave_up:
        print(f"  GAVE UP {GIVE_UP_S:.0f} s after the due instant")
    if prompt_late:
        complete = "" if not missing else f" (only {len(prompt_late):,} of {phones:,})"
        print("  " + verdict("last prompt after due", max(prompt_late), TARGET_LAST_PROMPT_S, "s") + complete)
    print(f"  missing {missing + missing_polls}, duplicates {sum(duplicates.values())}: "
          + ("OK" if not missing + missing_polls + sum(duplicates.values()) else "MISSED"))
    return per_prompt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=PARTICIPANTS)
    parser.add_argument("--processes", type=int, default=PROCESSES)
    parser.add_argument("--skip-failover", action="store_true")
    parser.add_argument("--server", default=SERVER, help="PostgreSQL server URL ending in '/' (a database is made "
                                                         "there)")
    parser.add_argument("--lead", type=float, default=LEAD_S, help="at least this many seconds until the prompts "
                                                                   "are due")
    parser.add_argument("--give-up", type=float, default=GIVE_UP_S, help="seconds after the due instant")
    parser.add_argument("--keep", action="store_true", help="keep the directory (logs, journals)")
    parser.add_argument("--compare", action="store_true",
                        help="the cost per prompt side by side, steady runs only: one service on SQLite, one on "
                             "PostgreSQL alone (SEVERAL_SERVICES=off) and shared (on), then --processes on PostgreSQL")
    parser.add_argument("--without-day-counts", action="store_true",
                        help="diagnosis only: drop the trigger that keeps prompt_day_counts on each prompt_delivery "
                             "change (what counting costs each prompt; since revision 0019 each connection adds to "
                             "its own row of a day and arm, so no longer a row every commit waits for)")
    args = parser.parse_args()
    asyncio.run(print_machine())
    print(f"{args.participants:,} participants on numbers {','.join(NUMBERS)}, {args.processes} `promptpipe serve` "
          f"processes (SEVERAL_SERVICES=on, LEASE_TTL 15 s, LEASE_HEARTBEAT 5 s), every daily prompt due at the same "
          f"instant; fake model answers after {LLM_DELAY_S * 1000:.0f} ms; SEND_RATE_PER_SECOND=0; PostgreSQL "
          f"{args.server}")
    if args.without_day_counts:
        print("DIAGNOSIS: the prompt_day_counts trigger on prompt_delivery is dropped (statistics go stale)")
    if args.compare:
        compare(args)
        return
    for failover in (False, True):
        if failover and args.skip_failover:
            break
        try:
            report(run(args, failover=failover), args.participants)
        finally:
            while _WORKDIRS and not args.keep:
                shutil.rmtree(_WORKDIRS.pop(), ignore_errors=True)


def compare(args: argparse.Namespace) -> None:
    """CPU per delivered prompt: one service on SQLite; one on PostgreSQL as deployed alone (``SEVERAL_SERVICES``
    off, the default), then as one of several (on); ``args.processes`` on PostgreSQL (on)."""
    several = args.processes
    figures: dict[str, float | None] = {}
    for label, sqlite, processes, shared in (
            ("SQLite, 1 service", True, 1, False), ("PostgreSQL, 1 service alone", False, 1, False),
            ("PostgreSQL, 1 service shared", False, 1, True),
            (f"PostgreSQL, {several} services", False, several, True)):
        args.processes = processes
        print(f"\n=== {label}" + (" (SEVERAL_SERVICES=on)" if shared else " (SEVERAL_SERVICES=off)" * (not sqlite)))
        try:
            figures[label] = report(run(args, failover=False, sqlite=sqlite, shared=shared), args.participants)
        finally:
            while _WORKDIRS and not args.keep:
                shutil.rmtree(_WORKDIRS.pop(), ignore_errors=True)
    print("\nCPU per delivered prompt (all services, from due until every prompt and poll was out; its polls "
          "included):")
    for label, ms in figures.items():
        print(f"  {label:<30} " + (f"{ms:.1f} ms" if ms is not None else "not measured"))
    sqlite_ms, alone, one, many = figures.values()
    if sqlite_ms and alone:
        print("  " + verdict("PostgreSQL 1 service alone / SQLite", alone / sqlite_ms, TARGET_PG_OVER_SQLITE, "x"))
    if sqlite_ms and one:
        print(f"  (PostgreSQL 1 service shared / SQLite: {one / sqlite_ms:.2f} x; what SEVERAL_SERVICES=on adds to one "
              f"service: {one / alone:.2f} x)" if alone else f"  (PostgreSQL 1 service shared / SQLite: "
              f"{one / sqlite_ms:.2f} x)")
    if one and many:
        print("  " + verdict(f"{several} services / 1 service (PostgreSQL)", many / one, TARGET_SEVERAL_OVER_ONE, "x"))


if __name__ == "__main__":
    main()
