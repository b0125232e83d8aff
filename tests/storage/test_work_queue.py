"""The database threads' queue: urgent work goes ahead of normal work already waiting."""

from __future__ import annotations

import gc
import threading
from collections.abc import Sequence

import pytest

from promptpipe.storage.work_queue import Outcome, WorkQueue


def test_urgent_work_goes_ahead_of_what_waits_and_each_level_keeps_its_order() -> None:
    work, started, gate, order = WorkQueue(1, "test"), threading.Event(), threading.Event(), []
    busy = work.submit(lambda: started.set() or gate.wait(5))  # the one thread is busy
    assert started.wait(5)
    normal = [work.submit(order.append, f"turn {i}") for i in range(3)]
    urgent = [work.submit_urgent(order.append, f"message {i}") for i in range(2)]
    assert work.waiting == 5
    gate.set()
    for future in [busy, *normal, *urgent]:
        future.result(timeout=5)
    assert order == ["message 0", "message 1", "turn 0", "turn 1", "turn 2"]
    work.shutdown()


def test_a_closed_queue_finishes_what_it_holds_and_refuses_more() -> None:
    work, gate, done = WorkQueue(2, "test"), threading.Event(), []
    held = [work.submit(gate.wait, 5) for _ in range(2)]
    queued = [work.submit(done.append, i) for i in range(4)]
    closing = threading.Thread(target=work.shutdown)
    closing.start()
    gate.set()
    closing.join(timeout=5)
    assert all(f.done() for f in [*held, *queued]) and sorted(done) == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="closed"):
        work.submit(done.append, 5)


def test_an_error_reaches_the_caller_and_the_thread_goes_on() -> None:
    work = WorkQueue(1, "test")
    failed = work.submit(int, "not a number")
    with pytest.raises(ValueError):
        failed.result(timeout=5)
    assert work.submit(int, "42").result(timeout=5) == 42
    work.shutdown()


def test_a_queue_nobody_holds_any_more_ends_its_threads() -> None:
    """A database that is never closed (a script that forgets) must not leave its threads behind
    for the life of the process."""
    work = WorkQueue(2, "forgotten")
    assert work.submit(sum, [1, 2]).result(timeout=5) == 3
    threads = list(work._threads)
    del work
    gc.collect()
    for thread in threads:
        thread.join(timeout=5)
    assert not any(thread.is_alive() for thread in threads)


def test_together_work_waiting_side_by_side_at_one_level_runs_in_one_call() -> None:
    runs: list[list[str]] = []

    def together(works: Sequence[str]) -> list[Outcome]:
        runs.append(list(works))
        if "breaks the run" in works:
            raise OSError("disk full")
        return [Outcome(error=ValueError(w)) if w.startswith("bad") else Outcome(w.upper()) for w in works]

    work, started, gate = WorkQueue(1, "test", together=together), threading.Event(), threading.Event()
    busy = work.submit(lambda: started.set() or gate.wait(5))
    assert started.wait(5)
    first = [work.submit_together(w) for w in ("turn a", "bad turn", "turn b")]
    plain = work.submit(runs.append, ["plain work"])
    second = [work.submit_together(w) for w in ("turn c", "breaks the run")]
    urgent = [work.submit_together(w, urgent=True) for w in ("stop x", "stop y")]
    gate.set()
    busy.result(timeout=5)
    plain.result(timeout=5)
    assert [f.result(timeout=5) for f in urgent] == ["STOP X", "STOP Y"]
    assert first[0].result(timeout=5) == "TURN A" and first[2].result(timeout=5) == "TURN B"
    with pytest.raises(ValueError, match="bad turn"):  # its own error, to its own caller only
        first[1].result(timeout=5)
    for future in second:  # the call as a whole failed: every piece of it hears so
        with pytest.raises(OSError, match="disk full"):
            future.result(timeout=5)
    # Urgent first; a piece of plain work ends a run, and keeps its place in the order.
    assert runs == [["stop x", "stop y"], ["turn a", "bad turn", "turn b"], ["plain work"],
                    ["turn c", "breaks the run"]]
    work.shutdown()
