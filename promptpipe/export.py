"""The study's data as flat files for analysis (pandas, R): one row per event, five files.

``participants``, ``messages`` (the transcript), ``deliveries`` (daily prompts and what became of
them), ``transitions`` (the audit log) and ``tone_changes``. Every time appears twice: in UTC
(``…_utc``, ``+00:00``) and in the participant's own zone (``…_local``, with its offset), both ISO
8601 to the second, so a column always has one format.

CSV: a header row, UTF-8, quoted only where needed (texts with commas, quotes and newlines read
back intact); None is an empty cell, lists are joined with ``;``, objects are compact JSON and
booleans ``true``/``false``. JSONL: one object per line with real nulls, lists, objects, ints and
booleans.

Memory stays bounded: rows are read in chunks ordered by id (keyset pagination), each chunk in its
own short transaction, so a running service is never held up for long. The id ceilings and row
counts are taken once at the start; rows added while the export runs are left for the next one.
Each file is written under a temporary name in the target directory and renamed only when every
file is complete, so a crash never leaves a half-written file under a real name.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, TextIO
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from tqdm import tqdm

from promptpipe.db import Database
from promptpipe.errors import AdminError
from promptpipe.localtime import zone_or_utc
from promptpipe.models import Conversation, Message, Participant, PromptDelivery, ToneEvent, Transition
from promptpipe.outcomes import COUNTER_DATES, COUNTER_INTS, delivery_outcome
from promptpipe.state import PROFILE_FIELDS

FORMATS = ("csv", "jsonl")
CHUNK_ROWS = 2_000
PROGRESS_THRESHOLD = 5_000
UTC = ZoneInfo("UTC")


PARTICIPANT_COLUMNS = (
    "id", "phone", "name", "timezone", "status", "paused_by", "sub_state", "enrolled_at_utc", "enrolled_at_local",
    *PROFILE_FIELDS, "intensity", *COUNTER_INTS, *COUNTER_DATES, "tone_active",
)
MESSAGE_COLUMNS = (
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at_utc", "created_at_local",
    "sent_at_utc", "sent_at_local", "wa_message_id", "poll_purpose", "poll_options", "vote_chosen", "handled_as",
    "payload",
)
DELIVERY_COLUMNS = (
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at_utc", "sent_at_local", "vote", "voted_at_utc", "voted_at_local", "vote_changes",
    "replied_at_utc", "replied_at_local", "reminder_at_utc", "reminder_at_local", "reminder_sent", "outcome",
)
TRANSITION_COLUMNS = (
    "id", "participant_id", "kind", "name", "from_value", "to_value", "reason", "at_utc", "at_local",
)
TONE_COLUMNS = (
    "id", "participant_id", "source", "proposed", "stripped", "outcome", "active_before", "active_after", "scores",
    "at_utc", "at_local",
)

Zones = dict[str, ZoneInfo]


# ---------------------------------------------------------------- values

def _times(prefix: str, value: datetime | None, zone: ZoneInfo) -> dict[str, str | None]:
    """``{prefix}_utc`` and ``{prefix}_local``: ISO 8601 to the second, with the offset."""
    if value is None:
        return {f"{prefix}_utc": None, f"{prefix}_local": None}
    return {
        f"{prefix}_utc": value.astimezone(timezone.utc).isoformat(timespec="seconds"),
        f"{prefix}_local": value.astimezone(zone).isoformat(timespec="seconds"),
    }


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _as_list(value: Any) -> list[Any] | None:
    """A list as stored; a lone value becomes a one-item list; absent stays None."""
    if value is None:
        return None
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _csv_cell(value: Any) -> Any:
    cls = value.__class__
    if cls is str or cls is int:  # nearly every cell: nothing to do
        return value
    if value is None:
        return ""
    if cls is bool:
        return "true" if value else "false"
    if cls is list or cls is tuple:
        return ";".join("" if item is None else _json_text(item) if isinstance(item, (dict, list)) else str(item)
                        for item in value)
    if cls is dict:
        return _json_text(value)
    return value


# ---------------------------------------------------------------- one row per event

def _participant_row(row: Any, zones: Zones) -> dict[str, Any]:
    profile = _as_dict(row.profile)
    counters = _as_dict(profile.get("counters"))
    tone = _as_dict(row.tone)
    out: dict[str, Any] = {
        "id": row.id, "phone": row.phone, "name": row.name, "timezone": row.timezone, "status": row.status,
        "paused_by": row.paused_by, "sub_state": row.sub_state,
        **_times("enrolled_at", row.enrolled_at, zones.get(row.id, UTC)),
    }
    for field in PROFILE_FIELDS:
        out[field] = profile.get(field)
    out["intensity"] = profile.get("intensity") or "normal"
    for name in COUNTER_INTS:
        value = counters.get(name)
        out[name] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    for name in COUNTER_DATES:
        out[name] = counters.get(name) or None
    out["tone_active"] = _as_list(tone.get("active")) or []
    return out


def _message_row(row: Any, zones: Zones) -> dict[str, Any]:
    zone = zones.get(row.participant_id, UTC)
    payload = _as_dict(row.payload)
    return {
        "id": row.id, "participant_id": row.participant_id, "direction": row.direction, "role": row.role,
        "kind": row.kind, "status": row.status, "text": row.text,
        **_times("created_at", row.created_at, zone), **_times("sent_at", row.sent_at, zone),
        "wa_message_id": row.wa_message_id,
        "poll_purpose": payload.get("purpose"),
        "poll_options": _as_list(payload.get("options")),
        "vote_chosen": _as_list(payload.get("selected")),
        "handled_as": payload.get("handled_as"),
        "payload": row.payload,
    }


def _delivery_row(row: Any, zones: Zones) -> dict[str, Any]:
    zone = zones.get(row.participant_id, UTC)
    return {
        "id": row.id, "participant_id": row.participant_id, "schedule_id": row.schedule_id,
        "local_date": row.local_date, "prompt_text": row.prompt_text,
        "prompt_message_id": row.prompt_message_id, "poll_message_id": row.poll_message_id,
        **_times("sent_at", row.sent_at, zone),
        "vote": row.vote, **_times("voted_at", row.voted_at, zone), "vote_changes": row.vote_changes,
        **_times("replied_at", row.replied_at, zone), **_times("reminder_at", row.reminder_at, zone),
        "reminder_sent": row.reminder_at is not None,
        "outcome": delivery_outcome(row.vote, row.replied_at, row.reminder_at),
    }


def _transition_row(row: Any, zones: Zones) -> dict[str, Any]:
    return {
        "id": row.id, "participant_id": row.participant_id, "kind": row.kind, "name": row.name,
        "from_value": row.from_value, "to_value": row.to_value, "reason": row.reason,
        **_times("at", row.created_at, zones.get(row.participant_id, UTC)),
    }


def _tone_row(row: Any, zones: Zones) -> dict[str, Any]:
    return {
        "id": row.id, "participant_id": row.participant_id, "source": row.source,
        "proposed": _as_list(row.proposed), "stripped": _as_list(row.stripped), "outcome": row.outcome,
        "active_before": _as_list(row.active_before), "active_after": _as_list(row.active_after),
        "scores": row.scores, **_times("at", row.created_at, zones.get(row.participant_id, UTC)),
    }


@dataclass(frozen=True)
class _Table:
    name: str
    model: Any
    columns: Sequence[str]
    build: Callable[[Any, Zones], dict[str, Any]]


TABLES: tuple[_Table, ...] = (
    _Table("participants", Participant, PARTICIPANT_COLUMNS, _participant_row),
    _Table("messages", Message, MESSAGE_COLUMNS, _message_row),
    _Table("deliveries", PromptDelivery, DELIVERY_COLUMNS, _delivery_row),
    _Table("transitions", Transition, TRANSITION_COLUMNS, _transition_row),
    _Table("tone_changes", ToneEvent, TONE_COLUMNS, _tone_row),
)
FILE_NAMES = tuple(table.name for table in TABLES)


# ---------------------------------------------------------------- reading in chunks

@dataclass(frozen=True)
class _Plan:
    zones: Zones
    ceilings: dict[str, int]
    """The highest id of each event table when the export started."""
    counts: dict[str, int]


def _plan(session: Session) -> _Plan:
    ceilings: dict[str, int] = {}
    counts: dict[str, int] = {}
    for table in TABLES[1:]:
        t = table.model.__table__
        ceilings[table.name] = session.execute(select(func.max(t.c.id))).scalar() or 0
        counts[table.name] = session.execute(
            select(func.count()).select_from(t).where(t.c.id <= ceilings[table.name])).scalar() or 0
    # Read after the ceilings, so every participant an exported event belongs to is known.
    zones = {pid: zone_or_utc(tz) for pid, tz in session.execute(select(Participant.id, Participant.timezone))}
    counts["participants"] = len(zones)
    return _Plan(zones, ceilings, counts)


def _participant_chunk(after: str | None, limit: int) -> Callable[[Session], list[Any]]:
    p, c = Participant.__table__, Conversation.__table__  # type: ignore[attr-defined]
    query = (
        select(p.c.id, p.c.phone, p.c.name, p.c.timezone, p.c.status, p.c.paused_by, p.c.enrolled_at,
               c.c.sub_state, c.c.profile, c.c.tone)
        .select_from(p.outerjoin(c, c.c.participant_id == p.c.id))
        .order_by(p.c.id).limit(limit)
    )
    if after is not None:
        query = query.where(p.c.id > after)
    return lambda session: list(session.execute(query))


def _event_chunk(model: Any, after: int, ceiling: int, limit: int) -> Callable[[Session], list[Any]]:
    t = model.__table__
    query = select(t).where(t.c.id > after, t.c.id <= ceiling).order_by(t.c.id).limit(limit)
    return lambda session: list(session.execute(query))


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
        else:
            dumps = json.dumps
            self.stream.writelines(dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows)


def _progress_bar(total: int, progress: IO[str] | None, threshold: int) -> tqdm:
    """Rows written out of the total; drawn only for a large export, and on stderr only when it
    is a terminal (an explicit ``progress`` stream is always drawn on)."""
    stream = progress if progress is not None else sys.stderr
    show = total >= threshold and (progress is not None or sys.stderr.isatty())
    return tqdm(total=total, file=stream, disable=not show, unit=" rows", desc="export",
                dynamic_ncols=progress is None)


def _prepare(out_dir: Path, fmt: str, force: bool) -> dict[str, Path]:
    if fmt not in FORMATS:
        raise AdminError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if out_dir.exists() and not out_dir.is_dir():
        raise AdminError(f"--out: {out_dir} exists and is not a directory")
    targets = {name: out_dir / f"{name}.{fmt}" for name in FILE_NAMES}
    existing = [path.name for path in targets.values() if path.exists()]
    if existing and not force:
        raise AdminError(
            f"{out_dir} already has {', '.join(existing)}; nothing was written "
            "(use --force to overwrite, or choose another --out)"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AdminError(f"--out: cannot create {out_dir} ({exc.strerror or exc})") from None
    return targets


async def export_study(
    db: Database,
    out_dir: str | os.PathLike[str],
    *,
    fmt: str = "csv",
    force: bool = False,
    progress: IO[str] | None = None,
    progress_threshold: int = PROGRESS_THRESHOLD,
    chunk_size: int = CHUNK_ROWS,
) -> dict[str, int]:
    """Write ``participants``, ``messages``, ``deliveries``, ``transitions`` and ``tone_changes``
    to ``out_dir`` as ``<name>.csv`` or ``<name>.jsonl``; returns the rows written per file.

    Refuses (AdminError, nothing written) when a target file exists, unless ``force``."""
    out = Path(out_dir)
    targets = _prepare(out, fmt, force)
    plan = await db.run(_plan)
    written: dict[str, int] = {}
    temps: dict[str, Path] = {}
    try:
        with _progress_bar(sum(plan.counts.values()), progress, progress_threshold) as bar:
            for table in TABLES:
                bar.set_description(table.name, refresh=False)
                # A hidden name of our own, created exclusively (mode "x": never someone else's
                # file) with the usual permissions, unlike mkstemp's owner-only ones.
                temp = out / f".{table.name}.{fmt}.{secrets.token_hex(4)}.tmp"
                temps[table.name] = temp
                with open(temp, "x", encoding="utf-8", newline="") as stream:
                    writer = _Writer(stream, fmt, table.columns)
                    written[table.name] = await _copy(db, table, plan, writer, bar, chunk_size)
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
    return written


async def _copy(db: Database, table: _Table, plan: _Plan, writer: _Writer, bar: tqdm, chunk_size: int) -> int:
    if table.name == "participants":
        def fetch(after: Any) -> Callable[[Session], list[Any]]:
            return _participant_chunk(after, chunk_size)
        start: Any = None
    else:
        ceiling = plan.ceilings[table.name]

        def fetch(after: Any) -> Callable[[Session], list[Any]]:
            return _event_chunk(table.model, after, ceiling, chunk_size)
        start = 0
    count = 0
    async with contextlib.aclosing(_chunks(db, fetch, start, chunk_size)) as chunks:
        async for rows in chunks:
            if table.name == "participants":  # one enrolled after the start is left for the next export
                rows = [row for row in rows if row.id in plan.zones]
            writer.write(table.build(row, plan.zones) for row in rows)
            count += len(rows)
            bar.update(len(rows))
    return count


async def _chunks(
    db: Database, fetch: Callable[[Any], Callable[[Session], list[Any]]], start: Any, chunk_size: int
) -> AsyncIterator[list[Any]]:
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
