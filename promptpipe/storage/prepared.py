"""Statements every message runs, compiled once and run straight on the driver's cursor: SQLAlchemy's execution costs
~50 µs a statement against SQLite's ~4 µs, over 40 % of a 10,000-prompt burst's Python time (issues 26 and 50).

:class:`Prepared` keeps SQLAlchemy's compilation, conversions and errors (so :class:`~promptpipe.errors.DuplicateKey`
works) and fires the cursor-execute listeners the message budget test counts. Other drivers and what it does not handle
(values rendered into the SQL, computed defaults, an empty ``IN`` list, an echoing engine) fall back to SQLAlchemy.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from psycopg import RawCursor
from sqlalchemy import LargeBinary
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.compiler import SQLCompiler

__all__ = ["InsertRow", "Prepared", "Row", "bound", "insert_row", "run_sql"]

Row = tuple[Any, ...]
Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Plan:
    """One compilation's recipe: the SQL, which value goes where and how it is converted."""

    sql: str
    steps: tuple[tuple[str, Processor, object], ...]
    """Each value in order: its parameter's name, its converter and its value when not given."""
    expanding: frozenset[str]
    results: tuple[tuple[int, Processor], ...] | None
    """The result columns that need converting, by position (None: the statement returns no rows)."""
    one_row: str | None
    """An INSERT's one row of values, ``(?, …)``, which a multi-row INSERT repeats (None: not such a statement)."""
    placeholder: str
    """The driver's mark for one value: ``?`` (SQLite) or ``%s`` (psycopg)."""


class Prepared:
    """A Core statement run with :meth:`rows` or :meth:`many` on a transaction's connection."""

    __slots__ = ("_plans", "statement")

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._plans: dict[tuple[str, frozenset[str] | None], _Plan | None] = {}

    def rows(self, connection: Connection, params: Mapping[str, Any] | None = None) -> list[Row]:
        """Run once with ``params``; the rows it returned (none for most writes)."""
        return self._execute(connection, params or {})[0]

    def changed(self, connection: Connection, params: Mapping[str, Any] | None = None) -> int:
        """Run once with ``params``; how many rows it changed."""
        return self._execute(connection, params or {})[1]

    def _execute(self, connection: Connection, params: Mapping[str, Any]) -> tuple[list[Row], int]:
        plan = self._plan(connection, params)
        if plan is not None:
            try:
                sql, values = _bind(plan, params)
            except _EmptyList:
                plan = None
        if plan is None:
            result = connection.execute(self.statement, dict(params))
            return (list(result.all()) if result.returns_rows else []), result.rowcount
        cursor = _run(connection, sql, values, many=False)
        found = _converted(cursor.fetchall(), plan.results) if plan.results is not None else []
        return found, cursor.rowcount

    def one_value(self, connection: Connection, params: Mapping[str, Any] | None = None) -> Any:
        """The first column of the one row the statement returns, None without a row."""
        found = self.rows(connection, params)
        return found[0][0] if found else None

    def many(self, connection: Connection, params: Sequence[Mapping[str, Any]], *,
             any_order: bool = False) -> list[Row]:
        """Run for each mapping (same keys in all): an ``executemany``, or with ``RETURNING`` once per mapping so rows
        come in order; ``any_order``: one multi-row INSERT whose rows the caller matches by a column they return."""
        if not params:
            return []
        postgres = connection.dialect.name != "sqlite"
        if postgres and len(params) == 1:  # psycopg's executemany enters pipeline mode: 75 µs of CPU against 50
            return self.rows(connection, params[0])
        plan = self._plan(connection, params[0])
        if plan is None:
            result = connection.execute(self.statement, [dict(p) for p in params])
            return list(result.all()) if result.returns_rows else []
        if plan.results is not None and not any_order and postgres:
            # psycopg: SQLAlchemy sends the rows as one statement and hands their results back in order
            return list(connection.execute(self.statement, [dict(p) for p in params]).all())
        if postgres and plan.results is None and plan.one_row is not None and not plan.expanding:
            # One multi-row INSERT: psycopg's executemany (a pipeline) cost 111 µs of CPU for three rows, this 46 µs
            for start in range(0, len(params), _ROWS_AT_ONCE):
                chunk = params[start:start + _ROWS_AT_ONCE]
                sql = plan.sql.replace(f"VALUES {plan.one_row}", "VALUES " + ", ".join([plan.one_row] * len(chunk)), 1)
                _run(connection, sql, [value for p in chunk for value in _bind(plan, p)[1]], many=False)
            return []
        if plan.expanding or (plan.results is not None and not (any_order and plan.one_row)):
            return [row for p in params for row in self.rows(connection, p)]
        if plan.results is not None and plan.one_row is not None:
            sql = plan.sql.replace(f"VALUES {plan.one_row}", "VALUES " + ", ".join([plan.one_row] * len(params)), 1)
            values = [value for p in params for value in _bind(plan, p)[1]]
            return _converted(_run(connection, sql, values, many=False).fetchall(), plan.results)
        _run(connection, plan.sql, [_bind(plan, p)[1] for p in params], many=True)
        return []

    def _plan(self, connection: Connection, params: Mapping[str, Any]) -> _Plan | None:
        dialect = connection.dialect
        placeholder = _PLACEHOLDERS.get((dialect.name, dialect.driver))
        if placeholder is None or connection.engine.echo:
            return None
        # An INSERT or UPDATE compiles its columns from the keys it runs with, as in SQLAlchemy.
        keys = (dialect.name, frozenset(params) if getattr(self.statement, "is_dml", False) else None)
        try:
            return self._plans[keys]
        except KeyError:
            return self._plans.setdefault(keys, _compile(self.statement, dialect, placeholder, keys[1]))


