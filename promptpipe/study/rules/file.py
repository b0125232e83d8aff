"""Reading a study file: TOML in, a checked :class:`~promptpipe.study.rules.protocol.Study` out. Every problem is
collected before anything is raised, each naming its key (``arms[2].ratio``, from 1) and the fix; unknown keys too."""

from __future__ import annotations

import hashlib
import re
import tomllib
from datetime import time, timedelta
from pathlib import Path
from typing import Any

from promptpipe.domain.localtime import format_hhmm
from promptpipe.domain.quiet_hours import quiet_contains
from promptpipe.errors import ConfigError
from promptpipe.questionnaires.rules.file import parse_questionnaires
from promptpipe.study.rules import protocol
from promptpipe.study.rules.checks import Check, TomlTable, duration_setting, kind_of, must_list
from promptpipe.study.rules.protocol import FIXED_STYLE, Allocation, Arm, DecisionRule, QuietHours, SelfReport, Study
from promptpipe.study.rules.templates import parse_whatsapp_templates
from promptpipe.study.rules.words import ordinary_words

__all__ = ["StudyFileError", "load_study", "parse_study"]

MAX_LENGTH_DAYS, MAX_RATIO, MAX_BLOCK_SIZE = 3650, 100, 1000
MAX_NAME_CHARS, MAX_STRATUM_VALUE_CHARS = 200, 100
"""Characters in the study's or an arm's name; in a stratum value."""

_TOP_KEYS = ("name", "length_days", "baseline_days", "day_one", "closing_message", "fixed_prompts",
             "quiet_hours", "arms", "allocation", "decision", "self_report", "questionnaires", "seed_in_database",
             "whatsapp_templates", "ordinary_words")
_ARM_KEYS = ("name", "ratio", "prompt_style", "fixed_prompts", *protocol.ARM_SETTINGS)
_ARM_NAME = re.compile(r"[a-z0-9_-]{1,32}")
_FIELD_NAME = re.compile(r"[a-z0-9_]{1,32}")


class StudyFileError(ConfigError):
    """A study file cannot be used: ``problems`` lists every reason (its key and the fix), one per line in str()."""

    def __init__(self, problems: list[str], source: str = "study file") -> None:
        self.problems, self.source = list(problems), source
        super().__init__("\n".join(f"{source}: {problem}" for problem in self.problems))


def _quiet_hours(check: Check, data: TomlTable) -> QuietHours | None:
    table = check.table(data, "quiet_hours", "", '[quiet_hours] with start = "21:30" and end = "08:00"')
    if table is None:
        return None
    check.known(table, ("start", "end"), "quiet_hours")
    times: dict[str, time] = {}
    for key, example in (("start", '"21:30"'), ("end", '"08:00"')):
        at = check.clock(f"quiet_hours.{key}", check.text(table, key, "quiet_hours", example, required=True), example)
        times.update({key: at} if at is not None else {})
    if len(times) == 2 and times["start"] == times["end"]:
        check.add(f"quiet_hours.start and quiet_hours.end are both {format_hhmm(times['start'])}: give the quiet "
                  "hours an end that differs from their start, or remove the [quiet_hours] table.")
    return QuietHours(times["start"], times["end"]) if len(times) == 2 else None


def _self_report(check: Check, data: TomlTable, quiet: QuietHours | None) -> SelfReport | None:
    table = check.table(data, "self_report", "", '[self_report] with time = "20:30" and window = "3h"')
    if table is None:
        return None
    check.known(table, ("time", "window", "question"), "self_report")
    raw = check.text(table, "time", "self_report", '"20:30"', required=True)
    question = check.text(table, "question", "self_report", '"Did you do your habit today?"')
    window = duration_setting(check, "self_report.window", "duration", table.get("window", "3h"))
    at = check.clock("self_report.time", raw, '"20:30"')
    if at is not None and quiet is not None and quiet_contains(quiet, at):
        check.add(f"self_report.time = {format_hhmm(at)} is inside the quiet hours ({quiet.describe()}): pick a time "
                  "outside them.")
    if isinstance(window, timedelta) and not timedelta(minutes=15) <= window <= timedelta(hours=12):
        check.add("self_report.window must be from 15m to 12h: how long after the question an answer still counts.")
        window = None
    if at is None or not isinstance(window, timedelta):
        return None
    return SelfReport(at, window, question or protocol.SELF_REPORT_QUESTION)


