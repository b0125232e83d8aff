"""Repeats (``--repeats N``): each persona and case runs N times with a seed of its own, so one sample's luck neither
passes nor fails the coach; here their seeds and ids, and how far the repeats differ (:func:`spreads`)."""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev

from promptpipe.evaluation.records import Conversation, RunResult, Source, Verdict

__all__ = ["MAX_REPEATS", "CheckSpread", "CriterionSpread", "Spread", "overall", "pass_seed", "repeat_id",
           "repeat_seed", "spreads", "subject_ids"]

MAX_REPEATS = 100
"""The most runs of each conversation one evaluation takes (each costs a whole run's model calls)."""
_SEED_BITS = 0x7FFFFFFF
"""Seeds stay positive 31-bit numbers, which every OpenAI-compatible server takes."""


def repeat_seed(seed: int, index: int) -> int:
    """``seed + index``: the first repeat is the run a single repeat would have been."""
    return seed + index


def pass_seed(seed: int, judge: str) -> int:
    """Mixed with the pass's name: two passes of one model given one seed would agree by construction."""
    return zlib.crc32(f"{seed}:{judge}".encode()) & _SEED_BITS


def repeat_id(subject: str, repeat: int, repeats: int) -> str:
    """``subject#2`` …, or ``subject`` itself when it runs once, so a single run reads as before."""
    return subject if repeats == 1 else f"{subject}#{repeat}"


def subject_ids(run: RunResult) -> dict[str, str]:
    return {conversation.id: conversation.subject for conversation in run.conversations}


def overall(verdicts: Iterable[Verdict]) -> Verdict:
    """A check over the repeats: failed in any repeat fails it; else passed where it applied at all."""
    found = set(verdicts)
    if Verdict.FAIL in found:
        return Verdict.FAIL
    return Verdict.PASS if Verdict.PASS in found else Verdict.NOT_APPLICABLE


@dataclass(frozen=True)
class CriterionSpread:
    criterion: str
    values: tuple[float, ...]
    """Each scored repeat's score (its judging passes averaged)."""

    @property
    def mean(self) -> float | None:
        return fmean(self.values) if self.values else None

    @property
    def sd(self) -> float | None:
        return stdev(self.values) if len(self.values) > 1 else None

    @property
    def low(self) -> float | None:
        return min(self.values, default=None)

    @property
    def high(self) -> float | None:
        return max(self.values, default=None)


@dataclass(frozen=True)
class CheckSpread:
    check: str
    failed: int
    applied: int
    """Repeats it applied to (passed or failed)."""


@dataclass(frozen=True)
class Spread:
    subject: str
    source: Source
    label: str
    group: str
    seeds: tuple[int | None, ...]
    criteria: tuple[CriterionSpread, ...]
    checks: tuple[CheckSpread, ...]
    """Every check that applied in at least one repeat."""

    @property
    def failed(self) -> tuple[CheckSpread, ...]:
        return tuple(check for check in self.checks if check.failed)

    @property
    def unsteady(self) -> bool:
        """A check passed in some repeats and failed in others."""
        return any(0 < check.failed < check.applied for check in self.checks)

    def criterion(self, name: str) -> CriterionSpread | None:
        return next((item for item in self.criteria if item.criterion == name), None)


def spreads(run: RunResult, criteria: Sequence[str]) -> list[Spread]:
    """Each persona and case that ran more than once, worst first (most failed repeats, then the widest spread)."""
    runs: dict[str, list[Conversation]] = defaultdict(list)
    for conversation in run.conversations:
        runs[conversation.subject].append(conversation)
    found = [_spread(run, repeats, criteria) for repeats in runs.values() if len(repeats) > 1]

    def worst(spread: Spread) -> tuple[int, float, str]:
        widest = max((item.sd or 0.0 for item in spread.criteria), default=0.0)
        return -sum(check.failed for check in spread.checks), -widest, spread.subject
    return sorted(found, key=worst)


def _spread(run: RunResult, repeats: Sequence[Conversation], criteria: Sequence[str]) -> Spread:
    ids = [conversation.id for conversation in repeats]
    scores: dict[tuple[str, str], list[int]] = defaultdict(list)
    for score in run.scores:
        if score.score is not None and score.conversation_id in ids:
            scores[score.criterion, score.conversation_id].append(score.score)
    verdicts: dict[str, list[Verdict]] = defaultdict(list)
    for result in run.checks:
        if result.conversation_id in ids and result.verdict is not Verdict.NOT_APPLICABLE:
            verdicts[result.check].append(result.verdict)
    first = repeats[0]
    return Spread(first.subject, first.source, first.label, first.group,
                  tuple(conversation.seed for conversation in repeats),
                  tuple(CriterionSpread(name, tuple(fmean(scores[name, id_]) for id_ in ids if scores[name, id_]))
                        for name in criteria),
                  tuple(CheckSpread(check, found.count(Verdict.FAIL), len(found)) for check, found in verdicts.items()))
