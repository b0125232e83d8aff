"""Enrolling many participants from one UTF-8 CSV file (:func:`columns_for`). :func:`check_import` is the dry run;
:func:`run_import` enrols the rows through ``changes.enroll`` only when no row has a problem, each in its own
transaction (hence :data:`MAX_IMPORT_ROWS`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.numbers import NUMBER_NAME, ONE_NUMBER, NumberPlan
from promptpipe.domain.text import has_undecodable
from promptpipe.errors import AdminError, ConfigError
from promptpipe.logging import get_logger
from promptpipe.research.changes import Enrolment, enroll
from promptpipe.research.enrolment_checks import Details, check_details, field_words
from promptpipe.research.tokens import Caller, audit
from promptpipe.storage.db import Database
from promptpipe.storage.participants import participant_by_phone
from promptpipe.study.operations import check_protocol
from promptpipe.study.rules.protocol import Study
from promptpipe.study.store.protocol import ProtocolChanged

__all__ = ["MAX_IMPORT_CHARS", "MAX_IMPORT_ROWS", "REQUIRED_COLUMNS", "Entry", "ImportResult", "ImportRow", "Parsed",
           "check_import", "check_rows", "columns_for", "decode_upload", "parse", "run_import"]

log = get_logger("promptpipe.research.csv_enrolment")

MAX_IMPORT_ROWS = 1_000
MAX_IMPORT_CHARS = 80_000
"""1,000 rows of 80 characters; as JSON (12 bytes a character at worst) under WEB_MAX_BODY_BYTES' default."""
REQUIRED_COLUMNS = ("phone", "name", "timezone")
OPTIONAL_COLUMNS = ("background", "number")


@dataclass(frozen=True)
class Entry:
    """One participant's row as the file has it (values trimmed)."""

    line: int  # where the row starts in the file (the header is line 1)
    phone: str
    name: str
    timezone: str
    background: str = ""
    strata: dict[str, str] = field(default_factory=dict)
    problem: str | None = None  # of the row's shape (too many or too few values)
    number: str = ""  # empty: the deployment's rule gives one


@dataclass(frozen=True)
class Parsed:
    entries: tuple[Entry, ...]
    problem: str | None = None  # the file's own (encoding, header, size): its rows are not checked then


@dataclass(frozen=True)
class ImportRow:
    """One row's outcome: ready (no problem), enrolled (a participant id) or its problem."""

    line: int
    phone: str
    name: str
    timezone: str
    strata: dict[str, str]
    problem: str | None = None
    participant_id: str | None = None
    arm: str | None = None
    number: str | None = None  # the one the file names (a dry run), or the one they were given


@dataclass(frozen=True)
class ImportResult:
    dry_run: bool
    problem: str | None  # the file's own (then ``rows`` is empty)
    rows: tuple[ImportRow, ...]
    total: int
    ready: int
    with_problems: int
    enrolled: int

    @property
    def clean(self) -> bool:
        return self.problem is None and self.with_problems == 0 and self.total > 0

    def problems(self, limit: int = 3) -> str:
        """The first problems in one line (for an answer that cannot list every row)."""
        if self.problem:
            return self.problem
        found = [f"line {row.line}: {row.problem}" for row in self.rows if row.problem]
        more = f"; and {len(found) - limit} more" if len(found) > limit else ""
        return "; ".join(found[:limit]) + more


def _result(dry_run: bool, rows: list[ImportRow], problem: str | None = None) -> ImportResult:
    with_problems = sum(1 for row in rows if row.problem)
    return ImportResult(dry_run=dry_run, problem=problem, rows=tuple(rows), total=len(rows),
                        ready=len(rows) - with_problems, with_problems=with_problems,
                        enrolled=sum(1 for row in rows if row.participant_id))


def columns_for(study: Study) -> tuple[str, ...]:
    """The columns a file may have for this study, required ones first."""
    return (*REQUIRED_COLUMNS, *study.allocation.stratum_fields, *OPTIONAL_COLUMNS)


