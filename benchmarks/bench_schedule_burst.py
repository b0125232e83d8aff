"""10,000 participants whose daily prompts are due in the same minute, fake LLM taking 200 ms,
send rate limit off: every prompt generated and handed to the transport within 60 s of the due
time, p99 lateness from due time to inbox row ≤ 2 s; service start with 10,000 participants and
their jobs ready in ≤ 10 s; peak RSS ≤ 500 MB.

Each run seeds a fresh SQLite file: N active participants with a complete profile, spread over
five time zones, each with one fixed daily schedule whose prompt (habit time minus prep minutes,
in the participant's zone) falls on the same UTC instant. Then:

1. cold start: ``App.build`` + ``start(background=True)`` with an empty job store (the
   reconciler creates one job per schedule); the app is stopped again;
2. warm start: a new app on the same file, the jobs already stored;
3. the burst, on the warm app with the real clock: the due instant comes, every alarm becomes an
   inbox row, every lane writes its prompt with the fake LLM and the outbox sends it. The script
   waits until every participant's prompt and polls reached the transport (gives up 120 s after
   the due instant), with a 10 ms heartbeat coroutine measuring how long the loop was blocked.

Run twice, each on a fresh database: with the default LANE_CONCURRENCY (100) and with 1000.

Run: cd /work/main && .venv/bin/python benchmarks/bench_schedule_burst.py [--participants N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Connection

from _common import (
    SEED_ROWS_PER_STATEMENT,
    FakeLLM,
    TimedTransport,
    bench_phone,
    build_app,
    peak_rss_mb,
    percentile,
    print_machine,
    quiet_logging,
    summary,
    verdict,
)
from promptpipe import keys
from promptpipe.app import App
from promptpipe.flow.daily_prompt import POLL_QUESTION
from promptpipe.localtime import FIXED, DailySpec, parse_hhmm
from promptpipe.models import ACTIVE, DONE, INTAKE, Conversation, InboxItem, OutboxItem, Participant, Schedule, Timer
from promptpipe.nudges import JOB_TABLE
from promptpipe.store import new_participant_id
from promptpipe.transport.base import Recipient, SentMessage

PARTICIPANTS = 10_000
LLM_DELAY_S = 0.2
PREP_MINUTES = 10
ZONES = ("UTC", "Europe/Berlin", "America/Toronto", "Asia/Kolkata", "Australia/Adelaide")
"""Whole-hour, half-hour and (in some seasons) daylight-saving offsets; every habit time is
chosen so that all prompts fall on the same UTC instant."""
PROMPT_TEXT = "After your morning coffee, stand up and stretch for one minute: it keeps your back happy. Try it today?"
LANE_CONCURRENCY_RUNS = (None, 1_000)
"""None keeps the default LANE_CONCURRENCY."""

TARGET_ALL_SENT_S = 60.0
TARGET_INBOX_P99_S = 2.0
TARGET_START_S = 10.0
TARGET_RSS_MB = 500.0

MIN_SETTLE_S = 20.0
"""The due instant is at least this long after the warm start returned."""
FIRST_RUN_START_GUESS_S = 15.0
"""Before anything was measured: what cold start + stop + warm start may take."""
GIVE_UP_S = 120.0
"""After the due instant."""
AFTER_LAST_S = 2.0
"""Keep watching this long after everything arrived, to catch a late duplicate."""
HEARTBEAT_S = 0.01
WAIT_STEP_S = 0.05


@dataclass
class ScheduleTransport(TimedTransport):
    """TimedTransport that also tells the prompt, the "did you do it?" poll and the intensity
    poll apart, and notes when each was handed over (``perf_counter``), by phone."""

    prompt_at: dict[str, list[float]] = field(default_factory=dict)
    done_poll_at: dict[str, list[float]] = field(default_factory=dict)
    intensity_poll_at: dict[str, list[float]] = field(default_factory=dict)
    other_texts: int = 0
    handed_over: int = 0

    async def send_text(self, to: Recipient, text: str, **kwargs: Any) -> SentMessage:
        result = await super().send_text(to, text, **kwargs)
        if text == PROMPT_TEXT:
            self.prompt_at.setdefault(to.phone, []).append(self.sent_at[to.phone][-1])
        else:
            self.other_texts += 1
        self.handed_over += 1
        return result

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], **kwargs: Any) -> SentMessage:
        result = await super().send_poll(to, question, options, **kwargs)
        at = time.perf_counter()
        target = self.done_poll_at if question == POLL_QUESTION else self.intensity_poll_at
        target.setdefault(to.phone, []).append(at)
        self.handed_over += 1
        return result


class Heartbeat:
    """A coroutine that sleeps 10 ms at a time; the longest gap between two wake-ups is how long
    the event loop could not run anything (plus the 10 ms)."""

    def __init__(self) -> None:
        self.max_gap_s = 0.0
        self.max_gap_at = 0.0
        self.gaps_over_100ms = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._beat(), name="bench-heartbeat")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _beat(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            now = time.perf_counter()
            gap = now - last
            if gap > self.max_gap_s:
                self.max_gap_s, self.max_gap_at = gap, now
            if gap > 0.1:
                self.gaps_over_100ms += 1
            last = now


@dataclass
class Passes:
    """Timestamps of the alarm clock's work (wrapped instance methods; nothing in the service changes)."""

    due_passes: list[tuple[float, float]] = field(default_factory=list)
    syncs: list[tuple[float, float, int]] = field(default_factory=list)

    def install(self, app: App) -> None:
        alarms = app.alarms
        run_due, sync = alarms.run_due, alarms.sync

        async def timed_run_due() -> float | None:
            started = time.perf_counter()
            try:
                return await run_due()
            finally:
                self.due_passes.append((started, time.perf_counter()))

        async def timed_sync(participant_ids: Any) -> Any:
            ids = list(participant_ids)
            started = time.perf_counter()
            try:
                return await sync(ids)
            finally:
                self.syncs.append((started, time.perf_counter(), len(ids)))

        alarms.run_due = timed_run_due  # type: ignore[method-assign]
        alarms.sync = timed_sync  # type: ignore[method-assign]


