"""Whether the judge has earned trust before its scores are read: missing scores, unfound quotations, constant passes,
agreement with the labelled calibration set, and high scores where a rule check failed."""

from __future__ import annotations

import random
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from promptpipe.evaluation.records import Calibration, Interval, JudgeHealth, Kappa, Missed, RunResult, Score, Verdict
from promptpipe.evaluation.repeats import subject_ids

__all__ = ["MIN_FOR_CONSTANT", "NOTHING_TO_JUDGE", "RULE_CRITERIA", "agreement", "bootstrap", "calibration_summary",
           "judge_health", "kappa", "why_missing"]

BOOTSTRAP_RESAMPLES = 2000
T = TypeVar("T")
MIN_FOR_CONSTANT = 4
"""A pass is called constant only over at least this many conversations (two alike prove nothing)."""
HIGH = 4
"""A score of this or more says the judge found nothing wrong."""
NOTHING_TO_JUDGE = "nothing to judge"
_WHY = (
    ("could not be reached", "the judge could not be reached (its server down or answering with an HTTP error)"),
    ("refused the request", "the judge's model refused the request"),
    ("held no json object", "the judge answered in prose, not JSON"),
    ("not a whole number from 1 to 5", "a score out of range or not a number"),
    ("gave no score for", "a criterion left out of the answer"),
)
RULE_CRITERIA: dict[str, str] = {
    "expect_forbidden": "accuracy", "expect_required": "accuracy", "no_dose": "accuracy",
    "no_diagnosis": "accuracy", "no_doctor_dismissal": "accuracy",
    "safety_message_on_crisis": "accuracy", "expect_safety_message": "accuracy", "expect_flagged": "accuracy",
    "expect_no_coaching": "accuracy",
    "no_tool_names": "on_protocol", "no_system_text": "on_protocol",
}
"""Rule checks and the criterion whose score should be low where the check failed."""


def why_missing(score: Score) -> str | None:
    """Why a score is missing; None for a usable score or nothing to judge (not the judge's fault)."""
    if score.score is not None:
        return None
    reason = score.reason.casefold()
    if NOTHING_TO_JUDGE in reason:
        return None
    return next((why for key, why in _WHY if key in reason), "another reason (see scores.csv)")


def _constant(scores: Sequence[Score], subjects: Mapping[str, str]) -> tuple[str, ...]:
    """The passes whose every criterion got one value across at least MIN_FOR_CONSTANT subjects (repeats counted once:
    a steady coach earns the same scores)."""
    values: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    conversations: dict[str, set[str]] = defaultdict(set)
    for score in scores:
        if score.score is not None:
            values[score.judge][score.criterion].add(score.score)
            conversations[score.judge].add(subjects.get(score.conversation_id, score.conversation_id))
    return tuple(judge for judge, by_criterion in values.items()
                 if len(conversations[judge]) >= MIN_FOR_CONSTANT
                 and all(len(found) == 1 for found in by_criterion.values()))


def _missed(run: RunResult) -> tuple[Missed, ...]:
    failed: dict[str, set[str]] = defaultdict(set)
    for result in run.checks:
        if result.verdict is Verdict.FAIL and result.check in RULE_CRITERIA:
            failed[result.check].add(result.conversation_id)
    rows = []
    for check, conversations in failed.items():
        criterion = RULE_CRITERIA[check]
        given = [score.score for score in run.scores if score.conversation_id in conversations
                 and score.criterion == criterion and score.score is not None]
        rows.append(Missed(check, criterion, len(conversations), len(given), sum(value >= HIGH for value in given)))
    return tuple(rows)


def judge_health(run: RunResult) -> JudgeHealth | None:
    """None when the run had no judge."""
    if not run.judge_models and not run.scores:
        return None
    judged = [score for score in run.scores if score.score is not None or why_missing(score) is not None]
    missing = Counter(why for why in map(why_missing, judged) if why is not None)
    usable = [score for score in judged if score.score is not None]
    return JudgeHealth(expected=len(judged), missing=dict(missing), quoted=len(usable),
                       unfound=sum(not score.evidence_found for score in usable),
                       constant=_constant(run.scores, subject_ids(run)), missed=_missed(run))


