"""Framework overhead per message, excluding time inside the LLM call, on SQLite with 1,000
participants and 100,000 transcript rows: target p50 ≤ 5 ms, p99 ≤ 25 ms.

Each message is measured alone: inject it through the MemoryTransport (the inbox stores it and
wakes the lane), then ``run_until_idle()`` runs the turn and sends the reply through the outbox.
Overhead = that wall time minus the time spent inside the fake LLM's ``complete``.

Run: cd /work/main && .venv/bin/python benchmarks/bench_turn_overhead.py
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import (
    USER_TEXT,
    DatabaseCounter,
    FakeLLM,
    TimedTransport,
    build_app,
    peak_rss_mb,
    percentile,
    print_machine,
    quiet_logging,
    seed,
    summary,
    verdict,
)

from promptpipe.app import App

PARTICIPANTS = 1_000
MESSAGES_PER_PARTICIPANT = 100
WARMUP_MESSAGES = 50
TARGET_P50_MS = 5.0
TARGET_P99_MS = 25.0


@dataclass
class Samples:
    overhead_s: list[float] = field(default_factory=list)
    ingest_s: list[float] = field(default_factory=list)
    to_transport_s: list[float] = field(default_factory=list)
    """From inject to the reply reaching the transport, LLM time excluded."""
    settle_s: list[float] = field(default_factory=list)
    """From the send to ``run_until_idle`` returning: marking it sent and the idle check."""
    llm_s: list[float] = field(default_factory=list)
    missing_replies: int = 0


async def measure_one(app: App, transport: TimedTransport, llm: FakeLLM, phone: str, samples: Samples) -> None:
    sends_before = len(transport.sent)
    llm_before = llm.busy_s
    started = time.perf_counter()
    await transport.inject(phone, USER_TEXT)
    ingested = time.perf_counter()
    await app.run_until_idle()
    finished = time.perf_counter()
    llm_s = llm.busy_s - llm_before
    if len(transport.sent) != sends_before + 1:
        samples.missing_replies += 1
        return
    sent = transport.sent_at[phone][-1]
    samples.overhead_s.append(finished - started - llm_s)
    samples.ingest_s.append(ingested - started)
    samples.to_transport_s.append(sent - started - llm_s)
    samples.settle_s.append(finished - sent)
    samples.llm_s.append(llm_s)


def report(samples: Samples, llm: FakeLLM, counter: DatabaseCounter) -> None:
    count = len(samples.overhead_s)
    print(f"\nmeasured messages: {count} (each alone; {samples.missing_replies} without exactly one reply)")
    print(f"database: {counter.per_message(count + samples.missing_replies)}")
    print(f"model saw {llm.last_prompt_messages} chat messages per turn (system + situation + history + new)")
    print(f"overhead per message      {summary(samples.overhead_s)}")
    print(f"  ingest (inject returns) {summary(samples.ingest_s)}")
    print(f"  inject -> reply sent    {summary(samples.to_transport_s)}")
    print(f"  reply sent -> idle      {summary(samples.settle_s)}")
    print(f"  (inside fake LLM        {summary(samples.llm_s)}, subtracted)")
    print(verdict("p50", percentile(samples.overhead_s, 50) * 1000, TARGET_P50_MS, "ms"))
    print(verdict("p99", percentile(samples.overhead_s, 99) * 1000, TARGET_P99_MS, "ms"))


async def main() -> None:
    quiet_logging()
    await print_machine()
    with tempfile.TemporaryDirectory(prefix="pp-bench-overhead-") as tmp:
        llm, transport = FakeLLM(), TimedTransport()
        app = build_app(Path(tmp), llm, transport)
        seed_started = time.perf_counter()
        phones = await seed(app, participants=PARTICIPANTS, messages_per_participant=MESSAGES_PER_PARTICIPANT)
        print(f"seeded {PARTICIPANTS:,} participants and {PARTICIPANTS * MESSAGES_PER_PARTICIPANT:,} transcript rows "
              f"(+ their done inbox / sent outbox rows) in {time.perf_counter() - seed_started:.1f} s")
        await app.start(background=False)
        counter = DatabaseCounter(app)
        try:
            warmup = Samples()
            for phone in phones[:WARMUP_MESSAGES]:
                await measure_one(app, transport, llm, phone, warmup)
            samples = Samples()
            counter.reset()
            for phone in phones:
                await measure_one(app, transport, llm, phone, samples)
        finally:
            await app.stop()
    report(samples, llm, counter)
    print(f"peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
