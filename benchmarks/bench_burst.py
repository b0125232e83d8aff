"""1,000 participants each sending one message at once with a fake LLM taking 200 ms: all replies
handed to the transport within 6 s.

The service runs with its background loops (inbox poller, outbox dispatcher) as in production.
All 1,000 messages are injected in one ``asyncio.gather``; the benchmark then waits until 1,000
replies reached the transport. Run twice, each on a fresh database: with the default
LANE_CONCURRENCY (100) and with LANE_CONCURRENCY=1000.

Run: cd /work/main && .venv/bin/python benchmarks/bench_burst.py
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from _common import (
    USER_TEXT,
    DatabaseCounter,
    FakeLLM,
    TimedTransport,
    build_app,
    peak_rss_mb,
    print_machine,
    quiet_logging,
    seed,
    summary,
    verdict,
)
from bench_several_services import ServerSample, create_database, drop_database

from promptpipe.app import App
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.research.messaging import broadcast

PARTICIPANTS = 1_000
LLM_DELAY_S = 0.2
TARGET_ALL_REPLIED_S = 5.0  # issue 26
GIVE_UP_S = 60.0
WAIT_STEP_S = 0.01
LANE_CONCURRENCY_RUNS = (None, 1_000)
"""None keeps the default LANE_CONCURRENCY."""


@dataclass
class BurstResult:
    label: str
    replies: int
    ingest_all_s: float
    last_reply_s: float | None
    first_reply_s: float | None
    latency_s: list[float]
    """Per message: from the start of its inject to its reply reaching the transport."""
    stored_to_reply_s: list[float]
    llm_calls: int
    peak_llm_in_flight: int
    database: str
    cpu_per_turn_ms: float = 0.0
    """The service's CPU (this process) per turn, from the first message until the last reply."""
    server_cpu_per_turn_ms: float | None = None
    """PostgreSQL only: the database server's backends' CPU per turn, and its transactions per turn."""
    server_transactions_per_turn: float | None = None
    send: str = ""
    """Then one team message to everyone (a broadcast): the CPU of a send, the same way."""


