"""The export of a finished study: 500 participants, 28 study days, two arms, one daily prompt
each (14,000 decision points), written to CSV by ``export_study``: the elapsed time, rows per
file and peak RSS.

A child process seeds a fresh SQLite file with bulk INSERTs, a few participants at a time (so the
parent's peak RSS is the export's alone): per participant a profile, consent and transitions
(enrolled, intake done, study day 1; some paused or completed); per study day one decision point
(about 5 % unavailable: paused, quiet hours, already answered; otherwise the study's rule sends
with probability 0.8), and for every prompt sent its ``prompt_delivery`` row, the prompt and its
poll in the transcript, WhatsApp's receipts (delivered 95 %, read 70 %), and for about 60 % an
answer: a tapped vote, a written reply with the model's answer, or both. Then the parent times
one export to CSV, as ``promptpipe-admin export`` runs it (the progress bar off), with the CPU time
it took (its worker process's included) and the peak RSS.

Run: cd /work/main && .venv/bin/python benchmarks/bench_export.py [--participants N] [--format csv|jsonl]
On one core (issue 50's figure): taskset -c 0 .venv/bin/python benchmarks/bench_export.py
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import multiprocessing
import os
import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from datetime import time as wall
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from _common import SEED_ROWS_PER_STATEMENT, peak_rss_mb, print_machine, quiet_logging
from sqlalchemy import insert
from sqlalchemy.engine import Connection

from promptpipe.domain.localtime import to_instant
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.storage.db import Database
from promptpipe.storage.models import ConsentEvent, Conversation, Message, Participant, Receipt, Transition
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.store.tables import AllocationRow, Decision, StudyProtocol, StudySecret

PARTICIPANTS, DAYS = 500, 28
CHUNK = 25
"""Participants seeded per statement batch."""
ZONES = ("America/Toronto", "Europe/Berlin", "Asia/Kolkata", "UTC")
STUDY_TEXT = """name = "Export benchmark"
length_days = 28
fixed_prompts = ["Take a short walk after dinner."]
[[arms]]
name = "coach"
[[arms]]
name = "fixed_text"
prompt_style = "fixed"
[allocation]
block_size = 2
[allocation.strata]
site = ["toronto", "montreal"]
[decision]
p = 0.8
"""
PROMPT = "After dinner, put your shoes on and walk to the corner and back: ten minutes that settle the evening."
REPLY = "Did it with my neighbour, it was nice to get some air after a long day."
ANSWER = "That sounds lovely! What made it easy to get out the door today?"
START = date(2026, 2, 2)


@dataclass
class Rows:
    """One chunk of participants' rows, by table, with running ids."""

    next_message: int
    tables: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, table: Any, /, **values: Any) -> None:
        self.tables.setdefault(table, []).append(values)

    def message(self, **values: Any) -> int:
        """A transcript row (every row of a batch has the same keys, as executemany needs)."""
        self.next_message += 1
        self.add(Message, **{"id": self.next_message, "payload": {}, "receipts_expected": True, "sent_at": None,
                             "wa_message_id": None, **values})
        return self.next_message


def _participant(rows: Rows, index: int, pid: str) -> tuple[ZoneInfo, str]:
    """Enrolled the day before day one; nine in ten completed, the others paused themselves."""
    zone, arm = ZoneInfo(ZONES[index % len(ZONES)]), ("coach", "fixed_text")[index % 2]
    site = "montreal" if index % 3 == 0 else "toronto"
    enrolled = to_instant(START - timedelta(days=1), wall(10, 0), zone)
    day_one = START
    completed = index % 10 != 0
    status = "completed" if completed else "paused"
    rows.add(Participant, id=pid, phone=f"+1555{index:07d}", name=f"Bench {index}", timezone=zone.key,
             status=status, paused_by=None if completed else "participant", opted_out=not completed,
             researcher_paused=False, background="", enrolled_at=enrolled, updated_at=enrolled, arm=arm,
             strata={"site": site}, day_one=day_one.isoformat(), extra_days=0,
             completed_at=to_instant(START + timedelta(days=DAYS), wall(0, 0), zone) if completed else None)
    rows.add(AllocationRow, participant_id=pid, stratum=f"site={site}", sequence=index + 1, arm=arm,
             reconstructed=False, created_at=enrolled)
    rows.add(Conversation, participant_id=pid, sub_state="FEEDBACK", summary="", version=1, updated_at=enrolled,
             tone={"active": ["warm"]}, profile={"habit_domain": "walking", "prompt_anchor": "after dinner",
                                                 "preferred_time": "19:00", "motivational_frame": "sleep better"})
    rows.add(ConsentEvent, participant_id=pid, event="enrolled", source="researcher", actor="Dr. Bench", words="",
             reconstructed=False, created_at=enrolled)
    for name, kind, before, after in (("intake_done", "sub_state", "INTAKE", "FEEDBACK"),
                                      ("study_started", "study", None, day_one.isoformat())):
        rows.add(Transition, participant_id=pid, kind=kind, name=name, from_value=before, to_value=after,
                 reason="seeded", actor="server", created_at=enrolled + timedelta(minutes=20))
    return zone, arm


