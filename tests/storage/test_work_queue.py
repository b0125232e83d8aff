"""The database threads' queue: urgent work goes ahead of normal work already waiting."""

from __future__ import annotations

import gc
import threading

import pytest

from promptpipe.storage.work_queue import WorkQueue


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
