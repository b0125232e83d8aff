"""The study's data as flat files for analysis, pseudonymised (the README's "Exporting data" is the promise). Rows are
read in chunks, each in its own short transaction, so memory stays bounded; each file is written under a temporary
name and renamed only when every file is complete, so a crash never leaves a half-written file under a real name."""

from __future__ import annotations

import asyncio
import contextlib
import os
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

from promptpipe.domain.transition_log import TransitionKind
from promptpipe.errors import AdminError
from promptpipe.export import codebook, study_part
from promptpipe.export.cells import Row
from promptpipe.export.items import ITEM_COLUMNS, ITEMS_CSV, items_csv, multiple_choice_items
from promptpipe.export.offload import Worker, may_offload, offloaded, offloading, split, worker_rows
from promptpipe.export.pseudonyms import People
from promptpipe.export.rows import IDENTIFIER_TABLE, IDENTIFIERS, TABLES, _Table, participants_table
from promptpipe.export.temps import remove_stale_temps, temp_name
from promptpipe.export.write import WorkerJob, _format, _Plan, _Read, _reads, _Writer
from promptpipe.storage.db import Database
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import Participant, Transition, table_of

_PARTICIPANT, _TRANSITION = table_of(Participant), table_of(Transition)

FORMATS = ("csv", "jsonl")
CHUNK_ROWS = 2_000
RECEIPT_WINDOW = timedelta(hours=12)
"""The DELIVERY_RECEIPT_WINDOW default."""
PROGRESS_THRESHOLD = 5_000
COMPANIONS = (study_part.STUDY_JSON, codebook.CODEBOOK_CSV, codebook.README_MD, ITEMS_CSV)


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
    protocol = study_part.read_protocol(session)
    people = People(session.execute(
        select(_PARTICIPANT.c.id, _PARTICIPANT.c.timezone, _PARTICIPANT.c.phone, _PARTICIPANT.c.name)),
        multiple_choice_items(protocol.history), _zone_changes(session))
    counts["participants"] = counts[IDENTIFIERS] = len(people)
    return _Plan(people, ceilings, counts, protocol, study_part.stratum_fields(session, protocol.study),
                 study_part.decision_batches(session, ceilings.get("decisions", 0), chunk_size))


def _zone_changes(session: Session) -> list[Any]:
    """Every ``timezone_changed`` transition in one query: each ``…_local`` time is in the zone in force then."""
    t = _TRANSITION
    return list(session.execute(
        select(t.c.participant_id, t.c.created_at, t.c.from_value, t.c.to_value)
        .where(t.c.kind == TransitionKind.TIMEZONE).order_by(t.c.participant_id, t.c.created_at, t.c.id)))


# ---------------------------------------------------------------- writing

def _progress_bar(total: int, progress: IO[str] | None, threshold: int) -> tqdm[NoReturn]:
    """Drawn only for a large export, and on stderr only when it is a terminal (``progress`` is always drawn on)."""
    stream = progress if progress is not None else sys.stderr
    show = total >= threshold and (progress is not None or sys.stderr.isatty())
    return tqdm(total=total, file=stream, disable=not show, unit=" rows", desc="export",
                dynamic_ncols=progress is None)


@dataclass
class ExportResult:
    rows: dict[str, int]
    """Rows written per study file, in the order written."""
    directory: Path
    fmt: str
    key_file: Path | None = None
    """``identifiers.<fmt>`` when ``include_identifiers`` was given."""
    key_rows: int = 0
    warnings: list[str] = field(default_factory=list)
    companions: list[Path] = field(default_factory=list)


def _written_by_export(path: Path) -> bool:
    return study_part.is_study_json(path) if path.name == study_part.STUDY_JSON else codebook.written_by_export(path)


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


@dataclass(frozen=True)
class ExportOptions:
    fmt: str = "csv"
    force: bool = False
    include_identifiers: bool = False
    progress: IO[str] | None = None
    progress_threshold: int = PROGRESS_THRESHOLD
    chunk_size: int = CHUNK_ROWS
    now: datetime | None = None
    receipt_window: timedelta = RECEIPT_WINDOW
    model: str | None = None
    system_prompts: Mapping[str, str] | None = None
    worker_rows: int | None = None
    """A file with this many rows is written by a worker process (:mod:`.worker`); None: 20,000 where a second core
    may run it, else never."""


