"""The HTTP API and the dashboard at the scale of a large study: with 10,000 participants and
1,000,000 transcript messages in the database, every page and API call answers in ≤ 300 ms of
server time; and the API's p99 at 100 requests/s while 1,000 messages arrive at once.

A child process seeds a fresh SQLite file with bulk INSERTs (a 28-day study: participants in five
time zones and two arms, their conversations with counters, 100 transcript messages each with the
inbox and outbox rows and WhatsApp's receipts behind them, 28 daily prompts each with their inbox
event and ``prompt_delivery`` row, one daily schedule, a few hundred safety flags). The service
then starts as ``promptpipe serve`` composes it (``App.build`` with an in-memory transport and a
fake LLM taking 200 ms, background loops on; the web server on 127.0.0.1 with its own read-only
database of four connections), and a second child process plays the browser and the API client
over real HTTP, so the client's work does not run on the service's event loop:

1. Idle service: each API endpoint and each dashboard page that exists (signed in through the
   ``/login`` form; path parameters from the seeded database: participants, a day of theirs with
   a prompt, safety flags, two report tables, a name and phone numbers to search for), one
   request at a time, ~30 times; p50 / p99 / max of the server time read
   from the ``Server-Timing: app;dur=…`` header, and of the client's wall time.
2. Pairs of bursts (2 by default): 1,000 messages from 1,000 participants at once without API
   traffic, and the same burst (other participants) while the client fires API requests at a
   steady 100/s (open loop: each at its planned time, however long the earlier ones take) until
   the burst is answered and at least 10 s have passed. The second pair runs in the other order,
   so that a database growing over the run favours neither; the medians are compared. With
   --bursts-only, 3 s of the load's mix first warm the web server up (the idle pages do otherwise).
   Each burst also prints, from its start to its last reply, the mean time from a message to its reply, and what the
   kernel counted for the service process (this one) and the web process: CPU seconds of all their threads, and the
   seconds their threads were runnable but waited for a core (``/proc/PID/task/*/schedstat``). At the end, each
   figure's ratio with load / without within each pair, over the pairs: the mean with its 95 % confidence interval,
   the median with a 95 % interval that one disturbed pair cannot stretch (order statistics), and the range. The
   wall time to the last reply moves ±10 % between pairs of the same code on a 2-core VM; the service's CPU resolves
   ±2-3 % over 20 pairs (--pairs; the sets of participants come round again past 4 pairs at 10,000 participants).

With --web-process the API is served by ``promptpipe web`` in a child process, at the CPU
priority it takes (WEB_NICENESS; --web-niceness N overrides it); the web process's CPU is printed.

Benchmarks print; nothing here asserts on timing.

Run: cd /work/main && .venv/bin/python benchmarks/bench_web.py
     [--participants N] [--messages-per-participant M] [--burst B] [--rate R] [--keep-db DIR [--reuse-db]]
     [--idle-only | --bursts-only] [--pairs P] [--web-process [--web-niceness N]]
(--keep-db DIR --reuse-db --idle-only: the pages and endpoints again on the database seeded before,
in about 5 minutes instead of 8; within the hour, while the seeded prompts' times still hold.)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import multiprocessing
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote
from zoneinfo import ZoneInfo

from _common import (
    USER_TEXT,
    FakeLLM,
    TimedTransport,
    bench_phone,
    build_app,
    make_settings,
    peak_rss_mb,
    percentile,
    print_machine,
    quiet_logging,
)

from promptpipe.cli._web import WEB_READERS
from promptpipe.domain import keys
from promptpipe.domain.localtime import FIXED, DailySpec, parse_hhmm
from promptpipe.domain.messages import MessageStatus
from promptpipe.domain.states import ALARMED, Stage, Status
from promptpipe.storage.db import Database
from promptpipe.storage.models import ConsentEvent, Conversation, Flag, Message, Participant, Receipt, Transition
from promptpipe.storage.prompt_tables import PromptDelivery, Schedule
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus

PARTICIPANTS = 10_000
MESSAGES_PER_PARTICIPANT = 100
DAYS = 28
ZONES = ("UTC", "Europe/Berlin", "America/Toronto", "Asia/Kolkata", "Australia/Adelaide")
ARMS = ("coach", "control")
PREP_MINUTES = 10
LAST_PROMPT_AGO = timedelta(hours=2)
"""Every participant's latest daily prompt went out this long before seeding (the next is ~22 h away)."""
QUIET_DAYS = 5
"""Participants who went quiet (5 % of the active ones, and everyone paused or withdrawn) wrote
nothing in the last days of the study."""
SEED_CHUNK = 100
"""Participants per seeding transaction."""
FLAGS, OPEN_FLAGS = 200, 120
PROMPT = "After lunch, put your shoes on and walk to the corner and back: ten minutes that settle the afternoon."
REPLY = "Thanks for telling me! What made it easier today?"

TARGET_MS = 300.0
REQUESTS_PER_ENDPOINT = 30
ENDPOINT_BUDGET_S = 15.0
"""Stop measuring one endpoint after this long (a slow one still gets a few requests)."""
SAMPLE_PARTICIPANTS = 30
"""Per-participant endpoints rotate over this many participants (a researcher opens different people)."""

BURST = 1_000
PAIRS = 2
"""Bursts without and with API load: a pair each, the second pair in the other order."""
KEEP_ALIVE_S = 4.0
"""The load's client reuses a connection idle for less than this (the server keeps one 5 s)."""
LLM_DELAY_S = 0.2
LOAD_RATE = 100.0
LOAD_MIN_S = 10.0
LOAD_MAX_S = 30.0
"""The load stops once the burst is answered and LOAD_MIN_S have passed, and at LOAD_MAX_S in any case
(the burst is then waited for without load, so its total time is still known)."""
WARM_UP_S = 3.0
"""With --bursts-only, the load's mix runs this long before the first burst (see :func:`warm_up`)."""
BURST_GIVE_UP_S = 120.0
WAIT_STEP_S = 0.01
HTTP_TIMEOUT_S = 30.0
BENCH_BURST_README_S = 5.02
"""bench_burst.py's figure for the same burst on 1,000 participants with no history (default lanes)."""

EXPECTED_PAGES = ("/", "/participants", "/participants/{participant_id}", "/adherence", "/flags", "/questionnaires",
                  "/participants/{participant_id}/timeline", "/participants/{participant_id}/days/{day}", "/search",
                  "/report", "/report/{table}.csv", "/flags/{flag_id}", "/participants/new", "/participants/import",
                  "/broadcast", "/pilot")
SERVER_TIMING = re.compile(r"\bapp;dur=([0-9.]+)")
CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


# ---------------------------------------------------------------------------------------- seeding
# Rows go in through the sqlite3 module with the values already in the form SQLAlchemy stores them
# (UTC times as text, JSON as text, booleans as 0/1): SQLAlchemy's executemany spends most of its
# time converting each value, which made seeding 1,000,000 messages take several minutes.

def ts(value: datetime) -> str:
    """A UTC instant as SQLAlchemy stores it in SQLite (``YYYY-MM-DD HH:MM:SS.ffffff``)."""
    return value.astimezone(timezone.utc).replace(tzinfo=None).isoformat(" ", "microseconds")


@dataclass
class Zone:
    """One time zone's daily schedule: the habit time whose prompt went out LAST_PROMPT_AGO before
    seeding, and the 28 study days ending with that prompt's day (fire times in UTC)."""

    zone: ZoneInfo
    habit: str
    days: list[date]
    fires: list[datetime]

    @classmethod
    def build(cls, name: str, now: datetime) -> Zone:
        zone = ZoneInfo(name)
        local = (now - LAST_PROMPT_AGO + timedelta(minutes=PREP_MINUTES)).astimezone(zone)
        habit = f"{local.hour:02d}:{local.minute:02d}"
        spec = DailySpec(kind=FIXED, habit_time=parse_hhmm(habit), prep_minutes=PREP_MINUTES)
        last_day, _ = spec.last_fire(now, zone)
        days = [last_day - timedelta(days=DAYS - 1 - d) for d in range(DAYS)]
        return cls(zone, habit, days, [spec.fire_at(day, zone).astimezone(timezone.utc) for day in days])


