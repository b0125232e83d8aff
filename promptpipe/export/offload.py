"""Writing the largest export file in a process of its own, on another core (:mod:`.worker`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.config.process_env import child_environment
from promptpipe.errors import AdminError
from promptpipe.export.rows import TABLES, _Table
from promptpipe.export.write import WorkerJob, _Plan
from promptpipe.storage.db import Database

WORKER_TABLES = ("messages",)
"""The files a worker may write: the largest (a second worker would compete for the same cores)."""
OWN_SHARE = 6
"""This process writes a worker's file's last 1/OWN_SHARE, lest the worker's second of imports make it finish last."""


WORKER_ROWS = 20_000
"""A file this large is written by a process of its own: starting one costs half a second of imports."""


def worker_rows(given: int | None) -> int | None:
    """The rows from which a worker writes a file (None: never): ``given``, else :data:`WORKER_ROWS` when this
    process may run on two cores (on one, the worker's imports would only add to the export's time)."""
    if given is not None:
        return given
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return WORKER_ROWS if cores > 1 else None


def offloading(db: Database) -> bool:
    """Another process can read this database (not one in memory)."""
    return not (db.is_sqlite and db.sqlite_path is None)


def may_offload(session: Session, worker_rows: int) -> bool:
    """Whether a file a worker writes may have ``worker_rows`` rows (its highest id)."""
    return any((session.execute(select(func.max(table.model.__table__.c.id))).scalar() or 0) >= worker_rows
               for table in TABLES if table.name in WORKER_TABLES)


def split(session: Session, table: _Table, plan: _Plan) -> int:
    """The last id the worker writes: the rows after it (a 1/OWN_SHARE of them) are this process's."""
    t, ceiling = table.model.__table__, plan.ceilings[table.name]
    last = session.execute(select(t.c.id).where(t.c.id <= ceiling).order_by(t.c.id.desc())
                           .offset(plan.counts[table.name] // OWN_SHARE).limit(1)).scalar()
    return ceiling if last is None else int(last)


def offloaded(db: Database, tables: Sequence[_Table], plan: _Plan, rows: int | None) -> list[_Table]:
    if rows is None or not offloading(db):
        return []
    return [t for t in tables if t.name in WORKER_TABLES and plan.counts[t.name] >= rows]


class Worker:
    """One file written by a worker process: it starts (and imports) first, its job follows once planned."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.name, self.process = "", process
        self.done: asyncio.Future[tuple[bytes, bytes]] | None = None

    @classmethod
    async def spawn(cls) -> Worker:
        # The worker imports the very code this process runs: -P keeps the working directory off
        # its path (a checkout there would be imported instead), PYTHONPATH puts ours first.
        here = str(Path(__file__).resolve().parents[2])
        env = child_environment(first_on_path=here)
        return cls(await asyncio.create_subprocess_exec(
            sys.executable, "-P", "-m", "promptpipe.export.worker", env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE))

    def send(self, job: WorkerJob) -> None:
        self.name = job.table
        self.done = asyncio.ensure_future(self.process.communicate(pickle.dumps(job)))

    async def result(self) -> int:
        """The rows written; AdminError (its temporary file left for the export to remove) if it failed."""
        assert self.done is not None, "a worker's result before its job"
        out, err = await self.done
        if self.process.returncode != 0 or not out.strip().isdigit():
            lines = err.decode("utf-8", "replace").strip().splitlines()
            why = lines[-1] if lines else f"exit code {self.process.returncode}"
            raise AdminError(f"the export of {self.name} failed in its own process ({why}); "
                             "no file was written under a real name")
        return int(out)

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(BaseException):
            await (self.done if self.done is not None else self.process.communicate())
