"""Questionnaires under load: 1,000 participants each answering a 10-item questionnaire at the same
time, and the framework's time per answer.

A fresh SQLite file, 1,000 seeded participants and a study file with one questionnaire of ten
typed items (whole numbers 0-10); the service runs with its background loops, no model is called.
The team sends the questionnaire to everyone (``send_questionnaire``), then ten rounds: all 1,000
answer the item they were asked at once, and the round ends when each has been asked the next
(or thanked, after the tenth). Then, on a quiet service, 200 answers one at a time: the time from
the answer stored to the next item handed to the transport, which is the framework's time per
answer (issue 27: p50 <= 5 ms), and its database statements.

Run: cd /work/main && .venv/bin/python benchmarks/bench_questionnaire.py
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import (
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
from sqlalchemy import select

from promptpipe.domain.states import Stage
from promptpipe.questionnaires.operations import send_questionnaire
from promptpipe.storage.models import Participant

PARTICIPANTS, ITEMS, SEQUENTIAL = 1_000, 10, 200
TARGET_PER_ANSWER_MS, TARGET_FINISHED_S = 5.0, 60.0  # issue 27
GIVE_UP_S, WAIT_STEP_S = 120.0, 0.01
STUDY = 'name = "Questionnaire benchmark"\nlength_days = 28\n[[questionnaires]]\nid = "daily"\ntitle = "Daily"\n' \
        'send = { study_days = [27], at = "12:00" }\nopen_for = "12h"\n' + "".join(
            f'[[questionnaires.items]]\nid = "item{n}"\ntext = "Item {n}: how much, from 0 to 10?"\n'
            'type = "scale"\nmin = 0\nmax = 10\nask_as = "typed"\n' for n in range(1, ITEMS + 1))


async def wait_until(condition: Callable[[], bool], deadline: float) -> bool:
    while not condition():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(WAIT_STEP_S)
    return True


def sends(transport: TimedTransport, phone: str) -> int:
    return len(transport.sent_at.get(phone, ()))


async def main() -> None:
    quiet_logging()
    await print_machine()
    print(f"{PARTICIPANTS:,} participants, a questionnaire of {ITEMS} typed items each, answered in rounds of "
          f"{PARTICIPANTS:,} at once; then {SEQUENTIAL} answers one at a time; no model call")
    with tempfile.TemporaryDirectory(prefix="pp-bench-questionnaire-") as tmp:
        study = Path(tmp) / "study.toml"
        study.write_text(STUDY, encoding="utf-8")
        transport = TimedTransport(keep_sent=False)
        app = build_app(Path(tmp), FakeLLM(), transport, PROMPTPIPE_STUDY_FILE=str(study))
        phones = await seed(app, participants=PARTICIPANTS + 1, stage=Stage.FEEDBACK)
        alone, phones = phones[-1], phones[:-1]
        await app.start(background=True, allow_protocol_change=True)  # seeded before the study file
        try:
            t0 = time.perf_counter()
            ids = dict(await app.db.run(
                lambda session: session.execute(select(Participant.phone, Participant.id)).all()))
            for phone in [*phones, alone]:  # by id: the benchmark's numbers are not real ones
                await send_questionnaire(app.db, app.clock, app.settings.study, phone=ids[phone],
                                         questionnaire_id="daily")
            sent_s = time.perf_counter() - t0
            everyone = [*phones, alone]
            if not await wait_until(lambda: all(sends(transport, p) >= 1 for p in everyone), t0 + GIVE_UP_S):
                print("GAVE UP: the first items did not all go out")
                return
            print(f"\nqueued for everyone in {sent_s:.1f} s; every first item handed over "
                  f"{time.perf_counter() - t0:.1f} s after the first send")
            counter = DatabaseCounter(app)
            rounds: list[float] = []
            last_answer_in = 0.0
            for round_number in range(1, ITEMS + 1):
                start = time.perf_counter()
                await asyncio.gather(*(transport.inject(phone, "7") for phone in phones))
                last_answer_in = time.perf_counter()
                done = await wait_until(lambda n=round_number: all(sends(transport, p) >= n + 1 for p in phones),
                                        start + GIVE_UP_S)
                rounds.append(time.perf_counter() - start)
                if not done:
                    print(f"GAVE UP in round {round_number}")
                    return
            finished_after = time.perf_counter() - last_answer_in
            print(f"rounds of {PARTICIPANTS:,} answers: {summary(rounds, 's')}; "
                  f"{sum(rounds) / (ITEMS * PARTICIPANTS) * 1000:.2f} ms of wall time per answer")
            print(f"database per answer: {counter.per_message(ITEMS * PARTICIPANTS)}")
            print("  " + verdict("every questionnaire finished after the last answer", finished_after,
                                 TARGET_FINISHED_S, "s"))

            per_answer: list[float] = []
            counter = DatabaseCounter(app)
            for _ in range(SEQUENTIAL // ITEMS):
                await send_questionnaire(app.db, app.clock, app.settings.study, phone=ids[alone],
                                         questionnaire_id="daily")
                before = sends(transport, alone)
                await wait_until(lambda b=before: sends(transport, alone) > b, time.perf_counter() + GIVE_UP_S)
                for _ in range(ITEMS):
                    before = sends(transport, alone)
                    await transport.inject(alone, "7")
                    stored = time.perf_counter()
                    await wait_until(lambda b=before: sends(transport, alone) > b, stored + GIVE_UP_S)
                    per_answer.append(transport.sent_at[alone][-1] - stored)
            print(f"\none answer at a time, stored -> next item handed over: {summary(per_answer, 'ms')}")
            print(f"database per answer (with the {SEQUENTIAL // ITEMS} sends and the service's idle polls): "
                  f"{counter.per_message(SEQUENTIAL)}")
            print("  " + verdict("framework time per answer, p50", percentile(per_answer, 50) * 1000,
                                 TARGET_PER_ANSWER_MS, "ms"))
        finally:
            await app.stop()
    print(f"\npeak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