@dataclass
class Rows:
    """One chunk of participants' rows, by table, with running ids."""

    now: datetime
    zones: dict[str, Zone]
    per_participant: int
    next_message: int
    next_inbox: int
    rng: random.Random
    flag_every: int
    """Every this many participants one has a safety flag (FLAGS in all)."""
    tables: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, model: Any, /, **values: Any) -> None:
        self.tables.setdefault(model, []).append(values)

    def inbox_id(self) -> int:
        self.next_inbox += 1
        return self.next_inbox


def _status(rng: random.Random) -> str:
    roll = rng.random()
    return (Status.PAUSED if roll < 0.06 else Status.COMPLETED if roll < 0.11 else Status.WITHDRAWN if roll < 0.15
            else Status.ACTIVE)


def _counters(votes: list[str | None], days: list[date]) -> dict[str, Any]:
    streak = best = 0
    for vote in votes:
        streak = streak + 1 if vote == "done" else 0
        best = max(best, streak)
    done = [day for day, vote in zip(days, votes, strict=True) if vote == "done"]
    missed = [day for day, vote in zip(days, votes, strict=True) if vote != "done"]
    return {"prompts_sent": len(votes), "successes": len(done), "misses": len(missed), "current_streak": streak,
            "best_streak": best, "last_success_date": done[-1].isoformat() if done else None,
            "last_miss_date": missed[-1].isoformat() if missed else None}