async def inject_all(transport: TimedTransport, phones: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    """Inject one message per phone concurrently; returns start and stored times by phone."""
    started: dict[str, float] = {}
    stored: dict[str, float] = {}

    async def one(phone: str) -> None:
        started[phone] = time.perf_counter()
        await transport.inject(phone, USER_TEXT)
        stored[phone] = time.perf_counter()

    await asyncio.gather(*(one(phone) for phone in phones))
    return started, stored


async def wait_for_replies(transport: TimedTransport, count: int, deadline: float) -> None:
    while len(transport.sent) < count and time.perf_counter() < deadline:
        await asyncio.sleep(WAIT_STEP_S)


async def run_burst(lane_concurrency: int | None, postgres: str | None = None) -> BurstResult:
    overrides = {} if lane_concurrency is None else {"LANE_CONCURRENCY": str(lane_concurrency)}
    database = create_database(postgres) if postgres else None
    if database is not None:
        overrides["DATABASE_URL"] = f"{postgres}{database}"
    try:
        with tempfile.TemporaryDirectory(prefix="pp-bench-burst-") as tmp:
            return await _burst(Path(tmp), overrides, lane_concurrency is None)
    finally:
        if postgres and database:
            drop_database(postgres, database)


async def _burst(tmp: Path, overrides: dict[str, str], default_lanes: bool) -> BurstResult:
    llm, transport = FakeLLM(delay_s=LLM_DELAY_S), TimedTransport()
    app = build_app(tmp, llm, transport, **overrides)
    phones = await seed(app, participants=PARTICIPANTS)
    url = overrides.get("DATABASE_URL")
    label = f"LANE_CONCURRENCY={app.settings.lane_concurrency}" + (" (default)" if default_lanes else "")
    await app.start(background=True)
    counter = DatabaseCounter(app)
    server = psycopg.connect(url, autocommit=True) if url else None
    try:
        server_before = ServerSample.read(server) if server else None
        cpu_before = time.process_time()
        t0 = time.perf_counter()
        started, stored = await inject_all(transport, phones)
        ingest_all_s = time.perf_counter() - t0
        await wait_for_replies(transport, PARTICIPANTS, t0 + GIVE_UP_S)
        cpu = time.process_time() - cpu_before
        server_cpu, transactions, _ = ServerSample.read(server).since(server_before) if server and server_before \
            else (None, None, None)
        send = await _broadcast_cost(app, transport, server)
    finally:
        if server is not None:
            server.close()
        await app.stop()
    replied = [phone for phone in phones if transport.sent_at.get(phone)]
    first_sends = [transport.sent_at[phone][0] for phone in replied]
    turns = max(1, len(replied))
    return BurstResult(
        label=label + (" on PostgreSQL" if url else " on SQLite"), replies=len(transport.sent),
        ingest_all_s=ingest_all_s,
        last_reply_s=max(first_sends) - t0 if len(replied) == PARTICIPANTS else None,
        first_reply_s=min(first_sends) - t0 if first_sends else None,
        latency_s=[transport.sent_at[phone][0] - started[phone] for phone in replied],
        stored_to_reply_s=[transport.sent_at[phone][0] - stored[phone] for phone in replied],
        llm_calls=llm.calls, peak_llm_in_flight=llm.peak_in_flight, database=counter.per_message(PARTICIPANTS),
        cpu_per_turn_ms=cpu * 1000 / turns,
        server_cpu_per_turn_ms=None if server_cpu is None else server_cpu * 1000 / turns,
        server_transactions_per_turn=None if transactions is None else transactions / turns, send=send,
    )


async def _broadcast_cost(app: App, transport: TimedTransport, server: psycopg.Connection[Any] | None) -> str:
    """One team message to every participant (queued as a broadcast, each one a turn without the model in the
    participant's lane, then its send): CPU per message sent, from the broadcast until the last send."""
    before_sends, server_before = len(transport.sent), ServerSample.read(server) if server else None
    cpu_before, t0 = time.process_time(), time.perf_counter()
    await broadcast(app.db, app.clock, text="A note from the study team.", flt=ParticipantFilter(), anyway=True)
    while len(transport.sent) < before_sends + PARTICIPANTS and time.perf_counter() < t0 + GIVE_UP_S:
        await asyncio.sleep(WAIT_STEP_S)
    sends = max(1, len(transport.sent) - before_sends)
    cpu_ms = (time.process_time() - cpu_before) * 1000 / sends
    said = f"{sends:,} team messages sent in {time.perf_counter() - t0:.2f} s; CPU per send: service {cpu_ms:.1f} ms"
    if server is not None and server_before is not None:
        server_cpu, transactions, _ = ServerSample.read(server).since(server_before)
        said += f", database server {server_cpu * 1000 / sends:.1f} ms ({transactions / sends:.1f} transactions)"
    return said


def report(result: BurstResult) -> None:
    print(f"\n{result.label}")
    print(f"  all {PARTICIPANTS:,} messages stored (ingest) after {result.ingest_all_s:.2f} s")
    if result.first_reply_s is not None:
        print(f"  first reply handed to the transport after {result.first_reply_s:.2f} s")
    print(f"  model calls {result.llm_calls:,}, at most {result.peak_llm_in_flight} at the same time")
    print(f"  database: {result.database}")
    print(f"  CPU per turn (message stored, model request, reply sent): service {result.cpu_per_turn_ms:.1f} ms"
          + ("" if result.server_cpu_per_turn_ms is None else
             f", database server {result.server_cpu_per_turn_ms:.1f} ms"
             f" ({result.server_transactions_per_turn:.1f} transactions)"))
    print(f"  then a broadcast: {result.send}")
    if result.latency_s:
        print(f"  per message, inject -> reply   {summary(result.latency_s, 's')}")
        print(f"  per message, stored -> reply   {summary(result.stored_to_reply_s, 's')}")
    if result.last_reply_s is None:
        print(f"  GAVE UP after {GIVE_UP_S:.0f} s: only {result.replies:,} of {PARTICIPANTS:,} "
              "replies reached the transport")
        return
    print("  " + verdict(f"all {PARTICIPANTS:,} replies after", result.last_reply_s, TARGET_ALL_REPLIED_S, "s"))
    print(f"  peak RSS so far {peak_rss_mb():.0f} MB")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", metavar="SERVER", help="PostgreSQL server URL ending in '/': run there too")
    args = parser.parse_args()
    quiet_logging()
    await print_machine()
    print(f"{PARTICIPANTS:,} participants, one message each at once; "
          f"fake LLM answers after {LLM_DELAY_S * 1000:.0f} ms; SEND_RATE_PER_SECOND=0")
    for lane_concurrency in LANE_CONCURRENCY_RUNS:
        report(await run_burst(lane_concurrency))
    if args.postgres:
        report(await run_burst(None, args.postgres))
    print(f"\npeak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
