"""Shared pieces of the benchmarks: a fake LLM, a timed in-memory transport, settings, bulk
seeding, percentiles and the printing of figures against their targets.

Benchmarks print figures; they assert nothing about timing.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import platform
import resource
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import structlog
from sqlalchemy import event, insert
from sqlalchemy.engine import Connection

from promptpipe.app import App
from promptpipe.clock import SystemClock
from promptpipe.config import Settings, load_settings
from promptpipe.domain.messages import MessageStatus
from promptpipe.domain.states import Stage, Status
from promptpipe.llm import Completion
from promptpipe.logging import configure_logging
from promptpipe.storage.models import Conversation, Message, Participant, Transition
from promptpipe.storage.participants import new_participant_id
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus
from promptpipe.transport.base import Recipient, SentMessage
from promptpipe.transport.memory import MemoryTransport

REPLY_TEXT = "Thanks for telling me! What time of day would suit you best for this habit?"
USER_TEXT = "I walked for twenty minutes after lunch today, it felt good."
SEED_ROWS_PER_STATEMENT = 5_000
"""Rows per executemany call while seeding."""


class DatabaseCounter:
    """Counts transactions and SQL statements on an engine (SQLAlchemy events; BEGIN not counted
    as a statement; on SQLite BEGIN and savepoints go straight to the driver, unheard) between
    ``reset()`` and reading the fields. On SQLite, transactions waiting side by side commit as one:
    counted once."""

    def __init__(self, app: App) -> None:
        self.transactions = 0
        self.statements = 0
        event.listen(app.db.engine, "begin", self._on_begin)
        event.listen(app.db.engine, "after_cursor_execute", self._on_statement)

    def reset(self) -> None:
        self.transactions = self.statements = 0

    def per_message(self, messages: int) -> str:
        return (f"{self.transactions / messages:.1f} transactions and {self.statements / messages:.1f} SQL statements "
                "per message")

    def _on_begin(self, _conn: Any) -> None:
        self.transactions += 1

    def _on_statement(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if not statement.startswith("BEGIN"):
            self.statements += 1


def quiet_logging() -> None:
    """The service's own log set-up, filtered to warnings so log output does not skew timings."""
    configure_logging("console")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


class FakeLLM:
    """Implements the ``LLM`` protocol in process: optionally waits ``delay_s``, then replies with
    plain text (no tool calls). Records how long was spent inside ``complete`` so a benchmark can
    subtract it, and how many calls ran at the same time."""

    def __init__(self, delay_s: float = 0.0, reply: str = REPLY_TEXT) -> None:
        self.delay_s = delay_s
        self.reply = reply
        self.calls = 0
        self.busy_s = 0.0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.last_prompt_messages = 0

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> Completion:
        started = time.perf_counter()
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            if self.delay_s > 0:
                await asyncio.sleep(self.delay_s)
            self.calls += 1
            self.last_prompt_messages = len(messages)
            return Completion(content=self.reply)
        finally:
            self.in_flight -= 1
            self.busy_s += time.perf_counter() - started


@dataclass
class TimedTransport(MemoryTransport):
    """A MemoryTransport that notes the ``perf_counter`` of every text send, by phone. The times
    are kept as tuples of floats, which the garbage collector stops scanning; with
    ``keep_sent=False`` the sends themselves are not kept either (``sent`` stays empty). A
    10,000-prompt burst kept 30,000 sends as objects: the collector's full passes over them, not
    over the service's own objects, were most of the event-loop stalls that benchmark measures."""

    sent_at: dict[str, tuple[float, ...]] = field(default_factory=dict)
    keep_sent: bool = True

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        result = await super().send_text(to, text)
        note_time(self.sent_at, to.phone)
        self._forget_sends()
        return result

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        result = await super().send_poll(to, question, options, multiple=multiple)
        self._forget_sends()
        return result

    def _forget_sends(self) -> None:
        if not self.keep_sent:
            self.sent.clear()


def note_time(times: dict[str, tuple[float, ...]], phone: str) -> float:
    """Add the ``perf_counter`` now to ``phone``'s times; returns it."""
    now = time.perf_counter()
    times[phone] = (*times.get(phone, ()), now)
    return now


def make_settings(work_dir: Path, **overrides: str) -> Settings:
    """Settings as the tests build them: SQLite file in ``work_dir``, no send rate limit."""
    env = {
        "OPENAI_API_KEY": "bench-key",
        "DATABASE_URL": f"sqlite:///{work_dir / 'promptpipe.db'}",
        "PROMPTPIPE_STATE_DIR": str(work_dir / "state"),
        "SEND_RATE_PER_SECOND": "0",
        "PROMPTPIPE_TRANSPORT": "dry-run",
        **overrides,
    }
    return load_settings(env, env_file=None)


def build_app(work_dir: Path, llm: FakeLLM, transport: TimedTransport, **overrides: str) -> App:
    return App.build(make_settings(work_dir, **overrides), transport=transport, llm=llm, clock=SystemClock())


def bench_phone(index: int) -> str:
    return f"+1555{index:07d}"


