"""One large export file written by a process of its own (``python -m promptpipe.export.worker``).

The export's files are independent, so the largest (the transcript) is read and formatted here, on another core, while
the export writes the others and then appends the transcript's last rows (``offload.OWN_SHARE``). This process starts
before the export plans its job, so its imports overlap the plan (hence :mod:`.write`, not the export and its codebook).
In one process reads and formatting share Python's one running thread; here each chunk is read, then formatted, with no
thread to hand over to. The job comes pickled on stdin from the export that started it (so it is trusted): database URL,
table, plan (the same participants; this table's id ceiling is the last row written here) and the temporary file
(created here, ``x`` mode, 0600, flushed and synced). The row count goes to stdout; a failure exits non-zero with one
line on stderr, and the export removes the file and reports it."""

from __future__ import annotations

import asyncio
import os
import pickle
import sys

from promptpipe.export.rows import TABLES
from promptpipe.export.write import WorkerJob, _format, _reads, _Writer
from promptpipe.storage.db import Database
from promptpipe.storage.files import open_private

__all__ = ["write_file"]


async def write_file(job: WorkerJob) -> int:
    """Write ``job.table`` to ``job.temp``; returns the rows written."""
    table = next(t for t in TABLES if t.name == job.table)
    db = Database(job.url, readers=1)  # read-only: never waits for the service's writes on SQLite
    count = 0
    try:
        following = _reads(table, job.plan, job.chunk_size, job.cutoff)
        with open_private(job.temp, "x", encoding="utf-8", newline="") as stream:
            writer = _Writer(stream, job.fmt, table.columns)
            read = following(None)
            while read is not None:
                rows = await db.run(read)
                _format(writer, table, rows, job.plan.people)
                count += len(rows)
                read = following(rows)
            stream.flush()
            os.fsync(stream.fileno())
    finally:
        await db.close()
    return count


def main() -> None:
    job = pickle.load(sys.stdin.buffer)
    try:
        count = asyncio.run(write_file(job))
    except Exception as exc:  # one line for the export's error message (no row values in it)
        sys.stderr.write(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n")
        raise SystemExit(1) from None
    sys.stdout.write(f"{count}\n")


if __name__ == "__main__":
    main()