def _transcript(rows: Rows, pid: str, zone: Zone, talk_days: int) -> tuple[dict[int, int], dict[int, int],
                                                                          dict[int, datetime], int | None]:
    """out, in, out, in … spread over the days they talked; each day's first message out is its
    prompt, the second its poll. Returns the prompt and poll ids and first reply time by day, and
    the id of the last message in."""
    rng, count = rows.rng, rows.per_participant
    outbound = math.ceil(count / 2)
    spacing = min(timedelta(minutes=15), timedelta(minutes=100) / (math.ceil(count / talk_days) + 1))
    prompt_ids: dict[int, int] = {}
    poll_ids: dict[int, int] = {}
    first_in: dict[int, datetime] = {}
    slots: dict[int, int] = {}
    last_in_id, day = None, 0
    for position in range(count):
        rows.next_message += 1
        mid = rows.next_message
        wa = f"3EB0{mid:016X}"
        inbound = position % 2 == 1
        if not inbound:
            day = (position // 2) * talk_days // outbound
        slot = slots[day] = slots.get(day, -1) + 1
        moment = zone.fires[day] + spacing * slot
        at = ts(moment)
        if inbound:
            kind, status, text, sent = "text", "answered", USER_TEXT, None
            first_in.setdefault(day, moment)
            last_in_id = mid
            rows.add(InboxItem, id=rows.inbox_id(), key=f"wa:{wa}", participant_id=pid, kind="message",
                     payload="{}", message_id=mid, status=InboxStatus.DONE, attempts=1, available_at=at, created_at=at,
                     processed_at=at, last_error=None)
        else:
            kind = "prompt" if day not in prompt_ids else "poll" if day not in poll_ids else "text"
            if kind == "prompt":
                prompt_ids[day] = mid
            elif kind == "poll":
                poll_ids[day] = mid
            status, sent = MessageStatus.SENT, at
            text = PROMPT if kind == "prompt" else "Did you do it?" if kind == "poll" else REPLY
            rows.add(OutboxItem, key=f"reply:{wa}", participant_id=pid, message_id=mid, status=OutboxStatus.SENT,
                     attempts=1, available_at=at, claimed_at=at, sent_at=at, wa_message_id=wa, last_error=None,
                     created_at=at)
            if rng.random() < 0.95:
                rows.add(Receipt, wa_message_id=wa, kind="delivered", at=ts(moment + timedelta(seconds=3)),
                         received_at=ts(moment + timedelta(seconds=4)))
            if rng.random() < 0.70:
                rows.add(Receipt, wa_message_id=wa, kind="read", at=ts(moment + timedelta(minutes=10)),
                         received_at=ts(moment + timedelta(minutes=10, seconds=1)))
        rows.add(Message, id=mid, participant_id=pid, direction="in" if inbound else "out",
                 role="user" if inbound else "assistant", kind=kind, text=text, payload="{}", wa_message_id=wa,
                 status=status, created_at=at, sent_at=sent, receipts_expected=0 if inbound else 1)
    return prompt_ids, poll_ids, first_in, last_in_id


def _participant(rows: Rows, index: int) -> None:
    rng, now = rows.rng, rows.now
    pid, sid = f"p_{index:016x}", f"s_{index:08x}"
    zone = rows.zones[ZONES[index % len(ZONES)]]
    status = _status(rng)
    stage = Stage.INTAKE if rng.random() < 0.05 else Stage.FEEDBACK
    quiet = status in (Status.PAUSED, Status.WITHDRAWN) or (status == Status.ACTIVE and rng.random() < 0.05)
    talk_days = DAYS - QUIET_DAYS if quiet else DAYS
    enrolled = ts(zone.fires[0] - timedelta(days=1))
    prompt_ids, poll_ids, first_in, last_in_id = _transcript(rows, pid, zone, talk_days)

    # One daily prompt a day: its inbox event, its delivery row and the answer.
    votes: list[str | None] = []
    for day, (local, fire) in enumerate(zip(zone.days, zone.fires, strict=True)):
        inbox_id, at = rows.inbox_id(), ts(fire)
        rows.add(InboxItem, id=inbox_id, key=keys.daily_prompt(pid, sid, local), participant_id=pid,
                 kind="daily_prompt", payload=json.dumps({"schedule_id": sid, "local_date": local.isoformat(),
                                                          "due_at": fire.isoformat()}),
                 message_id=None, status=InboxStatus.DONE, attempts=1, available_at=at, created_at=at, processed_at=at,
                 last_error=None)
        roll = rng.random()
        vote = None if day >= talk_days else "done" if roll < 0.55 else "not_this_time" if roll < 0.70 else None
        votes.append(vote)
        reminder = fire + timedelta(hours=5)
        replied = first_in.get(day) if rng.random() < 0.5 else None
        rows.add(PromptDelivery, participant_id=pid, inbox_id=inbox_id, schedule_id=sid, local_date=local.isoformat(),
                 prompt_text=PROMPT, prompt_message_id=prompt_ids.get(day), poll_message_id=poll_ids.get(day),
                 sent_at=at, vote=vote, voted_at=ts(fire + timedelta(minutes=20)) if vote else None, vote_changes=0,
                 vote_source="tap" if vote else None, replied_at=ts(replied) if replied else None,
                 reminder_at=ts(reminder) if vote is None and reminder < now else None)

    rows.add(Participant, id=pid, phone=bench_phone(index), lid=None, name=f"Bench {index}",
             timezone=zone.zone.key, status=status, opted_out=int(status == Status.PAUSED), researcher_paused=0,
             paused_by="participant" if status == Status.PAUSED else None, background="", enrolled_at=enrolled,
             updated_at=enrolled, erased_at=None, erased_by=None, arm=ARMS[index % len(ARMS)], strata=None,
             day_one=zone.days[0].isoformat() if stage == Stage.FEEDBACK else None, extra_days=0,
             completed_at=ts(now - timedelta(hours=1)) if status == Status.COMPLETED else None)
    profile = {"habit_domain": "walking", "prompt_anchor": "after lunch", "preferred_time": zone.habit,
               "motivational_frame": "sleep better", "last_habit_prompt": PROMPT,
               "last_prompt_sent_at": zone.fires[-1].isoformat(), "counters": _counters(votes, zone.days)}
    rows.add(Conversation, participant_id=pid, sub_state=stage, profile=json.dumps(profile),
             tone=json.dumps({"active": ["warm"]}), summary="", summary_through=0, turns_since_summary=0, version=1,
             updated_at=enrolled)
    rows.add(Schedule, id=sid, participant_id=pid, kind=FIXED, habit_time=zone.habit, window_start=None,
             window_end=None, prep_minutes=PREP_MINUTES, active=int(status in ALARMED), created_at=enrolled,
             updated_at=enrolled)
    rows.add(Transition, participant_id=pid, kind="status", name="enrolled", from_value=None, to_value=Status.ACTIVE,
             reason="seeded by benchmark", actor="researcher", created_at=enrolled)
    rows.add(ConsentEvent, participant_id=pid, event="enrolled", source="researcher", actor="Dr. Bench", words="",
             reconstructed=False, created_at=enrolled)
    every = rows.flag_every
    if index % every == 7 % every and index // every < FLAGS and last_in_id is not None:
        number = index // every
        still_open = number < OPEN_FLAGS
        raised = zone.fires[-1] - timedelta(hours=number % 48)
        rows.add(Flag, participant_id=pid, source="screen", severity=("high", "medium", "low")[number % 3],
                 trigger="i can't go on", message_id=last_in_id, status="open" if still_open else "resolved",
                 resolved_at=None if still_open else ts(raised + timedelta(hours=1)),
                 resolved_by=None if still_open else "Dr. Bench", resolution_note="" if still_open else "called them",
                 alert_status="none", alert_attempts=0, alerted_at=None, created_at=ts(raised))


SEEDED = (Participant, Conversation, Schedule, Transition, ConsentEvent, Message, InboxItem, OutboxItem, Receipt,
          PromptDelivery, Flag)


def _write(conn: sqlite3.Connection, rows: Rows) -> None:
    conn.execute("BEGIN")
    for model in SEEDED:
        batch = rows.tables.get(model, [])
        if batch:
            columns = list(batch[0])
            conn.executemany(f"INSERT INTO {model.__table__.name} ({', '.join(columns)}) "
                             f"VALUES ({', '.join(':' + name for name in columns)})", batch)
    conn.execute("COMMIT")


async def _seed(url: str, participants: int, per_participant: int) -> None:
    db = Database(url)
    await db.connect()  # the schema, with every index, as the service creates it
    await db.close()
    now = datetime.now(timezone.utc)
    zones = {name: Zone.build(name, now) for name in ZONES}
    rng = random.Random(20261124)
    path = url.split(":///", 1)[1]
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer = ThreadPoolExecutor(1)  # one chunk is written while the next is built
    pending = None
    next_message = next_inbox = 0
    try:
        for first in range(0, participants, SEED_CHUNK):
            rows = Rows(now, zones, per_participant, next_message, next_inbox, rng, max(1, participants // FLAGS))
            for index in range(first, min(first + SEED_CHUNK, participants)):
                _participant(rows, index)
            if pending is not None:
                pending.result()
            pending = writer.submit(_write, conn, rows)
            next_message, next_inbox = rows.next_message, rows.next_inbox
        if pending is not None:
            pending.result()
    finally:
        writer.shutdown()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()


def seed_in_child(url: str, participants: int, per_participant: int) -> None:
    quiet_logging()
    asyncio.run(_seed(url, participants, per_participant))


def table_counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {model.__table__.name: conn.execute(f"SELECT count(*) FROM {model.__table__.name}").fetchone()[0]
                for model in SEEDED}
    finally:
        conn.close()


@dataclass(frozen=True)
class Population:
    """Who is in the seeded database (read back from it)."""

    total: int
    burst_phones: list[list[str]]
    """Active participants in FEEDBACK, one set per burst, the two of a pair disjoint (with more pairs than the
    database has participants for, sets come round again)."""
    sample_ids: list[str]
    """Active participants in FEEDBACK spread over the study, for the per-participant endpoints."""
    sample_days: list[str]
    """For each of sample_ids, a local day that had a daily prompt (its middle study day)."""
    flag_ids: list[int]
    """Safety flags, open and resolved."""
    sample_phones: list[str]
    """The phone numbers of sample_ids (a search that finds one participant)."""


def population(path: Path, burst: int, pairs: int) -> Population:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        total = conn.execute("SELECT count(*) FROM participant").fetchone()[0]
        rows = conn.execute("SELECT p.id, p.phone FROM participant p JOIN conversation c ON c.participant_id = p.id "
                            "WHERE p.status = ? AND c.sub_state = ? ORDER BY p.id",
                            (Status.ACTIVE, Stage.FEEDBACK)).fetchall()
        size = min(burst, len(rows) // 2)
        # More pairs than there are participants for: the groups come round again (a pair's two never the same).
        groups = max(2, min(2 * pairs, len(rows) // max(1, size)) // 2 * 2)
        rest = rows[groups * size:] or rows
        step = max(1, len(rest) // SAMPLE_PARTICIPANTS)
        sample = rest[::step][:SAMPLE_PARTICIPANTS]
        days = [conn.execute("SELECT local_date FROM prompt_delivery WHERE participant_id = ? ORDER BY local_date "
                             "LIMIT 1 OFFSET ?", (pid, DAYS // 2)).fetchone()[0] for pid, _ in sample]
        flag_ids = [row[0] for row in conn.execute("SELECT id FROM flag ORDER BY id LIMIT 40")]
    finally:
        conn.close()
    return Population(total, [[phone for _, phone in rows[i % groups * size:(i % groups + 1) * size]]
                              for i in range(2 * pairs)],
                      [pid for pid, _ in sample], days, flag_ids, [phone for _, phone in sample])


# ------------------------------------------------------------------------------- the HTTP client
# A child process plays the browser and the API client: its work (building requests, parsing
# answers) would otherwise run on the service's own event loop and be counted as server time.

@dataclass(frozen=True)
class Target:
    """What to measure: a label and the paths to request in turn (``api``: bearer token;
    ``page``: the dashboard's session cookie)."""

    label: str
    kind: str
    paths: tuple[str, ...]
    accept: tuple[int, ...] = (200,)


@dataclass
class Sample:
    status: int
    client_ms: float
    server_ms: float | None
    planned_s: float = 0.0
    """Open loop: when it was due, in seconds from the start."""
    lag_ms: float = 0.0
    """Open loop: how late the client sent it."""
    label: str = ""


def server_ms(headers: Any) -> float | None:
    match = SERVER_TIMING.search(headers.get("server-timing", ""))
    return float(match.group(1)) if match else None


class RawHttp:
    """A small HTTP/1.1 client for the load: GET only, keep-alive connections taken from a free
    list (a new one when all are busy). httpx spends ~2 ms of CPU per request on this VM, as much
    as the service spends answering a small one; this spends a fraction of that, so the client
    takes less of the two cores from the service it measures.

    Like any keep-alive client, it drops a connection the server may have closed for idleness
    (uvicorn closes one after 5 s): taking such a one from the free list failed a request now and
    then, in the bench, not in the server."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        self.host, _, port = base_url.removeprefix("http://").rpartition(":")
        self.port = int(port)
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.head = f"Host: {self.host}:{self.port}\r\n{extra}\r\n"
        self.free: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        while self.free:
            reader, writer, freed = self.free.pop()
            if not reader.at_eof() and time.monotonic() - freed < KEEP_ALIVE_S:
                return reader, writer
            writer.close()
        return await asyncio.open_connection(self.host, self.port)

    async def get(self, path: str) -> tuple[int, dict[str, str]]:
        reader, writer = await self._connection()
        try:
            writer.write(f"GET {path} HTTP/1.1\r\n{self.head}".encode())
            lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            headers = {name.strip().lower(): value.strip()
                       for name, _, value in (line.partition(":") for line in lines[1:] if line)}
            if headers.get("transfer-encoding", "").lower() == "chunked":
                while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                    await reader.readexactly(size + 2)
                await reader.readuntil(b"\r\n")
            else:
                await reader.readexactly(int(headers.get("content-length", "0")))
        except BaseException:
            writer.close()
            raise
        if headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self.free.append((reader, writer, time.monotonic()))
        return status, headers

    def close(self) -> None:
        for _, writer, _ in self.free:
            writer.close()
        self.free = []


class _Client:
    def __init__(self, base_url: str, token: str) -> None:
        import httpx

        limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
        self.api = httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {token}"},
                                     timeout=HTTP_TIMEOUT_S, limits=limits)
        self.pages = httpx.AsyncClient(base_url=base_url, timeout=HTTP_TIMEOUT_S, limits=limits)
        self.raw = RawHttp(base_url, {"Authorization": f"Bearer {token}"})
        self.token = token

    async def sign_in(self) -> str:
        """Through the /login form, as a browser does; returns what happened."""
        form = await self.pages.get("/login")
        match = CSRF_FIELD.search(form.text)
        if form.status_code != 200 or match is None:
            return f"sign-in form: HTTP {form.status_code}, no csrf field found"
        answer = await self.pages.post("/login", data={"token": self.token, "csrf": match.group(1), "next": "/"})
        if answer.status_code != 303 or "pp_session" not in self.pages.cookies:
            return f"sign-in refused: HTTP {answer.status_code}"
        return "signed in"

    async def get(self, kind: str, path: str, label: str = "") -> Sample:
        client = self.api if kind == "api" else self.pages
        started = time.perf_counter()
        answer = await client.get(path)
        await answer.aread()
        return Sample(answer.status_code, (time.perf_counter() - started) * 1000, server_ms(answer.headers),
                      label=label)

    async def sequential(self, targets: list[Target], count: int, budget_s: float) -> list[list[Sample]]:
        """Each target one request at a time: one first request, then up to ``count`` more."""
        results = []
        for target in targets:
            samples = [await self.get(target.kind, target.paths[0], "first")]
            ends = time.perf_counter() + budget_s
            for i in range(count):
                if time.perf_counter() > ends:
                    break
                samples.append(await self.get(target.kind, target.paths[(i + 1) % len(target.paths)]))
            results.append(samples)
        return results

    async def open_loop(self, targets: list[Target], rate: float, start_wall: float, stop: Any) -> list[Sample]:
        """A request every 1/rate s from ``start_wall`` (``time.time()``), each fired at its planned
        time whatever the earlier ones are doing, until ``stop()`` or LOAD_MAX_S. API only."""
        start = time.perf_counter() + (start_wall - time.time())
        tasks: list[asyncio.Task[Sample]] = []

        async def one(target: Target, path: str, planned: float) -> Sample:
            sent = time.perf_counter()
            try:
                status, headers = await asyncio.wait_for(self.raw.get(path), HTTP_TIMEOUT_S)
                sample = Sample(status, (time.perf_counter() - sent) * 1000, server_ms(headers), label=target.label)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                sample = Sample(0, (time.perf_counter() - sent) * 1000, None, label=type(exc).__name__)
            sample.planned_s, sample.lag_ms = planned, (sent - start - planned) * 1000
            return sample

        for index in range(int(LOAD_MAX_S * rate)):
            planned = index / rate
            delay = start + planned - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if stop():
                break
            target = targets[index % len(targets)]
            path = target.paths[(index // len(targets)) % len(target.paths)]
            tasks.append(asyncio.create_task(one(target, path, planned)))
        return list(await asyncio.gather(*tasks))


def http_client_main(conn: Any, base_url: str, token: str) -> None:
    """The child: runs the jobs the parent sends (``(name, args)``) and sends back their results."""
    loop = asyncio.new_event_loop()
    client = _Client(base_url, token)
    stopped = False

    def stop() -> bool:
        nonlocal stopped
        if not stopped and conn.poll():
            stopped = conn.recv() == "stop"
        return stopped

    conn.send("ready")
    while True:
        job = conn.recv()
        if job is None:
            break
        if job == "stop":  # came after an open loop that had already ended at LOAD_MAX_S
            continue
        name, args = job
        if name == "sign_in":
            conn.send(loop.run_until_complete(client.sign_in()))
        elif name == "sequential":
            conn.send(loop.run_until_complete(client.sequential(*args)))
        elif name == "open_loop":
            stopped, cpu = False, time.process_time()
            samples = loop.run_until_complete(client.open_loop(*args, stop=stop))
            conn.send((samples, time.process_time() - cpu))
    client.raw.close()
    loop.run_until_complete(client.api.aclose())
    loop.run_until_complete(client.pages.aclose())
    loop.close()


class HttpChild:
    """The client process, driven through a pipe."""

    def __init__(self) -> None:
        self.process: Any = None
        self.conn: Any = None

    async def start(self, base_url: str, token: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe()
        self.process = context.Process(target=http_client_main, args=(child_end, base_url, token), daemon=True)
        self.process.start()
        if await self.receive() != "ready":
            raise RuntimeError("the HTTP client process did not start")

    async def receive(self) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, self.conn.recv)

    async def call(self, name: str, *args: Any) -> Any:
        self.conn.send((name, args))
        return await self.receive()

    def send(self, message: Any) -> None:
        self.conn.send(message)

    async def stop(self) -> None:
        if self.process is None:
            return
        self.conn.send(None)
        await asyncio.get_running_loop().run_in_executor(None, self.process.join, 10)
        if self.process.is_alive():
            self.process.kill()


# --------------------------------------------------------------------------------- what is measured

def api_targets(pop: Population, stats_from: date, stats_to: date) -> list[Target]:
    base = "/api/v1/participants"
    one = [f"{base}/{pid}" for pid in pop.sample_ids]
    return [
        Target("GET /api/v1/participants", "api", (base,)),
        Target("GET /api/v1/participants?sort=-last_in", "api", (f"{base}?sort=-last_in",)),
        Target("GET /api/v1/participants?sort=answered", "api", (f"{base}?sort=answered",)),
        Target("GET /api/v1/participants?silent_days=3", "api", (f"{base}?silent_days=3",)),
        Target("GET /api/v1/participants?status=active&arm=coach", "api", (f"{base}?status=active&arm=coach",)),
        Target(f"GET /api/v1/participants?offset={max(0, pop.total - 50)}", "api",
               (f"{base}?offset={max(0, pop.total - 50)}",)),
        Target("GET /api/v1/participants/{id}", "api", tuple(one)),
        Target("GET /api/v1/participants/{id}/transcript", "api", tuple(f"{path}/transcript" for path in one)),
        Target("GET /api/v1/participants/{id}/schedules", "api", tuple(f"{path}/schedules" for path in one)),
        Target("GET /api/v1/participants/{id}/timers", "api", tuple(f"{path}/timers" for path in one)),
        Target("GET /api/v1/participants/{id}/deliveries", "api", tuple(f"{path}/deliveries" for path in one)),
        Target(f"GET /api/v1/stats ({(stats_to - stats_from).days + 1} days)", "api",
               (f"/api/v1/stats?from={stats_from.isoformat()}&to={stats_to.isoformat()}",)),
        Target("GET /api/v1/status", "api", ("/api/v1/status",)),
        Target("GET /api/v1/flags", "api", ("/api/v1/flags",)),
        Target("GET /api/v1/participants/{id}/timeline", "api", tuple(f"{path}/timeline" for path in one)),
        Target("GET /api/v1/participants/{id}/timeline?kind=prompt", "api",
               tuple(f"{path}/timeline?kind=prompt" for path in one)),
        Target("GET /api/v1/participants/{id}/inputs", "api", tuple(f"{path}/inputs" for path in one)),
        Target(f"GET /api/v1/participants/search?q={NAME_SEARCH}", "api",
               (f"{base}/search?q={quote(NAME_SEARCH)}",)),
        Target("GET /api/v1/participants/search?q={phone}", "api",
               tuple(f"{base}/search?q={quote(phone)}" for phone in pop.sample_phones)),
        Target("GET /api/v1/attention", "api", ("/api/v1/attention",)),
        Target("GET /api/v1/audit", "api", ("/api/v1/audit",)),
    ]


LOAD_MIX = {"participant list": "GET /api/v1/participants", "one participant": "GET /api/v1/participants/{id}",
            "transcript": "GET /api/v1/participants/{id}/transcript", "status": "GET /api/v1/status"}
"""The requests fired during the burst, in turn, and the idle measurement of each."""


def load_targets(pop: Population) -> list[Target]:
    base = "/api/v1/participants"
    return [
        Target("participant list", "api", (base,)),
        Target("one participant", "api", tuple(f"{base}/{pid}" for pid in pop.sample_ids)),
        Target("transcript", "api", tuple(f"{base}/{pid}/transcript" for pid in pop.sample_ids)),
        Target("status", "api", ("/api/v1/status",)),
    ]


NAME_SEARCH = "Bench 12"
"""A part of a name that 111 seeded participants share (Bench 12, Bench 120 … Bench 1299)."""
PAGE_VARIANTS = {
    "/participants": ("", "?sort=-last_in", "?sort=answered", "?sort=-streak", "?status=active&arm=coach&silent=3",
                      "?page={last_page}"),
    "/adherence": ("", "?sort=-enrolled", "?sort=answered", "?sort=-answered", "?sort=last_in"),
    "/search": (f"?q={quote(NAME_SEARCH)}",),
}
PATH_PARAMETER = re.compile(r"\{(\w+)\}")
NOT_PAGES = ("/login", "/logout", "/health", "/report/export.zip")
"""/report/export.zip is the whole study as a download (bench_export measures the export)."""
REPORT_TABLES = ("prompts", "adherence")


def get_routes(routes: Sequence[Any]) -> list[tuple[str, set[str]]]:
    """(path, methods) of every route, through included routers (FastAPI ≥ 0.16x keeps them nested)."""
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older FastAPI: include_router copies the routes in
        contexts: Any = routes
    else:
        contexts = iter_route_contexts(routes)
    return [(route.path, set(route.methods or ())) for route in contexts if getattr(route, "path", None)]


def page_targets(routes: Sequence[Any], pop: Population) -> tuple[list[Target], list[str], list[str]]:
    """Every dashboard page the site serves (its GET routes outside /api and /static), with the
    paths to request; and the page routes not measured, and the expected pages that are missing."""
    paths = [path for path, methods in get_routes(routes) if "GET" in methods
             and not path.startswith(("/api/", "/static", "/openapi")) and path not in NOT_PAGES]
    targets, skipped = [], []
    values: dict[str, Sequence[Any]] = {"participant_id": pop.sample_ids, "action": ["pause"], "day": pop.sample_days,
                                        "flag_id": pop.flag_ids}
    for path in paths:
        names = PATH_PARAMETER.findall(path)
        if path == "/report/{table}.csv":
            targets += [Target(f"GET /report/{name}.csv", "page", (f"/report/{name}.csv",)) for name in REPORT_TABLES]
            continue
        if any(name not in values for name in names):
            skipped.append(path)
            continue
        if path == "/participants/find":
            targets.append(Target("GET /participants/find?who={id}", "page",
                                  tuple(f"{path}?who={pid}" for pid in pop.sample_ids), accept=(303,)))
            continue
        if path == "/search":
            targets.append(Target("GET /search?q={phone} (one match)", "page",
                                  tuple(f"{path}?q={quote(phone)}" for phone in pop.sample_phones), accept=(303,)))
        if names:
            # the i-th path takes the i-th value of each parameter (a participant with a day of theirs)
            count = max(len(values[name]) for name in names)
            concrete = [PATH_PARAMETER.sub(lambda m, i=i: str(values[m.group(1)][i % len(values[m.group(1)])]), path)
                        for i in range(count)]
            targets.append(Target(f"GET {path}", "page", tuple(concrete)))
            continue
        for variant in PAGE_VARIANTS.get(path, ("",)):
            query = variant.format(last_page=max(1, math.ceil(pop.total / 50)))
            targets.append(Target(f"GET {path}{query}", "page", (path + query,)))
    missing = [path for path in EXPECTED_PAGES if path not in paths]
    return targets, skipped, missing


def report_line(target: Target, samples: list[Sample]) -> tuple[str, bool]:
    first, rest = samples[0], samples[1:] or samples[:1]
    wrong = [s.status for s in samples if s.status not in target.accept]
    server = [s.server_ms for s in rest if s.server_ms is not None]
    client = [s.client_ms for s in rest]
    if not server:
        return f"  {target.label:<58} no Server-Timing header (HTTP {sorted(set(wrong))})", True
    p99 = percentile(server, 99)
    missed = p99 > TARGET_MS
    line = (f"  {target.label:<58} n={len(rest):<3} server p50 {percentile(server, 50):7.1f}  p99 {p99:7.1f}  "
            f"max {max(server):7.1f} ms | client p50 {percentile(client, 50):7.1f}  p99 {percentile(client, 99):7.1f} "
            f"ms | first {first.server_ms or 0:7.1f} ms  {'MISSED' if missed else 'OK'}")
    if wrong:
        line += f"  HTTP {sorted(set(wrong))} on {len(wrong)} of {len(samples)}"
    return line, missed


# ----------------------------------------------------------------------------------------- bursts

@dataclass
class Burst:
    label: str
    replies: int
    expected: int
    stored_s: float
    first_reply_s: float | None
    last_reply_s: float | None
    latency_s: list[float]
    reply_s: list[float]
    """When each reply reached the transport, from the start of the burst."""
    llm_peak: int
    cost: Cost | None = None
    """What the service (and the web process) spent from the burst's start to its last reply."""
    wal: WalWatch | None = None


class WalWatch:
    """SQLite's write-ahead log during a burst, read from the header of its index (the ``-shm`` file, which every
    connection maps): the most frames it held and how often the writer started it over. The writer starts it over
    after a complete checkpoint only when no reader still reads from it; each commit past 1,000 frames checkpoints."""

    def __init__(self, db_path: Path | None) -> None:
        self.path = None if db_path is None else Path(f"{db_path}-shm")
        self.most = self.restarts = 0
        self.last: int | None = None

    def sample(self) -> None:
        try:
            with open(self.path or "", "rb") as shm:
                header = shm.read(20)
        except OSError:
            return
        if len(header) < 20:
            return
        frames = int.from_bytes(header[16:20], sys.byteorder)  # mxFrame
        if self.last is not None and frames < self.last:
            self.restarts += 1
        self.most, self.last = max(self.most, frames), frames


@dataclass(frozen=True)
class Sched:
    """A process's CPU and time waiting for one, so far: user + system CPU of all its threads, living and ended
    (``/proc/PID/stat``), and the time its living threads spent runnable but not running
    (``/proc/PID/task/*/schedstat``: another thread had the core; the kernel's own count, nothing sampled)."""

    cpu_s: float
    waited_ns: dict[int, int]
    preempted: int
    """Involuntary context switches of its living threads (``/proc/PID/task/*/status``)."""

    @staticmethod
    def of(pid: int | None) -> Sched | None:
        if pid is None:
            return None
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            waited, preempted = {}, 0
            for task in Path(f"/proc/{pid}/task").iterdir():
                try:
                    waited[int(task.name)] = int((task / "schedstat").read_text().split()[1])
                    status = (task / "status").read_text()
                    preempted += int(status.rsplit("nonvoluntary_ctxt_switches:", 1)[1].split()[0])
                except (OSError, IndexError, ValueError):
                    continue  # the thread ended meanwhile
        except OSError:
            return None
        return Sched((int(stat[11]) + int(stat[12])) / float(os.sysconf("SC_CLK_TCK")), waited, preempted)

    def since(self, before: Sched) -> tuple[float, float, int]:
        """CPU seconds, seconds runnable but waiting, and preemptions between ``before`` and this."""
        waited = sum(ns - before.waited_ns.get(tid, 0) for tid, ns in self.waited_ns.items()) / 1e9
        return self.cpu_s - before.cpu_s, waited, self.preempted - before.preempted


@dataclass(frozen=True)
class Cost:
    """Between a burst's start and its last reply."""

    service_cpu_s: float
    service_waited_s: float
    """The service's threads runnable but not running: CPU another process (or another of its threads) had."""
    service_preempted: int
    web_cpu_s: float | None
    web_waited_s: float | None
    client_cpu_s: float | None = None
    """The HTTP client's process (this benchmark's, at niceness 0: a researcher's browser runs elsewhere)."""


class CostMeter:
    """Samples :class:`Sched` of the service (this process), of the web process if any, and of the HTTP client."""

    client_pid: ClassVar[int | None] = None

    def __init__(self, web_pid: int | None) -> None:
        self.web_pid = web_pid
        self.service, self.web = Sched.of(os.getpid()), Sched.of(web_pid)
        self.client = Sched.of(self.client_pid)

    def done(self) -> Cost | None:
        service, web, client = Sched.of(os.getpid()), Sched.of(self.web_pid), Sched.of(self.client_pid)
        if service is None or self.service is None:
            return None
        cpu, waited, preempted = service.since(self.service)
        web_cpu = web_waited = None
        if web is not None and self.web is not None:
            web_cpu, web_waited, _ = web.since(self.web)
        client_cpu = None if client is None or self.client is None else client.since(self.client)[0]
        return Cost(cpu, waited, preempted, web_cpu, web_waited, client_cpu)


async def run_burst(app: Any, transport: TimedTransport, llm: FakeLLM, phones: list[str], label: str,
                    start_wall: float | None = None, web_pid: int | None = None) -> tuple[Burst, float]:
    """Inject one message per phone at once (at ``start_wall`` if given); wait for every reply."""
    if start_wall is not None:
        await asyncio.sleep(max(0.0, start_wall - time.time()))
    llm.peak_in_flight = 0
    sent_before = len(transport.sent)
    wal = WalWatch(app.db.sqlite_path)
    wal.sample()
    meter = CostMeter(web_pid)
    t0 = time.perf_counter()
    started: dict[str, float] = {}

    async def one(phone: str) -> None:
        started[phone] = time.perf_counter()
        # An id of its own: with --reuse-db, the transport's counted ids would be the earlier run's,
        # and the inbox would drop each message as one it already has.
        await transport.inject(phone, USER_TEXT, message_id=f"bench-web-{uuid.uuid4().hex}")

    await asyncio.gather(*(one(phone) for phone in phones))
    stored_s = time.perf_counter() - t0

    def replied() -> dict[str, float]:
        return {phone: next(at for at in transport.sent_at[phone] if at >= t0) for phone in phones
                if any(at >= t0 for at in transport.sent_at.get(phone, ()))}

    # Cheap checks on the service's loop (a count) until there may be a reply for everyone.
    deadline, answered = t0 + BURST_GIVE_UP_S, {}
    while time.perf_counter() < deadline:
        if len(transport.sent) - sent_before >= len(phones):
            answered = replied()
            if len(answered) == len(phones):
                break
        wal.sample()
        await asyncio.sleep(WAIT_STEP_S)
    cost = meter.done()  # within WAIT_STEP_S of the last reply
    answered = answered or replied()
    times = list(answered.values())
    return Burst(label, len(answered), len(phones), stored_s, min(times) - t0 if times else None,
                 max(times) - t0 if len(answered) == len(phones) else None,
                 [answered[phone] - started[phone] for phone in answered], [at - t0 for at in times],
                 llm.peak_in_flight, cost, wal if wal.path is not None else None), t0


def burst_lines(burst: Burst) -> list[str]:
    lines = [f"  {burst.label}: all {burst.expected:,} messages stored after {burst.stored_s:.2f} s"]
    if burst.latency_s:
        lines.append(f"    first reply {burst.first_reply_s:.2f} s; per message inject -> reply p50 "
                     f"{percentile(burst.latency_s, 50):.2f} s, p99 {percentile(burst.latency_s, 99):.2f} s; "
                     f"model calls in flight at most {burst.llm_peak}")
    if burst.last_reply_s is None:
        lines.append(f"    GAVE UP after {BURST_GIVE_UP_S:.0f} s: {burst.replies:,} of {burst.expected:,} replied")
    else:
        lines.append(f"    all {burst.expected:,} replies handed to the transport after {burst.last_reply_s:.2f} s")
    if burst.latency_s:
        lines.append(f"    mean inject -> reply {statistics.fmean(burst.latency_s):.3f} s")
    cost = burst.cost
    if cost is not None:
        web = "" if cost.web_cpu_s is None else (f"; the web process: CPU {cost.web_cpu_s:.2f} s, runnable but "
                                                 f"waiting {cost.web_waited_s:.2f} s")
        lines.append(f"    from the burst's start to its last reply, the service process: CPU "
                     f"{cost.service_cpu_s:.2f} s, "
                     f"its threads runnable but waiting for a core {cost.service_waited_s:.2f} s, "
                     f"preempted {cost.service_preempted:,} times{web}"
                     f"{'' if cost.client_cpu_s is None else f'; the HTTP client: CPU {cost.client_cpu_s:.2f} s'}")
    if burst.wal is not None:
        lines.append(f"    SQLite's write-ahead log, read every {WAIT_STEP_S * 1000:.0f} ms: most {burst.wal.most:,} "
                     f"frames; started over {burst.wal.restarts} times")
    return lines


@dataclass(frozen=True)
class Figure:
    """One of a burst's figures, in a pair (without load, with load)."""

    name: str
    unit: str
    of: Any
    """Burst -> float | None."""


PAIR_FIGURES = (
    Figure("all replies (wall time to the last)", "s", lambda b: b.last_reply_s),
    Figure("mean inject -> reply", "s", lambda b: statistics.fmean(b.latency_s) if b.latency_s else None),
    Figure("service CPU to the last reply", "s", lambda b: b.cost.service_cpu_s if b.cost else None),
    Figure("service runnable, waiting for a core", "s", lambda b: b.cost.service_waited_s if b.cost else None),
    Figure("service CPU + waiting for a core", "s",
           lambda b: b.cost.service_cpu_s + b.cost.service_waited_s if b.cost else None),
)
TARGET_PERCENT = 5.0
T_975 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10,
         2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04)
"""Student's t, two-sided 95 %, for 1..30 degrees of freedom (1.96 beyond)."""


def mean_ci(values: Sequence[float]) -> tuple[float, float | None]:
    """The mean and the half-width of its 95 % confidence interval (None for fewer than two values)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    t = T_975[len(values) - 2] if len(values) - 1 <= len(T_975) else 1.96
    return mean, t * statistics.stdev(values) / math.sqrt(len(values))


def median_ci(values: Sequence[float]) -> tuple[float, float] | None:
    """A 95 % interval of the median that assumes nothing of the distribution (order statistics: the k-th smallest
    and largest, k the largest with P(Binomial(n, 1/2) < k) ≤ 2.5 %); None for fewer than 6 values. One disturbed
    burst (another process took the cores) moves it by one rank, not by its size."""
    n, ranked = len(values), sorted(values)
    k = 0
    while sum(math.comb(n, i) for i in range(k + 1)) / 2**n <= 0.025:
        k += 1
    return None if k == 0 else (ranked[k - 1], ranked[n - k])


def pair_lines(pairs: list[tuple[Burst, Burst]]) -> list[str]:
    """Each figure: with load against without, as the ratio within each pair (the pair's two bursts ran side by side
    in time, so the VM's slow and quick phases mostly cancel), then the mean of the ratios with its 95 % interval and
    their median and range."""
    lines = [f"  pairs of bursts, with API load against without ({len(pairs)} pairs; Δ = with / without - 1 within "
             "each pair; mean ± 95 % confidence half-width, median with its 95 % interval from 6 pairs, range):"]
    for figure in PAIR_FIGURES:
        values = [(figure.of(quiet), figure.of(loaded)) for quiet, loaded in pairs]
        values = [(without, with_) for without, with_ in values if without is not None and with_ is not None]
        deltas = [(with_ / without - 1) * 100 for without, with_ in values if without > 0]
        if not deltas:
            continue
        mean, half = mean_ci(deltas)
        spread = "" if half is None else f" ± {half:.1f}"
        around = median_ci(deltas)
        interval = "" if around is None else f", 95 % {around[0]:+.1f} to {around[1]:+.1f}"
        lines.append(f"    {figure.name:<38} without {statistics.fmean(v for v, _ in values):6.2f} {figure.unit}, "
                     f"with {statistics.fmean(v for _, v in values):6.2f} {figure.unit}: Δ {mean:+.1f}{spread} % "
                     f"(median {statistics.median(deltas):+.1f} %{interval}; range {min(deltas):+.1f} to "
                     f"{max(deltas):+.1f})")
    replies = [(PAIR_FIGURES[1].of(quiet), PAIR_FIGURES[1].of(loaded)) for quiet, loaded in pairs]
    deltas = [(with_ / without - 1) * 100 for without, with_ in replies if without and with_]
    if len(deltas) >= 2:
        mean, half = mean_ci(deltas)
        verdict = ("met" if mean + (half or 0) <= TARGET_PERCENT else
                   "missed" if mean - (half or 0) > TARGET_PERCENT else "not shown either way")
        lines.append(f"    target: the API's load delays replies ≤ +{TARGET_PERCENT:.0f} % (mean inject -> reply, "
                     f"the 95 % interval {mean - (half or 0):+.1f} to {mean + (half or 0):+.1f} %): {verdict}")
    wall, cpu = PAIR_FIGURES[0].of, PAIR_FIGURES[2].of
    lines.append("    each pair's Δ of the wall time to the last reply / of the service's CPU: " + ", ".join(
        f"{(wall(loaded) / wall(quiet) - 1) * 100:+.0f}/{(cpu(loaded) / cpu(quiet) - 1) * 100:+.0f}"
        for quiet, loaded in pairs if wall(quiet) and wall(loaded) and cpu(quiet) and cpu(loaded)) + " %")
    return lines


async def wait_idle(app: Any, timeout_s: float = 30.0) -> None:
    """Until no input waits for a turn and no message waits to be sent."""
    from promptpipe.research.status import read_status

    ends = time.perf_counter() + timeout_s
    while time.perf_counter() < ends:
        report = await read_status(app.db)
        if not report.inbox_backlog and not report.outbox_backlog:
            return
        await asyncio.sleep(0.2)


def load_lines(samples: list[Sample], burst_window_s: float, rate: float) -> list[str]:
    ok = [s for s in samples if s.status == 200]
    failed = len(samples) - len(ok)
    sent_over = max(s.planned_s for s in samples) + 1 / rate
    answered_over = max(s.planned_s + (s.lag_ms + s.client_ms) / 1000 for s in samples)
    lines = [f"  API load: {len(samples):,} requests sent at {rate:.0f}/s over {sent_over:.1f} s; {len(ok):,} "
             f"answered (HTTP 200) by {answered_over:.1f} s: {len(ok) / answered_over:.1f}/s achieved; {failed} failed"
             f" or timed out; the client sent them late by p99 {percentile([s.lag_ms for s in samples], 99):.1f} ms, "
             f"max {max(s.lag_ms for s in samples):.1f} ms"]
    if failed:
        why = Counter(f"HTTP {s.status}" if s.status else s.label for s in samples if s.status != 200)
        lines.append("    not answered: " + ", ".join(f"{count} {reason}" for reason, count in why.most_common()))
    for name, chosen in (("during the burst", [s for s in ok if s.planned_s <= burst_window_s]),
                         ("whole window", ok)):
        if not chosen:
            continue
        client = [s.client_ms for s in chosen]
        server = [s.server_ms for s in chosen if s.server_ms is not None]
        lines.append(f"    {name:<17} n={len(chosen):<5} client p50 {percentile(client, 50):7.1f}  p99 "
                     f"{percentile(client, 99):7.1f}  max {max(client):7.1f} ms | server p50 "
                     f"{percentile(server, 50):7.1f}  p99 {percentile(server, 99):7.1f}  max {max(server):7.1f} ms")
    by_label: dict[str, list[Sample]] = {}
    for sample in ok:
        if sample.planned_s <= burst_window_s:
            by_label.setdefault(sample.label, []).append(sample)
    for label, chosen in by_label.items():
        client = [s.client_ms for s in chosen]
        lines.append(f"      during the burst, {label:<17} n={len(chosen):<4} client p50 "
                     f"{percentile(client, 50):7.1f}  p99 {percentile(client, 99):7.1f} ms")
    return lines


# ------------------------------------------------------------------------------------------- main

async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--participants", type=int, default=PARTICIPANTS)
    parser.add_argument("--messages-per-participant", type=int, default=MESSAGES_PER_PARTICIPANT)
    parser.add_argument("--burst", type=int, default=BURST, help="messages in each burst (default 1,000)")
    parser.add_argument("--rate", type=float, default=LOAD_RATE, help="API requests per second during the burst")
    parser.add_argument("--keep-db", metavar="DIR", help="seed into DIR and keep it (for EXPLAIN QUERY PLAN)")
    parser.add_argument("--reuse-db", action="store_true",
                        help="with --keep-db: use the database seeded there before (within the hour: the seeded "
                             "prompts are timed from when it was seeded) instead of seeding")
    parser.add_argument("--pairs", type=int, default=PAIRS,
                        help="pairs of bursts, one without and one with API load, the order alternating from pair "
                             f"to pair so that a database growing over the run favours neither (default {PAIRS})")
    parser.add_argument("--idle-only", action="store_true", help="measure the idle service only (no bursts)")
    parser.add_argument("--web-niceness", metavar="N",
                        help="with --web-process: WEB_NICENESS for it (default: the setting's default, 10)")
    parser.add_argument("--bursts-only", action="store_true", help="measure the bursts only (no idle pages)")
    parser.add_argument("--web-process", action="store_true",
                        help="serve the API in a process of its own (`promptpipe web`) instead of in the service's "
                             "loop (`serve` with API_LISTEN)")
    args = parser.parse_args()
    quiet_logging()
    await print_machine()
    if args.keep_db:
        Path(args.keep_db).mkdir(parents=True, exist_ok=True)
        await run(Path(args.keep_db), args)
    else:
        with tempfile.TemporaryDirectory(prefix="pp-bench-web-") as work:
            await run(Path(work), args)


async def run(work: Path, args: argparse.Namespace) -> None:
    import httpx  # noqa: F401  (fail before seeding if the client library is missing)

    from promptpipe.app import App
    from promptpipe.app.parts import load_prompts
    from promptpipe.pilot import PilotDesk
    from promptpipe.research.tokens import create_token
    from promptpipe.web.context import WebContext
    from promptpipe.web.server import WebServer
    from promptpipe.web.site import build_site

    path = work / "promptpipe.db"
    if path.exists() and not args.reuse_db:
        raise SystemExit(f"{path} exists: give --keep-db an empty directory, or add --reuse-db")
    if args.reuse_db and path.exists():
        print(f"reusing the database an earlier run seeded in {work}; {path.stat().st_size / 2**20:,.0f} MB")
    else:
        sys.stdout.flush()
        started = time.perf_counter()
        child = multiprocessing.get_context("spawn").Process(
            target=seed_in_child, args=(f"sqlite:///{path}", args.participants, args.messages_per_participant))
        child.start()
        await asyncio.get_running_loop().run_in_executor(None, child.join)
        if child.exitcode != 0:
            raise SystemExit(f"seeding failed (exit code {child.exitcode})")
        seed_s = time.perf_counter() - started
        print(f"seeded in {seed_s:.1f} s (child process, sqlite3 executemany); database "
              f"{path.stat().st_size / 2**20:,.0f} MB")
    counts = table_counts(path)
    print("  " + ", ".join(f"{name} {count:,}" for name, count in counts.items()))
    pop = population(path, args.burst, args.pairs)

    client = HttpChild()
    llm, transport = FakeLLM(delay_s=LLM_DELAY_S), TimedTransport()
    app = build_app(work, llm, transport)
    started = time.perf_counter()
    await app.start()
    start_s = time.perf_counter() - started
    reader = Database(app.settings.database_url, readers=WEB_READERS)
    ctx = WebContext(app.settings, app.db, reader, app.clock,
                     system_prompts=dataclasses.asdict(load_prompts(app.settings)),
                     pilots=PilotDesk(app.settings, app.clock, App.build))
    server = WebServer(ctx, "127.0.0.1:0")
    web_child: Any = None
    priority = ""
    if args.web_process:
        web_child, base_url, priority = await start_web_child(work, args.web_niceness)
    else:
        await server.start()
        base_url = server.url
    where = (f"in a process of its own (promptpipe web, {priority})" if args.web_process
             else "in the service's loop")
    try:
        secret, _ = await create_token(app.db, app.clock, name=f"bench-{int(time.time())}", role="researcher",
                                       by="bench_web")
        print(f"service started in {start_s:.2f} s (background loops on, as serve); web server at {base_url} "
              f"{where} with {WEB_READERS} read-only connections; peak RSS {peak_rss_mb():.0f} MB")
        await client.start(base_url, secret)
        CostMeter.client_pid = client.process.pid
        print(f"dashboard: {await client.call('sign_in')} through the /login form (researcher token)")
        idle = {} if args.bursts_only else await measure_idle(client, pop, build_site(ctx).routes,
                                                              app.clock.now().date())
        if not args.idle_only:
            await measure_bursts(app, transport, llm, client, pop, idle, args.rate, web_child)
    finally:
        await client.stop()
        if web_child is not None:
            web_child.terminate()
            web_child.join(10)
        await server.stop()
        if ctx.pilots is not None:
            await ctx.pilots.close()
        await reader.close()
        await app.stop()
    print(f"\npeak RSS {peak_rss_mb():.0f} MB (the service, its web server and their database connections; the "
          "seeding and the HTTP client run in child processes)")


def web_child_main(work: str, conn: Any, niceness: str | None) -> None:
    """``promptpipe web`` in a child process: the API and dashboard alone on a free port, at the
    CPU priority ``promptpipe web`` takes (WEB_NICENESS; ``niceness`` overrides it)."""
    from promptpipe.cli._web import start_web, yield_cpu_to_the_service
    from promptpipe.clock import SystemClock

    quiet_logging()
    settings = make_settings(Path(work), API_LISTEN="127.0.0.1:0",
                             **({} if niceness is None else {"WEB_NICENESS": niceness}))
    yield_cpu_to_the_service(settings.web_niceness)  # before any thread starts, as `promptpipe web` does

    async def serve() -> None:
        db = Database(settings.database_url)
        handle = await start_web(settings, db, SystemClock())
        idle = hasattr(os, "SCHED_IDLE") and os.sched_getscheduler(0) == os.SCHED_IDLE
        conn.send((handle.server.url, f"niceness {os.getpriority(os.PRIO_PROCESS, 0)}"
                   f"{', the idle scheduling class' if idle else ''}"))
        await asyncio.Event().wait()  # until terminated

    asyncio.run(serve())


async def start_web_child(work: Path, niceness: str | None) -> tuple[Any, str, str]:
    parent, child_end = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(target=web_child_main,
                                                           args=(str(work), child_end, niceness))
    process.start()
    url, nice = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    return process, str(url), str(nice)


async def measure_idle(client: HttpChild, pop: Population, routes: Sequence[Any],
                       today: date) -> dict[str, list[Sample]]:
    pages, skipped, missing = page_targets(routes, pop)
    print(f"\nIdle service: {REQUESTS_PER_ENDPOINT} requests per endpoint after a first one, one at a time "
          f"(per-participant ones rotate over {len(pop.sample_ids)} participants; at most "
          f"{ENDPOINT_BUDGET_S:.0f} s each); server = Server-Timing app;dur; target p99 ≤ {TARGET_MS:.0f} ms")
    missed, idle = [], {}
    for title, targets in (("API", api_targets(pop, today - timedelta(days=DAYS - 1), today)),
                           ("Dashboard pages", pages)):
        print(f"{title}:")
        results = await client.call("sequential", targets, REQUESTS_PER_ENDPOINT, ENDPOINT_BUDGET_S)
        for target, samples in zip(targets, results, strict=True):
            line, miss = report_line(target, samples)
            idle[target.label] = samples[1:]
            print(line)
            if miss:
                missed.append(target.label)
    gaps = [s.client_ms - s.server_ms for samples in idle.values() for s in samples if s.server_ms is not None]
    if gaps:
        print(f"client wall time minus server time, median over these requests: {statistics.median(gaps):.1f} ms "
              "(HTTP, the client, and anything the server does outside its timing middleware)")
    print(f"pages found: {', '.join(sorted({t.label.split('?')[0].removeprefix('GET ') for t in pages})) or 'none'}")
    if skipped:
        print(f"page routes not measured (unknown path parameters): {', '.join(skipped)}")
    print(f"expected pages missing: {', '.join(missing) if missing else 'none'}")
    print(f"missed the {TARGET_MS:.0f} ms target: {', '.join(missed) if missed else 'none'}")
    return idle


async def measure_bursts(app: Any, transport: TimedTransport, llm: FakeLLM, client: HttpChild,
                         pop: Population, idle: dict[str, list[Sample]], rate: float, web_child: Any) -> None:
    size = len(pop.burst_phones[0])
    pairs = len(pop.burst_phones) // 2
    print(f"\nBurst: {size:,} participants (active, in FEEDBACK, 100 messages of history each) send one message "
          f"at once; fake LLM answers after {LLM_DELAY_S * 1000:.0f} ms; LANE_CONCURRENCY="
          f"{app.settings.lane_concurrency}, SEND_RATE_PER_SECOND=0; {pairs} pair(s) of bursts without and with "
          f"API load, alternating which comes first; {len({tuple(g) for g in pop.burst_phones})} sets of participants, "
          "a pair's two bursts never the same")
    if not idle:
        await warm_up(client, pop, rate)
    quiet_s: list[float] = []
    loaded_s: list[float] = []
    done: list[tuple[Burst, Burst]] = []
    groups = iter(pop.burst_phones)
    web_pid = None if web_child is None else web_child.pid
    for pair in range(pairs):
        both: dict[bool, Burst] = {}
        for with_load in ((False, True) if pair % 2 == 0 else (True, False)):
            phones = next(groups)
            burst = await (burst_with_load(app, transport, llm, client, pop, idle, rate, web_child, phones)
                           if with_load else burst_alone(app, transport, llm, phones, web_pid))
            both[with_load] = burst
            if burst.last_reply_s is not None:
                (loaded_s if with_load else quiet_s).append(burst.last_reply_s)
            await wait_idle(app)
            await asyncio.sleep(1.0)
        if all(b.last_reply_s is not None for b in both.values()):
            done.append((both[False], both[True]))
    if done:
        print()
        for line in pair_lines(done):
            print(line)
    if quiet_s and loaded_s:
        quiet, loaded = statistics.median(quiet_s), statistics.median(loaded_s)
        print(f"  the burst took {loaded:.2f} s with API load against {quiet:.2f} s without, medians of "
              f"{len(loaded_s)} and {len(quiet_s)} ({(loaded / quiet - 1) * 100:+.0f} %; target ≤ +5 %); "
              f"each: with {', '.join(f'{s:.2f}' for s in loaded_s)}, without {', '.join(f'{s:.2f}' for s in quiet_s)}"
              f" s; bench_burst.py (1,000 participants with no history) measured {BENCH_BURST_README_S:.2f} s")


async def warm_up(client: HttpChild, pop: Population, rate: float) -> None:
    """The load's mix for WARM_UP_S before the first burst. Without the idle pages before it (--bursts-only), the
    first burst with load met a web process that had answered nothing yet: its connections were opened and its
    statements compiled during that burst, a one-off a running server does not have."""
    client.send(("open_loop", (load_targets(pop), rate, time.time())))
    await asyncio.sleep(WARM_UP_S)
    client.send("stop")
    samples, _ = await client.receive()
    failed = sum(1 for s in samples if s.status != 200)
    print(f"  warm-up: {len(samples):,} requests of the load's mix at {rate:.0f}/s before the first burst "
          f"({WARM_UP_S:.0f} s; --bursts-only measures no idle pages), {failed} failed")
    await asyncio.sleep(1.0)


async def burst_alone(app: Any, transport: TimedTransport, llm: FakeLLM, phones: list[str],
                      web_pid: int | None) -> Burst:
    quiet, _ = await run_burst(app, transport, llm, phones, "without API load", web_pid=web_pid)
    for line in burst_lines(quiet):
        print(line)
    return quiet


async def burst_with_load(app: Any, transport: TimedTransport, llm: FakeLLM, client: HttpChild, pop: Population,
                          idle: dict[str, list[Sample]], rate: float, web_child: Any,
                          phones: list[str]) -> Burst:
    start_wall = time.time() + 0.5
    client.send(("open_loop", (load_targets(pop), rate, start_wall)))
    service_cpu, web_cpu = time.process_time(), process_cpu_s(web_child)
    loaded, t0 = await run_burst(app, transport, llm, phones, "with API load", start_wall,
                                 None if web_child is None else web_child.pid)
    burst_end_s = time.perf_counter() - t0
    await asyncio.sleep(max(0.0, t0 + LOAD_MIN_S - time.perf_counter()))
    client.send("stop")
    samples, client_cpu = await client.receive()
    service_cpu, window = time.process_time() - service_cpu, time.perf_counter() - t0
    web_cpu = process_cpu_s(web_child) - web_cpu
    print(f"  API load at {rate:.0f} requests/s (open loop) from the burst's start until it was answered and "
          f"at least {LOAD_MIN_S:.0f} s had passed; mix: {', '.join(t.label for t in load_targets(pop))}")
    for line in burst_lines(loaded):
        print(line)
    for line in load_lines(samples, burst_end_s, rate):
        print(line)
    load_s = max(s.planned_s for s in samples) + 1 / rate
    if loaded.last_reply_s is None or loaded.last_reply_s > load_s:
        during = sum(1 for at in loaded.reply_s if at <= load_s)
        print(f"  while the load ran (its {load_s:.0f} s) {during:,} of {loaded.expected:,} participants had their "
              "reply; the rest came after it stopped")
    web = "" if web_child is None else f", the web process {web_cpu:.1f} s"
    print(f"  CPU over the {window:.1f} s from the burst's start: the service process {service_cpu:.1f} s (all its "
          f"threads{', its web server among them' if web_child is None else ''}){web}, the HTTP client process "
          f"{client_cpu:.1f} s (until its last answer)")
    means = [statistics.fmean(s.server_ms for s in idle[label] if s.server_ms is not None)
             for label in LOAD_MIX.values() if idle.get(label)]
    if means:
        print(f"  the same mix on the idle service took {statistics.fmean(means):.1f} ms of server time per request: "
              f"{statistics.fmean(means) * rate / 1000:.2f} s of work per second at {rate:.0f}/s")
    return loaded


def process_cpu_s(process: Any) -> float:
    """User and system CPU seconds of a child process so far (Linux ``/proc``); 0 without one."""
    if process is None or process.pid is None:
        return 0.0
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / float(os.sysconf("SC_CLK_TCK"))


if __name__ == "__main__":
    asyncio.run(main())