def _answer(rows: Rows, rng: random.Random, pid: str, poll: int, sent: datetime) -> dict[str, Any]:
    """About 60 %: a vote (40 %), a written reply and the model's answer (10 %), or both (10 %)."""
    roll = rng.random()
    values: dict[str, Any] = {"vote": None, "voted_at": None, "vote_source": None, "replied_at": None}
    if roll < 0.5:
        voted = sent + timedelta(minutes=rng.randint(1, 240))
        vote = "done" if rng.random() < 0.7 else "not_this_time"
        rows.message(participant_id=pid, direction="in", role="user", kind="poll_vote", status="answered",
                     text=f"(poll vote: {vote})", created_at=voted)
        values.update(vote=vote, voted_at=voted, vote_source="tap")
    if 0.4 <= roll < 0.6:
        replied = sent + timedelta(minutes=rng.randint(1, 300))
        rows.message(participant_id=pid, direction="in", role="user", kind="text", status="answered", text=REPLY,
                     created_at=replied, wa_message_id=f"in-{poll}")
        rows.message(participant_id=pid, direction="out", role="assistant", kind="text", status="sent", text=ANSWER,
                     created_at=replied, sent_at=replied, wa_message_id=f"out-{poll}-a")
        values.update(replied_at=replied)
    return values


def _day(rows: Rows, rng: random.Random, pid: str, arm: str, zone: ZoneInfo, day: int, inbox_id: int) -> None:
    local = START + timedelta(days=day - 1)
    due = to_instant(local, wall(18, 50), zone)
    point: dict[str, Any] = {
        "participant_id": pid, "inbox_id": inbox_id, "schedule_id": "s_bench", "arm": arm, "study_day": day,
        "local_date": local.isoformat(), "scheduled_for": due, "decided_at": due,
        "local_time": due.astimezone(zone).isoformat(timespec="seconds"), "timezone": zone.key, "available": True,
        "unavailable_reason": None, "probability": None, "action": "none", "draw": None, "seed_ref": "",
        "prompt_message_id": None, "prompt_style": None, "model": None, "system_prompt_hash": None}
    if rng.random() < 0.05:
        point.update(available=False, unavailable_reason=rng.choice(("paused", "quiet_hours", "already_answered")))
        rows.add(Decision, **point)
        return
    draw = rng.random()
    point.update(probability=0.8, draw=draw, action="send" if draw < 0.8 else "no_send",
                 seed_ref=f"decision:prompt:{pid}:s_bench:{local}")
    if draw >= 0.8:
        rows.add(Decision, **point)
        return
    personalised = arm == "coach"
    prompt = rows.message(participant_id=pid, direction="out", role="assistant", kind="prompt", status="sent",
                          text=PROMPT, created_at=due, sent_at=due, wa_message_id=f"out-{inbox_id}-p")
    poll = rows.message(participant_id=pid, direction="out", role="assistant", kind="poll", status="sent",
                        text="Did you do it?", created_at=due, sent_at=due, wa_message_id=f"out-{inbox_id}-q")
    for mid, chance, kind, after in ((prompt, 0.95, "delivered", 1), (prompt, 0.7, "read", 30),
                                     (poll, 0.95, "delivered", 1)):
        if rng.random() < chance:
            rows.add(Receipt, wa_message_id=f"out-{inbox_id}-{'p' if mid == prompt else 'q'}", kind=kind,
                     at=due + timedelta(seconds=after), received_at=due + timedelta(seconds=after))
    point.update(prompt_message_id=prompt, prompt_style="personalised" if personalised else "fixed",
                 model="gpt-4o-mini" if personalised else None,
                 system_prompt_hash=hashlib.sha256(b"generator").hexdigest() if personalised else None)
    rows.add(Decision, **point)
    rows.add(PromptDelivery, participant_id=pid, inbox_id=inbox_id, schedule_id="s_bench", local_date=local.isoformat(),
             prompt_text=PROMPT, prompt_message_id=prompt, poll_message_id=poll, sent_at=due, vote_changes=0,
             reminder_at=None, **_answer(rows, rng, pid, inbox_id, due))


