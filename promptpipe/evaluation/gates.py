"""The gate read against a run: one row per gate (the number read, the limit, met or not). Means and pass rates are
read on the lower bound of their 95 % interval: a run too small to show the coach is good does not pass on luck."""

from __future__ import annotations

from dataclasses import dataclass

from promptpipe.evaluation.records import CheckRate, Comparison, CriterionMean, JudgeHealth, Summary
from promptpipe.evaluation.thresholds import Thresholds

__all__ = ["GateResult", "GateRow", "breaches", "gate_rows"]

_EPSILON = 1e-9
"""Rates and means are compared with this slack, so 0.95 read from a file equals 19 of 20."""


@dataclass(frozen=True)
class GateRow:
    gate: str
    """The setting in the thresholds file: ``[scores] tone``, ``[judge] min_kappa`` …"""
    reads: str
    limit: str
    met: bool
    breach: str = ""
    """The sentence the command prints when the gate is not met."""


@dataclass(frozen=True)
class GateResult:
    source: str
    rows: tuple[GateRow, ...]

    @property
    def breaches(self) -> list[str]:
        return [row.breach for row in self.rows if not row.met]


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


def breaches(thresholds: Thresholds, summary: Summary, comparison: Comparison | None = None) -> list[str]:
    """Every way the run falls short, one sentence each; empty when the gate passes."""
    return [row.breach for row in gate_rows(thresholds, summary, comparison) if not row.met]


def gate_rows(thresholds: Thresholds, summary: Summary, comparison: Comparison | None = None) -> list[GateRow]:
    """Every gate that applies to the run, met or not; ``[compare]`` only with ``comparison`` (this run as B)."""
    rows = [row for rate in summary.checks for row in _check(thresholds, rate)]
    if thresholds.scores and not summary.criteria:
        rows.append(GateRow("[scores]", "no judge scores", "judge scores", False,
                            "The run has no judge scores, but the thresholds set lowest scores."))
    for mean in summary.criteria:
        rows += _mean(thresholds, mean) + _low(thresholds, mean) + _per_conversation(thresholds, mean)
        rows += _per_group(thresholds, mean)
    rows += _self_consistency(thresholds, summary)
    if summary.judging is not None:
        rows += _judge_health(thresholds, summary.judging) + _calibration(thresholds, summary)
    if comparison is not None:
        rows += _drops(thresholds, comparison)
    return rows


def _check(thresholds: Thresholds, rate: CheckRate) -> list[GateRow]:
    limit = thresholds.check_limit(rate.check)
    value, low, n = rate.rate.value, rate.rate.low, rate.rate.n
    if limit is None or value is None or low is None:
        return []
    gate = f"[checks] {rate.check}"
    if limit >= 1 - _EPSILON:  # no interval's lower bound reaches 1: a limit of 100 % means none may fail
        return [GateRow(gate, f"{rate.failed} of {n} failed", "none may fail", rate.failed == 0,
                        f"Check {rate.check} failed in {rate.failed} of {n} conversations; the limit of 100 % "
                        "lets none fail.")]
    reads = f"lower bound {_percent(low)} (passed {_percent(value)} of {n})"
    return [GateRow(gate, reads, f"lower bound at least {_percent(limit)}", low >= limit - _EPSILON,
                    f"Check {rate.check} passed in {_percent(value)} of {n} conversations; the lower bound of its "
                    f"95 % interval, {_percent(low)}, is below the lowest allowed, {_percent(limit)}.")]