async def seed(app: App, *, participants: int, messages_per_participant: int = 0,
               stage: str = Stage.INTAKE) -> list[str]:
    """Bulk-insert enrolled participants (no greeting pending, in conversation ``stage``) and, per
    participant, a processed history: alternating user/assistant messages with their done inbox
    and sent outbox rows. Creates the tables first. Returns the phones, in participant order."""
    await app.db.connect()
    now = datetime.now(timezone.utc)
    enrolled_at = now - timedelta(days=90)
    people = [(new_participant_id(), bench_phone(i)) for i in range(participants)]
    def write(conn: Connection) -> None:
        _insert(conn, Participant, [
            {"id": pid, "phone": phone, "lid": None, "name": f"Bench {i}", "timezone": "Europe/Berlin",
             "status": Status.ACTIVE, "background": "", "enrolled_at": enrolled_at, "updated_at": enrolled_at}
            for i, (pid, phone) in enumerate(people)
        ])
        _insert(conn, Conversation, [
            {"participant_id": pid, "sub_state": stage, "profile": {}, "tone": {}, "summary": "", "version": 1,
             "updated_at": enrolled_at}
            for pid, _ in people
        ])
        _insert(conn, Transition, [
            {"participant_id": pid, "kind": "status", "name": "enrolled", "from_value": None, "to_value": Status.ACTIVE,
             "reason": "seeded by benchmark", "created_at": enrolled_at}
            for pid, _ in people
        ])

    await app.db.run(lambda session: write(session.connection()))
    if messages_per_participant:
        await _seed_history(app, [pid for pid, _ in people], messages_per_participant, enrolled_at)
    return [phone for _, phone in people]


async def _seed_history(app: App, participant_ids: list[str], per_participant: int, start: datetime) -> None:
    """One transaction; rows are built a chunk of participants at a time so seeding does not
    inflate the peak RSS the benchmarks report."""
    chunk = max(1, SEED_ROWS_PER_STATEMENT // per_participant)

    def write(conn: Connection) -> None:
        for first in range(0, len(participant_ids), chunk):
            offset = first * per_participant
            messages, inbox, outbox = _history_rows(
                participant_ids[first:first + chunk], per_participant, start, offset)
            for model, rows in ((Message, messages), (InboxItem, inbox), (OutboxItem, outbox)):
                _insert(conn, model, rows)

    await app.db.run(lambda session: write(session.connection()))


def _history_rows(
    participant_ids: list[str], per_participant: int, start: datetime, first_id: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    messages: list[dict[str, Any]] = []
    inbox: list[dict[str, Any]] = []
    outbox: list[dict[str, Any]] = []
    message_id = first_id
    for pid in participant_ids:
        for j in range(per_participant):
            message_id += 1
            at = start + timedelta(minutes=j)
            inbound = j % 2 == 0
            messages.append({
                "id": message_id, "participant_id": pid, "direction": "in" if inbound else "out",
                "role": "user" if inbound else "assistant", "kind": "text",
                "text": USER_TEXT if inbound else REPLY_TEXT, "payload": {},
                "wa_message_id": f"seed-{message_id}", "status": "answered" if inbound else MessageStatus.SENT,
                "created_at": at, "sent_at": None if inbound else at,
            })
            if inbound:
                inbox.append({"key": f"wa:seed-{message_id}", "participant_id": pid, "kind": "message", "payload": {},
                              "message_id": message_id, "status": InboxStatus.DONE, "attempts": 1, "available_at": at,
                              "created_at": at, "processed_at": at, "last_error": None})
            else:
                outbox.append({"key": f"reply:seed-{message_id}", "participant_id": pid, "message_id": message_id,
                               "status": OutboxStatus.SENT, "attempts": 1, "available_at": at, "claimed_at": at,
                               "sent_at": at, "wa_message_id": f"seed-{message_id}", "last_error": None,
                               "created_at": at})
    return messages, inbox, outbox


def _insert(conn: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    table = model.__table__
    for start in range(0, len(rows), SEED_ROWS_PER_STATEMENT):
        conn.execute(insert(table), rows[start:start + SEED_ROWS_PER_STATEMENT])


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (``pct`` in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(values_s: Sequence[float], unit: str = "ms") -> str:
    """``p50 … p90 … p99 … max …`` of durations given in seconds, shown in ``ms`` or ``s``."""
    scale = 1000 if unit == "ms" else 1
    parts = [f"p{p} {percentile(values_s, p) * scale:.2f}" for p in (50, 90, 99)]
    return "  ".join(parts) + f"  max {max(values_s) * scale:.2f} {unit}"


def verdict(label: str, value: float, target: float, unit: str) -> str:
    """``p50 3.10 ms (target ≤ 5 ms) OK`` — or ``MISSED``."""
    status = "OK" if value <= target else "MISSED"
    return f"{label} {value:.2f} {unit} (target ≤ {target:g} {unit}) {status}"


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def print_machine() -> None:
    """One line to compare runs by: cores, load, and the speed of the two things a turn is made of
    (Python bytecode, and one hop to a worker thread and back, as every transaction makes)."""
    started = time.perf_counter()
    total = 0
    for i in range(1_000_000):
        total += i
    loop_ms = (time.perf_counter() - started) * 1000
    round_trips_ms: list[float] = []
    loop = asyncio.get_running_loop()
    for _ in range(300):
        started = time.perf_counter()
        await loop.run_in_executor(None, int)
        round_trips_ms.append((time.perf_counter() - started) * 1000)
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}, Python {platform.python_version()}; "
          f"1M-step Python loop {loop_ms:.0f} ms; thread hop median {statistics.median(round_trips_ms):.3f} ms")
