"""The study's data as flat files for analysis (pandas, R): one row per event, pseudonymised.

``participants``, ``messages`` (the transcript), ``deliveries`` (daily prompts and what became of
them), ``transitions`` (the audit log), ``tone_changes``, ``consent`` (the consent ledger) and
``flags`` (safety concerns). Every time appears twice: in UTC (``…_utc``, ``+00:00``) and in the
participant's own zone (``…_local``, with its offset), both ISO 8601 to the second, so a column
always has one format.

Pseudonymised: participants appear by id only. No file has a phone number or name column, and a
participant's own phone number and name are replaced by ``[phone]`` and ``[name]`` in the free
texts of their rows (the model greets people by name). ``include_identifiers`` writes the key,
``identifiers`` (participant_id, phone, name), as a separate file that can be kept apart.

CSV: a header row, UTF-8, quoted only where needed (texts with commas, quotes and newlines read
back intact); None is an empty cell, lists are joined with ``;``, objects are compact JSON and
booleans ``true``/``false``. A text cell that a spreadsheet would run as a formula (it starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'`` and NUL characters are
removed (OWASP's advice against CSV injection). JSONL: one object per line with real nulls, lists,
objects, ints and booleans, texts exactly as stored.

Memory stays bounded: rows are read in chunks ordered by id (keyset pagination), each chunk in its
own short transaction, so a running service is never held up for long. The id ceilings and row
counts are taken once at the start; rows added while the export runs are left for the next one.
Each file is written (0600, in a directory the export creates 0700) under a temporary name in the
target directory and renamed only when every file is complete, so a crash never leaves a
half-written file under a real name.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import secrets
import stat
import sys
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any, NoReturn, TextIO

from sqlalchemy import func, literal, select
from sqlalchemy.orm import Session
from tqdm import tqdm

from promptpipe.errors import AdminError
from promptpipe.research.export_rows import (
    IDENTIFIER_TABLE,
    IDENTIFIERS,
    TABLES,
    _csv_cell,
    _Table,
)
from promptpipe.research.pseudonyms import People
from promptpipe.storage.db import Database
from promptpipe.storage.files import make_private_dir, open_private
from promptpipe.storage.models import (
    Conversation,
    Message,
    Participant,
    PromptDelivery,
    UTCDateTime,
    table_of,
)
from promptpipe.storage.receipts import receipt_columns

_PARTICIPANT = table_of(Participant)

FORMATS = ("csv", "jsonl")
CHUNK_ROWS = 2_000
RECEIPT_WINDOW = timedelta(hours=12)
"""The DELIVERY_RECEIPT_WINDOW default."""
PROGRESS_THRESHOLD = 5_000




# ---------------------------------------------------------------- reading in chunks

@dataclass(frozen=True)
class _Plan:
    people: People
    ceilings: dict[str, int]
    """The highest id of each event table when the export started."""
    counts: dict[str, int]


def _plan(session: Session) -> _Plan:
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
    return _Plan(people, ceilings, counts)


def _participant_chunk(after: str | None, limit: int) -> Callable[[Session], list[Any]]:
    p, c = table_of(Participant), table_of(Conversation)
    query = (
        select(p.c.id, p.c.phone, p.c.name, p.c.timezone, p.c.status, p.c.paused_by, p.c.opted_out,
               p.c.researcher_paused, p.c.enrolled_at, p.c.erased_at, c.c.sub_state, c.c.profile, c.c.tone)
        .select_from(p.outerjoin(c, c.c.participant_id == p.c.id))
        .order_by(p.c.id).limit(limit)
    )
    if after is not None:
        query = query.where(p.c.id > after)
    return lambda session: list(session.execute(query))


def _event_chunk(model: Any, after: int, ceiling: int, limit: int, cutoff: datetime) -> Callable[[Session], list[Any]]:
    t = table_of(model)
    query = select(t, *_receipt_columns(model, t, cutoff)).where(t.c.id > after, t.c.id <= ceiling)
    query = query.order_by(t.c.id).limit(limit)
    return lambda session: list(session.execute(query))


def _receipt_columns(model: Any, t: Any, cutoff: datetime) -> list[Any]:
    """What WhatsApp reported for sent messages and prompts (their text and poll), and the moment
    before which a send with no delivered receipt counts as not delivered."""
    m = table_of(Message)
    if model is Message:
        own = receipt_columns(lambda r: r.c.wa_message_id == t.c.wa_message_id)
        return [*own, literal(cutoff, UTCDateTime()).label("receipt_cutoff")]
    if model is PromptDelivery:
        ids = select(m.c.wa_message_id).where(m.c.id.in_([t.c.prompt_message_id, t.c.poll_message_id]))
        expected = select(m.c.receipts_expected).where(m.c.id == t.c.prompt_message_id).scalar_subquery()
        return [*receipt_columns(lambda r: r.c.wa_message_id.in_(ids.scalar_subquery())),
                expected.label("receipts_expected"), literal(cutoff, UTCDateTime()).label("receipt_cutoff")]
    return []


# ---------------------------------------------------------------- writing

class _Writer:
    def __init__(self, stream: TextIO, fmt: str, columns: Sequence[str]) -> None:
        self.stream, self.fmt, self.columns = stream, fmt, columns
        if fmt == "csv":
            self.csv = csv.writer(stream, quoting=csv.QUOTE_MINIMAL)
            self.csv.writerow(columns)

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        if self.fmt == "csv":
            self.csv.writerows([_csv_cell(row[c]) for c in self.columns] for row in rows)
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
    """What an export wrote: rows per study file, the key file if asked for, and warnings for
    the researcher (one line each)."""

    rows: dict[str, int]
    """Rows written per study file (``participants`` … ``flags``), in the order written."""
    directory: Path
    fmt: str
    key_file: Path | None = None
    """``identifiers.<fmt>`` when ``include_identifiers`` was given."""
    key_rows: int = 0
    warnings: list[str] = field(default_factory=list)


def _prepare(out_dir: Path, fmt: str, force: bool, names: Sequence[str]) -> tuple[dict[str, Path], list[str]]:
    if fmt not in FORMATS:
        raise AdminError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if out_dir.exists() and not out_dir.is_dir():
        raise AdminError(f"--out: {out_dir} exists and is not a directory")
    targets = {name: out_dir / f"{name}.{fmt}" for name in names}
    existing = [path.name for path in targets.values() if path.exists()]
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
) -> ExportResult:
    """Write ``participants``, ``messages``, ``deliveries``, ``transitions``, ``tone_changes``,
    ``consent`` and ``flags`` to ``out_dir`` as ``<name>.csv`` or ``<name>.jsonl``, pseudonymised;
    with ``include_identifiers`` also the key file ``identifiers.<fmt>``.

    Refuses (AdminError, nothing written) when a target file exists, unless ``force``. A prompt
    sent longer than ``receipt_window`` before ``now`` without a delivered receipt (where the
    transport reports them) is ``not_delivered``."""
    out = Path(out_dir)
    cutoff = (now or datetime.now(timezone.utc)) - receipt_window
    tables = (*TABLES, IDENTIFIER_TABLE) if include_identifiers else TABLES
    targets, warnings = _prepare(out, fmt, force, [table.name for table in tables])
    plan = await db.run(_plan)
    written: dict[str, int] = {}
    temps: dict[str, Path] = {}
    try:
        with _progress_bar(sum(plan.counts[t.name] for t in tables), progress, progress_threshold) as bar:
            for table in tables:
                bar.set_description(table.name, refresh=False)
                # A hidden name of our own, created exclusively (never someone else's file) and
                # 0600 from the first byte.
                temp = out / f".{table.name}.{fmt}.{secrets.token_hex(4)}.tmp"
                temps[table.name] = temp
                with open_private(temp, "x", encoding="utf-8", newline="") as stream:
                    writer = _Writer(stream, fmt, table.columns)
                    written[table.name] = await _copy(db, table, plan, writer, bar, chunk_size, cutoff)
                    stream.flush()
                    os.fsync(stream.fileno())
        for name, temp in temps.items():
            os.replace(temp, targets[name])
        temps.clear()
    except OSError as exc:
        raise AdminError(f"--out: cannot write to {out} ({exc.strerror or exc})") from None
    finally:
        for temp in temps.values():
            temp.unlink(missing_ok=True)
    key_rows = written.pop(IDENTIFIERS, 0)
    return ExportResult(rows=written, directory=out, fmt=fmt,
                        key_file=targets[IDENTIFIERS] if include_identifiers else None,
                        key_rows=key_rows, warnings=warnings)


async def _copy(db: Database, table: _Table, plan: _Plan, writer: _Writer, bar: tqdm[NoReturn], chunk_size: int,
                cutoff: datetime) -> int:
    by_participant = table.model is Participant
    if by_participant:
        def fetch(after: Any) -> Callable[[Session], list[Any]]:
            return _participant_chunk(after, chunk_size)
        start: Any = None
    else:
        ceiling = plan.ceilings[table.name]

        def fetch(after: Any) -> Callable[[Session], list[Any]]:
            return _event_chunk(table.model, after, ceiling, chunk_size, cutoff)
        start = 0
    count = 0
    people = plan.people
    async with contextlib.aclosing(_chunks(db, fetch, start, chunk_size)) as chunks:
        async for rows in chunks:
            if by_participant:  # one enrolled after the start is left for the next export
                rows = [row for row in rows if row.id in people]
            writer.write(table.build(row, people) for row in rows)
            count += len(rows)
            bar.update(len(rows))
    return count


async def _chunks(
    db: Database, fetch: Callable[[Any], Callable[[Session], list[Any]]], start: Any, chunk_size: int
) -> AsyncGenerator[list[Any], None]:
    """Chunks of rows ordered by id, each read in its own transaction; the next chunk is read on
    the database thread while the caller writes this one (at most two chunks in memory)."""
    pending: asyncio.Future[list[Any]] | None = asyncio.ensure_future(db.run(fetch(start)))
    try:
        while pending is not None:
            rows = await pending
            pending = None
            if not rows:
                return
            if len(rows) == chunk_size:
                pending = asyncio.ensure_future(db.run(fetch(rows[-1].id)))
            yield rows
    finally:
        if pending is not None:  # the caller stopped early (an error): let the read finish, drop it
            with contextlib.suppress(BaseException):
                await asyncio.shield(pending)