@dataclass(frozen=True)
class InsertRow:
    """One row of a compiled INSERT, for SQL built around it: each column, its placeholder (with its cast) and its value
    as the driver takes it."""

    table: str
    columns: tuple[str, ...]
    placeholders: tuple[str, ...]
    values: tuple[Any, ...]


def insert_row(statement: Prepared, connection: Connection, params: Mapping[str, Any]) -> InsertRow | None:
    """``statement`` (a one-table INSERT) compiled for ``params``, split by column (None: not run straight here)."""
    plan = statement._plan(connection, params)
    if plan is None or plan.one_row is None or plan.expanding:
        return None
    start = plan.sql.find("(") + 1
    if not plan.sql.startswith("INSERT INTO ") or ") VALUES " not in plan.sql:
        return None
    columns = tuple(plan.sql[start:plan.sql.index(") VALUES ")].split(", "))
    placeholders = tuple(plan.one_row[1:-1].split(", "))
    if not (len(columns) == len(placeholders) == len(plan.steps)) or "(" in plan.one_row[1:-1]:
        return None
    return InsertRow(plan.sql[len("INSERT INTO "):start - 2], columns, placeholders, tuple(_bind(plan, params)[1]))


def bound(statement: Prepared, connection: Connection, params: Mapping[str, Any]) -> tuple[str, list[Any]] | None:
    """``statement``'s SQL (its ``IN`` lists spelt out) and values as run straight, to be part of a larger statement
    (None: not run straight here, or an empty ``IN`` list)."""
    plan = statement._plan(connection, params)
    if plan is None:
        return None
    try:
        return _bind(plan, params)
    except _EmptyList:
        return None


def run_sql(connection: Connection, sql: str, values: Sequence[Any]) -> list[Row]:
    """SQL built from :func:`insert_row`'s parts, on the driver's cursor (listeners hear it); the rows it returned."""
    return list(_run(connection, sql, values, many=False).fetchall())


_ROWS_AT_ONCE = 100
"""Rows per multi-row INSERT on PostgreSQL: each count is its own statement text in psycopg's and the server's cache."""
_PLACEHOLDERS = {("sqlite", "pysqlite"): "?", ("postgresql", "psycopg"): "%s"}
"""The drivers run straight, and how each marks a value."""


def _positional(dialect: Dialect) -> Dialect:
    """The dialect, compiling for values by position: psycopg's dialect names them (``%(name)s``)."""
    if dialect.positional:
        return dialect
    twin = copy.copy(dialect)
    twin.paramstyle, twin.positional = "format", True
    return twin


def _compile(statement: Executable, dialect: Dialect, placeholder: str, keys: frozenset[str] | None) -> _Plan | None:
    compiled = cast(ClauseElement, statement).compile(dialect=_positional(dialect),
                                                      column_keys=sorted(keys) if keys is not None else None)
    assert isinstance(compiled, SQLCompiler)
    if compiled.literal_execute_params or compiled.positiontup is None:
        return None
    defaults: dict[str, object] = {}
    for column in (*compiled.insert_prefetch, *compiled.update_prefetch):
        default = column.default if column in compiled.insert_prefetch else column.onupdate
        if default is None or not default.is_scalar:
            return None  # a default computed at execution: SQLAlchemy's own path
        defaults[column.key] = default.arg  # type: ignore[attr-defined]
    bound = compiled.construct_params(_check=False)
    for name, value in bound.items():
        if value is not None:
            defaults.setdefault(name, value)
    processors: dict[str, Processor] = {}
    for bind, name in compiled.bind_names.items():
        if isinstance(bind.type, LargeBinary) and dialect.name == "sqlite":
            continue
        processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if processor is not None:
            processors[name] = processor
    # SQLite takes bytes as they are: the binary type's converter only cost time, 10,000 times in an alarm pass.
    names = tuple(compiled.positiontup)
    expanding = frozenset(compiled.bind_names[bind] for bind in compiled.post_compile_params)
    returned = getattr(statement, "exported_columns", ())  # a SELECT's columns, or what a change RETURNs
    try:
        converters = [column.type.dialect_impl(dialect).result_processor(dialect, None) for column in returned]
    except Exception:  # a type that needs the column's server type to convert (PostgreSQL's numeric): SQLAlchemy's path
        return None
    one_row = _values_row(compiled.string) if compiled.isinsert else None
    return _Plan(sql=compiled.string, steps=tuple((name, processors.get(name), defaults.get(name)) for name in names),
                 expanding=expanding,
                 results=tuple((n, p) for n, p in enumerate(converters) if p is not None) if converters else None,
                 one_row=one_row if one_row and compiled.string.count(f"VALUES {one_row}") == 1 else None,
                 placeholder=placeholder)


