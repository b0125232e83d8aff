"""What a reply to a questionnaire item comes to, and the words an item is asked with; no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from promptpipe.questionnaires.rules.definition import ItemType, QuestionnaireItem

__all__ = ["MAX_TRIES", "SKIP_OPTION", "Answer", "AnswerSource", "Missing", "Reask", "ask_text", "poll_options",
           "read_typed", "read_vote"]

MAX_TRIES = 2
"""Replies to one item that do not fit before it is recorded as invalid."""
SKIP_OPTION = "Skip"
"""The extra poll option of an optional item."""
_SKIP_WORDS = frozenset({"skip", "pass", "skip it", "skip this", "next"})
_YES = frozenset({"yes", "y", "yeah", "yep", "yup", "sure", "of course", "ja", "oui", "si", "sí", "sim"})
_NO = frozenset({"no", "n", "nope", "nah", "not really", "nein", "non", "não", "nao"})
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")
_MAX_WORDS_AROUND_A_NUMBER = 30
"""Characters besides the number a typed number may carry ("about 12 minutes")."""


class AnswerSource(StrEnum):
    TAP = "tap"
    TYPED = "typed"


class Missing(StrEnum):
    """Why an item has no answer (the export's missingness codes)."""

    SKIPPED = "skipped"
    """the participant skipped an optional item"""
    INVALID = "invalid"
    """no reply fitted after the re-ask"""
    NOT_SHOWN = "not_shown"
    """its show_if condition did not hold"""
    EXPIRED = "expired"
    """the questionnaire closed before the item was answered"""
    STOPPED = "stopped"
    """the participant sent STOP, or was withdrawn or paused, before answering it"""
    NOT_SENT = "not_sent"
    """the questionnaire never reached this item's turn"""


@dataclass(frozen=True)
class Answer:
    """An item answered (or skipped)."""

    raw: str
    source: AnswerSource
    codes: tuple[int, ...] = ()
    number: float | None = None
    text: str | None = None
    skipped: bool = False

    @property
    def coded(self) -> str:
        """The coded value as one cell: a code, codes joined by ``;``, a number, or empty."""
        if self.codes:
            return ";".join(map(str, self.codes))
        if self.number is not None:
            return f"{self.number:g}"
        return ""


@dataclass(frozen=True)
class Reask:
    """The reply did not fit: what to say instead of moving on."""

    text: str


def poll_options(item: QuestionnaireItem) -> tuple[str, ...]:
    """The options of the poll that asks ``item``: its choices, and Skip when it is optional."""
    return tuple(option.label for option in item.options) + (() if item.required else (SKIP_OPTION,))


def _range_words(item: QuestionnaireItem) -> str:
    def shown(value: float | None) -> str:
        return "" if value is None else f"{value:g}"
    unit = f" {item.unit}" if item.unit else ""
    return f"from {shown(item.low)} to {shown(item.high)}{unit}"


def ask_text(item: QuestionnaireItem) -> str:
    """The message that asks a typed item (a poll item is asked by its poll, whose question is the item's text)."""
    if item.is_poll:
        return item.text
    if item.type is ItemType.SCALE:
        ends = [f"{item.low:g} = {item.low_label}" if item.low_label and item.low is not None else "",
                f"{item.high:g} = {item.high_label}" if item.high_label and item.high is not None else ""]
        labelled = "; ".join(end for end in ends if end)
        hint = f"Reply with a whole number {_range_words(item)}" + (f" ({labelled})" if labelled else "")
    elif item.type is ItemType.NUMBER:
        hint = f"Reply with a number {_range_words(item)}"
    else:
        hint = "Reply in your own words"
    return f"{item.text}\n({hint}" + ("" if item.required else ', or "skip"') + ".)"


def _normal(text: str) -> str:
    return " ".join(text.casefold().strip().strip(".!?").split())


def read_vote(item: QuestionnaireItem, chosen: list[str]) -> Answer | Reask | None:
    """A vote in the item's poll, by the labels chosen (None: a withdrawn vote leaves the item as it was)."""
    if not chosen:
        return None
    if SKIP_OPTION in chosen and not item.required:
        if len(chosen) > 1:
            return Reask(f'Please choose either "{SKIP_OPTION}" or your answers, not both.')
        return Answer(raw=SKIP_OPTION, source=AnswerSource.TAP, skipped=True)
    by_label = {option.label: option.code for option in item.options}
    codes = tuple(by_label[label] for label in chosen if label in by_label)
    if not codes:
        return None
    if item.type is not ItemType.MULTIPLE_CHOICE:
        codes = codes[:1]
    number = float(codes[0]) if item.type is ItemType.SCALE else None
    return Answer(raw=";".join(chosen), source=AnswerSource.TAP, codes=codes, number=number)


def is_option(item: QuestionnaireItem, text: str) -> bool:
    """Whether a typed message is one of the item's options, whatever command its words also spell."""
    words = _normal(text)
    return any(_normal(option.label) == words for option in item.options)


def read_typed(item: QuestionnaireItem, text: str) -> Answer | Reask:
    words = _normal(text)
    if not item.required and words in _SKIP_WORDS:
        return Answer(raw=text, source=AnswerSource.TYPED, skipped=True)
    if item.type is ItemType.TEXT:
        kept = text.strip()
        if not kept:
            return Reask("Please reply in a few words" + ("" if item.required else ', or "skip"') + ".")
        if len(kept) > item.max_chars:
            return Reask(f"That is {len(kept)} characters long; please keep your answer to {item.max_chars} "
                         "characters or fewer.")
        return Answer(raw=text, source=AnswerSource.TYPED, text=kept)
    if item.type is ItemType.YES_NO:
        if words in _YES or words in _NO:
            code = 1 if words in _YES else 0
            return Answer(raw=text, source=AnswerSource.TYPED, codes=(code,))
        return Reask('Please tap Yes or No in the poll, or reply "yes" or "no".')
    if item.type in (ItemType.SINGLE_CHOICE, ItemType.MULTIPLE_CHOICE):
        match = [option for option in item.options if _normal(option.label) == words]
        if match:
            return Answer(raw=text, source=AnswerSource.TYPED, codes=(match[0].code,))
        many = " (you can choose more than one)" if item.type is ItemType.MULTIPLE_CHOICE else ""
        return Reask(f"Please tap your answer in the poll above{many}.")
    return _read_number(item, text)


def _read_number(item: QuestionnaireItem, text: str) -> Answer | Reask:
    whole = item.type is ItemType.SCALE
    found = _NUMBER.findall(text)
    rest = _NUMBER.sub("", text).strip()
    kind = "whole number" if whole or not item.decimals else "number"
    reask = Reask(f"Please reply with one {kind} {_range_words(item)}"
                  + ("" if item.required else ', or "skip"') + ".")
    if len(found) != 1 or len(rest) > _MAX_WORDS_AROUND_A_NUMBER:
        return reask
    digits = found[0].replace(",", ".")
    decimals = len(digits.partition(".")[2])
    allowed = 0 if whole else item.decimals
    value = float(digits)
    if decimals > allowed and value != int(value):
        return reask
    if (item.low is not None and value < item.low) or (item.high is not None and value > item.high):
        return reask
    codes = (int(value),) if whole else ()
    return Answer(raw=text, source=AnswerSource.TYPED, codes=codes, number=value)