def _arm(check: Check, raw: Any, where: str, study_texts: tuple[str, ...]) -> Arm | None:
    if not isinstance(raw, dict):
        check.add(f"{where} must be an [[arms]] table with at least a name; it is {kind_of(raw)}.")
        return None
    before = len(check.problems)
    check.known(raw, _ARM_KEYS, where)
    name = check.text(raw, "name", where, '"coach"', required=True, limit=MAX_NAME_CHARS)
    if name is not None and not _ARM_NAME.fullmatch(name):
        check.add(f'{where}.name = "{name}" cannot be an arm name: use 1 to 32 lowercase letters, digits, '
                  '"-" or "_", like "coach" or "fixed_texts".')
    ratio = check.whole(raw, "ratio", where, low=1, high=MAX_RATIO, example=2)
    style = check.choice(raw, "prompt_style", where, protocol.PROMPT_STYLES)
    texts = check.texts(raw, "fixed_prompts", where)
    if style == FIXED_STYLE and "fixed_prompts" not in raw and not study_texts:
        check.add(f'{where} ("{name}") has prompt_style = "fixed" but no texts to send: add fixed_prompts to this '
                  "arm, or a fixed_prompts list at the top of the file for every arm.")
    settings = tuple((key, duration_setting(check, f"{where}.{key}", kind, raw[key]))
                     for key, kind in protocol.ARM_SETTINGS.items() if key in raw)
    if len(check.problems) > before or name is None:
        return None
    return Arm(name, ratio or 1, style or protocol.PERSONALISED, texts or (), settings)


def _arms(check: Check, data: TomlTable, study_texts: tuple[str, ...]) -> list[Arm | None]:
    """The arms in the file's order, None for each wrong one (an empty list: none usable)."""
    raw = data.get("arms")
    if raw is None:
        return [protocol.DEFAULT_ARM]
    if not isinstance(raw, list) or not raw:
        check.add("arms " + must_list(raw, '[[arms]] tables, each a line [[arms]] followed by name = "…"') + ".")
        return []
    arms = [_arm(check, item, f"arms[{number}]", study_texts) for number, item in enumerate(raw, 1)]
    names = [item.get("name") if isinstance(item, dict) else None for item in raw]
    for number, name in enumerate(names, 1):
        if isinstance(name, str) and name in names[:number - 1]:
            check.add(f'arms[{number}].name = "{name}" is already the name of arms[{names.index(name) + 1}]: '
                      "give each arm its own name.")
    return arms


def _allocation(check: Check, data: TomlTable, arms: list[Arm | None]) -> Allocation:
    complete = bool(arms) and None not in arms
    total = sum(arm.ratio for arm in arms if arm) if complete else 1
    table = check.table(data, "allocation", "", "[allocation] with block_sizes = [2, 4]") or {}
    check.known(table, ("block_size", "block_sizes", "strata"), "allocation")
    sizes = _block_sizes(check, table, total if complete else None)
    strata = []
    raw = check.table(table, "strata", "allocation", '[allocation.strata] with lines like site = ["A", "B"]')
    for field, values in (raw or {}).items():
        path = f"allocation.strata.{field}"
        listed = values if isinstance(values, list) else []
        bad = [v for v in listed if not isinstance(v, str) or not v.strip() or len(v) > MAX_STRATUM_VALUE_CHARS]
        if not _FIELD_NAME.fullmatch(field):
            check.add(f'{path}: "{field}" cannot be a stratum field: name it with 1 to 32 lowercase letters, digits '
                      'or "_", like site.')
        elif not listed:
            check.add(f"{path} " + must_list(values, 'values participants can have, like ["A", "B"]') + ".")
        elif bad:
            check.add(f"{path} has a value that cannot be used ({kind_of(bad[0])}): write each value as text in "
                      f"quotes, not empty and at most {MAX_STRATUM_VALUE_CHARS} characters long.")
        elif len(set(values)) < len(values):
            repeated = next(v for number, v in enumerate(values) if v in values[:number])
            check.add(f'{path} lists "{repeated}" more than once: list each value once.')
        else:
            strata.append((field, tuple(values)))
    return Allocation(block_sizes=sizes or (total,), strata=tuple(strata))


