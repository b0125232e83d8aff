"""Reading the ``[[questionnaires]]`` of a study file: each problem names its key
(``questionnaires[2].items[3].options``: tables count from 1, top to bottom) and says how to fix
it, as the rest of the study file's check does (:mod:`promptpipe.study.rules.file`).
"""

from __future__ import annotations

import re
from datetime import time, timedelta
from enum import StrEnum
from typing import Any

from promptpipe.domain.localtime import format_hhmm, parse_hhmm
from promptpipe.domain.questionnaire import (
    POLL_OPTION_LIMIT,
    ItemType,
    Option,
    Questionnaire,
    QuestionnaireItem,
    SendAt,
    SendEvent,
    ShowIf,
)
from promptpipe.domain.quiet_hours import quiet_contains
from promptpipe.domain.setting_values import duration_words
from promptpipe.study.rules.checks import Check, duration_setting, kind_of, must_list
from promptpipe.study.rules.protocol import SELF_REPORT_ID, QuietHours

__all__ = ["AskAs", "parse_questionnaires"]


class AskAs(StrEnum):
    """How a scale item is asked (its ``ask_as``; left out: as a poll when its points fit in one)."""

    POLL = "poll"
    TYPED = "typed"


MAX_ITEMS, MAX_TITLE_CHARS, MAX_POLL_QUESTION_CHARS, MAX_OPTION_CHARS = 50, 200, 255, 100
"""Items per questionnaire; characters in a title; in an item asked as a poll (WhatsApp's limit);
in one option."""
MAX_TEXT_ANSWER_CHARS, DEFAULT_TEXT_ANSWER_CHARS, MAX_UNIT_CHARS, MAX_DECIMALS = 2000, 500, 20, 3
MAX_SCALE_POINTS, MAX_REMINDERS = 101, 5
OPEN_FOR_RANGE = (timedelta(minutes=15), timedelta(days=7))
DAILY_OPEN_FOR_LIMIT = timedelta(hours=12)
"""A questionnaire sent on more than one day closes before the next day's is sent."""
MIN_WINDOW, MAX_MIN_GAP = timedelta(minutes=30), timedelta(hours=12)
_ID = re.compile(r"[a-z0-9_]{1,32}")
_KEYS = ("id", "title", "intro", "closing", "send", "open_for", "reminders", "coach_sees_answers", "items")
_SEND_KEYS = ("event", "delay", "study_days", "at", "between", "min_gap")
_ITEM_KEYS = ("id", "text", "type", "required", "show_if", "options", "codes", "min", "max", "min_label",
              "max_label", "ask_as", "unit", "decimals", "max_chars")
_TYPE_KEYS: dict[ItemType, tuple[str, ...]] = {
    ItemType.SINGLE_CHOICE: ("options", "codes"),
    ItemType.MULTIPLE_CHOICE: ("options", "codes"),
    ItemType.SCALE: ("min", "max", "min_label", "max_label", "ask_as"),
    ItemType.NUMBER: ("min", "max", "unit", "decimals"),
    ItemType.YES_NO: (),
    ItemType.TEXT: ("max_chars",),
}
"""The keys only some types of item use."""
YES_NO_OPTIONS = (Option("Yes", 1), Option("No", 0))
EXAMPLE_SEND = '[questionnaires.send] with event = "intake_complete", or study_days = [1, 28] and at = "19:00"'


def _minutes(value: time) -> int:
    return value.hour * 60 + value.minute