def decode_upload(data: bytes) -> str:
    """An uploaded file's text (UTF-8, with or without the byte-order mark spreadsheets write)."""
    if len(data) > 4 * MAX_IMPORT_CHARS:
        raise AdminError(f"the file is larger than {MAX_IMPORT_CHARS:,} characters; split it into smaller files")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AdminError("the file is not UTF-8 text: in your spreadsheet, save it as “CSV UTF-8” and try "
                         "again") from None


def _header(cells: list[str], study: Study) -> tuple[list[str], str | None]:
    names = [cell.strip().lower() for cell in cells]
    allowed = columns_for(study)
    listed = ", ".join(allowed)
    for number, name in enumerate(names, start=1):
        if not name:
            return names, f"line 1: column {number} of the header has no name; the columns are {listed}"
        if name not in allowed:
            return names, (f"line 1: the header names a column this import does not know, {name[:40]!r}; "
                           f"the columns are {listed}")
        if names.count(name) > 1:
            return names, f"line 1: the header names the column {name} twice"
    missing = [name for name in (*REQUIRED_COLUMNS, *study.allocation.stratum_fields) if name not in names]
    if missing:
        return names, (f"line 1: the header has no {' or '.join(missing)} column; every participant needs "
                       f"{'it' if len(missing) == 1 else 'them'} (the columns are {listed})")
    return names, None


def parse(text: str, study: Study) -> Parsed:
    """The file's rows; blank lines (and rows of empty values) are skipped."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_IMPORT_CHARS:
        return Parsed((), f"the file has {len(text):,} characters; at most {MAX_IMPORT_CHARS:,} at a time: split it "
                          "into smaller files")
    if has_undecodable(text):
        return Parsed((), "the file has bytes that are not valid UTF-8 text: in your spreadsheet, save it as "
                          "“CSV UTF-8” and try again")
    if not text.strip():
        return Parsed((), "the file is empty: it needs a header row (" + ",".join(REQUIRED_COLUMNS) + ") and a row "
                          "for each participant")
    reader = csv.reader(io.StringIO(text, newline=""))
    entries: list[Entry] = []
    names: list[str] | None = None
    read = 0  # lines read so far: a row starts on the next one (a quoted value may span lines)
    try:
        for cells in reader:
            start, read = read + 1, reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if names is None:
                names, problem = _header(cells, study)
                if problem:
                    return Parsed((), problem)
                continue
            if len(entries) == MAX_IMPORT_ROWS:
                return Parsed((), f"the file has more than {MAX_IMPORT_ROWS:,} participants; at most "
                                  f"{MAX_IMPORT_ROWS:,} at a time: split it into smaller files")
            entries.append(_entry(start, names, cells, study))
    except csv.Error as exc:
        return Parsed((), f"line {reader.line_num}: the file cannot be read as CSV here ({exc}); check its quotes")
    if not entries:
        return Parsed((), "the file has a header but no participants: add a row for each")
    return Parsed(tuple(entries))


def _entry(line: int, names: list[str], cells: list[str], study: Study) -> Entry:
    values = {name: (cells[i].strip() if i < len(cells) else "") for i, name in enumerate(names)}
    problem = None
    if len(cells) != len(names):
        problem = (f"it has {len(cells)} value{'' if len(cells) == 1 else 's'} but the header has {len(names)} "
                   "columns; a value with a comma in it needs double quotes around it")
    return Entry(line=line, phone=values["phone"], name=values["name"], timezone=values["timezone"],
                 background=values.get("background", ""),
                 strata={name: values[name] for name in study.allocation.stratum_fields}, problem=problem,
                 number=values.get("number", "").lower())


def _details(entry: Entry) -> Details:
    return Details(phone=entry.phone, name=entry.name, timezone=entry.timezone, background=entry.background,
                   strata=entry.strata)


def _number_problem(number: str, numbers: NumberPlan | None) -> str | None:
    """``numbers`` None: the deployment's are unknown here, so only the name's shape is checked."""
    if not number:
        return None
    if numbers is None:
        return None if NUMBER_NAME.fullmatch(number) else f"number: {number[:40]!r} is not the name of a number"
    if number not in numbers.numbers:
        return (f"number: there is no number {number[:40]!r}; this deployment has {', '.join(numbers.numbers)} "
                "(leave it empty to give one by the deployment's rule)")
    return None


def check_rows(parsed: Parsed, study: Study, enrolled: Mapping[str, str] | None = None,
               numbers: NumberPlan | None = None) -> ImportResult:
    """Each row's problems, without reading anything (``enrolled``: E.164 → who has it)."""
    if parsed.problem:
        return _result(True, [], parsed.problem)
    enrolled = enrolled or {}
    first_line: dict[str, int] = {}
    rows = []
    for entry in parsed.entries:
        phone, problems = check_details(study, _details(entry))
        found = [entry.problem] if entry.problem else []
        found += [f"{problem} (a spreadsheet may have dropped the +: format the column as text)"
                  if problem.field == "phone" and entry.phone.isdigit() else str(problem) for problem in problems]
        if number_problem := _number_problem(entry.number, numbers):
            found.append(number_problem)
        if phone is not None:
            if phone in first_line:
                found.insert(0, f"phone: {phone} is on line {first_line[phone]} too; a participant is enrolled once")
            elif phone in enrolled:
                found.insert(0, f"phone: {phone} is already enrolled as {enrolled[phone]}")
            first_line.setdefault(phone, entry.line)
        rows.append(ImportRow(line=entry.line, phone=phone or entry.phone, name=entry.name, timezone=entry.timezone,
                              strata=dict(entry.strata), problem="; ".join(found) or None,
                              number=entry.number or None))
    return _result(True, rows)