def _block_sizes(check: Check, table: TomlTable, total: int | None) -> tuple[int, ...]:
    """``block_size = 6`` or ``block_sizes = [2, 4]`` (each drawn); nothing: one block of the ratios' total."""
    if "block_size" in table and "block_sizes" in table:
        check.add("allocation: give block_size or block_sizes, not both (block_sizes = [2, 4] draws each block's "
                  "size from the list).")
        return ()
    example = (total or 1) * 2
    if "block_size" in table:
        one = check.whole(table, "block_size", "allocation", low=1, high=MAX_BLOCK_SIZE, example=example)
        listed: list[Any] = [] if one is None else [one]
    else:
        listed = table.get("block_sizes", [])
        if not isinstance(listed, list) or ("block_sizes" in table and not listed):
            check.add("allocation.block_sizes " + must_list(listed, f"block sizes, like [{total or 1}, {example}]")
                      + ".")
            return ()
        if len(set(map(repr, listed))) < len(listed):
            check.add("allocation.block_sizes lists a size more than once: list each size once.")
            return ()
        bad = [v for v in listed if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_BLOCK_SIZE]
        if bad:
            check.add(f"allocation.block_sizes cannot hold {kind_of(bad[0])}: list whole numbers from 1 to "
                      f"{MAX_BLOCK_SIZE} without quotes, like [{total or 1}, {example}].")
            return ()
    key = "block_size" if "block_size" in table else "block_sizes"
    for size in listed:
        if total is not None and size % total:
            where = f"allocation.block_size = {size}" if key == "block_size" else f"allocation.block_sizes: {size}"
            check.add(f"{where} is not a multiple of the arms' ratios added up ({total}), so a block "
                      f"of {size} cannot hold every arm in its ratio: use {total}, {total * 2}, {total * 3} …")
            return ()
    return tuple(listed)


def _decision(check: Check, data: TomlTable) -> DecisionRule | None:
    table = check.table(data, "decision", "", "[decision] with p = 0.5")
    if table is None:
        return None
    before = len(check.problems)
    check.known(table, ("actions", "p", "unavailable_when"), "decision")
    actions = table.get("actions", list(protocol.DECISION_ACTIONS[0]))
    if not isinstance(actions, list) or tuple(actions) not in protocol.DECISION_ACTIONS:
        options = " or ".join("[" + ", ".join(f'"{a}"' for a in pair) + "]" for pair in protocol.DECISION_ACTIONS)
        check.add(f"decision.actions cannot be {kind_of(actions)}: use {options} (the treatment first).")
    p = check.get(table, "p", "decision", "0.5 (the chance of the first action; for no randomisation, remove the "
                  "[decision] table)", required=True)
    if p is not None and (isinstance(p, bool) or not isinstance(p, int | float)):
        check.add(f"decision.p must be a number without quotes, like 0.5; it is {kind_of(p)}.")
    elif p is not None and not 0 < p < 1:
        check.add(f"decision.p = {p} is out of range: use a probability between 0 and 1 (not 0 or 1 itself), like "
                  "0.5; to send every prompt, remove the [decision] table.")
    rules, allowed = table.get("unavailable_when", list(protocol.AVAILABILITY_RULES)), protocol.AVAILABILITY_RULES
    if not isinstance(rules, list):
        check.add(f'decision.unavailable_when must be a list, like ["paused", "baseline"]; it is {kind_of(rules)}.')
    for number, rule in enumerate(rules if isinstance(rules, list) else ()):
        if rule not in allowed:
            check.add(f"decision.unavailable_when lists {kind_of(rule)}, which is not a rule: choose from "
                      + ", ".join(allowed) + ".")
        elif rule in rules[:number]:
            check.add(f'decision.unavailable_when lists "{rule}" more than once: list each rule once.')
    if len(check.problems) > before:
        return None
    return DecisionRule((actions[0], actions[1]), float(p), tuple(rule for rule in allowed if rule in rules))


