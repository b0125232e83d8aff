"""Reading the ``[[questionnaires.items]]`` of a study file's questionnaires, each problem named by its key."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TypedDict

from promptpipe.questionnaires.rules.definition import POLL_OPTION_LIMIT, ItemType, Option, QuestionnaireItem, ShowIf
from promptpipe.study.rules.checks import Check, TomlTable, kind_of, must_list

__all__ = ["AskAs", "ItemReader"]


class AskAs(StrEnum):
    """How a scale item is asked (its ``ask_as``; left out: as a poll when its points fit in one)."""

    POLL = "poll"
    TYPED = "typed"


MAX_ITEMS, MAX_POLL_QUESTION_CHARS, MAX_OPTION_CHARS = 50, 255, 100
"""Items per questionnaire; characters in an item asked as a poll (WhatsApp's limit); in one option."""
MAX_TEXT_ANSWER_CHARS, DEFAULT_TEXT_ANSWER_CHARS, MAX_UNIT_CHARS, MAX_DECIMALS = 2000, 500, 20, 3
MAX_SCALE_POINTS = 101
_ID = re.compile(r"[a-z0-9_]{1,32}")
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


class _ItemFields(TypedDict, total=False):
    """What an item's type adds to a :class:`QuestionnaireItem`."""

    options: tuple[Option, ...]
    low: float | None
    high: float | None
    low_label: str | None
    high_label: str | None
    as_poll: bool
    unit: str | None
    decimals: int
    max_chars: int


class ItemReader:
    """The check of a questionnaire's items (and the values its own keys share with them)."""

    def __init__(self, check: Check) -> None:
        self.check = check

    def add(self, problem: str) -> None:
        self.check.add(problem)

    def flag(self, table: TomlTable, key: str, where: str, default: bool) -> bool:
        value = table.get(key, default)
        if isinstance(value, bool):
            return value
        self.add(f"{where}.{key} must be true or false, without quotes; it is {kind_of(value)}.")
        return default

    def number(self, table: TomlTable, key: str, where: str, *, whole: bool) -> float | None:
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

    def identified(self, raw: object, where: str, table: str, keys: tuple[str, ...], examples: str
                   ) -> tuple[TomlTable, int, str | None] | None:
        """A ``[[table]]``'s (table, problems noted before it, id); None when it is no table."""
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

    def items(self, raw: object, where: str) -> tuple[QuestionnaireItem, ...]:
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

    def item(self, raw: object, where: str, earlier: list[QuestionnaireItem]) -> QuestionnaireItem | None:
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
        fields: _ItemFields = {}
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

    def options(self, raw: TomlTable, where: str, required: bool) -> tuple[Option, ...]:
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

    def scale(self, raw: TomlTable, where: str, required: bool) -> _ItemFields:
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

    def typed_number(self, raw: TomlTable, where: str) -> _ItemFields:
        low, high = self.number(raw, "min", where, whole=False), self.number(raw, "max", where, whole=False)
        unit = self.check.text(raw, "unit", where, '"minutes"', limit=MAX_UNIT_CHARS)
        decimals = self.check.whole(raw, "decimals", where, low=0, high=MAX_DECIMALS, example=1)
        if low is not None and high is not None and not low < high:
            self.add(f"{where}: min = {low} must be less than max = {high}.")
            return {}
        return {"low": low, "high": high, "unit": unit, "decimals": decimals or 0}

    def show_if(self, raw: TomlTable, where: str, earlier: list[QuestionnaireItem]) -> ShowIf | None:
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