def _values_row(sql: str) -> str | None:
    """An INSERT's row of values as compiled: ``(?, ?)``, or ``(%s::VARCHAR, %s::INTEGER)`` on PostgreSQL."""
    start = sql.find("VALUES (")
    if start < 0:
        return None
    depth = 0
    for end in range(start + len("VALUES "), len(sql)):
        depth += {"(": 1, ")": -1}.get(sql[end], 0)
        if depth == 0:
            return sql[start + len("VALUES "):end + 1]
    return None


def _bind(plan: _Plan, params: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """The SQL (its ``IN`` lists spelt out) and the values in order, converted."""
    get = params.get
    if not plan.expanding:
        return plan.sql, [get(name, default) if convert is None else convert(get(name, default))
                          for name, convert, default in plan.steps]
    values: list[Any] = []
    sql = plan.sql
    for name, processor, default in plan.steps:
        value = get(name, default)
        if name in plan.expanding:
            items = list(value or ())
            if not items:
                raise _EmptyList
            sql = sql.replace(f"__[POSTCOMPILE_{name}]", ", ".join([plan.placeholder] * len(items)), 1)
            values.extend(processor(item) for item in items) if processor else values.extend(items)
        else:
            values.append(processor(value) if processor is not None else value)
    return sql, values


class _EmptyList(Exception):
    """An empty ``IN`` list: SQLAlchemy renders it as a condition that is never true."""


def _run(connection: Connection, sql: str, values: Any, *, many: bool) -> Any:
    """The statement run on the driver's cursor; the cursor, whose rows the caller reads at once."""
    raw = connection.connection.driver_connection
    assert raw is not None
    postgres = connection.dialect.name == "postgresql"
    cursor = _kept_cursor(connection, raw) if postgres else raw.cursor()
    connection.dispatch.before_cursor_execute(connection, cursor, sql, values, None, many)
    run = _numbered(sql) if postgres else sql
    try:
        cursor.executemany(run, values) if many else cursor.execute(run, values)
    except connection.dialect.loaded_dbapi.Error as exc:
        raise DBAPIError.instance(sql, values, exc, connection.dialect.loaded_dbapi.Error,
                                  hide_parameters=True, dialect=connection.dialect, ismulti=many) from exc
    connection.dispatch.after_cursor_execute(connection, cursor, sql, values, None, many)
    return cursor


def _kept_cursor(connection: Connection, raw: Any) -> RawCursor[Any]:
    """One cursor per psycopg connection, used again for each statement (its rows are read before the next): a new
    cursor looks its value adapters up again, ~16 µs more CPU a statement (72 against 56 µs, 5 values)."""
    info = connection.connection.info
    kept = info.get(_CURSOR)
    if kept is None or kept.connection is not raw or kept.closed:
        kept = info[_CURSOR] = RawCursor(raw)
    return cast("RawCursor[Any]", kept)


_CURSOR = "promptpipe.raw_cursor"


@lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    """psycopg's ``%s`` marks as PostgreSQL's own ``$1, $2, …`` (``%%`` as ``%``), for a :class:`~psycopg.RawCursor`:
    psycopg's cursor parses each query for its marks, cached only up to 50 values, so a statement with more (a turn's
    transcript and outbox rows, 3 messages: 69; 100 inbox rows: 1,100) was parsed every time: 138 µs of CPU against
    33 µs, 2,200 against 198 (3 % of a burst's Python CPU, 4 % of its first seconds)."""
    if "%%" in sql:
        numbers = itertools.count(1)
        return _MARK.sub(lambda mark: "%" if mark.group(1) == "%" else f"${next(numbers)}", sql)
    first, *rest = sql.split("%s")
    return first + "".join(f"${n}{part}" for n, part in enumerate(rest, 1))


_MARK = re.compile(r"%([s%])")


def _converted(found: list[Row], converters: tuple[tuple[int, Processor], ...]) -> list[Row]:
    if not converters:
        return found
    rows = []
    for row in found:
        values = list(row)
        for n, convert in converters:
            values[n] = convert(values[n])  # type: ignore[misc]
        rows.append(tuple(values))
    return rows