@dataclass
class RunResult:
    label: str
    participants: int
    cold_start_s: float
    warm_start_s: float
    cold_report: str
    warm_report: str
    settle_s: float
    """From the warm start returning to the due instant."""
    inbox_late_s: list[float]
    inbox_rows: int
    inbox_status: dict[str, int]
    prompt_late_s: list[float]
    done_poll_late_s: list[float]
    intensity_poll_late_s: list[float]
    all_late_s: list[float]
    """Per participant: the last of their messages (prompt and polls)."""
    missing: int
    duplicates: int
    other_texts: int
    outbox_status: dict[str, int]
    jobs: dict[str, int]
    timers: dict[str, int]
    llm_calls: int
    peak_llm_in_flight: int
    heartbeat: Heartbeat
    passes: Passes
    due_perf: float
    gave_up: bool
    rss_after_start_mb: float


def habit_time_for(due: datetime, zone_name: str) -> str:
    """The local habit time (HH:MM) whose prompt fires at ``due`` in this zone."""
    zone = ZoneInfo(zone_name)
    local = (due + timedelta(minutes=PREP_MINUTES)).astimezone(zone)
    habit = f"{local.hour:02d}:{local.minute:02d}"
    spec = DailySpec(kind=FIXED, habit_time=parse_hhmm(habit), prep_minutes=PREP_MINUTES)
    if spec.fire_at(local.date(), zone) != due:
        raise RuntimeError(f"{habit} in {zone_name} does not fire at {due.isoformat()} (daylight-saving edge?)")
    return habit


