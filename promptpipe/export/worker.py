"""One large export file written by a process of its own (``python -m promptpipe.export.worker``).

The files of an export are independent, so the largest (the transcript) is read and formatted by a second process on
another core while the export's own process writes the others (and then the transcript's last rows, appended to this
process's file: see ``offload.OWN_SHARE``). The process starts before the export has planned its job, so its imports
overlap the plan; it imports :mod:`promptpipe.export.write`, not the export with its codebook. In one process the reads
on the database thread and the formatting on another thread share Python's one running thread; here each chunk is read
and then formatted, one after the other, with no thread to hand over to. The job comes pickled on stdin from the export
that started this process (so it is trusted): the database URL, the table, the plan (the same participants as the other
files; the id ceiling of this table is the last row this process writes), the temporary file to write (created here,
``x`` mode, 0600, flushed and synced). The row count goes to stdout; any failure ends the process with a non-zero code
and one line on stderr, and the export then removes the temporary file and reports the failure.
"""

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