def _seed_in_database(check: Check, data: TomlTable) -> bool:
    """``seed_in_database = true``: the database keeps the secret seed, an explicit choice."""
    value = data.get("seed_in_database", False)
    if not isinstance(value, bool):
        check.add(f"seed_in_database must be true or false, without quotes; it is {kind_of(value)}. Leave it out to "
                  "keep the seed out of the database.")
        return False
    return value


def _read_toml(check: Check, data: bytes) -> tuple[str, TomlTable]:
    try:
        text = data.decode("utf-8-sig")  # a byte order mark, as some editors write, is not part of the text
        return text, tomllib.loads(text)
    except UnicodeDecodeError as exc:
        check.add(f"the file is not UTF-8 text (an unreadable byte at position {exc.start}): save it as UTF-8 in "
                  "your editor.")
    except tomllib.TOMLDecodeError as exc:  # its message ends "(at line 3, column 8)"
        check.add(f"the file is not valid TOML: {str(exc)[:1].lower()}{str(exc)[1:]}; check the quotes, brackets "
                  "and key = value there.")
    return "", {}


def parse_study(data: bytes, source: str = "study file") -> Study:
    """The study a file's bytes declare; StudyFileError listing every problem otherwise."""
    check = Check()
    text, table = _read_toml(check, data)
    if check.problems:
        raise StudyFileError(check.problems, source)
    check.known(table, _TOP_KEYS, "")
    name = check.text(table, "name", "", '"Walking pilot"', required=True, limit=MAX_NAME_CHARS)
    length = check.whole(table, "length_days", "", low=1, high=MAX_LENGTH_DAYS, example=28, required=True)
    baseline = check.whole(table, "baseline_days", "", low=0, high=MAX_LENGTH_DAYS, example=3)
    if baseline is not None and length is not None and baseline >= length:
        check.add(f"baseline_days = {baseline} must be less than length_days = {length}: leave at least one study "
                  "day after the baseline.")
    day_one = check.choice(table, "day_one", "", protocol.DAY_ONE_RULES)
    closing = check.text(table, "closing_message", "", '"Thank you for taking part!"')
    study_texts = check.texts(table, "fixed_prompts", "") or ()
    quiet = _quiet_hours(check, table)
    arms = _arms(check, table, study_texts)
    allocation = _allocation(check, table, arms)
    decision = _decision(check, table)
    in_database = _seed_in_database(check, table)
    report = _self_report(check, table, quiet)
    questionnaires = parse_questionnaires(check, table, quiet, length)
    templates = parse_whatsapp_templates(check, table)
    ordinary = ordinary_words(check, table)
    missing = [arm.name for arm in arms if arm and not arm.fixed_prompts]
    if decision is not None and decision.actions[1] == FIXED_STYLE and not study_texts and missing:
        check.add('decision.actions = ["personalised", "fixed"] needs fixed texts for every arm: add a '
                  "fixed_prompts list at the top of the file, or fixed_prompts to arm(s) " + ", ".join(missing) + ".")
    if check.problems or name is None or length is None:
        raise StudyFileError(check.problems, source)
    own = (report.as_questionnaire(),) if report else ()  # first: a random time keeps its gap from it
    return Study(name=name, length_days=length, baseline_days=baseline or 0,
                 day_one=day_one or protocol.AFTER_INTAKE, closing_message=closing or protocol.DEFAULT_CLOSING_MESSAGE,
                 quiet_hours=quiet, arms=tuple(arm for arm in arms if arm), allocation=allocation, decision=decision,
                 self_report=report, questionnaires=own + questionnaires, fixed_prompts=study_texts, source=text,
                 hash=hashlib.sha256(data).hexdigest(), seed_in_database=in_database,
                 whatsapp_templates=templates, ordinary_words=ordinary)


def load_study(path: Path) -> Study:
    """The study in the file at ``path``; StudyFileError naming the path if it cannot be read or used."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        reason = {FileNotFoundError: "there is no such file", IsADirectoryError: "it is a folder, not a file"}
        raise StudyFileError([f"cannot read {path}: {reason.get(type(exc), exc.strerror or str(exc))}. Check the "
                              "path, and that this program may read the file."], str(path)) from None
    return parse_study(data, str(path))