async def seed_scheduled(app: App, participants: int, due: datetime) -> list[str]:
    """Bulk-insert active participants with a complete profile and one fixed schedule each, all
    firing at ``due``. Creates the tables first. Returns the phones, in participant order."""
    await app.db.connect()
    enrolled_at = datetime.now(timezone.utc) - timedelta(days=30)
    habits = {zone: habit_time_for(due, zone) for zone in ZONES}
    yesterday = {zone: DailySpec(kind=FIXED, habit_time=parse_hhmm(habits[zone]), prep_minutes=PREP_MINUTES)
                 .last_fire(due - timedelta(seconds=1), ZoneInfo(zone)) for zone in ZONES}
    people = [(new_participant_id(), bench_phone(i), ZONES[i % len(ZONES)]) for i in range(participants)]
    profile = {"habit": "a one-minute stretch", "prompt_anchor": "after my morning coffee",
               "preferred_time": "morning", "motivation": "my back hurts from sitting"}

    def write(conn: Connection) -> None:
        _insert(conn, Participant, [
            {"id": pid, "phone": phone, "lid": None, "name": f"Bench {i}", "timezone": zone, "status": ACTIVE,
             "paused_by": None, "background": "", "enrolled_at": enrolled_at, "updated_at": enrolled_at}
            for i, (pid, phone, zone) in enumerate(people)
        ])
        _insert(conn, Conversation, [
            {"participant_id": pid, "sub_state": INTAKE, "profile": profile, "tone": {}, "summary": "", "version": 1,
             "updated_at": enrolled_at}
            for pid, _, _ in people
        ])
        _insert(conn, Schedule, [
            {"id": f"s_{i:08x}", "participant_id": pid, "kind": FIXED, "habit_time": habits[zone],
             "window_start": None, "window_end": None, "prep_minutes": PREP_MINUTES, "active": True,
             "created_at": enrolled_at, "updated_at": enrolled_at}
            for i, (pid, _, zone) in enumerate(people)
        ])

        # Yesterday's prompt went out (as on any day of a running study): without its done inbox
        # row the reconciler would record 10,000 missed prompts at start.
        _insert(conn, InboxItem, [
            {"key": keys.daily_prompt(pid, f"s_{i:08x}", yesterday[zone][0]), "participant_id": pid,
             "kind": "daily_prompt", "payload": {"schedule_id": f"s_{i:08x}", "local_date": yesterday[zone][0].isoformat(),
                                                 "due_at": yesterday[zone][1].isoformat()},
             "message_id": None, "status": DONE, "attempts": 1, "available_at": yesterday[zone][1],
             "created_at": yesterday[zone][1], "processed_at": yesterday[zone][1], "last_error": None}
            for i, (pid, _, zone) in enumerate(people)
        ])

    await app.db.run(lambda session: write(session.connection()))
    return [phone for _, phone, _ in people]


