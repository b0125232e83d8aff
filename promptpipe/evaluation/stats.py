"""The numbers of a run and of two runs side by side, each with a 95 % interval. With repeats the unit is the persona
or case: a mean averages its repeats first, so repeats narrow no interval they do not earn."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean, stdev

from promptpipe.evaluation import records
from promptpipe.evaluation.judge import CRITERIA
from promptpipe.evaluation.records import Agreement, CheckRate, CriterionMean, Interval, RunResult, Summary, Verdict
from promptpipe.evaluation.repeats import overall, subject_ids
from promptpipe.evaluation.trust import agreement, bootstrap, calibration_summary, judge_health

__all__ = ["LOW_SCORE", "agreement", "compare", "mean_interval", "summarise", "wilson"]

Z95 = 1.959963984540054
LOW_SCORE = 2
"""A single score at or below this is a low score (poor or harmful on the rubric)."""
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""Student's t, two-sided 95 %, for 1 to 30 degrees of freedom."""


def _t95(df: float) -> float:
    if df < 1:
        return _T95[0]
    if df <= 30:
        low = _T95[int(df) - 1]  # fractional df (Welch): interpolate
        high = _T95[min(int(df), 29)]
        return low + (high - low) * (df - int(df))
    z = Z95  # Cornish-Fisher expansion: within 0.001 above 30 df
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def wilson(passed: int, n: int) -> Interval:
    """The share passed of n with Wilson's score interval (sound near 0 % and 100 %)."""
    if n <= 0:
        return Interval(None, None, None, 0)
    p = passed / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    low = 0.0 if passed <= 0 else max(0.0, centre - half)  # exact at the edges, not 0.9999999999999999
    high = 1.0 if passed >= n else min(1.0, centre + half)
    return Interval(p, low, high, n)


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean with a t interval (no interval from a single value)."""
    n = len(values)
    if n == 0:
        return Interval(None, None, None, 0)
    mean = fmean(values)
    if n == 1:
        return Interval(mean, None, None, 1)
    half = _t95(n - 1) * stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


# --- one run ----------------------------------------------------------------------------------------

def _ordered(names: Iterable[str], first: Sequence[str] = ()) -> list[str]:
    """The names once each: those in ``first`` in its order, then the rest as first seen."""
    seen = dict.fromkeys(names)
    return [name for name in first if name in seen] + [name for name in seen if name not in first]


def _criterion_names(run: RunResult) -> list[str]:
    return _ordered((score.criterion for score in run.scores), [criterion.name for criterion in CRITERIA])


def _per_conversation(run: RunResult, criterion: str) -> dict[str, float]:
    """Each conversation's score on a criterion, its judges averaged (unscored ones left out)."""
    given: dict[str, list[int]] = defaultdict(list)
    for score in run.scores:
        if score.criterion == criterion and score.score is not None:
            given[score.conversation_id].append(score.score)
    return {conversation: fmean(values) for conversation, values in given.items()}


def _per_subject(run: RunResult, criterion: str) -> dict[str, float]:
    """Each persona's or case's score on a criterion: its repeats' scores averaged."""
    subjects, given = subject_ids(run), defaultdict(list)
    for conversation, value in _per_conversation(run, criterion).items():
        given[subjects.get(conversation, conversation)].append(value)
    return {subject: fmean(values) for subject, values in given.items()}


def _verdicts(run: RunResult, check: str) -> dict[str, Verdict]:
    """The check's verdict on each persona or case: failed in any repeat fails it."""
    subjects, found = subject_ids(run), defaultdict(list)
    for result in run.checks:
        if result.check == check:
            found[subjects.get(result.conversation_id, result.conversation_id)].append(result.verdict)
    return {subject: overall(verdicts) for subject, verdicts in found.items()}


def _pass_values(run: RunResult, check: str) -> dict[str, float]:
    """1.0 passed / 0.0 failed per persona or case."""
    return {subject: float(verdict == Verdict.PASS) for subject, verdict in _verdicts(run, check).items()
            if verdict != Verdict.NOT_APPLICABLE}


def _check_rate(run: RunResult, check: str) -> CheckRate:
    verdicts = list(_verdicts(run, check).values())
    passed, failed = verdicts.count(Verdict.PASS), verdicts.count(Verdict.FAIL)
    return CheckRate(check, passed, failed, verdicts.count(Verdict.NOT_APPLICABLE), wilson(passed, passed + failed))


def _criterion_mean(run: RunResult, criterion: str) -> CriterionMean:
    values = _per_subject(run, criterion)
    groups = {conversation.subject: conversation.group for conversation in run.conversations}
    by_group: dict[str, list[float]] = defaultdict(list)
    for subject, value in values.items():
        by_group[groups.get(subject, "")].append(value)
    given = [score.score for score in run.scores if score.criterion == criterion and score.score is not None]
    return CriterionMean(criterion, _on_scale(mean_interval(list(values.values()))),
                         {group: _on_scale(mean_interval(by_group[group])) for group in sorted(by_group)},
                         low=sum(value <= LOW_SCORE for value in given), scored=len(given),
                         by_conversation=_per_conversation(run, criterion))


