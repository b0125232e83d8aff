"""``questionnaire_items.csv``: each item of each adopted protocol version, so that an answer's ``coded`` value reads
without ``study.json``; and the typing of ``coded`` in JSONL."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from promptpipe.questionnaires.rules.definition import ItemType, QuestionnaireItem
from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.store.protocol import ProtocolVersion

__all__ = ["ITEMS_CSV", "ITEM_COLUMNS", "ItemKey", "items_csv", "multiple_choice_items", "typed_code"]

ITEMS_CSV = "questionnaire_items.csv"
ITEM_COLUMNS = ("protocol_version", "protocol_hash", "questionnaire_id", "questionnaire_title", "item_id", "text",
                "type", "low", "high", "low_label", "high_label", "unit", "decimals", "codes", "labels")
ItemKey = tuple[str, str, str]
"""(protocol hash, questionnaire id, item id)"""


def _items(history: list[ProtocolVersion]) -> Iterator[tuple[int, ProtocolVersion, str, str, QuestionnaireItem]]:
    for number, version in enumerate(history, 1):
        if not version.hash or not version.contents:
            continue
        try:
            study = parse_study(version.contents.encode("utf-8"), "study_protocol")
        except StudyFileError:  # an older format this version no longer reads: its text is exported as is
            continue
        for questionnaire in study.questionnaires:
            for item in questionnaire.items:
                yield number, version, questionnaire.id, questionnaire.title, item


def items_csv(history: list[ProtocolVersion]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ITEM_COLUMNS)
    for number, version, questionnaire_id, title, item in _items(history):
        codes = item.codes
        labels = [option.label for option in item.options] if item.options else []
        writer.writerow([number, version.hash, questionnaire_id, title, item.id, item.text, item.type.value,
                         _number(item.low), _number(item.high), item.low_label or "", item.high_label or "",
                         item.unit or "", item.decimals, ";".join(map(str, codes)), ";".join(labels)])
    return out.getvalue()


def multiple_choice_items(history: list[ProtocolVersion]) -> frozenset[ItemKey]:
    return frozenset((version.hash, questionnaire_id, item.id) for _, version, questionnaire_id, _, item
                     in _items(history) if item.type is ItemType.MULTIPLE_CHOICE)


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)


def typed_code(coded: str | None, multiple: bool) -> Any:
    """A stored ``coded`` as a number, a list of codes for a multiple choice, else the text as stored."""
    if not coded:
        return [] if multiple and coded == "" else coded
    if multiple:
        return [_as_number(part) for part in coded.split(";") if part]
    return _as_number(coded)


def _as_number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text