async def export_study(db: Database, out_dir: str | os.PathLike[str],
                       options: ExportOptions | None = None) -> ExportResult:
    """Write the files to ``out_dir``; AdminError (nothing written) when a target file exists, unless ``force``. A
    prompt sent over ``receipt_window`` before ``now`` with no delivery receipt is ``not_delivered``."""
    options = options or ExportOptions()
    out = Path(out_dir)
    now = options.now or datetime.now(timezone.utc)
    names = [table.name for table in TABLES] + ([IDENTIFIERS] if options.include_identifiers else [])
    targets, warnings = _prepare(out, options.fmt, options.force, names)
    remove_stale_temps(out)
    temps: dict[str, Path] = {}
    spare: list[Worker] = []
    try:
        # A worker likely to be needed starts now: it imports while the plan is read.
        rows = worker_rows(options.worker_rows)
        if rows is not None and offloading(db) and await db.run(lambda session: may_offload(session, rows)):
            spare.append(await Worker.spawn())
        plan = await db.run(lambda session: _plan(session, options.chunk_size))
        tables = tuple(participants_table(plan.strata) if t.name == "participants" else t for t in TABLES)
        tables = (*tables, IDENTIFIER_TABLE) if options.include_identifiers else tables
        written = await _write_tables(db, out, tables, plan,
                                      _Run(options, now - options.receipt_window, temps, spare, rows))
        _write_companions(out, tables, temps,
                          study_part.study_document(plan.protocol, model=options.model,
                                                    system_prompts=options.system_prompts, exported_at=now),
                          {**study_part.protocol_files(plan.protocol), ITEMS_CSV: items_csv(plan.protocol.history)})
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
    return ExportResult(rows=written, directory=out, fmt=options.fmt,
                        key_file=targets[IDENTIFIERS] if options.include_identifiers else None,
                        key_rows=key_rows, warnings=warnings, companions=[targets[name] for name in COMPANIONS])


@dataclass(frozen=True)
class _Run:
    options: ExportOptions
    cutoff: datetime
    """Before it an undelivered prompt counts as not delivered."""
    temps: dict[str, Path]
    spare: list[Worker]
    """A worker process started early, if any."""
    worker_rows: int | None


def _temp(out: Path, name: str, file_name: str, temps: dict[str, Path]) -> Path:
    """Our hidden name for ``file_name``, renamed to ``name``'s target once every file is complete."""
    temp = temps[name] = temp_name(out, file_name)
    return temp


async def _write_tables(db: Database, out: Path, tables: Sequence[_Table], plan: _Plan, run: _Run) -> dict[str, int]:
    options, temps, cutoff = run.options, run.temps, run.cutoff
    fmt, chunk_size = options.fmt, options.chunk_size
    written: dict[str, int] = {}
    workers: dict[str, Worker] = {}
    try:
        with _progress_bar(sum(plan.counts[t.name] for t in tables), options.progress,
                           options.progress_threshold) as bar:
            tails: dict[str, tuple[_Table, int]] = {}
            for table in offloaded(db, tables, plan, run.worker_rows):  # started first: they import meanwhile
                temp = _temp(out, table.name, f"{table.name}.{fmt}", temps)
                last = await db.run(partial(split, table=table, plan=plan))
                tails[table.name] = (table, last)
                worker = workers[table.name] = run.spare.pop() if run.spare else await Worker.spawn()
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
                _append_tail(temps, name)
                written[name] = count + written.pop(f"{name}.tail")
    finally:  # an error here or in a worker: no worker may still be writing when its temp file is removed
        for worker in workers.values():
            await worker.stop()
    return {table.name: written[table.name] for table in tables}


def _append_tail(temps: dict[str, Path], name: str) -> None:
    tail = temps.pop(f"{name}.tail")
    with tail.open("rb") as part, temps[name].open("ab") as whole:
        shutil.copyfileobj(part, whole)
        whole.flush()
        os.fsync(whole.fileno())
    tail.unlink()


def _write_companions(out: Path, tables: Sequence[_Table], temps: dict[str, Path], document: Row,
                      versions: dict[str, str]) -> None:
    columns: dict[str, Sequence[str]] = {table.name: table.columns for table in tables}
    columns.setdefault(IDENTIFIERS, IDENTIFIER_TABLE.columns)  # documented even when not written
    columns[study_part.STUDY_JSON] = list(document)
    columns[ITEMS_CSV] = ITEM_COLUMNS
    texts = {study_part.STUDY_JSON: study_part.study_json_text(document), **codebook.documents(columns), **versions}
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
    """Chunks of rows; the next is read while the caller writes this one (at most two chunks in memory)."""
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
