"""Reading the ``[[questionnaires]]`` of a study file, each problem naming its key and the fix."""

from __future__ import annotations

from datetime import time, timedelta

from promptpipe.domain.localtime import format_hhmm
from promptpipe.domain.quiet_hours import quiet_contains
from promptpipe.domain.setting_values import duration_words
from promptpipe.questionnaires.rules.definition import Questionnaire, SendAt, SendEvent
from promptpipe.questionnaires.rules.file_items import ItemReader
from promptpipe.questionnaires.rules.schedule import window_minutes
from promptpipe.study.rules.checks import Check, TomlTable, duration_setting, kind_of, must_list
from promptpipe.study.rules.protocol import SELF_REPORT_ID, QuietHours

__all__ = ["parse_questionnaires"]

MAX_TITLE_CHARS, MAX_REMINDERS = 200, 5
OPEN_FOR_RANGE = (timedelta(minutes=15), timedelta(days=7))
DAILY_OPEN_FOR_LIMIT = timedelta(hours=12)
"""A questionnaire sent on more than one day closes before the next day's is sent."""
MIN_WINDOW, MAX_MIN_GAP = timedelta(minutes=30), timedelta(hours=12)
_KEYS = ("id", "title", "intro", "closing", "send", "open_for", "reminders", "coach_sees_answers", "items")
_SEND_KEYS = ("event", "delay", "study_days", "at", "between", "min_gap")
EXAMPLE_SEND = '[questionnaires.send] with event = "intake_complete", or study_days = [1, 28] and at = "19:00"'


class _Reader(ItemReader):
    def __init__(self, check: Check, quiet: QuietHours | None, length_days: int | None) -> None:
        super().__init__(check)
        self.quiet, self.length_days = quiet, length_days

    def hhmm(self, raw: object, path: str, example: str) -> time | None:
        if not isinstance(raw, str):
            self.add(f"{path} must be a 24-hour time in quotes, like {example}; it is {kind_of(raw)}.")
            return None
        return self.check.clock(path, raw, example)

    def duration(self, table: TomlTable, key: str, where: str, default: str,
                 bounds: tuple[timedelta, timedelta]) -> timedelta | None:
        path = f"{where}.{key}"
        value = duration_setting(self.check, path, "duration", table.get(key, default))
        if isinstance(value, timedelta) and not bounds[0] <= value <= bounds[1]:
            self.add(f"{path} must be from {duration_words(bounds[0])} to {duration_words(bounds[1])}.")
            return None
        return value if isinstance(value, timedelta) else None

    def questionnaires(self, data: TomlTable) -> tuple[Questionnaire, ...]:
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

    def questionnaire(self, raw: object, where: str) -> Questionnaire | None:
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
        repeats = send is not None and send.event is None and (send.study_days is None or len(send.study_days) > 1)
        if open_for is not None and repeats and open_for > DAILY_OPEN_FOR_LIMIT:
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

    def send(self, table: TomlTable, where: str) -> SendAt | None:
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

    def event(self, table: TomlTable, where: str, before: int) -> SendAt | None:
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
        return SendAt(event=SendEvent(str(raw)), delay=delay)

    def study_days(self, table: TomlTable, where: str) -> tuple[int, ...] | None:
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

    def window(self, raw: object, path: str) -> tuple[time, time] | None:
        if not isinstance(raw, list) or len(raw) != 2:
            self.add(f'{path} must list two times, the earliest and the latest, like ["10:00", "20:00"]; it is '
                     f"{kind_of(raw)}.")
            return None
        start, end = (self.hhmm(value, path, '"10:00"') for value in raw)
        if start is None or end is None:
            return None
        minutes = window_minutes(start, end)
        if len(minutes) < MIN_WINDOW.total_seconds() // 60:
            self.add(f"{path} = [{format_hhmm(start)}, {format_hhmm(end)}] must run forward within one day for at "
                     'least 30 minutes, like ["10:00", "20:00"] (a window past midnight is not supported).')
            return None
        if self.quiet is not None and all(quiet_contains(self.quiet, minute) for minute in minutes):
            self.add(f"{path} = [{format_hhmm(start)}, {format_hhmm(end)}] lies inside the quiet hours "
                     f"({self.quiet.describe()}): choose a window outside them.")
            return None
        return start, end


def parse_questionnaires(check: Check, data: TomlTable, quiet: QuietHours | None,
                         length_days: int | None) -> tuple[Questionnaire, ...]:
    """The questionnaires a study file declares, noting a problem in ``check`` for each wrong key."""
    return _Reader(check, quiet, length_days).questionnaires(data)