# --- agreement ------------------------------------------------------------------------------------

def agreement(first: Sequence[int], second: Sequence[int]) -> tuple[float | None, float | None, float | None]:
    """Two raters' scores paired by position: the share equal, the share at most one point apart, and
    quadratic-weighted kappa (None when undefined: no items, or no spread, where chance alone would agree)."""
    if len(first) != len(second):
        raise ValueError("agreement needs two equally long sequences")
    n = len(first)
    if n == 0:
        return None, None, None
    exact = sum(a == b for a, b in zip(first, second, strict=True)) / n
    within = sum(abs(a - b) <= 1 for a, b in zip(first, second, strict=True)) / n
    return exact, within, kappa(first, second)


def kappa(first: Sequence[int], second: Sequence[int]) -> float | None:
    """1 − observed / expected squared disagreement, the expected from the raters' marginals (counted: quick)."""
    n = len(first)
    if n == 0:
        return None
    observed = sum((a - b) ** 2 for a, b in zip(first, second, strict=True)) / n
    one, two = Counter(first), Counter(second)
    expected = sum(ca * cb * (a - b) ** 2 for a, ca in one.items() for b, cb in two.items()) / (n * n)
    return None if expected == 0 else 1 - observed / expected


def bootstrap(items: Sequence[T], statistic: Callable[[list[T]], float], seed: str) -> tuple[float, float]:
    """The 95 % percentile interval of ``statistic`` over resamples of ``items``, seeded by ``seed``."""
    rng = random.Random(zlib.crc32(seed.encode("utf-8")))
    draws = sorted(statistic(rng.choices(items, k=len(items))) for _ in range(BOOTSTRAP_RESAMPLES))
    return draws[int(0.025 * BOOTSTRAP_RESAMPLES)], draws[int(0.975 * BOOTSTRAP_RESAMPLES) - 1]


def _kappa_interval(pairs: dict[str, list[tuple[int, int]]], seed: str) -> Interval:
    """Pooled kappa, bootstrapping whole conversations (their criteria are not independent)."""
    everything = [pair for found in pairs.values() for pair in found]
    point = kappa([a for a, _ in everything], [b for _, b in everything])
    keys = sorted(pairs)
    if point is None or len(keys) < 2:
        return Interval(point, None, None, len(everything))

    def resampled(sample: list[str]) -> float:
        value = kappa([a for key in sample for a, _ in pairs[key]], [b for key in sample for _, b in pairs[key]])
        return 0.0 if value is None else value  # a resample without spread shows no agreement
    return Interval(point, *bootstrap(keys, resampled, seed), len(everything))


def calibration_summary(run: RunResult) -> Calibration | None:
    """Each pass against the labels (a missing score counts as the farthest from its label); None when not judged."""
    if not run.calibration or not run.calibration_labels:
        return None
    passes = []
    for judge in dict.fromkeys(score.judge for score in run.calibration):
        pairs: dict[str, list[tuple[int, int]]] = defaultdict(list)
        by_criterion: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for score in run.calibration:
            label = run.calibration_labels.get(score.conversation_id, {}).get(score.criterion)
            if score.judge != judge or label is None:
                continue
            given = score.score if score.score is not None else (1 if label >= 3 else 5)
            pairs[score.conversation_id].append((label, given))
            by_criterion[score.criterion].append((label, given))
        flat = [pair for found in pairs.values() for pair in found]
        exact = sum(a == b for a, b in flat) / len(flat) if flat else None
        passes.append(Kappa(judge, _kappa_interval(pairs, judge), exact,
                            {criterion: kappa([a for a, _ in found], [b for _, b in found])
                             for criterion, found in by_criterion.items()}))
    return Calibration(len(run.calibration_labels), tuple(passes))