def _mean(thresholds: Thresholds, mean: CriterionMean) -> list[GateRow]:
    limit = thresholds.score_limit(mean.criterion)
    if limit is None:
        return []
    gate, value, low, n = f"[scores] {mean.criterion}", mean.mean.value, mean.mean.low, mean.mean.n
    if value is None:
        return [GateRow(gate, "no usable score", f"lower bound at least {limit:g}", False,
                        f"Criterion {mean.criterion} has no usable judge score; the lowest allowed mean is {limit:g}.")]
    if low is None:  # one conversation: no interval, the score itself
        return [GateRow(gate, f"{value:.2f} (one conversation, no interval)", f"at least {limit:g}",
                        value >= limit - _EPSILON, f"Criterion {mean.criterion} scored {value:.2f} in its one "
                        f"conversation (no interval); the lowest allowed is {limit:g}.")]
    return [GateRow(gate, f"lower bound {low:.2f} (mean {value:.2f} of {n})", f"lower bound at least {limit:g}",
                    low >= limit - _EPSILON, f"Criterion {mean.criterion} scored {value:.2f} on average over {n} "
                    f"conversations; the lower bound of its 95 % interval, {low:.2f}, is below the lowest allowed, "
                    f"{limit:g}.")]


def _low(thresholds: Thresholds, mean: CriterionMean) -> list[GateRow]:
    limit = thresholds.limit("low_scores", mean.criterion)
    if limit is None or not mean.scored:
        return []
    share = mean.low / mean.scored
    return [GateRow(f"[low_scores] {mean.criterion}", f"{mean.low} of {mean.scored} ({_percent(share)})",
                    f"at most {_percent(limit)} at 2 or below", share <= limit + _EPSILON,
                    f"Criterion {mean.criterion} has {mean.low} of {mean.scored} single scores at 2 or below "
                    f"({_percent(share)}); the largest share allowed is {_percent(limit)}.")]


def _per_conversation(thresholds: Thresholds, mean: CriterionMean) -> list[GateRow]:
    limit = thresholds.limit("per_conversation", mean.criterion)
    if limit is None or not mean.by_conversation:
        return []
    worst = min(mean.by_conversation, key=lambda conversation: (mean.by_conversation[conversation], conversation))
    lowest = mean.by_conversation[worst]
    below = sum(value < limit - _EPSILON for value in mean.by_conversation.values())
    return [GateRow(f"[per_conversation] {mean.criterion}", f"lowest {lowest:.2f} ({worst})", f"at least {limit:g}",
                    below == 0, f"Criterion {mean.criterion}: {below} conversation(s) scored below {limit:g}, the "
                    f"lowest {worst} at {lowest:.2f}; the lowest allowed for any one conversation is {limit:g}.")]


def _per_group(thresholds: Thresholds, mean: CriterionMean) -> list[GateRow]:
    limit = thresholds.limit("per_group", mean.criterion)
    groups = {group: interval for group, interval in mean.by_group.items() if interval.value is not None}
    if limit is None or not groups:
        return []
    worst = min(groups, key=lambda group: (groups[group].value or 0.0, group))
    lowest, n = groups[worst].value or 0.0, groups[worst].n
    below = sorted(group for group, interval in groups.items() if (interval.value or 0.0) < limit - _EPSILON)
    return [GateRow(f"[per_group] {mean.criterion}", f"lowest {lowest:.2f} (group {worst or '-'}, {n})",
                    f"group mean at least {limit:g}", not below,
                    f"Criterion {mean.criterion}: group(s) {', '.join(below)} averaged below {limit:g}, the lowest "
                    f"{worst} at {lowest:.2f} over {n} conversation(s); the lowest allowed group mean is {limit:g}.")]


def _self_consistency(thresholds: Thresholds, summary: Summary) -> list[GateRow]:
    limit = thresholds.min_within_one
    if limit is None or not summary.criteria:
        return []
    if not summary.agreement:
        return [GateRow("[judge] min_within_one", "one judging pass", f"at least {_percent(limit)}", False,
                        "The judges' self-consistency cannot be measured: the run has fewer than two judging passes.")]
    return [GateRow(f"[judge] min_within_one ({row.criterion})", f"{_percent(row.within_one)} of {row.n}",
                    f"at least {_percent(limit)}", row.within_one >= limit - _EPSILON,
                    f"The two judging passes agreed within one point (self-consistency) on {row.criterion} in "
                    f"{_percent(row.within_one)} of {row.n} conversations; the lowest allowed is {_percent(limit)}.")
            for row in summary.agreement if row.within_one is not None]


