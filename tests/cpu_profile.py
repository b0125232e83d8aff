"""The CPU each test costs (issue 47), for finding where the suite's time goes. Off unless asked for:

    CPU_PROFILE_DIR=/tmp/cpu .venv/bin/python -m pytest -p tests.cpu_profile tests/export

Each process (every xdist worker) writes ``<worker>.tsv`` there: a line per test with the CPU
seconds (user + system, of the process and of the subprocesses it waited for) from its setup to
its teardown, the wall seconds from the process's start to the test's end, and the test's id; then
``__worker_total__``, the process's own total (collection included). Compare
CPU seconds, not wall time: the machine may be busy with other work."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator

import pytest

_rows: list[str] = []
_STARTED = time.monotonic()


def _cpu() -> float:
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    before = _cpu()
    yield
    _rows.append(f"{_cpu() - before:.3f}\t{time.monotonic() - _STARTED:.1f}\t{item.nodeid}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get("CPU_PROFILE_DIR")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(folder, f"{worker}.tsv"), "w", encoding="utf-8") as out:
        out.writelines(f"{row}\n" for row in _rows)
        out.write(f"{_cpu():.3f}\t{time.monotonic() - _STARTED:.1f}\t__worker_total__\n")