class _Reader:
    """The check of one study file's questionnaires."""

    def __init__(self, check: Check, quiet: QuietHours | None, length_days: int | None) -> None:
        self.check, self.quiet, self.length_days = check, quiet, length_days

    def add(self, problem: str) -> None:
        self.check.add(problem)

    # ------------------------------------------------------------ values

    def flag(self, table: dict[str, Any], key: str, where: str, default: bool) -> bool:
        value = table.get(key, default)
        if isinstance(value, bool):
            return value
        self.add(f"{where}.{key} must be true or false, without quotes; it is {kind_of(value)}.")
        return default

    def hhmm(self, raw: Any, path: str, example: str) -> time | None:
        if not isinstance(raw, str):
            self.add(f"{path} must be a 24-hour time in quotes, like {example}; it is {kind_of(raw)}.")
            return None
        try:
            return parse_hhmm(raw)
        except ValueError:
            self.add(f'{path} = "{raw}" is not a 24-hour time: write it as HH:MM, like {example}.')
            return None

    def duration(self, table: dict[str, Any], key: str, where: str, default: str,
                 bounds: tuple[timedelta, timedelta]) -> timedelta | None:
        path = f"{where}.{key}"
        value = duration_setting(self.check, path, "duration", table.get(key, default))
        if isinstance(value, timedelta) and not bounds[0] <= value <= bounds[1]:
            self.add(f"{path} must be from {duration_words(bounds[0])} to {duration_words(bounds[1])}.")
            return None
        return value if isinstance(value, timedelta) else None

    def number(self, table: dict[str, Any], key: str, where: str, *, whole: bool) -> float | None:
        value = table.get(key)
        if value is None:
            self.add(f"{where}.{key} is missing: add it, e.g. {key} = {1 if key == 'min' else 5}.")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or (whole and not isinstance(value, int)):
            wanted = "a whole number" if whole else "a number"
            self.add(f"{where}.{key} must be {wanted} without quotes, like {1 if key == 'min' else 5}; it is "
                     f"{kind_of(value)}.")
            return None
        if abs(value) > 1_000_000:
            self.add(f"{where}.{key} = {value} is out of range: use a number from -1000000 to 1000000.")
            return None
        return value

    # ------------------------------------------------------------ the parts

    def questionnaires(self, data: dict[str, Any]) -> tuple[Questionnaire, ...]:
        raw = data.get("questionnaires")
        if raw is None:
            return ()
        if not isinstance(raw, list) or not raw:
            self.add("questionnaires " + must_list(raw, '[[questionnaires]] tables, each a line [[questionnaires]] '
                                                   'followed by id = "…"') + ".")
            return ()
        found = [self.questionnaire(item, f"questionnaires[{number}]") for number, item in enumerate(raw, 1)]
        ids = [item.get("id") if isinstance(item, dict) else None for item in raw]
        for number, name in enumerate(ids, 1):
            if name == SELF_REPORT_ID:
                self.add(f'questionnaires[{number}].id = "{name}" is the end-of-day self-report\'s own id (set it up '
                         "with [self_report]): give this questionnaire another id.")
            elif isinstance(name, str) and name in ids[:number - 1]:
                self.add(f'questionnaires[{number}].id = "{name}" is already the id of questionnaires'
                         f"[{ids.index(name) + 1}]: give each questionnaire its own id.")
        return tuple(item for item in found if item is not None)

    def identified(self, raw: Any, where: str, table: str, keys: tuple[str, ...], examples: str
                   ) -> tuple[dict[str, Any], int, str | None] | None:
        """A ``[[table]]`` with its keys known and its id read: (the table, the problems noted
        before it, the id); None when it is no table."""
        if not isinstance(raw, dict):
            self.add(f"{where} must be a [[{table}]] table; it is {kind_of(raw)}.")
            return None
        before = len(self.check.problems)
        self.check.known(raw, keys, where)
        name = self.check.text(raw, "id", where, examples.split(" or ")[0], required=True, limit=32)
        if name is not None and not _ID.fullmatch(name):
            self.add(f'{where}.id = "{name}" cannot be an id: use 1 to 32 lowercase letters, digits or "_", like '
                     f"{examples} (it names it in the data).")
        return raw, before, name

    def questionnaire(self, raw: Any, where: str) -> Questionnaire | None:
        found = self.identified(raw, where, "questionnaires", _KEYS, '"baseline" or "daily_mood"')
        if found is None:
            return None
        raw, before, name = found
        check = self.check
        title = check.text(raw, "title", where, '"Before we start"', required=True, limit=MAX_TITLE_CHARS)
        intro = check.text(raw, "intro", where, '"A few questions before we start: it takes two minutes."')
        closing = check.text(raw, "closing", where, '"Thank you, that was all!"')
        send_table = check.table(raw, "send", where, EXAMPLE_SEND)
        if "send" not in raw:
            self.add(f"{where}.send is missing: add {EXAMPLE_SEND}.")
        send = self.send(send_table, f"{where}.send") if send_table is not None else None
        open_for = self.duration(raw, "open_for", where, "3h", OPEN_FOR_RANGE)
        if open_for is not None and send is not None and _repeats(send) and open_for > DAILY_OPEN_FOR_LIMIT:
            self.add(f"{where}.open_for is longer than 12h for a questionnaire sent on more than one day: use at most "
                     '"12h", so each day\'s closes before the next one is sent.')
        reminders = check.whole(raw, "reminders", where, low=0, high=MAX_REMINDERS, example=1)
        sees = self.flag(raw, "coach_sees_answers", where, False)
        items = self.items(raw.get("items"), where)
        if len(check.problems) > before or None in (name, title, send, open_for):
            return None
        assert name is not None and title is not None and send is not None and open_for is not None
        return Questionnaire(id=name, title=title, items=items, send=send, open_for=open_for,
                             reminders=reminders or 0, intro=intro, closing=closing, coach_sees_answers=sees)

    def send(self, table: dict[str, Any], where: str) -> SendAt | None:
        check, before = self.check, len(self.check.problems)
        check.known(table, _SEND_KEYS, where)
        if "event" in table:
            return self.event(table, where, before)
        if ("at" in table) == ("between" in table):
            self.add(f"{where} needs a time: give event = \"intake_complete\" (once), or at = "
                     '"19:00", or between = ["10:00", "20:00"] for a random time each day'
                     + (" (at and between together cannot both hold)." if "at" in table else "."))
            return None
        days = self.study_days(table, where)  # none listed: every study day
        at = between = None
        if "at" in table:
            at = self.hhmm(table["at"], f"{where}.at", '"19:00"')
            if at is not None and self.quiet is not None and quiet_contains(self.quiet, at):
                self.add(f"{where}.at = {format_hhmm(at)} is inside the quiet hours ({self.quiet.describe()}): pick a "
                         "time outside them.")
            if "min_gap" in table:
                self.add(f"{where}.min_gap only applies with between: remove it, or use between for a random time.")
        else:
            between = self.window(table["between"], f"{where}.between")
        min_gap = self.duration(table, "min_gap", where, "1h", (timedelta(0), MAX_MIN_GAP))
        if len(check.problems) > before or (at is None and between is None) or min_gap is None:
            return None
        return SendAt(study_days=days, at=at, between=between, min_gap=min_gap)

    def event(self, table: dict[str, Any], where: str, before: int) -> SendAt | None:
        raw = table["event"]
        events = tuple(SendEvent)
        if raw not in events:
            self.add(f"{where}.event cannot be {kind_of(raw)}: use " + " or ".join(f'"{e}"' for e in events) + ".")
        for key in ("study_days", "at", "between", "min_gap"):
            if key in table:
                self.add(f"{where}.{key} does not go with event: a questionnaire is sent once at its event, or on "
                         "study days at a time; remove one of them.")
        delay = self.duration(table, "delay", where, "0", (timedelta(0), timedelta(days=7)))
        if len(self.check.problems) > before or delay is None:
            return None
        return SendAt(event=SendEvent(raw), delay=delay)

    def study_days(self, table: dict[str, Any], where: str) -> tuple[int, ...] | None:
        raw = table.get("study_days")
        if raw is None:
            return None
        path, last = f"{where}.study_days", self.length_days or 3650
        if not isinstance(raw, list) or not raw:
            self.add(f"{path} " + must_list(raw, "study days, like [1, 14, 28]") + ".")
            return None
        bad = [day for day in raw if isinstance(day, bool) or not isinstance(day, int) or not 1 <= day <= last]
        if bad:
            self.add(f"{path} cannot hold {kind_of(bad[0])}: list study days from 1 to {last} (length_days) without "
                     "quotes, like [1, 14, 28].")
            return None
        if len(set(raw)) < len(raw):
            self.add(f"{path} lists a day more than once: list each day once.")
            return None
        return tuple(sorted(raw))

    def window(self, raw: Any, path: str) -> tuple[time, time] | None:
        if not isinstance(raw, list) or len(raw) != 2:
            self.add(f'{path} must list two times, the earliest and the latest, like ["10:00", "20:00"]; it is '
                     f"{kind_of(raw)}.")
            return None
        start, end = (self.hhmm(value, path, '"10:00"') for value in raw)
        if start is None or end is None:
            return None
        if _minutes(end) - _minutes(start) < MIN_WINDOW.total_seconds() // 60:
            self.add(f"{path} = [{format_hhmm(start)}, {format_hhmm(end)}] must run forward within one day for at "
                     'least 30 minutes, like ["10:00", "20:00"] (a window past midnight is not supported).')
            return None
        if self.quiet is not None and all(quiet_contains(self.quiet, time(minute // 60, minute % 60))
                                          for minute in range(_minutes(start), _minutes(end))):
            self.add(f"{path} = [{format_hhmm(start)}, {format_hhmm(end)}] lies inside the quiet hours "
                     f"({self.quiet.describe()}): choose a window outside them.")
            return None
        return start, end

    def items(self, raw: Any, where: str) -> tuple[QuestionnaireItem, ...]:
        path = f"{where}.items"
        if raw is None:
            self.add(f'{path} is missing: add at least one [[questionnaires.items]] table with id, text and type.')
            return ()
        if not isinstance(raw, list) or not raw:
            self.add(f"{path} " + must_list(raw, "[[questionnaires.items]] tables") + ".")
            return ()
        if len(raw) > MAX_ITEMS:
            self.add(f"{path} has {len(raw)} items: split it into questionnaires of at most {MAX_ITEMS}.")
            return ()
        items: list[QuestionnaireItem] = []
        seen: dict[str, int] = {}
        for number, item in enumerate(raw, 1):
            here = f"{path}[{number}]"
            read = self.item(item, here, items)
            name = item.get("id") if isinstance(item, dict) else None
            if isinstance(name, str) and name in seen:
                self.add(f'{here}.id = "{name}" is already the id of {path}[{seen[name]}]: give each item its own id.')
                continue
            if isinstance(name, str):
                seen[name] = number
            if read is not None:
                items.append(read)
        return tuple(items)

    def item(self, raw: Any, where: str, earlier: list[QuestionnaireItem]) -> QuestionnaireItem | None:
        found = self.identified(raw, where, "questionnaires.items", _ITEM_KEYS, '"mood" or "craving"')
        if found is None:
            return None
        raw, before, name = found
        check = self.check
        types = tuple(ItemType)
        raw_type = check.get(raw, "type", where, '"scale"', required=True)
        kind = ItemType(raw_type) if raw_type in types else None
        if raw_type is not None and kind is None:
            self.add(f"{where}.type cannot be {kind_of(raw_type)}: use " + ", ".join(f'"{t}"' for t in types) + ".")
        required = self.flag(raw, "required", where, True)
        if kind is not None:
            for key in (key for key in raw if key in _ITEM_KEYS[5:] and key not in _TYPE_KEYS[kind]):
                self.add(f'{where}.{key} does not apply to a type = "{kind}" item: remove it.')
        fields: dict[str, Any] = {}
        if kind in (ItemType.SINGLE_CHOICE, ItemType.MULTIPLE_CHOICE):
            fields["options"] = self.options(raw, where, required)
        elif kind is ItemType.YES_NO:
            fields["options"] = YES_NO_OPTIONS
        elif kind is ItemType.SCALE:
            fields.update(self.scale(raw, where, required))
        elif kind is ItemType.NUMBER:
            fields.update(self.typed_number(raw, where))
        elif kind is ItemType.TEXT:
            fields["max_chars"] = check.whole(raw, "max_chars", where, low=1, high=MAX_TEXT_ANSWER_CHARS,
                                              example=DEFAULT_TEXT_ANSWER_CHARS) or DEFAULT_TEXT_ANSWER_CHARS
        poll = kind in (ItemType.SINGLE_CHOICE, ItemType.MULTIPLE_CHOICE, ItemType.YES_NO) or fields.get("as_poll")
        text = check.text(raw, "text", where, '"How is your mood right now?"', required=True,
                          limit=MAX_POLL_QUESTION_CHARS if poll else 1000)
        show_if = self.show_if(raw, where, earlier)
        if len(check.problems) > before or name is None or kind is None or text is None:
            return None
        return QuestionnaireItem(id=name, text=text, type=kind, required=required, show_if=show_if, **fields)

    def options(self, raw: dict[str, Any], where: str, required: bool) -> tuple[Option, ...]:
        labels, codes = raw.get("options"), raw.get("codes")
        limit = POLL_OPTION_LIMIT - (0 if required else 1)
        if not isinstance(labels, list) or len(labels) < 2:
            self.add(f"{where}.options " + must_list(labels, 'at least two choices, like ["Not at all", "A little", '
                                                     '"A lot"]') + ".")
            return ()
        if len(labels) > limit:
            self.add(f"{where}.options lists {len(labels)} choices: a WhatsApp poll shows at most {POLL_OPTION_LIMIT}"
                     + ("" if required else ", one of them \"Skip\" for an optional item") + f"; keep at most {limit}.")
            return ()
        bad = [label for label in labels
               if not isinstance(label, str) or not label.strip() or len(label) > MAX_OPTION_CHARS]
        if bad:
            self.add(f"{where}.options cannot hold {kind_of(bad[0])}: write each choice as text in quotes, not empty "
                     f"and at most {MAX_OPTION_CHARS} characters long.")
            return ()
        if len({label.strip().casefold() for label in labels}) < len(labels):
            self.add(f"{where}.options lists a choice more than once: a participant could not tell them apart.")
            return ()
        if codes is None:
            codes = list(range(1, len(labels) + 1))
        elif (not isinstance(codes, list) or len(codes) != len(labels)
              or any(isinstance(code, bool) or not isinstance(code, int) for code in codes)):
            self.add(f"{where}.codes must list one whole number per option ({len(labels)}), like "
                     f"{list(range(len(labels)))}; it is {kind_of(codes)}.")
            return ()
        elif len(set(codes)) < len(codes):
            self.add(f"{where}.codes lists a code more than once: give each option its own code.")
            return ()
        return tuple(Option(label, code) for label, code in zip(labels, codes, strict=True))

    def scale(self, raw: dict[str, Any], where: str, required: bool) -> dict[str, Any]:
        low, high = self.number(raw, "min", where, whole=True), self.number(raw, "max", where, whole=True)
        labels = {key: self.check.text(raw, key, where, '"Not at all"', limit=MAX_OPTION_CHARS)
                  for key in ("min_label", "max_label")}
        ask_as = self.check.choice(raw, "ask_as", where, tuple(AskAs))
        if low is None or high is None:
            return {}
        points = int(high - low) + 1
        if not 2 <= points <= MAX_SCALE_POINTS:
            self.add(f"{where}: min = {low} and max = {high} make a scale of {points} points: use a max above min, "
                     f"and at most {MAX_SCALE_POINTS} points (like 1 to 5, or 0 to 10).")
            return {}
        fits = points + (0 if required else 1) <= POLL_OPTION_LIMIT
        if ask_as == AskAs.POLL and not fits:
            self.add(f'{where}.ask_as = "poll" cannot show {points} points' + ("" if required else ' and "Skip"')
                     + f': a WhatsApp poll has at most {POLL_OPTION_LIMIT} options; use ask_as = "typed".')
            return {}
        as_poll = fits if ask_as is None else ask_as == AskAs.POLL
        options = tuple(Option(_scale_label(point, int(low), int(high), labels), point)
                        for point in range(int(low), int(high) + 1)) if as_poll else ()
        return {"low": low, "high": high, "low_label": labels["min_label"], "high_label": labels["max_label"],
                "as_poll": as_poll, "options": options}

    def typed_number(self, raw: dict[str, Any], where: str) -> dict[str, Any]:
        low, high = self.number(raw, "min", where, whole=False), self.number(raw, "max", where, whole=False)
        unit = self.check.text(raw, "unit", where, '"minutes"', limit=MAX_UNIT_CHARS)
        decimals = self.check.whole(raw, "decimals", where, low=0, high=MAX_DECIMALS, example=1)
        if low is not None and high is not None and not low < high:
            self.add(f"{where}: min = {low} must be less than max = {high}.")
            return {}
        return {"low": low, "high": high, "unit": unit, "decimals": decimals or 0}

    def show_if(self, raw: dict[str, Any], where: str, earlier: list[QuestionnaireItem]) -> ShowIf | None:
        table = self.check.table(raw, "show_if", where, 'show_if = { item = "smoked", codes = [1] }')
        if table is None:
            return None
        path = f"{where}.show_if"
        self.check.known(table, ("item", "codes"), path)
        name, codes = table.get("item"), table.get("codes")
        before = next((item for item in earlier if item.id == name), None)
        if before is None:
            names = ", ".join(item.id for item in earlier if item.codes) or "none yet"
            self.add(f"{path}.item must be the id of an earlier item in this questionnaire (choices, a scale or "
                     f"yes/no; here: {names}); it is {kind_of(name)}.")
            return None
        if not before.codes:
            self.add(f'{path}.item = "{name}" is a {before.type} item, which has no codes to match: refer to a '
                     "choice, a scale or a yes/no item.")
            return None
        if (not isinstance(codes, list) or not codes
                or any(isinstance(code, bool) or not isinstance(code, int) for code in codes)):
            self.add(f"{path}.codes " + must_list(codes, f"codes of {name}, like [{before.codes[0]}]") + ".")
            return None
        unknown = [code for code in codes if code not in before.codes]
        if unknown:
            self.add(f"{path}.codes lists {unknown[0]}, which {name} cannot take: use its codes "
                     f"({', '.join(map(str, before.codes))}).")
            return None
        return ShowIf(before.id, tuple(codes))


def _scale_label(point: int, low: int, high: int, labels: dict[str, str | None]) -> str:
    end = labels["min_label"] if point == low else labels["max_label"] if point == high else None
    return f"{point} ({end})" if end else str(point)


def _repeats(send: SendAt) -> bool:
    return send.event is None and (send.study_days is None or len(send.study_days) > 1)


def parse_questionnaires(check: Check, data: dict[str, Any], quiet: QuietHours | None,
                         length_days: int | None) -> tuple[Questionnaire, ...]:
    """The questionnaires a study file declares, noting a problem in ``check`` for each wrong key."""
    return _Reader(check, quiet, length_days).questionnaires(data)
