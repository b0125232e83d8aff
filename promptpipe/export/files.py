"""The study's data as flat files for analysis (pandas, R): one row per event, pseudonymised.

``participants``, ``messages`` (the transcript), ``deliveries`` (daily prompts and what became of
them), ``decisions`` (one row per decision point with its proximal outcome, see
:mod:`promptpipe.export.study_part`), ``transitions`` (the audit log), ``tone_changes``,
``consent`` (the consent ledger) and ``flags`` (safety concerns). Every time in the participant
files appears twice: in UTC (``…_utc``, ``+00:00``) and in the participant's own zone (``…_local``,
with its offset), both ISO 8601 to the second, so a column always has one format; ``decisions``
gives its outcome times in UTC and the decision's own local time. Next to them: ``study.json`` (the
protocol as run), every protocol version's text, ``codebook.csv`` and ``README.md`` (what every
column means), which each export rewrites (see :mod:`promptpipe.export.codebook`).

Pseudonymised: participants appear by id only, phone numbers and their own name become ``[phone]``
and ``[name]`` in free texts (see :mod:`promptpipe.export.pseudonyms`); ``include_identifiers``
writes the key, ``identifiers`` (participant_id, phone, name), as a separate file.

CSV: a header row, UTF-8, quoted only where needed (texts with commas, quotes and newlines read
back intact); None is an empty cell, lists are joined with ``;``, objects are compact JSON and
booleans ``true``/``false``. A text cell that a spreadsheet would run as a formula (it starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'`` and NUL characters are
removed (OWASP's advice against CSV injection). JSONL: one object per line with real nulls, lists,
objects, ints and booleans, texts exactly as stored.

Memory stays bounded: rows are read in chunks ordered by id (decision points by ranges of whole
participants), each in its own short transaction; rows added while it runs wait for the next one.
Each file is written (0600, in a directory the export creates 0700) under a temporary name in the
target directory and renamed only when every file is complete, so a crash never leaves a
half-written file under a real name.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import shutil
import stat
import sys
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import IO, Any, NoReturn

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from tqdm import tqdm

from promptpipe.config.process_env import child_environment
from promptpipe.errors import AdminError
from promptpipe.export import codebook
from promptpipe.export.pseudonyms import People
from promptpipe.export.rows import (
    IDENTIFIER_TABLE,
    IDENTIFIERS,
    TABLES,
    _Table,
    participants_table,
)
from promptpipe.export.rows import (
    _csv_cell as _csv_cell,
)
from promptpipe.export.study_part import (
    STUDY_JSON,
    decision_batches,
    is_study_json,
    protocol_files,
    read_protocol,
    stratum_fields,
    study_document,
    study_json_text,
)
from promptpipe.export.temps import remove_stale_temps, temp_name
from promptpipe.export.write import WorkerJob, _format, _Plan, _Read, _reads, _Writer
from promptpipe.storage.db import Database
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import (
    Participant,
    table_of,
)

_PARTICIPANT = table_of(Participant)

FORMATS = ("csv", "jsonl")
CHUNK_ROWS = 2_000
RECEIPT_WINDOW = timedelta(hours=12)
"""The DELIVERY_RECEIPT_WINDOW default."""
PROGRESS_THRESHOLD = 5_000
WORKER_ROWS = 20_000
"""A file of at least this many rows is written by a process of its own (see
:mod:`promptpipe.export.worker`): starting one costs about a second of imports."""
WORKER_TABLES = ("messages",)
"""The files a worker may write: the largest (a second worker would compete for the same cores)."""
OWN_SHARE = 6
"""This process writes the last 1/OWN_SHARE of a worker's file (after its own files) and appends
it to the worker's part: the worker's second of imports would otherwise leave it last to finish
(500 participants: this process done after 1.4 s, the worker after 1.75 s)."""
COMPANIONS = (STUDY_JSON, codebook.CODEBOOK_CSV, codebook.README_MD)
"""Written next to the data by every export, whatever its format."""


# ---------------------------------------------------------------- reading in chunks

def _plan(session: Session, chunk_size: int) -> _Plan:
    ceilings: dict[str, int] = {}
    counts: dict[str, int] = {}
    for table in TABLES:
        if table.model is Participant:
            continue
        t = table.model.__table__
        ceilings[table.name] = session.execute(select(func.max(t.c.id))).scalar() or 0
        counts[table.name] = session.execute(
            select(func.count()).select_from(t).where(t.c.id <= ceilings[table.name])).scalar() or 0
    # Read after the ceilings, so every participant an exported event belongs to is known.
    people = People(session.execute(
        select(_PARTICIPANT.c.id, _PARTICIPANT.c.timezone, _PARTICIPANT.c.phone, _PARTICIPANT.c.name)))
    counts["participants"] = counts[IDENTIFIERS] = len(people)
    protocol = read_protocol(session)
    return _Plan(people, ceilings, counts, protocol, stratum_fields(session, protocol.study),
                 decision_batches(session, ceilings.get("decisions", 0), chunk_size))


# ---------------------------------------------------------------- writing

def _progress_bar(total: int, progress: IO[str] | None, threshold: int) -> tqdm[NoReturn]:
    """Rows written out of the total; drawn only for a large export, and on stderr only when it
    is a terminal (an explicit ``progress`` stream is always drawn on)."""
    stream = progress if progress is not None else sys.stderr
    show = total >= threshold and (progress is not None or sys.stderr.isatty())
    return tqdm(total=total, file=stream, disable=not show, unit=" rows", desc="export",
                dynamic_ncols=progress is None)


@dataclass
class ExportResult:
    """What an export wrote: rows per study file, the key file if asked for, the files describing
    them, and warnings for the researcher (one line each)."""

    rows: dict[str, int]
    """Rows written per study file (``participants`` … ``flags``), in the order written."""
    directory: Path
    fmt: str
    key_file: Path | None = None
    """``identifiers.<fmt>`` when ``include_identifiers`` was given."""
    key_rows: int = 0
    warnings: list[str] = field(default_factory=list)
    companions: list[Path] = field(default_factory=list)
    """``study.json``, ``codebook.csv`` and ``README.md``."""


def _written_by_export(path: Path) -> bool:
    return is_study_json(path) if path.name == STUDY_JSON else codebook.written_by_export(path)


def _prepare(out_dir: Path, fmt: str, force: bool, names: Sequence[str]) -> tuple[dict[str, Path], list[str]]:
    if fmt not in FORMATS:
        raise AdminError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if out_dir.exists() and not out_dir.is_dir():
        raise AdminError(f"--out: {out_dir} exists and is not a directory")
    targets = {name: out_dir / f"{name}.{fmt}" for name in names} | {name: out_dir / name for name in COMPANIONS}
    # An earlier export's study.json, codebook and README are refreshed; someone else's file is not ours.
    existing = [path.name for name, path in targets.items()
                if path.exists() and not (name in COMPANIONS and _written_by_export(path))]
    if existing and not force:
        raise AdminError(
            f"{out_dir} already has {', '.join(existing)}; nothing was written "
            "(use --force to overwrite, or choose another --out)"
        )
    warnings: list[str] = []
    if out_dir.is_dir():
        mode = stat.S_IMODE(out_dir.stat().st_mode)
        if mode & 0o077:  # maybe /tmp or a home directory: not ours to change
            warnings.append(f"{out_dir} has mode {mode:04o}: other users on this machine can list it "
                            f"(the files themselves are 0600); consider chmod 700 {out_dir}")
    else:
        try:
            make_private_dir(out_dir)
        except OSError as exc:
            raise AdminError(f"--out: cannot create {out_dir} ({exc.strerror or exc})") from None
    if IDENTIFIERS not in names:
        for other in FORMATS:
            key = out_dir / f"{IDENTIFIERS}.{other}"
            if key.exists():
                warnings.append(f"{key} from an earlier export links participant ids to phone numbers and names; "
                                "it was left as it is: keep it apart from the data you share")
    return targets, warnings


async def export_study(
    db: Database,
    out_dir: str | os.PathLike[str],
    *,
    fmt: str = "csv",
    force: bool = False,
    include_identifiers: bool = False,
    progress: IO[str] | None = None,
    progress_threshold: int = PROGRESS_THRESHOLD,
    chunk_size: int = CHUNK_ROWS,
    now: datetime | None = None,
    receipt_window: timedelta = RECEIPT_WINDOW,
    model: str | None = None,
    system_prompts: Mapping[str, str] | None = None,
    worker_rows: int = WORKER_ROWS,
) -> ExportResult:
    """Write ``participants``, ``messages``, ``deliveries``, ``decisions``, ``transitions``,
    ``tone_changes``, ``consent`` and ``flags`` to ``out_dir`` as ``<name>.csv`` or
    ``<name>.jsonl``, pseudonymised; with ``include_identifiers`` also the key file
    ``identifiers.<fmt>``; and next to them ``study.json`` (naming ``model`` and the SHA-256 of
    each of ``system_prompts``, texts by name), ``codebook.csv`` and ``README.md``.

    Refuses (AdminError, nothing written) when a target file exists, unless ``force`` (an earlier
    export's study.json, codebook and README are simply rewritten). A prompt sent longer than
    ``receipt_window`` before ``now`` without a delivered receipt (where the transport reports
    them) is ``not_delivered``. A file of ``worker_rows`` rows or more (the transcript) is written
    by a process of its own, on another core, but for its last rows (a sixth), which this one
    writes after its own files; if that process fails, the export fails as a whole."""
    out = Path(out_dir)
    now = now or datetime.now(timezone.utc)
    names = [table.name for table in TABLES] + ([IDENTIFIERS] if include_identifiers else [])
    targets, warnings = _prepare(out, fmt, force, names)
    remove_stale_temps(out)
    temps: dict[str, Path] = {}
    spare: list[_Worker] = []
    try:
        # A worker likely to be needed starts now: it imports while the plan is read.
        if _offloading(db) and await db.run(lambda session: _may_offload(session, worker_rows)):
            spare.append(await _Worker.spawn())
        plan = await db.run(lambda session: _plan(session, chunk_size))
        tables = tuple(participants_table(plan.strata) if t.name == "participants" else t for t in TABLES)
        tables = (*tables, IDENTIFIER_TABLE) if include_identifiers else tables
        written = await _write_tables(db, out, fmt, tables, plan, temps, progress, progress_threshold, chunk_size,
                                      now - receipt_window, worker_rows, spare)
        _write_companions(out, tables, temps, study_document(plan.protocol, model=model,
                                                             system_prompts=system_prompts, exported_at=now),
                          protocol_files(plan.protocol))
        for name, temp in temps.items():
            os.replace(temp, targets.get(name, out / name))
        temps.clear()
    except OSError as exc:
        raise AdminError(f"--out: cannot write to {out} ({exc.strerror or exc})") from None
    finally:
        for worker in spare:  # started early, not needed after all
            await worker.stop()
        for temp in temps.values():
            temp.unlink(missing_ok=True)
    key_rows = written.pop(IDENTIFIERS, 0)
    return ExportResult(rows=written, directory=out, fmt=fmt,
                        key_file=targets[IDENTIFIERS] if include_identifiers else None,
                        key_rows=key_rows, warnings=warnings, companions=[targets[name] for name in COMPANIONS])


def _temp(out: Path, name: str, file_name: str, temps: dict[str, Path]) -> Path:
    """Our hidden name for ``file_name``, renamed to ``name``'s target once every file is complete."""
    temp = temps[name] = temp_name(out, file_name)
    return temp


async def _write_tables(db: Database, out: Path, fmt: str, tables: Sequence[_Table], plan: _Plan,
                        temps: dict[str, Path], progress: IO[str] | None, threshold: int, chunk_size: int,
                        cutoff: datetime, worker_rows: int, spare: list[_Worker]) -> dict[str, int]:
    written: dict[str, int] = {}
    workers: dict[str, _Worker] = {}
    try:
        with _progress_bar(sum(plan.counts[t.name] for t in tables), progress, threshold) as bar:
            tails: dict[str, tuple[_Table, int]] = {}
            for table in _offloaded(db, tables, plan, worker_rows):  # started first: they import while we write
                temp = _temp(out, table.name, f"{table.name}.{fmt}", temps)
                last = await db.run(partial(_split, table=table, plan=plan))
                tails[table.name] = (table, last)
                worker = workers[table.name] = spare.pop() if spare else await _Worker.spawn()
                worker.send(WorkerJob(db.url, table.name, fmt, replace(plan, ceilings=plan.ceilings | {
                    table.name: last}), chunk_size, cutoff, temp))
            own = [(t, 0, True) for t in tables if t.name not in workers]
            for table, after, header in [*own, *((t, last, False) for t, last in tails.values())]:
                bar.set_description(table.name, refresh=False)
                name = table.name if header else f"{table.name}.tail"  # a tail is appended to the worker's file
                temp = _temp(out, name, f"{name}.{fmt}", temps)
                with open_private(temp, "x", encoding="utf-8", newline="") as stream:
                    writer = _Writer(stream, fmt, table.columns, header=header)
                    written[name] = await _copy(db, table, plan, writer, bar, chunk_size, cutoff, after)
                    stream.flush()
                    os.fsync(stream.fileno())
            for name, worker in workers.items():
                bar.set_description(name, refresh=False)
                count = await worker.result()
                bar.update(count)
                tail = temps.pop(f"{name}.tail")
                with tail.open("rb") as part, temps[name].open("ab") as whole:
                    shutil.copyfileobj(part, whole)
                    whole.flush()
                    os.fsync(whole.fileno())
                tail.unlink()
                written[name] = count + written.pop(f"{name}.tail")
    finally:  # an error here or in a worker: no worker may still be writing when its temp file is removed
        for worker in workers.values():
            await worker.stop()
    return {table.name: written[table.name] for table in tables}


def _offloading(db: Database) -> bool:
    """Whether another process can read this database (not one in memory)."""
    return not (db.is_sqlite and db.sqlite_path is None)


def _may_offload(session: Session, worker_rows: int) -> bool:
    """Whether a file a worker writes may have ``worker_rows`` rows (its highest id is that high)."""
    return any((session.execute(select(func.max(table.model.__table__.c.id))).scalar() or 0) >= worker_rows
               for table in TABLES if table.name in WORKER_TABLES)


def _split(session: Session, table: _Table, plan: _Plan) -> int:
    """The last id the worker writes: the rows after it (a 1/OWN_SHARE of them) are this process's."""
    t, ceiling = table.model.__table__, plan.ceilings[table.name]
    last = session.execute(select(t.c.id).where(t.c.id <= ceiling).order_by(t.c.id.desc())
                           .offset(plan.counts[table.name] // OWN_SHARE).limit(1)).scalar()
    return ceiling if last is None else int(last)


def _offloaded(db: Database, tables: Sequence[_Table], plan: _Plan, worker_rows: int) -> list[_Table]:
    if not _offloading(db):
        return []
    return [t for t in tables if t.name in WORKER_TABLES and plan.counts[t.name] >= worker_rows]


class _Worker:
    """One file written by ``python -m promptpipe.export.worker``: the process starts
    (and imports) first, its job follows when the export has planned it."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.name, self.process = "", process
        self.done: asyncio.Future[tuple[bytes, bytes]] | None = None

    @classmethod
    async def spawn(cls) -> _Worker:
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


def _write_companions(out: Path, tables: Sequence[_Table], temps: dict[str, Path], document: dict[str, Any],
                      versions: dict[str, str]) -> None:
    columns: dict[str, Sequence[str]] = {table.name: table.columns for table in tables}
    columns.setdefault(IDENTIFIERS, IDENTIFIER_TABLE.columns)  # documented even when not written
    columns[STUDY_JSON] = list(document)
    texts = {STUDY_JSON: study_json_text(document), **codebook.documents(columns), **versions}
    for name in texts:
        with open_private(_temp(out, name, name, temps), "x", encoding="utf-8", newline="") as stream:
            stream.write(texts[name])
            stream.flush()
            os.fsync(stream.fileno())


async def _copy(db: Database, table: _Table, plan: _Plan, writer: _Writer, bar: tqdm[NoReturn], chunk_size: int,
                cutoff: datetime, after: int = 0) -> int:
    by_participant = table.model is Participant
    count = 0
    people = plan.people
    async with contextlib.aclosing(_chunks(db, _reads(table, plan, chunk_size, cutoff, after))) as chunks:
        async for rows in chunks:
            if by_participant:  # one enrolled after the start is left for the next export
                rows = [row for row in rows if row.id in people]
            await asyncio.to_thread(_format, writer, table, rows, people)  # CPU work: off the service's loop
            count += len(rows)
            bar.update(len(rows))
    return count


async def _chunks(db: Database, following: Callable[[list[Any] | None], _Read | None]
                  ) -> AsyncGenerator[list[Any], None]:
    """Chunks of rows, each read in its own transaction; the next chunk is read on the database
    thread while the caller writes this one (at most two chunks in memory)."""
    read = following(None)
    pending: asyncio.Future[list[Any]] | None = None if read is None else asyncio.ensure_future(db.run(read))
    try:
        while pending is not None:
            rows = await pending
            read = following(rows)
            pending = None if read is None else asyncio.ensure_future(db.run(read))
            if rows:
                yield rows
    finally:
        if pending is not None:  # the caller stopped early (an error): let the read finish, drop it
            with contextlib.suppress(BaseException):
                await asyncio.shield(pending)
