"""The study's data as flat files for analysis (pandas, R): one row per event, pseudonymised.

``participants``, ``messages`` (the transcript), ``deliveries`` (daily prompts and what became of
them), ``decisions`` (one row per decision point with its proximal outcome, see
:mod:`promptpipe.research.export_study`), ``transitions`` (the audit log), ``tone_changes``,
``consent`` (the consent ledger) and ``flags`` (safety concerns). Every time in the participant
files appears twice: in UTC (``…_utc``, ``+00:00``) and in the participant's own zone (``…_local``,
with its offset), both ISO 8601 to the second, so a column always has one format; ``decisions``
gives its outcome times in UTC and the decision's own local time. Next to them: ``study.json`` (the
protocol as run), every protocol version's text, ``codebook.csv`` and ``README.md`` (what every
column means), which each export rewrites (see :mod:`promptpipe.research.codebook`).

Pseudonymised: participants appear by id only, phone numbers and their own name become ``[phone]``
and ``[name]`` in free texts (see :mod:`promptpipe.research.pseudonyms`); ``include_identifiers``
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
import csv
import json
import operator
import os
import pickle
import stat
import sys
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any, NoReturn, TextIO

from sqlalchemy import func, literal, select
from sqlalchemy.orm import Session
from tqdm import tqdm

from promptpipe.errors import AdminError
from promptpipe.research import codebook
from promptpipe.research.export_rows import (
    FORMULA_STARTS,
    IDENTIFIER_TABLE,
    IDENTIFIERS,
    TABLES,
    _csv_cell,
    _Table,
    participant_chunk,
    participants_table,
)
from promptpipe.research.export_study import (
    STUDY_JSON,
    Protocol,
    decision_batch,
    decision_batches,
    delivery_receipt_columns,
    is_study_json,
    protocol_files,
    read_protocol,
    stratum_fields,
    study_document,
    study_json_text,
)
from promptpipe.research.export_temps import remove_stale_temps, temp_name
from promptpipe.research.pseudonyms import People
from promptpipe.storage.db import Database
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import (
    Message,
    Participant,
    PromptDelivery,
    UTCDateTime,
    table_of,
)
from promptpipe.storage.receipts import receipt_columns
from promptpipe.storage.study_tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

_PARTICIPANT = table_of(Participant)

FORMATS = ("csv", "jsonl")
CHUNK_ROWS = 2_000
RECEIPT_WINDOW = timedelta(hours=12)
"""The DELIVERY_RECEIPT_WINDOW default."""
PROGRESS_THRESHOLD = 5_000
WORKER_ROWS = 20_000
"""A file of at least this many rows is written by a process of its own (see
:mod:`promptpipe.research.export_worker`): starting one costs about a second of imports."""
WORKER_TABLES = ("messages",)
"""The files a worker may write: the largest (a second worker would compete for the same cores)."""
COMPANIONS = (STUDY_JSON, codebook.CODEBOOK_CSV, codebook.README_MD)
"""Written next to the data by every export, whatever its format."""


# ---------------------------------------------------------------- reading in chunks

@dataclass(frozen=True)
class _Plan:
    people: People
    ceilings: dict[str, int]
    """The highest id of each event table when the export started."""
    counts: dict[str, int]
    protocol: Protocol
    strata: list[str]
    """The enrollment fields, one participants column each."""
    decision_batches: list[tuple[str, str]]


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


def _event_chunk(model: Any, after: int, ceiling: int, limit: int, cutoff: datetime) -> Callable[[Session], list[Any]]:
    t = table_of(model)
    query = select(t, *_receipt_columns(model, t, cutoff)).where(t.c.id > after, t.c.id <= ceiling)
    query = query.order_by(t.c.id).limit(limit)
    return lambda session: list(session.execute(query))


def _receipt_columns(model: Any, t: Any, cutoff: datetime) -> list[Any]:
    """What WhatsApp reported for sent messages and prompts (their text and poll), and the moment
    before which a send with no delivered receipt counts as not delivered."""
    if model is Message:
        own = receipt_columns(lambda r: r.c.wa_message_id == t.c.wa_message_id)
        return [*own, literal(cutoff, UTCDateTime()).label("receipt_cutoff")]
    if model is PromptDelivery:
        return delivery_receipt_columns(t, cutoff)
    if model is QuestionnaireAnswer:  # each answer row says which questionnaire and occasion it belongs to
        instance = table_of(QuestionnaireInstance)
        return [select(instance.c[name]).where(instance.c.id == t.c.instance_id).scalar_subquery().label(name)
                for name in ("questionnaire_id", "occasion", "protocol_hash")]
    return []


# ---------------------------------------------------------------- writing

class _Writer:
    def __init__(self, stream: TextIO, fmt: str, columns: Sequence[str]) -> None:
        self.stream, self.fmt, self.columns = stream, fmt, columns
        if fmt == "csv":
            self.csv = csv.writer(stream, quoting=csv.QUOTE_MINIMAL)
            self.csv.writerow(columns)
            getter = operator.itemgetter(*columns)
            self.cells: Callable[[dict[str, Any]], Sequence[Any]] = (
                getter if len(columns) > 1 else lambda row: (getter(row),))

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        if self.fmt == "csv":
            cells, starts = self.cells, FORMULA_STARTS
            # Most cells are plain text, numbers or empty: they pass without a call (the csv
            # module writes None as an empty cell); the rest go through _csv_cell.
            self.csv.writerows([
                value if value is None or (value.__class__ is str and (not value or value[0] not in starts)
                                           and "\x00" not in value) or value.__class__ is int
                else _csv_cell(value) for value in cells(row)] for row in rows)
        else:  # json.dumps writes NUL and other control characters as \u escapes
            dumps = json.dumps
            self.stream.writelines(dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows)


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
    by a process of its own, on another core; if that process fails, the export fails as a whole."""
    out = Path(out_dir)
    now = now or datetime.now(timezone.utc)
    names = [table.name for table in TABLES] + ([IDENTIFIERS] if include_identifiers else [])
    targets, warnings = _prepare(out, fmt, force, names)
    remove_stale_temps(out)
    plan = await db.run(lambda session: _plan(session, chunk_size))
    tables = tuple(participants_table(plan.strata) if t.name == "participants" else t for t in TABLES)
    tables = (*tables, IDENTIFIER_TABLE) if include_identifiers else tables
    temps: dict[str, Path] = {}
    try:
        written = await _write_tables(db, out, fmt, tables, plan, temps, progress, progress_threshold, chunk_size,
                                      now - receipt_window, worker_rows)
        _write_companions(out, tables, temps, study_document(plan.protocol, model=model,
                                                             system_prompts=system_prompts, exported_at=now),
                          protocol_files(plan.protocol))
        for name, temp in temps.items():
            os.replace(temp, targets.get(name, out / name))
        temps.clear()
    except OSError as exc:
        raise AdminError(f"--out: cannot write to {out} ({exc.strerror or exc})") from None
    finally:
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
                        cutoff: datetime, worker_rows: int) -> dict[str, int]:
    written: dict[str, int] = {}
    workers: dict[str, _Worker] = {}
    try:
        with _progress_bar(sum(plan.counts[t.name] for t in tables), progress, threshold) as bar:
            for table in _offloaded(db, tables, plan, worker_rows):  # started first: they import while we write
                temp = _temp(out, table.name, f"{table.name}.{fmt}", temps)
                workers[table.name] = await _Worker.start(WorkerJob(db.url, table.name, fmt, plan, chunk_size,
                                                                    cutoff, temp))
            for table in tables:
                if table.name in workers:
                    continue
                bar.set_description(table.name, refresh=False)
                temp = _temp(out, table.name, f"{table.name}.{fmt}", temps)
                with open_private(temp, "x", encoding="utf-8", newline="") as stream:
                    writer = _Writer(stream, fmt, table.columns)
                    written[table.name] = await _copy(db, table, plan, writer, bar, chunk_size, cutoff)
                    stream.flush()
                    os.fsync(stream.fileno())
            for name, worker in workers.items():
                bar.set_description(name, refresh=False)
                written[name] = await worker.result()
                bar.update(written[name])
    finally:  # an error here or in a worker: no worker may still be writing when its temp file is removed
        for worker in workers.values():
            await worker.stop()
    return {table.name: written[table.name] for table in tables}