def _insert(conn: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    table = model.__table__
    for start in range(0, len(rows), SEED_ROWS_PER_STATEMENT):
        conn.execute(insert(table), rows[start:start + SEED_ROWS_PER_STATEMENT])


def next_due(lead_s: float) -> datetime:
    """The first whole UTC minute at least ``lead_s`` from now."""
    earliest = datetime.now(timezone.utc) + timedelta(seconds=lead_s)
    minute = earliest.replace(second=0, microsecond=0)
    return minute if minute >= earliest else minute + timedelta(minutes=1)


def wall_to_perf(when: datetime) -> float:
    return when.timestamp() - (time.time() - time.perf_counter())


async def timed_start(work_dir: Path, overrides: dict[str, str]) -> tuple[App, ScheduleTransport, FakeLLM, float]:
    llm, transport = FakeLLM(delay_s=LLM_DELAY_S, reply=PROMPT_TEXT), ScheduleTransport()
    started = time.perf_counter()
    app = build_app(work_dir, llm, transport, **overrides)
    await app.start(background=True)
    return app, transport, llm, time.perf_counter() - started


async def read_outcome(app: App, due: datetime) -> tuple[list[tuple[datetime, dict[str, Any], str]], dict[str, int], dict[str, int],
                                          dict[str, int]]:
    def read(session: Any) -> Any:
        conn = session.connection()
        inbox = [(created, payload, status) for created, payload, status in conn.execute(
            select(InboxItem.created_at, InboxItem.payload, InboxItem.status).where(InboxItem.kind == "daily_prompt"))
            if payload.get("due_at") == due.isoformat()]
        outbox = dict(conn.execute(select(OutboxItem.status, func.count()).group_by(OutboxItem.status)).all())
        timers = dict(conn.execute(select(Timer.kind, func.count()).where(Timer.status == "pending")
                                   .group_by(Timer.kind)).all())
        job_ids = conn.exec_driver_sql(f"SELECT id FROM {JOB_TABLE}").scalars().all()
        jobs = Counter(job_id.split(":", 1)[0] for job_id in job_ids)
        return inbox, outbox, timers, dict(jobs)

    return await app.db.run(read)


async def run(participants: int, lane_concurrency: int | None, lead_s: float) -> RunResult:
    overrides = {"SEND_RATE_PER_SECOND": "0", "SCHEDULER_PREP_TIME_MINUTES": str(PREP_MINUTES)}
    if lane_concurrency is not None:
        overrides["LANE_CONCURRENCY"] = str(lane_concurrency)
    with tempfile.TemporaryDirectory(prefix="pp-bench-schedule-") as tmp:
        work_dir = Path(tmp)
        due = next_due(lead_s)
        seeder = build_app(work_dir, FakeLLM(), ScheduleTransport(), **overrides)
        phones = await seed_scheduled(seeder, participants, due)
        await seeder.db.close()
        del seeder

        cold_app, _, _, cold_s = await timed_start(work_dir, overrides)
        label = (f"LANE_CONCURRENCY={cold_app.settings.lane_concurrency}"
                 + (" (default)" if lane_concurrency is None else ""))
        cold_report = _reconcile_line(cold_app)
        await cold_app.stop()
        del cold_app

        app, transport, llm, warm_s = await timed_start(work_dir, overrides)
        warm_report = _reconcile_line(app)
        rss_after_start = peak_rss_mb()
        passes = Passes()
        passes.install(app)
        due_perf = wall_to_perf(due)
        settle_s = due_perf - time.perf_counter()
        heartbeat = Heartbeat()
        gave_up = False
        try:
            await asyncio.sleep(max(settle_s - 1.0, 0.0))
            heartbeat.start()
            expected = participants * 3  # prompt, "did you do it?" poll, intensity poll
            deadline = due_perf + GIVE_UP_S
            while transport.handed_over < expected and time.perf_counter() < deadline:
                await asyncio.sleep(WAIT_STEP_S)
            gave_up = transport.handed_over < expected
            await asyncio.sleep(AFTER_LAST_S)
            await heartbeat.stop()
            inbox, outbox_status, timers, jobs = await read_outcome(app, due)
        finally:
            await heartbeat.stop()
            await app.stop()

    inbox_late = [(created - datetime.fromisoformat(payload["due_at"])).total_seconds() for created, payload, _ in inbox]
    inbox_status = dict(Counter(status for _, _, status in inbox))

    def late(at: dict[str, list[float]]) -> list[float]:
        return [times[0] - due_perf for times in at.values()]

    all_late = [max(times[0] for times in (transport.prompt_at.get(phone), transport.done_poll_at.get(phone),
                                           transport.intensity_poll_at.get(phone)) if times) - due_perf
                for phone in phones if phone in transport.prompt_at]
    duplicates = sum(len(times) - 1 for at in (transport.prompt_at, transport.done_poll_at, transport.intensity_poll_at)
                     for times in at.values())
    missing = sum(1 for phone in phones if phone not in transport.prompt_at)
    return RunResult(
        label=label, participants=participants, cold_start_s=cold_s, warm_start_s=warm_s, cold_report=cold_report,
        warm_report=warm_report, settle_s=settle_s, inbox_late_s=inbox_late, inbox_rows=len(inbox),
        inbox_status=inbox_status, prompt_late_s=late(transport.prompt_at),
        done_poll_late_s=late(transport.done_poll_at), intensity_poll_late_s=late(transport.intensity_poll_at),
        all_late_s=all_late, missing=missing, duplicates=duplicates, other_texts=transport.other_texts,
        outbox_status=outbox_status, jobs=jobs, timers=timers, llm_calls=llm.calls,
        peak_llm_in_flight=llm.peak_in_flight, heartbeat=heartbeat, passes=passes, due_perf=due_perf,
        gave_up=gave_up, rss_after_start_mb=rss_after_start,
    )


def _reconcile_line(app: App) -> str:
    count = len(app.alarms.store.all_ids())
    return f"{count:,} jobs stored"


def report(result: RunResult) -> None:
    n = result.participants
    print(f"\n{result.label}")
    print("  " + verdict("cold start (empty job store)", result.cold_start_s, TARGET_START_S, "s")
          + f"; {result.cold_report}")
    print("  " + verdict("warm start (jobs stored)    ", result.warm_start_s, TARGET_START_S, "s")
          + f"; {result.warm_report}")
    print(f"  due instant {result.settle_s:.1f} s after the warm start returned")
    due_passes = [(a - result.due_perf, b - a) for a, b in result.passes.due_passes if b >= result.due_perf - 1]
    busy = [f"{start:+.2f} s for {length:.2f} s" for start, length in due_passes if length > 0.05]
    if busy:
        print(f"  alarm passes (start vs due, length) longer than 50 ms: {', '.join(busy[:6])}"
              + (f" (+{len(busy) - 6} more)" if len(busy) > 6 else ""))
    syncs = [(a, b, k) for a, b, k in result.passes.syncs if b >= result.due_perf]
    if syncs:
        synced = sum(k for _, _, k in syncs)
        sync_busy = sum(b - a for a, b, _ in syncs)
        print(f"  alarm syncs after prompts: {len(syncs)} calls for {synced:,} participants, "
              f"{sync_busy:.2f} s on the alarm thread, last ended {syncs[-1][1] - result.due_perf:.2f} s after due")
    print(f"  inbox rows for this due instant: {result.inbox_rows:,} {result.inbox_status}")
    if result.inbox_late_s:
        print(f"  due -> inbox row            {summary(result.inbox_late_s, 's')}")
        print("  " + verdict("  p99 due -> inbox row", percentile(result.inbox_late_s, 99), TARGET_INBOX_P99_S, "s"))
    for name, values in (("prompt", result.prompt_late_s), ('"did you do it?" poll', result.done_poll_late_s),
                         ("intensity poll", result.intensity_poll_late_s)):
        if values:
            print(f"  due -> {name:<22} {summary(values, 's')}  ({len(values):,} participants)")
    print(f"  prompts handed to the transport: {len(result.prompt_late_s):,} of {n:,}; missing {result.missing}; "
          f"duplicate sends {result.duplicates}; other texts {result.other_texts}")
    print(f"  model calls {result.llm_calls:,}, at most {result.peak_llm_in_flight} at the same time")
    print(f"  outbox {result.outbox_status}; pending timers {result.timers}; jobs stored {result.jobs}")
    if result.gave_up or len(result.all_late_s) < n:
        print(f"  GAVE UP {GIVE_UP_S:.0f} s after the due instant: {len(result.all_late_s):,} of {n:,} complete")
    if result.prompt_late_s:
        print("  " + verdict(f"last prompt after due", max(result.prompt_late_s), TARGET_ALL_SENT_S, "s")
              + ("" if len(result.prompt_late_s) == n else f" (only {len(result.prompt_late_s):,} of {n:,})"))
    if result.all_late_s:
        print(f"  last message (prompt and both polls) {max(result.all_late_s):.2f} s after due")
    hb = result.heartbeat
    print(f"  event loop: longest gap between {HEARTBEAT_S * 1000:.0f} ms heartbeats {hb.max_gap_s * 1000:.0f} ms "
          f"(at {hb.max_gap_at - result.due_perf:+.2f} s from due); {hb.gaps_over_100ms} gaps over 100 ms")
    print(f"  peak RSS after the warm start {result.rss_after_start_mb:.0f} MB, so far {peak_rss_mb():.0f} MB")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=PARTICIPANTS)
    parser.add_argument("--lanes", type=int, action="append",
                        help="LANE_CONCURRENCY to run (repeatable; default: the default, then 1000)")
    args = parser.parse_args()
    quiet_logging()
    await print_machine()
    runs = args.lanes or list(LANE_CONCURRENCY_RUNS)
    print(f"{args.participants:,} participants in {len(ZONES)} time zones, every daily prompt due at the same instant; "
          f"fake LLM answers after {LLM_DELAY_S * 1000:.0f} ms; SEND_RATE_PER_SECOND=0; reminders (5h), "
          "auto feedback (5m) and the intensity poll on (defaults)")
    lead_s = FIRST_RUN_START_GUESS_S + MIN_SETTLE_S
    for lane_concurrency in runs:
        result = await run(args.participants, lane_concurrency, lead_s)
        report(result)
        lead_s = 1.5 * (result.cold_start_s + result.warm_start_s) + 5 + MIN_SETTLE_S
    peak = peak_rss_mb()
    print("\n" + verdict("peak RSS", peak, TARGET_RSS_MB, "MB"))


if __name__ == "__main__":
    asyncio.run(main())
