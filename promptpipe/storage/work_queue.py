"""The database threads' queue: urgent work first, otherwise first come, first served.

During a burst (10,000 daily prompts due at once) the lanes hand the database thread thousands of
reads and commits. Work that keeps the service responsive must not wait behind them: storing a
participant's message (a STOP, a reply), writing the inbox rows of alarms that just came due, and
the outbox's claims and records of what it sends (a prompt's poll goes out only once the prompt's
send is recorded). Those are submitted urgent; within each level the order is kept.
"""

from __future__ import annotations

import functools
import itertools
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

__all__ = ["WorkQueue"]

T = TypeVar("T")
URGENT, NORMAL, STOP = 0, 1, 2


class WorkQueue(Executor):
    """A pool of ``workers`` threads serving one priority queue (an :class:`Executor`, so
    ``loop.run_in_executor`` takes it; :meth:`submit` queues normal work). The threads are daemons:
    :meth:`shutdown` (``Database.close``) lets them finish what is queued; a process that exits
    without it loses only uncommitted transactions, as a crash would. A queue nobody holds any
    more (a database never closed) ends its threads, as a thread pool does."""

    def __init__(self, workers: int, name: str) -> None:
        self._queue: _Queue = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._threads = [threading.Thread(target=_serve, args=(self._queue,), name=f"{name}_{i}", daemon=True)
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

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking work; the threads finish what is queued (all of it) and end."""
        with self._lock:
            self._closed = True
            self._stop()  # once: the threads' stops go after every piece of work queued
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()

    def _put(self, level: int, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot queue work after the database was closed")
            self._queue.put((level, next(self._order), future, call))
        return future



_Queue = queue.PriorityQueue[tuple[int, int, Future[Any] | None, Callable[[], Any]]]


def _serve(work: _Queue) -> None:
    """A thread's loop (it holds the queue, not its owner, so the owner can be collected)."""
    while True:
        level, _, future, call = work.get()
        if level == STOP or future is None:
            return
        if future.set_running_or_notify_cancel():  # else its caller gave up before it started
            try:
                future.set_result(call())
            except BaseException as exc:
                future.set_exception(exc)
        del future, call  # an idle thread keeps nothing alive (an export's last chunk of rows)


def _stop(work: _Queue, order: itertools.count[int], workers: int) -> None:
    for _ in range(workers):
        work.put((STOP, next(order), None, _nothing))


def _nothing() -> None:
    return None