@dataclass(frozen=True)
class WorkerJob:
    """What :mod:`promptpipe.research.export_worker` writes: one table of this export's plan."""

    url: str
    table: str
    fmt: str
    plan: _Plan
    chunk_size: int
    cutoff: datetime
    temp: Path


def _offloaded(db: Database, tables: Sequence[_Table], plan: _Plan, worker_rows: int) -> list[_Table]:
    if db.is_sqlite and db.sqlite_path is None:  # in memory: no other process can read it
        return []
    return [t for t in tables if t.name in WORKER_TABLES and plan.counts[t.name] >= worker_rows]


class _Worker:
    """One file written by ``python -m promptpipe.research.export_worker``."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, job: bytes) -> None:
        self.name, self.process = name, process
        self.done: asyncio.Task[tuple[bytes, bytes]] = asyncio.ensure_future(process.communicate(job))

    @classmethod
    async def start(cls, job: WorkerJob) -> _Worker:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "promptpipe.research.export_worker",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        return cls(job.table, process, pickle.dumps(job))

    async def result(self) -> int:
        """The rows written; AdminError (its temporary file left for the export to remove) if it failed."""
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
            await self.done


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
                cutoff: datetime) -> int:
    by_participant = table.model is Participant
    count = 0
    people = plan.people
    async with contextlib.aclosing(_chunks(db, _reads(table, plan, chunk_size, cutoff))) as chunks:
        async for rows in chunks:
            if by_participant:  # one enrolled after the start is left for the next export
                rows = [row for row in rows if row.id in people]
            await asyncio.to_thread(_format, writer, table, rows, people)  # CPU work: off the service's loop
            count += len(rows)
            bar.update(len(rows))
    return count


def _format(writer: _Writer, table: _Table, rows: list[Any], people: People) -> None:
    writer.write(table.build(row, people) for row in rows)


_Read = Callable[[Session], list[Any]]


def _reads(table: _Table, plan: _Plan, chunk_size: int, cutoff: datetime) -> Callable[[list[Any] | None], _Read | None]:
    """The read that follows a chunk (None: the first read; returns None after the last): by id
    after the last row's, or for decision points the next range of participants."""
    if table.model is Decision:
        batches, ceiling = iter(plan.decision_batches), plan.ceilings[table.name]
        report = plan.protocol.study.self_report if plan.protocol.study is not None else None
        report_at = report.at if report is not None else None

        def next_batch(rows: list[Any] | None) -> _Read | None:
            batch = next(batches, None)
            return None if batch is None else decision_batch(*batch, ceiling, cutoff, report_at)
        return next_batch
    if table.model is Participant:
        def fetch(after: Any) -> _Read:
            return participant_chunk(after, chunk_size)
        start: Any = None
    else:
        ceiling = plan.ceilings[table.name]

        def fetch(after: Any) -> _Read:
            return _event_chunk(table.model, after, ceiling, chunk_size, cutoff)
        start = 0

    def next_chunk(rows: list[Any] | None) -> _Read | None:
        if rows is None:
            return fetch(start)
        return fetch(rows[-1].id) if len(rows) == chunk_size else None
    return next_chunk


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
