"""1,000 participants each sending one message at once with a fake LLM taking 200 ms: all replies
handed to the transport within 6 s.

The service runs with its background loops (inbox poller, outbox dispatcher) as in production.
All 1,000 messages are injected in one ``asyncio.gather``; the benchmark then waits until 1,000
replies reached the transport. Run twice, each on a fresh database: with the default
LANE_CONCURRENCY (100) and with LANE_CONCURRENCY=1000.

Run: cd /work/main && .venv/bin/python benchmarks/bench_burst.py
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

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


async def run_burst(lane_concurrency: int | None) -> BurstResult:
    overrides = {} if lane_concurrency is None else {"LANE_CONCURRENCY": str(lane_concurrency)}
    with tempfile.TemporaryDirectory(prefix="pp-bench-burst-") as tmp:
        llm, transport = FakeLLM(delay_s=LLM_DELAY_S), TimedTransport()
        app = build_app(Path(tmp), llm, transport, **overrides)
        phones = await seed(app, participants=PARTICIPANTS)
        label = f"LANE_CONCURRENCY={app.settings.lane_concurrency}" + (" (default)" if lane_concurrency is None else "")
        await app.start(background=True)
        counter = DatabaseCounter(app)
        try:
            t0 = time.perf_counter()
            started, stored = await inject_all(transport, phones)
            ingest_all_s = time.perf_counter() - t0
            await wait_for_replies(transport, PARTICIPANTS, t0 + GIVE_UP_S)
        finally:
            await app.stop()
    replied = [phone for phone in phones if transport.sent_at.get(phone)]
    first_sends = [transport.sent_at[phone][0] for phone in replied]
    return BurstResult(
        label=label, replies=len(transport.sent), ingest_all_s=ingest_all_s,
        last_reply_s=max(first_sends) - t0 if len(replied) == PARTICIPANTS else None,
        first_reply_s=min(first_sends) - t0 if first_sends else None,
        latency_s=[transport.sent_at[phone][0] - started[phone] for phone in replied],
        stored_to_reply_s=[transport.sent_at[phone][0] - stored[phone] for phone in replied],
        llm_calls=llm.calls, peak_llm_in_flight=llm.peak_in_flight, database=counter.per_message(PARTICIPANTS),
    )


def report(result: BurstResult) -> None:
    print(f"\n{result.label}")
    print(f"  all {PARTICIPANTS:,} messages stored (ingest) after {result.ingest_all_s:.2f} s")
    if result.first_reply_s is not None:
        print(f"  first reply handed to the transport after {result.first_reply_s:.2f} s")
    print(f"  model calls {result.llm_calls:,}, at most {result.peak_llm_in_flight} at the same time")
    print(f"  database: {result.database}")
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
    quiet_logging()
    await print_machine()
    print(f"{PARTICIPANTS:,} participants, one message each at once; "
          f"fake LLM answers after {LLM_DELAY_S * 1000:.0f} ms; SEND_RATE_PER_SECOND=0")
    for lane_concurrency in LANE_CONCURRENCY_RUNS:
        report(await run_burst(lane_concurrency))
    print(f"\npeak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
