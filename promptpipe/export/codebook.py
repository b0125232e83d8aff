"""The export's codebook as ``codebook.csv`` and ``README.md``, built from the columns the export actually wrote (a
column nobody described is left out, which the tests catch)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from promptpipe.export import codebook_entries as events
from promptpipe.export import codebook_study as study
from promptpipe.export.cells import csv_cell
from promptpipe.export.codebook_entries import STRATUM_PREFIX, Entry, FileDoc, stratum_entry
from promptpipe.export.items import ITEM_COLUMNS, ITEMS_CSV

__all__ = ["CODEBOOK_CSV", "CODEBOOK_HEADER", "FILES", "README_MD", "codebook_rows", "documents", "written_by_export"]

CODEBOOK_CSV, README_MD = "codebook.csv", "README.md"
CODEBOOK_HEADER = ("file", "column", "type", "values", "meaning", "source")
README_MARK = "<!-- Written by promptpipe-admin export; every export into this directory rewrites this file. -->"
FILES: tuple[FileDoc, ...] = (
    events.PARTICIPANTS, events.MESSAGES, events.DELIVERIES, study.DECISIONS, events.TRANSITIONS, events.TONE_CHANGES,
    events.CONSENT, events.FLAGS, study.QUESTIONNAIRE_INSTANCES, study.QUESTIONNAIRE_ANSWERS,
    study.QUESTIONNAIRE_ITEMS, events.IDENTIFIERS, study.STUDY_JSON)
_BY_NAME = {doc.name: doc for doc in FILES}

_INTRO = """\
# The study's data: how to read this export

Written by `promptpipe-admin export`. Each data file comes as `<name>.csv` (a header row, UTF-8)
or `<name>.jsonl` (one JSON object per line), as the export's `--format` chose; `study.json`
describes the protocol. `codebook.csv` lists every column of every file in one table (file,
column, type, values, meaning, source); this page shows the same, file by file. Types are
string, integer, number, boolean, datetime, date and json.

## Pseudonyms

Participants appear by pseudonym only: `participant_id` (`id` in `participants`), the same in
every file. No file has a phone number or a name, and in free texts a participant's own phone
number and registered name are replaced by `[phone]` and `[name]`. Other people's names and
nicknames are not recognised: read the texts before sharing them beyond the team. The key from
pseudonyms to people, `identifiers`, is written only when asked for (`--include-identifiers`);
keep it apart from the data.

## Times and cells

Times are ISO 8601 to the second: `..._utc` in UTC, `..._local` on the participant's clock at
that moment with its offset, in every file: in the zone they were in then. A change of zone (a
`timezone_changed` row in `transitions`) holds from its own moment on; before a participant's
first change their zone was that row's `from_value`. So the times of someone who moved show the
offsets of both zones; `participants.timezone` is their zone now, and `decisions` names each
decision point's zone in its `timezone` column.

In CSV an empty cell means no value, booleans are `true`/`false`, lists are joined with `;`,
objects are JSON, and a text that starts with `=`, `+`, `-`, `@`, a tab or a carriage
return has a `'` put in front so that spreadsheets do not run it as a formula (phone numbers in
E.164, `+` and digits only, stay as they are). JSONL keeps real
nulls, numbers, booleans, lists and objects, and texts exactly as stored (apart from the marks).

## Decisions and deliveries

Each daily prompt time of a participant is a decision point and one row in `decisions`, whether
or not a prompt went out: was the participant available, and if so, what was drawn with which
probability. When a prompt went out, `delivery_id` is its row in `deliveries` (one row per prompt
that went out) and the decision row repeats that prompt's proximal outcome: receipts, vote,
reply, first answer, latency and `outcome`, coded as in `deliveries`. A decision point that was
unavailable, drew `no_send`, or whose prompt could not be written has `prompt_sent` 0 and no
outcome. A prompt a researcher sent by hand (`prompt-now`) is a delivery without a decision
point. `decision_index` numbers each participant's decision points 1, 2, 3 ... in time order;
`action_treatment` is 1 for the treatment action, 0 for the other, and empty where nothing was
randomised. The draws can be audited: `seed_ref` with the study's secret seed (kept by the
service outside its database unless the study file says otherwise, never exported) reproduces
each `draw`.
"""


def _entry(doc: FileDoc, column: str) -> Entry | None:
    found = doc.entry(column)
    if found is None and doc.name == "participants" and column.startswith(STRATUM_PREFIX):
        return stratum_entry(column[len(STRATUM_PREFIX):])
    return found


def _entries(columns: Mapping[str, Sequence[str]]) -> list[tuple[FileDoc, list[Entry]]]:
    out = []
    for name, names in columns.items():
        doc = _BY_NAME.get(name)
        if doc is not None:
            out.append((doc, [entry for entry in (_entry(doc, column) for column in names) if entry is not None]))
    return out


def codebook_rows(columns: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    return [{"file": doc.name, "column": e.column, "type": e.type, "values": e.values, "meaning": e.meaning,
             "source": e.source} for doc, entries in _entries(columns) for e in entries]


def _codebook_csv(rows: list[dict[str, str]]) -> str:
    stream = io.StringIO(newline="")
    writer = csv.writer(stream, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(CODEBOOK_HEADER)
    writer.writerows([csv_cell(row[key]) for key in CODEBOOK_HEADER] for row in rows)
    return stream.getvalue()


def _cell(text: str) -> str:
    """A table cell's text, read literally by Markdown (no emphasis, no cell break)."""
    for char in "\\|*":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def _section(doc: FileDoc, entries: list[Entry]) -> list[str]:
    title = doc.name if doc.name.endswith((".json", ".csv")) else f"{doc.name} (`{doc.name}.csv` or `{doc.name}.jsonl`)"
    lines = ["", f"## {title}", "", doc.summary, "", "| column | type | values | meaning | source |",
             "|---|---|---|---|---|"]
    lines += [f"| `{e.column}` | {e.type} | {_cell(e.values)} | {_cell(e.meaning)} | {_cell(e.source)} |"
              for e in entries]
    return lines


def _readme(columns: Mapping[str, Sequence[str]]) -> str:
    lines = [README_MARK, _INTRO.rstrip("\n")]
    for doc, entries in _entries(columns):
        lines += _section(doc, entries)
    return "\n".join(lines) + "\n"


def documents(columns: Mapping[str, Sequence[str]]) -> dict[str, str]:
    return {CODEBOOK_CSV: _codebook_csv(codebook_rows(columns)), README_MD: _readme(columns)}


def written_by_export(path: Path) -> bool:
    """Whether ``path`` is a codebook, README or items table an earlier export wrote (then it is refreshed)."""
    first = {CODEBOOK_CSV: ",".join(CODEBOOK_HEADER), README_MD: README_MARK,
             ITEMS_CSV: ",".join(ITEM_COLUMNS)}.get(path.name)
    if first is None:
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(len(first.encode()) + 2)
    except OSError:
        return False
    return head.decode("utf-8", "replace").splitlines()[:1] == [first]