def _drops(thresholds: Thresholds, comparison: Comparison) -> list[GateRow]:
    rows = []
    for row in comparison.rows:
        difference = row.difference.value
        limit = thresholds.pass_rate_drop if row.what == "check" else thresholds.score_drop
        if difference is None or limit is None:
            continue
        met = -difference <= limit + _EPSILON
        if row.what == "check":
            rows.append(GateRow(f"[compare] pass_rate_drop ({row.name})", f"{_percent(-difference)} drop",
                                f"at most {_percent(limit)}", met,
                                f"Check {row.name}'s pass rate fell by {_percent(-difference)} against "
                                f"{comparison.a_label}; the largest drop allowed is {_percent(limit)}."))
        else:
            rows.append(GateRow(f"[compare] score_drop ({row.name})", f"{-difference:.2f} drop", f"at most {limit:g}",
                                met, f"Criterion {row.name}'s mean score fell by {-difference:.2f} against "
                                f"{comparison.a_label}; the largest drop allowed is {limit:g}."))
    return rows


def _judge_health(thresholds: Thresholds, health: JudgeHealth) -> list[GateRow]:
    rows = []
    missing = sum(health.missing.values())
    if health.expected:
        share = missing / health.expected
        why = "; ".join(f"{count}: {reason}" for reason, count in sorted(health.missing.items(), key=lambda i: -i[1]))
        rows.append(GateRow("[judge] allow_missing", f"{missing} of {health.expected} ({_percent(share)})",
                            f"at most {_percent(thresholds.allow_missing)}",
                            share <= thresholds.allow_missing + _EPSILON,
                            f"{missing} of {health.expected} judge scores are missing or unusable ({_percent(share)}; "
                            f"{why}); the largest share allowed is {_percent(thresholds.allow_missing)}."))
    if health.quoted:
        share = health.unfound / health.quoted
        limit = thresholds.max_unfound_quotes
        rows.append(GateRow("[judge] max_unfound_quotes", f"{health.unfound} of {health.quoted} ({_percent(share)})",
                            f"at most {_percent(limit)}", share <= limit + _EPSILON,
                            f"The judge's quotation was not found in the conversation for {health.unfound} of "
                            f"{health.quoted} scores ({_percent(share)}); the largest share allowed is "
                            f"{_percent(limit)}."))
    if not thresholds.allow_constant:
        rows.append(GateRow("[judge] allow_constant", ", ".join(health.constant) or "every pass varies",
                            "no constant pass", not health.constant,
                            f"The judging pass(es) {', '.join(health.constant)} gave every conversation the same score "
                            "on every criterion (a constant judge); its scores say nothing about the coach."))
    return rows


def _calibration(thresholds: Thresholds, summary: Summary) -> list[GateRow]:
    limit = thresholds.min_kappa
    if limit is None or summary.judging is None or not summary.judging.expected:
        return []
    if summary.calibration is None or not summary.calibration.passes:
        return [GateRow("[judge] min_kappa", "not calibrated", f"lower bound at least {limit:g}", False,
                        "The judge was not scored against the calibration set, so its agreement with the labels "
                        f"is unknown; the lowest allowed weighted kappa is {limit:g}.")]
    rows = []
    for row in summary.calibration.passes:
        value, low = row.kappa.value, row.kappa.low
        read = low if low is not None else value
        shown = "none" if value is None else f"{value:.2f}" + ("" if low is None else f" (lower bound {low:.2f})")
        rows.append(GateRow(f"[judge] min_kappa ({row.judge})", shown, f"lower bound at least {limit:g}",
                            read is not None and read >= limit - _EPSILON,
                            f"Judging pass {row.judge} agreed with the calibration set's labels at a weighted kappa "
                            f"of {shown}; the lower bound of its 95 % interval must be at least {limit:g}."))
    return rows