def _write(conn: Connection, rows: Rows) -> None:
    for model in (Participant, AllocationRow, Conversation, ConsentEvent, Transition, Message, Receipt, Decision,
                  PromptDelivery):
        table, batch = model.__table__, rows.tables.get(model, [])
        for start in range(0, len(batch), SEED_ROWS_PER_STATEMENT):
            conn.execute(insert(table), batch[start:start + SEED_ROWS_PER_STATEMENT])


async def _seed(url: str, participants: int) -> None:
    db = Database(url)
    await db.connect()
    rng = random.Random(20260202)
    adopted = datetime(2026, 1, 30, tzinfo=timezone.utc)

    def protocol(conn: Connection) -> None:
        conn.execute(insert(StudyProtocol.__table__), [{
            "name": "Export benchmark", "hash": hashlib.sha256(STUDY_TEXT.encode()).hexdigest(),
            "contents": STUDY_TEXT, "previous_hash": None, "adopted_at": adopted, "adopted_by": "first use (bench)"}])
        conn.execute(insert(StudySecret.__table__), [{"name": "seed", "value": "00" * 32, "created_at": adopted}])

    await db.run(lambda session: protocol(session.connection()))
    next_message = 0
    for first in range(0, participants, CHUNK):
        rows = Rows(next_message)
        for index in range(first, min(first + CHUNK, participants)):
            pid = f"p_{index:016x}"
            zone, arm = _participant(rows, index, pid)
            for day in range(1, DAYS + 1):
                _day(rows, rng, pid, arm, zone, day, index * 100 + day)
        await db.run(lambda session, rows=rows: _write(session.connection(), rows))
        next_message = rows.next_message
    await db.close()


def _cpu_seconds() -> float:
    """User and system time of this process and of its finished child processes."""
    return sum(usage.ru_utime + usage.ru_stime
               for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def seed_in_child(url: str, participants: int) -> None:
    asyncio.run(_seed(url, participants))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=PARTICIPANTS)
    parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    args = parser.parse_args()
    quiet_logging()
    await print_machine()
    with tempfile.TemporaryDirectory(prefix="bench-export-") as work:
        url = f"sqlite:///{Path(work) / 'promptpipe.db'}"
        sys.stdout.flush()
        started = time.perf_counter()
        child = multiprocessing.get_context("spawn").Process(target=seed_in_child, args=(url, args.participants))
        child.start()
        child.join()
        if child.exitcode != 0:
            raise SystemExit(f"seeding failed (exit code {child.exitcode})")
        size_mb = (Path(work) / "promptpipe.db").stat().st_size / 2**20
        print(f"seeded {args.participants:,} participants x {DAYS} study days in {time.perf_counter() - started:.1f} s "
              f"(child process); database {size_mb:.0f} MB")
        db = Database(url)
        await db.connect()
        rss_before, cpu_before = peak_rss_mb(), _cpu_seconds()
        started = time.perf_counter()
        result = await export_study(db, Path(work) / "export", ExportOptions(fmt=args.format, model="gpt-4o-mini",
                                    now=datetime(2026, 3, 15, tzinfo=timezone.utc)))
        elapsed = time.perf_counter() - started
        cpu, children_rss = _cpu_seconds() - cpu_before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        await db.close()
        sizes = {p.name: p.stat().st_size for p in (Path(work) / "export").iterdir()}
    total = sum(result.rows.values())
    print(f"export to {args.format.upper()}: {elapsed:.2f} s for {total:,} rows ({total / elapsed:,.0f} rows/s); "
          f"{sum(sizes.values()) / 2**20:.1f} MB written")
    for name, count in result.rows.items():
        print(f"  {name}.{args.format}: {count:,} rows, {sizes[f'{name}.{args.format}'] / 2**20:.2f} MB")
    print(f"  also: {', '.join(f'{p.name} ({sizes[p.name] / 1024:.0f} KB)' for p in result.companions)}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"CPU time of the export: {cpu:.2f} s (this process and the worker process it starts for the transcript "
          f"where it may use two cores; this run may use {cores})")
    print(f"peak RSS: {rss_before:.0f} MB before the export, {peak_rss_mb():.0f} MB after; "
          f"largest child process (the seeding or the export's worker) {children_rss:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