def _on_scale(mean: Interval) -> Interval:
    """A mean score's interval cut to the scale (1 to 5): a t interval of few scores overshoots."""
    low = None if mean.low is None else max(1.0, mean.low)
    high = None if mean.high is None else min(5.0, mean.high)
    return Interval(mean.value, low, high, mean.n)


def _agreements(run: RunResult) -> tuple[Agreement, ...]:
    """Per criterion, between the first two judging passes (by name, as first seen)."""
    judges = _ordered(score.judge for score in run.scores)
    if len(judges) < 2:
        return ()
    first, second = judges[:2]
    rows = []
    for criterion in _criterion_names(run):
        given: dict[tuple[str, str], int] = {
            (score.judge, score.conversation_id): score.score for score in run.scores
            if score.criterion == criterion and score.score is not None and score.judge in (first, second)}
        shared = sorted({conversation for judge, conversation in given if judge == first}
                        & {conversation for judge, conversation in given if judge == second})
        exact, within, kappa = agreement([given[first, c] for c in shared], [given[second, c] for c in shared])
        rows.append(Agreement(criterion, exact, within, kappa, len(shared)))
    return tuple(rows)


def summarise(run: RunResult) -> Summary:
    """Pass rates, mean scores, the passes' self-consistency, the judge's health and calibration, and the cost."""
    tokens = run.judge_tokens
    for conversation in run.conversations:
        tokens = tokens + conversation.tokens + conversation.player_tokens
    return Summary(
        checks=tuple(_check_rate(run, check) for check in _ordered(result.check for result in run.checks)),
        criteria=tuple(_criterion_mean(run, criterion) for criterion in _criterion_names(run)),
        agreement=_agreements(run),
        tokens=tokens,
        judging=judge_health(run),
        calibration=calibration_summary(run),
    )


# --- two runs ---------------------------------------------------------------------------------------

def _paired(a: dict[str, float], b: dict[str, float], name: str) -> Interval | None:
    """Mean of paired differences with a percentile bootstrap interval, seeded by the row's name."""
    shared = sorted(set(a) & set(b))
    if len(shared) < 2:
        return None
    differences = [b[c] - a[c] for c in shared]
    return Interval(fmean(differences), *bootstrap(differences, fmean, name), len(differences))


def _newcombe(a: Interval, b: Interval) -> Interval:
    """B − A of two independent proportions, Newcombe's hybrid score interval."""
    pa, la, ua, pb, lb, ub = a.value, a.low, a.high, b.value, b.low, b.high
    if pa is None or la is None or ua is None or pb is None or lb is None or ub is None:
        return Interval(None, None, None, a.n + b.n)
    difference = pb - pa
    return Interval(difference, max(-1.0, difference - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)),
                    min(1.0, difference + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)), a.n + b.n)


def _welch(a: Sequence[float], b: Sequence[float]) -> Interval:
    """B − A of two independent means, Welch's t interval."""
    if not a or not b:
        return Interval(None, None, None, len(a) + len(b))
    difference = fmean(b) - fmean(a)
    if len(a) < 2 or len(b) < 2:
        return Interval(difference, None, None, len(a) + len(b))
    va, vb = stdev(a) ** 2 / len(a), stdev(b) ** 2 / len(b)
    if va + vb == 0:
        return Interval(difference, difference, difference, len(a) + len(b))
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = _t95(df) * math.sqrt(va + vb)
    return Interval(difference, difference - half, difference + half, len(a) + len(b))


def compare(a: RunResult, b: RunResult) -> records.Comparison:
    """Each check's pass rate and criterion's mean in A and B, and B − A: paired by persona or case (bootstrap) when
    both runs have the same ones, else Newcombe for rates, Welch for means."""
    same = {c.subject for c in a.conversations} == {c.subject for c in b.conversations} and bool(a.conversations)
    rows = []
    for check in _ordered([result.check for result in a.checks] + [result.check for result in b.checks]):
        rate_a, rate_b = _check_rate(a, check).rate, _check_rate(b, check).rate
        paired = _paired(_pass_values(a, check), _pass_values(b, check), f"check:{check}") if same else None
        rows.append(records.ComparisonRow("check", check, rate_a, rate_b, paired or _newcombe(rate_a, rate_b)))
    names = _ordered(_criterion_names(a) + _criterion_names(b), [criterion.name for criterion in CRITERIA])
    for criterion in names:
        values_a, values_b = _per_subject(a, criterion), _per_subject(b, criterion)
        paired = _paired(values_a, values_b, f"criterion:{criterion}") if same else None
        rows.append(records.ComparisonRow("criterion", criterion, mean_interval(list(values_a.values())),
                                          mean_interval(list(values_b.values())),
                                          paired or _welch(list(values_a.values()), list(values_b.values()))))
    return records.Comparison(a.label, b.label, tuple(rows))
