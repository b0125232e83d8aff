"""The files a run leaves beside its report: ``run.json`` (read back by :func:`load_run` to compare with a later run),
``conversations.jsonl``, ``checks.csv``, ``scores.csv`` and with ``--repeats`` ``repeats.csv``."""

from __future__ import annotations

import csv
import dataclasses
import json
import types
import typing
from collections.abc import Iterable, Iterator
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any

from promptpipe.errors import AdminError
from promptpipe.evaluation.records import CheckResult, Conversation, RunResult, Score
from promptpipe.evaluation.repeats import spreads
from promptpipe.research.views import as_json

__all__ = ["CHECK_COLUMNS", "FORMAT", "REPEAT_COLUMNS", "SCORE_COLUMNS", "load_run", "save_run"]

FORMAT = 1
"""The version of ``run.json``; a file of another version is refused, never half read."""
RUN_FILE, CONVERSATIONS_FILE, CHECKS_FILE, SCORES_FILE = "run.json", "conversations.jsonl", "checks.csv", "scores.csv"
WHO = ("conversation_id", "source", "label", "group")
CHECK_COLUMNS = (*WHO, "check", "verdict", "detail", "evidence")
SCORE_COLUMNS = (*WHO, "criterion", "judge", "score", "evidence", "evidence_found", "reason")
REPEATS_FILE = "repeats.csv"
REPEAT_COLUMNS = ("subject", "source", "label", "group", "repeats", "seeds", "measure", "name", "n", "mean", "sd",
                  "min", "max", "failed")
"""``measure`` ``score``: a criterion over ``n`` scored repeats (mean, standard deviation, lowest, highest);
``check``: a check that applied in ``n`` repeats and ``failed`` in so many."""

_Item = typing.TypeVar("_Item", CheckResult, Score)


def _plain(value: Any) -> Any:
    """:func:`as_json`, with datetimes as ISO strings."""
    def walk(item: Any) -> Any:
        if isinstance(item, datetime):
            return item.isoformat()
        if isinstance(item, dict):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return item
    return walk(as_json(value))


def save_run(run: RunResult, directory: Path) -> None:
    """Write the run's files into ``directory`` (made if missing; files there are replaced)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / RUN_FILE).write_text(json.dumps({"format": FORMAT, "run": _plain(run)}, ensure_ascii=False, indent=1),
                                      encoding="utf-8")
    checks = _by_conversation(run.checks)
    scores = _by_conversation(run.scores)
    with (directory / CONVERSATIONS_FILE).open("w", encoding="utf-8") as out:
        for conversation in run.conversations:
            line = _plain(conversation) | {"checks": _plain(checks.get(conversation.id, [])),
                                            "scores": _plain(scores.get(conversation.id, []))}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    who = {conversation.id: conversation for conversation in run.conversations}
    _write_csv(directory / CHECKS_FILE, CHECK_COLUMNS,
               ([*_who(who, check.conversation_id), check.check, check.verdict.value, check.detail, check.evidence]
                for check in run.checks))
    _write_csv(directory / SCORES_FILE, SCORE_COLUMNS,
               ([*_who(who, score.conversation_id), score.criterion, score.judge,
                 "" if score.score is None else score.score, score.evidence,
                 "yes" if score.evidence_found else "no", score.reason]
                for score in run.scores))
    if run.repeats > 1:
        _write_csv(directory / REPEATS_FILE, REPEAT_COLUMNS, _spread_rows(run))
    else:  # an earlier run's file would seem to be this one's
        (directory / REPEATS_FILE).unlink(missing_ok=True)


def _spread_rows(run: RunResult) -> Iterator[list[Any]]:
    def number(value: float | None) -> str:
        return "" if value is None else f"{value:.3f}"
    for spread in spreads(run, list(dict.fromkeys(score.criterion for score in run.scores))):
        who = [spread.subject, spread.source.value, spread.label, spread.group, len(spread.seeds),
               " ".join(str(seed) for seed in spread.seeds)]
        for item in spread.criteria:
            yield [*who, "score", item.criterion, len(item.values), number(item.mean), number(item.sd),
                   number(item.low), number(item.high), ""]
        for check in spread.checks:
            yield [*who, "check", check.check, check.applied, "", "", "", "", check.failed]


def _by_conversation(items: Iterable[_Item]) -> dict[str, list[_Item]]:
    found: dict[str, list[_Item]] = {}
    for item in items:
        found.setdefault(item.conversation_id, []).append(item)
    return found


def _who(conversations: dict[str, Conversation], conversation_id: str) -> list[Any]:
    conversation = conversations.get(conversation_id)
    if conversation is None:
        return [conversation_id, "", "", ""]
    return [conversation_id, conversation.source.value, conversation.label, conversation.group]


def _write_csv(path: Path, columns: tuple[str, ...], rows: Iterable[list[Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(columns)
        writer.writerows(rows)


def load_run(directory: Path) -> RunResult:
    path = directory / RUN_FILE
    if not path.is_file():
        raise AdminError(f"{path} does not exist: {directory} holds no saved evaluation run "
                         "(give the folder a run of promptpipe evaluate wrote)")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as problem:
        raise AdminError(f"{path} is not a JSON file ({problem}); it is not a saved evaluation run") from None
    if not isinstance(document, dict) or "format" not in document or not isinstance(document.get("run"), dict):
        raise AdminError(f"{path} is not a saved evaluation run (it has no \"format\" and \"run\" fields)")
    if document["format"] != FORMAT:
        raise AdminError(f"{path} is a run saved in format {document['format']!r}; this version of PromptPipe "
                         f"reads format {FORMAT} only (run the evaluation again)")
    try:
        return typing.cast(RunResult, _decode(RunResult, document["run"], "run"))
    except _Unreadable as problem:
        raise AdminError(f"{path} is not a complete evaluation run: {problem}") from None


class _Unreadable(Exception):
    pass


def _decode(kind: Any, value: Any, where: str) -> Any:
    """``value`` (JSON) as the type ``kind`` of the records; what does not fit raises :class:`_Unreadable`."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in arguments:
            return None
        inner = [argument for argument in arguments if argument is not type(None)]
        return _decode(inner[0], value, where) if len(inner) == 1 else value
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise _Unreadable(f"{where} is not an object")
        hints = typing.get_type_hints(kind)
        given = {}
        for spec in dataclasses.fields(kind):
            if spec.name in value:
                given[spec.name] = _decode(hints[spec.name], value[spec.name], f"{where}.{spec.name}")
            elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
                raise _Unreadable(f"{where} has no field {spec.name!r}")
        return kind(**given)
    if origin is tuple:
        if not isinstance(value, list):
            raise _Unreadable(f"{where} is not a list")
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(_decode(arguments[0], item, f"{where}[{index}]") for index, item in enumerate(value))
        return tuple(_decode(argument, item, f"{where}[{index}]") for index, (argument, item)
                     in enumerate(zip(arguments, value, strict=True)))
    if origin is dict:
        if not isinstance(value, dict):
            raise _Unreadable(f"{where} is not an object")
        return {key: _decode(arguments[1], item, f"{where}.{key}") for key, item in value.items()}
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(value)
        except ValueError:
            raise _Unreadable(f"{where} is {value!r}, not one of {', '.join(str(m.value) for m in kind)}") from None
    if kind is datetime:
        try:
            return datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise _Unreadable(f"{where} is {value!r}, not a date and time") from None
    if kind in (str, int, float, bool) and not isinstance(value, kind):
        raise _Unreadable(f"{where} is {value!r}, not a {kind.__name__}")
    return value
