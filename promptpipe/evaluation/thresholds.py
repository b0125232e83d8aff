"""The gate a team sets in a TOML file (``--thresholds``, as the README's ``gate.toml``): lowest pass rate per check
(0-1) and mean judge score per criterion (1-5), ``all`` standing for those not named; ``[judge] min_within_one``; and,
only against a baseline, ``[compare]``'s largest ``score_drop`` and ``pass_rate_drop``. Any breach makes ``promptpipe
evaluate`` exit non-zero, so a prompt or model change can be held back in CI."""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from promptpipe.errors import AdminError
from promptpipe.evaluation.judge import CRITERIA
from promptpipe.evaluation.records import Comparison, Summary

__all__ = ["Thresholds", "breaches", "load_thresholds"]

ALL = "all"
_EPSILON = 1e-9
"""Rates and means are compared with this slack, so 0.95 read from a file equals 19 of 20."""


@dataclass(frozen=True)
class Thresholds:
    checks: Mapping[str, float] = field(default_factory=dict)
    """Lowest pass rate per check name; ``all`` for the rest."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """Lowest mean score per criterion; ``all`` for the rest."""
    min_within_one: float | None = None
    score_drop: float | None = None
    pass_rate_drop: float | None = None
    source: str = ""
    """The file, for the messages."""

    def check_limit(self, check: str) -> float | None:
        return self.checks.get(check, self.checks.get(ALL))

    def score_limit(self, criterion: str) -> float | None:
        return self.scores.get(criterion, self.scores.get(ALL))


_SECTIONS = {
    "checks": None,  # names: the checks
    "scores": None,  # names: the criteria
    "judge": {"min_within_one": (0.0, 1.0)},
    "compare": {"score_drop": (0.0, 4.0), "pass_rate_drop": (0.0, 1.0)},
}
_RANGES = {"checks": (0.0, 1.0), "scores": (1.0, 5.0)}


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
            raise AdminError(f"{where}: there is no {section[:-1] if section == 'checks' else 'criterion'} of that "
                             f"name; the names are: {', '.join(sorted(known))}")
        limits[name] = _number(where, value, low, high)
    return limits


def load_thresholds(path: Path, *, known_checks: Collection[str] | None = None,
                    known_criteria: Collection[str] | None = None) -> Thresholds:
    """The thresholds in ``path``. Raises AdminError naming the file and key for a file that cannot be read, bad TOML,
    an unknown section or key, a value out of range, and a check or criterion name that does not exist (checks only when
    ``known_checks`` is given; criteria default to the rubric's)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AdminError(f"{path}: cannot read the thresholds file ({exc.strerror or type(exc).__name__})") from exc
    except UnicodeDecodeError as exc:
        raise AdminError(f"{path}: the thresholds file is not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise AdminError(f"{path}: not valid TOML: {exc}") from exc
    criteria = known_criteria if known_criteria is not None else [criterion.name for criterion in CRITERIA]
    for section, table in data.items():
        if section not in _SECTIONS:
            raise AdminError(f"{path}: unknown section [{section}]; the sections are: {', '.join(_SECTIONS)}")
        if not isinstance(table, dict):
            raise AdminError(f"{path}: {section} must be a section ([{section}]) of names and numbers")
    fixed: dict[str, float] = {}
    for section in ("judge", "compare"):
        keys = _SECTIONS[section] or {}
        for key, value in data.get(section, {}).items():
            if key not in keys:
                raise AdminError(f"{path}: [{section}] {key} is not a setting; the settings are: {', '.join(keys)}")
            fixed[key] = _number(f"{path}: [{section}] {key}", value, *keys[key])
    return Thresholds(checks=_limits(path, "checks", data.get("checks", {}), known_checks),
                      scores=_limits(path, "scores", data.get("scores", {}), criteria),
                      min_within_one=fixed.get("min_within_one"), score_drop=fixed.get("score_drop"),
                      pass_rate_drop=fixed.get("pass_rate_drop"), source=str(path))


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


def breaches(thresholds: Thresholds, summary: Summary, comparison: Comparison | None = None) -> list[str]:
    """Every way the run falls short, one sentence each (what, its value, the limit); empty when
    the gate passes. The gate reads the point estimates (the pass rate, the mean), not the interval
    bounds: a team sets its limits on the numbers the report shows, and a small run is not failed
    for its width alone. A check that applied to no conversation is not judged. The ``[compare]``
    limits apply only when ``comparison`` (this run as B against a baseline A) is given."""
    found = []
    for rate in summary.checks:
        limit = thresholds.check_limit(rate.check)
        if limit is not None and rate.rate.value is not None and rate.rate.value < limit - _EPSILON:
            found.append(f"Check {rate.check} passed in {_percent(rate.rate.value)} of {rate.rate.n} conversations; "
                         f"the lowest allowed is {_percent(limit)}.")
    if thresholds.scores and not summary.criteria:
        found.append("The run has no judge scores, but the thresholds set lowest scores.")
    for mean in summary.criteria:
        limit = thresholds.score_limit(mean.criterion)
        if limit is None:
            continue
        if mean.mean.value is None:
            found.append(f"Criterion {mean.criterion} has no usable judge score; the lowest allowed mean is {limit:g}.")
        elif mean.mean.value < limit - _EPSILON:
            found.append(f"Criterion {mean.criterion} scored {mean.mean.value:.2f} on average; "
                         f"the lowest allowed is {limit:g}.")
    found += _agreement_breaches(thresholds, summary)
    if comparison is not None:
        found += _drops(thresholds, comparison)
    return found


def _agreement_breaches(thresholds: Thresholds, summary: Summary) -> list[str]:
    limit = thresholds.min_within_one
    if limit is None or not summary.criteria:
        return []
    if not summary.agreement:
        return ["The judges' agreement cannot be measured: the run has fewer than two judging passes."]
    return [f"The judges agreed within one point on {row.criterion} in {_percent(row.within_one)} of {row.n} "
            f"conversations; the lowest allowed is {_percent(limit)}."
            for row in summary.agreement if row.within_one is not None and row.within_one < limit - _EPSILON]


def _drops(thresholds: Thresholds, comparison: Comparison) -> list[str]:
    found = []
    for row in comparison.rows:
        difference = row.difference.value
        limit = thresholds.pass_rate_drop if row.what == "check" else thresholds.score_drop
        if difference is None or limit is None or -difference <= limit + _EPSILON:
            continue
        if row.what == "check":
            found.append(f"Check {row.name}'s pass rate fell by {_percent(-difference)} against "
                         f"{comparison.a_label}; the largest drop allowed is {_percent(limit)}.")
        else:
            found.append(f"Criterion {row.name}'s mean score fell by {-difference:.2f} against "
                         f"{comparison.a_label}; the largest drop allowed is {limit:g}.")
    return found
