"""The database threads' queue: urgent work first (a message stored, due alarms, the outbox's claims and records, so the
service stays responsive in a burst), otherwise first come, first served. Together-able work (SQLite transactions) side
by side at the head, at one level, runs in one call of ``together`` (up to ``TOGETHER_MAX``): one commit for many turns.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import queue
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["TOGETHER_MAX", "Outcome", "WorkQueue"]

T = TypeVar("T")
URGENT, NORMAL, STOP = 0, 1, 2
TOGETHER_MAX = 32
"""Most pieces of work one ``together`` call runs: bounds how long the first waits for the last."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one piece of a run came to: its result, or the exception it raised."""

    value: Any = None
    error: BaseException | None = None


Together = Callable[[Sequence[Any]], Sequence[Outcome]]


@dataclass(frozen=True, slots=True)
class _Joinable:
    """A piece of work the queue's ``together`` function runs (alone or with others)."""

    work: Any


class WorkQueue(Executor):
    """``workers`` daemon threads serving one priority queue, as an :class:`Executor`. :meth:`shutdown` lets them finish
    what is queued; a queue nobody holds any more ends its threads, as a thread pool does."""

    def __init__(self, workers: int, name: str, *, together: Together | None = None) -> None:
        self._together = together
        self._queue: _Queue = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._threads = [threading.Thread(target=_serve, args=(self._queue, together), name=f"{name}_{i}",
                                          daemon=True)
                         for i in range(workers)]
        for thread in self._threads:
            thread.start()
        self._stop = weakref.finalize(self, _stop, self._queue, self._order, workers)

    @property
    def waiting(self) -> int:
        """Work queued and not yet started."""
        return self._queue.qsize()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._put(NORMAL, functools.partial(fn, *args, **kwargs))

    def submit_urgent(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        """Queue ``fn(*args)`` ahead of all normal work waiting (after urgent work already queued)."""
        return self._put(URGENT, functools.partial(fn, *args))

    def submit_together(self, work: Any, *, urgent: bool = False) -> Future[Any]:
        """Queue ``work`` for ``together``: it may run in one call with such work next to it at the same level."""
        if self._together is None:
            raise TypeError("this queue was made without a together function")
        return self._put(URGENT if urgent else NORMAL, _Joinable(work))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking work; the threads finish what is queued (all of it) and end."""
        with self._lock:
            self._closed = True
            self._stop()  # once: the threads' stops go after every piece of work queued
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()

    def _put(self, level: int, call: Callable[[], T] | _Joinable) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot queue work after the database was closed")
            self._queue.put((level, next(self._order), future, call))
        return future


_Item = tuple[int, int, Future[Any] | None, Callable[[], Any] | _Joinable]
_Queue = queue.PriorityQueue[_Item]


def _serve(work: _Queue, together: Together | None) -> None:
    """A thread's loop (it holds the queue, not its owner, so the owner can be collected)."""
    while True:
        level, _, future, call = work.get()
        if level == STOP or future is None:
            return
        if isinstance(call, _Joinable):
            assert together is not None  # submit_together refuses work without it
            _run_together(together, [(future, call), *_joinable_next(work, level)])
        elif future.set_running_or_notify_cancel():  # else its caller gave up before it started
            try:
                future.set_result(call())
            except BaseException as exc:
                future.set_exception(exc)
        del future, call  # an idle thread keeps nothing alive (an export's last chunk of rows)


def _joinable_next(work: _Queue, level: int) -> list[tuple[Future[Any], _Joinable]]:
    """Together-able work waiting at the head of the queue at ``level`` (taken off it)."""
    taken: list[tuple[Future[Any], _Joinable]] = []
    with work.mutex:
        while len(taken) < TOGETHER_MAX - 1 and work.queue:
            head_level, _, future, call = work.queue[0]
            if head_level != level or future is None or not isinstance(call, _Joinable):
                break
            heapq.heappop(work.queue)  # what get_nowait does (a PriorityQueue is a heap), under the lock held
            work.not_full.notify()
            taken.append((future, call))
    return taken


def _run_together(together: Together, pieces: list[tuple[Future[Any], _Joinable]]) -> None:
    running = [(future, call) for future, call in pieces if future.set_running_or_notify_cancel()]
    if not running:
        return
    try:
        outcomes = together([call.work for _, call in running])
    except BaseException as exc:  # the run as a whole failed: none of it took effect
        for future, _ in running:
            future.set_exception(exc)
        return
    for (future, _), outcome in zip(running, outcomes, strict=True):
        if outcome.error is not None:
            future.set_exception(outcome.error)
        else:
            future.set_result(outcome.value)


def _stop(work: _Queue, order: itertools.count[int], workers: int) -> None:
    for _ in range(workers):
        work.put((STOP, next(order), None, _Joinable(None)))  # a stop: no future, nothing to run