async def check_import(db: Database, clock: Clock, text: str, *, study: Study,
                       numbers: NumberPlan | None = None) -> ImportResult:
    """The dry run: every row's problem, nothing written."""
    parsed = parse(text, study)
    if parsed.problem:
        return check_rows(parsed, study)
    phones = {phone for entry in parsed.entries if (phone := check_details(study, _details(entry))[0])}
    now = clock.now()
    try:
        enrolled = await db.run(lambda session: _enrolled(session, study, phones, now))
    except ProtocolChanged as exc:  # the study file is not the protocol the database runs
        return _result(True, [], f"{exc.situation}; nothing can be enrolled until they agree")
    except ConfigError as exc:  # the study's seed is not the one it has been running with
        return _result(True, [], str(exc))
    result = check_rows(parsed, study, enrolled, numbers)
    log.info("csv_import_checked", rows=result.total, with_problems=result.with_problems)
    return result


def _enrolled(session: Session, study: Study, phones: set[str], now: datetime) -> dict[str, str]:
    """Who has each of ``phones``; the protocol check runs in a savepoint rolled back (a first use would adopt the
    study file)."""
    savepoint = session.begin_nested()
    try:
        check_protocol(session, study, now)
    finally:
        savepoint.rollback()
    found: dict[str, str] = {}
    for phone in sorted(phones):
        participant = participant_by_phone(session, phone)
        if participant is not None:
            found[phone] = f"{participant.id} ({participant.name or 'no name'}, {participant.status})"
    return found


async def run_import(db: Database, clock: Clock, text: str, *, study: Study, caller: Caller,
                     via: str, numbers: NumberPlan = ONE_NUMBER) -> ImportResult:
    """Enrol each row (audited as ``caller``) only if nothing is wrong; else each problem, nothing enrolled."""
    checked = await check_import(db, clock, text, study=study, numbers=numbers)
    if not checked.clean:
        return replace(checked, dry_run=False)
    entries = parse(text, study).entries
    rows = []
    for entry, row in zip(entries, checked.rows, strict=True):
        try:
            view = await enroll(db, clock, Enrolment(
                phone=entry.phone, name=entry.name, timezone=entry.timezone, background=entry.background,
                by=caller.name, study=study, strata=entry.strata, numbers=numbers, number=entry.number or None))
        except AdminError as exc:  # enrolled by someone else since the check
            rows.append(replace(row, problem=str(field_words(exc, default="phone"))))
            continue
        await audit(db, clock, caller, "enroll", participant_id=view.id, via=via,
                    detail={"arm": view.arm, "csv_line": entry.line})
        rows.append(replace(row, participant_id=view.id, arm=view.arm, number=view.number))
    result = _result(False, rows)
    log.info("csv_import_enrolled", rows=result.total, enrolled=result.enrolled)
    return result
