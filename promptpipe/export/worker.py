"""One large export file written by its own process on another core while the export writes the others. The job comes
pickled on stdin from its export (so trusted); row count to stdout, a failure to stderr in one line, exit non-zero."""

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
