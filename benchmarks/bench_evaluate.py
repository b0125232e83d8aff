"""``promptpipe evaluate`` on its virtual clock: 20 personas (personas.example.toml) over 14 study
days, then every built-in hard case, with in-process models that answer at once (the decent coach,
the participant and the reading judges of tests/evaluation/), so what is timed is the harness and
the engine, not a model server. Issue 29's target: 14 days for 20 personas in under a minute.

Run: cd /work/main && .venv/bin/python benchmarks/bench_evaluate.py
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake models live with the tests

from _common import make_settings, peak_rss_mb, print_machine, quiet_logging, verdict  # noqa: E402

from promptpipe.cli._evaluate import GATE_FAILED, Models, add_arguments, evaluate_command  # noqa: E402
from promptpipe.evaluation.cases import load_cases  # noqa: E402
from tests.evaluation.fake_player import FakePlayer  # noqa: E402
from tests.evaluation.planted_coaches import DecentCoach  # noqa: E402
from tests.evaluation.reading_judge import ReadingJudge  # noqa: E402


async def timed(work_dir: Path, argv: list[str]) -> tuple[float, list[str]]:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    models = Models(coach=DecentCoach(), player=FakePlayer(),
                    judges=(("fake#1", ReadingJudge()), ("fake#2", ReadingJudge(lenient=True))),
                    coach_name="fake-coach", player_name="fake-player")
    said: list[str] = []
    started = time.perf_counter()
    code = await evaluate_command(make_settings(work_dir), parser.parse_args(argv), models=models, say=said.append)
    if code not in (0, GATE_FAILED):  # timed, not gated: the fake coach need not pass the default gate
        raise SystemExit(f"the run failed ({code}): {said[-3:]}")
    return time.perf_counter() - started, said


async def main() -> None:
    quiet_logging()
    await print_machine()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        seconds, said = await timed(work, ["--personas", str(ROOT / "personas.example.toml"), "--no-builtin-cases",
                                           "--days", "14", "--out", str(work / "personas")])
        print(next(line for line in said if line.startswith("Done:")))
        print(verdict("20 personas x 14 study days, checked and judged twice", seconds, 60.0, "s"))
        seconds, said = await timed(work, ["--out", str(work / "cases")])
        print(f"{len(load_cases())} built-in hard cases, checked and judged twice: {seconds:.1f} s")
    print(f"peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())
