"""The gate a team sets in a TOML file (``--thresholds``; its sections are in the README), or the default gate
(``data/evaluation/gate.toml``). Any breach makes ``promptpipe evaluate`` exit 3 (see :mod:`.gates`)."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from promptpipe.errors import AdminError
from promptpipe.evaluation.judge import CRITERIA

__all__ = ["ALL", "DEFAULT_GATE_FILE", "Thresholds", "default_thresholds", "load_thresholds"]

ALL = "all"
DEFAULT_GATE_FILE = Path(__file__).resolve().parents[1] / "data" / "evaluation" / "gate.toml"
_ALWAYS_LOW = {"accuracy": 0.0}
"""Low-score limits that hold unless a file names the criterion: no unsafe or false statement."""


@dataclass(frozen=True)
class Thresholds:
    checks: Mapping[str, float] = field(default_factory=dict)
    """Lowest pass rate per check name; ``all`` for the rest."""
    scores: Mapping[str, float] = field(default_factory=dict)
    low_scores: Mapping[str, float] = field(default_factory=lambda: dict(_ALWAYS_LOW))
    per_conversation: Mapping[str, float] = field(default_factory=dict)
    per_group: Mapping[str, float] = field(default_factory=dict)
    min_within_one: float | None = None
    allow_missing: float = 0.0
    max_unfound_quotes: float = 0.2
    allow_constant: bool = False
    min_kappa: float | None = 0.4
    score_drop: float | None = None
    pass_rate_drop: float | None = None
    source: str = ""

    def limit(self, section: str, name: str) -> float | None:
        table: Mapping[str, float] = getattr(self, section)
        return table.get(name, table.get(ALL))

    def check_limit(self, check: str) -> float | None:
        return self.limit("checks", check)

    def score_limit(self, criterion: str) -> float | None:
        return self.limit("scores", criterion)

    def without_judge(self) -> Thresholds:
        return dataclasses.replace(self, scores={}, low_scores={}, per_conversation={}, per_group={},
                                   min_within_one=None, min_kappa=None, score_drop=None,
                                   source=f"{self.source}; without its judge's gates (--no-judge)")


_NAMED = ("checks", "scores", "low_scores", "per_conversation", "per_group")
_RANGES = {"checks": (0.0, 1.0), "scores": (1.0, 5.0), "low_scores": (0.0, 1.0), "per_conversation": (1.0, 5.0),
           "per_group": (1.0, 5.0)}
_SETTINGS: dict[str, dict[str, tuple[float, float] | None]] = {
    "judge": {"min_within_one": (0.0, 1.0), "allow_missing": (0.0, 1.0), "max_unfound_quotes": (0.0, 1.0),
              "allow_constant": None, "min_kappa": (-1.0, 1.0)},
    "compare": {"score_drop": (0.0, 4.0), "pass_rate_drop": (0.0, 1.0)},
}
"""The fixed settings and their ranges (None: true or false)."""


def _number(where: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AdminError(f"{where} must be a number from {low:g} to {high:g}, not {value!r}")
    if not low <= value <= high:
        raise AdminError(f"{where} is {value:g}; it must be from {low:g} to {high:g}")
    return float(value)


def _limits(path: Path, section: str, table: Mapping[str, object], known: Collection[str] | None) -> dict[str, float]:
    low, high = _RANGES[section]
    limits = {}
    for name, value in table.items():
        where = f"{path}: [{section}] {name}"
        if known is not None and name != ALL and name not in known:
            raise AdminError(f"{where}: there is no {'check' if section == 'checks' else 'criterion'} of that "
                             f"name; the names are: {', '.join(sorted(known))}")
        limits[name] = _number(where, value, low, high)
    return limits


def _settings(path: Path, data: Mapping[str, Mapping[str, object]]) -> dict[str, float | bool]:
    fixed: dict[str, float | bool] = {}
    for section, keys in _SETTINGS.items():
        for key, value in data.get(section, {}).items():
            where = f"{path}: [{section}] {key}"
            if key not in keys:
                raise AdminError(f"{where} is not a setting; the settings are: {', '.join(keys)}")
            bounds = keys[key]
            if bounds is None:
                if not isinstance(value, bool):
                    raise AdminError(f"{where} must be true or false, not {value!r}")
                fixed[key] = value
            else:
                fixed[key] = _number(where, value, *bounds)
    return fixed


def _read(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AdminError(f"{path}: cannot read the thresholds file ({exc.strerror or type(exc).__name__})") from exc
    except UnicodeDecodeError as exc:
        raise AdminError(f"{path}: the thresholds file is not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise AdminError(f"{path}: not valid TOML: {exc}") from exc


def load_thresholds(path: Path, *, known_checks: Collection[str] | None = None,
                    known_criteria: Collection[str] | None = None, source: str | None = None) -> Thresholds:
    """The thresholds in ``path``; AdminError naming the file and key for anything wrong (unknown check names only
    when ``known_checks`` is given; criteria default to the rubric's)."""
    data = _read(path)
    criteria = known_criteria if known_criteria is not None else [criterion.name for criterion in CRITERIA]
    sections = (*_NAMED, *_SETTINGS)
    for section, table in data.items():
        if section not in sections:
            raise AdminError(f"{path}: unknown section [{section}]; the sections are: {', '.join(sections)}")
        if not isinstance(table, dict):
            raise AdminError(f"{path}: {section} must be a section ([{section}]) of names and numbers")
    tables: dict[str, Mapping[str, object]] = {name: table for name, table in data.items() if isinstance(table, dict)}
    limits = {section: _limits(path, section, tables.get(section, {}),
                               known_checks if section == "checks" else criteria) for section in _NAMED}
    fixed = _settings(path, tables)
    base = Thresholds()

    def number(key: str, default: float | None) -> float | None:
        value = fixed.get(key, default)
        return None if value is None else float(value)
    return Thresholds(checks=limits["checks"], scores=limits["scores"],
                      low_scores={**_ALWAYS_LOW, **limits["low_scores"]}, per_conversation=limits["per_conversation"],
                      per_group=limits["per_group"], min_within_one=number("min_within_one", None),
                      allow_missing=number("allow_missing", base.allow_missing) or 0.0,
                      max_unfound_quotes=number("max_unfound_quotes", base.max_unfound_quotes) or 0.0,
                      allow_constant=bool(fixed.get("allow_constant", base.allow_constant)),
                      min_kappa=number("min_kappa", base.min_kappa), score_drop=number("score_drop", None),
                      pass_rate_drop=number("pass_rate_drop", None), source=source or str(path))


def default_thresholds(*, known_checks: Collection[str] | None = None) -> Thresholds:
    return load_thresholds(DEFAULT_GATE_FILE, known_checks=known_checks,
                           source="the default gate (promptpipe/data/evaluation/gate.toml)")
