"""Reading an export's tables in chunks and writing their rows: what the export and its worker process share (apart
from :mod:`.files` so a worker imports only this: half a second of its start)."""

from __future__ import annotations

import csv
import json
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from promptpipe.export.cells import FORMULA_STARTS, csv_cell
from promptpipe.export.pseudonyms import People
from promptpipe.export.receipts import Chunk
from promptpipe.export.rows import _Table, participant_chunk
from promptpipe.export.study_part import Protocol, decision_batch
from promptpipe.export.transcript import delivery_chunk, message_chunk
from promptpipe.storage.models import Message, Participant, table_of
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance


@dataclass(frozen=True)
class _Plan:
    people: People
    ceilings: dict[str, int]
    """The highest id of each event table when the export started."""
    counts: dict[str, int]
    protocol: Protocol
    strata: list[str]
    decision_batches: list[tuple[str, str]]


def _event_chunk(model: Any, after: int, ceiling: int, limit: int, cutoff: datetime) -> Callable[[Session], list[Any]]:
    if model is Message:
        return message_chunk(after, ceiling, limit, cutoff)
    if model is PromptDelivery:
        return delivery_chunk(after, ceiling, limit, cutoff)
    t = table_of(model)
    query = select(t, *_joined_columns(model, t)).where(t.c.id > after, t.c.id <= ceiling)
    query = query.order_by(t.c.id).limit(limit)
    return lambda session: list(session.execute(query))


def _joined_columns(model: Any, t: Any) -> list[Any]:
    if model is QuestionnaireAnswer:  # each answer row says which questionnaire and occasion it belongs to
        instance = table_of(QuestionnaireInstance)
        return [select(instance.c[name]).where(instance.c.id == t.c.instance_id).scalar_subquery().label(name)
                for name in ("questionnaire_id", "occasion", "protocol_hash")]
    return []


class _Writer:
    def __init__(self, stream: TextIO, fmt: str, columns: Sequence[str], *, header: bool = True) -> None:
        self.stream, self.fmt, self.columns = stream, fmt, columns
        if fmt == "csv":
            self.csv = csv.writer(stream, quoting=csv.QUOTE_MINIMAL)
            if header:  # not for the last rows of a file, written apart (see export._write_tables)
                self.csv.writerow(columns)
            getter = operator.itemgetter(*columns)
            self.cells: Callable[[Mapping[str, Any]], Sequence[Any]] = (
                getter if len(columns) > 1 else lambda row: (getter(row),))

    def write(self, rows: Iterable[Mapping[str, Any]]) -> None:
        if self.fmt == "csv":
            cells, starts = self.cells, FORMULA_STARTS
            # Most cells are plain text, numbers or empty: they pass without a call (the csv
            # module writes None as an empty cell); the rest go through csv_cell.
            self.csv.writerows([
                value if value is None or (value.__class__ is str and (not value or value[0] not in starts)
                                           and "\x00" not in value) or value.__class__ is int
                else csv_cell(value) for value in cells(row)] for row in rows)
        else:  # json.dumps writes NUL and other control characters as \u escapes
            dumps = json.dumps
            self.stream.writelines(dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows)


@dataclass(frozen=True)
class WorkerJob:
    url: str
    table: str
    fmt: str
    plan: _Plan
    chunk_size: int
    cutoff: datetime
    temp: Path


def _format(writer: _Writer, table: _Table, rows: list[Any], people: People) -> None:
    if table.chunk_rows is None:
        assert table.build is not None
        writer.write(table.build(row, people) for row in rows)
    elif writer.fmt == "csv":
        writer.csv.writerows(table.chunk_rows(rows, people, csv_cell))
    else:  # the same values, as they are
        columns = table.columns
        writer.write(dict(zip(columns, values, strict=True)) for values in table.chunk_rows(rows, people, _as_is))


def _as_is(value: Any) -> Any:
    return value


_Read = Callable[[Session], list[Any]]


def _reads(table: _Table, plan: _Plan, chunk_size: int, cutoff: datetime,
           after: int = 0) -> Callable[[list[Any] | None], _Read | None]:
    """The read after a chunk (None: the first; None after the last): by id, or the next range of participants."""
    if table.model is Decision:
        batches, ceiling = iter(plan.decision_batches), plan.ceilings[table.name]
        report = plan.protocol.study.self_report if plan.protocol.study is not None else None
        report_at = report.at if report is not None else None

        def next_batch(rows: list[Any] | None) -> _Read | None:
            batch = next(batches, None)
            return None if batch is None else decision_batch(*batch, ceiling, cutoff, report_at)
        return next_batch
    fetch: Callable[[Any], _Read] = partial(participant_chunk, limit=chunk_size)
    start: Any = None
    if table.model is not Participant:
        fetch = partial(_event_chunk, table.model, ceiling=plan.ceilings[table.name], limit=chunk_size, cutoff=cutoff)
        start = after

    def next_chunk(rows: list[Any] | None) -> _Read | None:
        if rows is None:
            return fetch(start)
        return fetch(rows[-1][0] if isinstance(rows, Chunk) else rows[-1].id) if len(rows) == chunk_size else None
    return next_chunk


