"""The judge's calibration set: short conversations labelled with the score each deserves, judged in every run, so the
report can say how far the judge agrees with a careful reader, not only with itself."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from promptpipe.domain.messages import MessageKind
from promptpipe.errors import AdminError
from promptpipe.evaluation.judge import CRITERIA
from promptpipe.evaluation.records import Conversation, Said, Source

__all__ = ["CALIBRATION_FILE", "Labelled", "load_calibration"]

CALIBRATION_FILE = Path(__file__).resolve().parents[1] / "data" / "evaluation" / "calibration.toml"
_START = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)
_WHO = {"participant": (True, MessageKind.TEXT), "coach": (False, MessageKind.TEXT),
        "safety": (False, MessageKind.SAFETY)}


@dataclass(frozen=True)
class Labelled:
    conversation: Conversation
    """Id ``calibration:<id>``, group ``calibration``."""
    expect: dict[str, int]


def _said(where: str, line: object, index: int) -> Said:
    who, _, text = str(line).partition(":")
    if who.strip() not in _WHO or not text.strip():
        raise AdminError(f"{where}: message {index + 1} must start with participant:, coach: or safety:")
    incoming, kind = _WHO[who.strip()]
    return Said(at=_START + timedelta(minutes=3 * index), incoming=incoming, kind=kind, text=text.strip())


def _one(path: Path, entry: dict[str, object]) -> Labelled:
    name = str(entry.get("id", ""))
    where = f"{path}: conversation {name!r}"
    messages, expect = entry.get("messages"), entry.get("expect")
    if not name or not isinstance(messages, list) or not messages or not isinstance(expect, dict):
        raise AdminError(f"{where}: each conversation needs an id, messages and expect")
    criteria = {criterion.name for criterion in CRITERIA}
    if set(expect) != criteria or not all(isinstance(v, int) and 1 <= v <= 5 for v in expect.values()):
        raise AdminError(f"{where}: expect gives every criterion ({', '.join(sorted(criteria))}) a score from 1 to 5")
    conversation = Conversation(
        id=f"calibration:{name}", source=Source.CASE, label=name, group="calibration", timezone="UTC",
        messages=tuple(_said(where, line, index) for index, line in enumerate(messages)), tool_uses=(), profile={},
        schedule_times=(), status="active", stage="FEEDBACK", flags=(), quiet_hours=None, study_days=1)
    return Labelled(conversation, {str(key): int(value) for key, value in expect.items()})


def load_calibration(path: Path = CALIBRATION_FILE) -> list[Labelled]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AdminError(f"{path}: cannot read the calibration set ({exc})") from exc
    entries = data.get("conversation")
    if not isinstance(entries, list) or not entries:
        raise AdminError(f"{path}: no [[conversation]] in the calibration set")
    return [_one(path, entry) for entry in entries if isinstance(entry, dict)]
