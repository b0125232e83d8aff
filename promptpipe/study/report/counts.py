"""The study report's content, counted from the rows :mod:`promptpipe.study.report.reading` reads: participants,
study days, prompts per arm, decision points (drawn actions against the design, so a randomisation not running as
designed shows at once), questionnaires and where the secret seed is kept (flagged when in the database)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.states import Status
from promptpipe.export.self_report import outcome_date
from promptpipe.questionnaires.rules.definition import InstanceStatus
from promptpipe.questionnaires.store.reads import EndCount, by_questionnaire, tally
from promptpipe.study.rules.protocol import DEFAULT_ARM, SEND, DecisionRule, Study, Unavailable
from promptpipe.study.rules.summary import SEED_IN_DATABASE_WARNING

__all__ = ["ActionDraws", "AnsweredShare", "ArmDecisions", "DecisionCounts", "Participants", "PromptCounts",
           "ProtocolNamed", "QuestionnaireCounts", "ReportRows", "SeedKept", "StudyDays", "StudyReport", "report_of"]

Z95 = 1.96
"""A share drawn with probability p over n decision points falls within p ± 1.96·√(p(1−p)/n) about 95 times in 100."""


@dataclass(frozen=True)
class ProtocolNamed:
    """The study file the report was made against (all None without one)."""

    name: str | None
    hash: str | None
    length_days: int | None
    decision: DecisionRule | None
    """None: every point sends."""


@dataclass(frozen=True)
class Participants:
    total: int
    by_status: dict[str, int]
    by_arm: dict[str, int]


@dataclass(frozen=True)
class StudyDays:
    """The study day each participant with a day one has reached (see :func:`_day_reached`)."""

    with_day_one: int
    without_day_one: int
    min: int | None
    median: float | None
    max: int | None
    length_days: int | None
    completed: int


@dataclass(frozen=True)
class PromptCounts:
    """An arm's daily prompts, from the rollup the database keeps, as ``/api/v1/stats`` counts them."""

    sent: int
    delivered: int
    """With a receipt of their own (delivered, read or played); a receipt on the poll alone does not count."""
    answered: int
    receipts_expected: int
    """Of those sent, how many could show a delivery receipt: all through WhatsApp, none in a dry run."""


@dataclass(frozen=True)
class ActionDraws:
    """How often an action was drawn at available points, against the share the design expects."""

    count: int
    share: float | None
    designed: float | None
    expected_range: list[float] | None
    """Where the share falls about 95 times in 100 if the randomisation runs as designed."""


@dataclass(frozen=True)
class ArmDecisions:
    total: int
    available: int
    actions: dict[str, ActionDraws]


@dataclass(frozen=True)
class DecisionCounts:
    total: int
    available: int
    availability_rate: float | None
    unavailable_reasons: dict[str, int]
    by_arm: dict[str, ArmDecisions]


@dataclass(frozen=True)
class SeedKept:
    kept: str
    """``database`` (in clear), ``outside`` (the database holds only its fingerprint) or ``none`` (not made yet)."""
    warning: str | None
    """Set when the database holds the seed."""


@dataclass(frozen=True)
class QuestionnaireCounts:
    """One questionnaire's instances by outcome (see :mod:`promptpipe.questionnaires.store.reads`)."""

    sent: int
    completed: int
    partial: int
    expired: int
    stopped: int
    not_sent: int
    completion_rate: float | None


@dataclass(frozen=True)
class AnsweredShare:
    points: int
    answered: int
    share: float | None


@dataclass(frozen=True)
class StudyReport:
    study: ProtocolNamed
    arms: list[str]
    participants: Participants
    study_days: StudyDays
    prompts: dict[str, PromptCounts]
    decisions: DecisionCounts
    seed: SeedKept
    questionnaires: dict[str, QuestionnaireCounts]
    self_report_by_action: dict[str, AnsweredShare] | None
    """Self-reports answered at available points per drawn action (None without ``[self_report]``): shares that differ
    by action mean the outcome is missing depending on the treatment, which biases the analysis."""


@dataclass(frozen=True)
class ReportRows:
    """Everything the report counts, as read in one transaction."""

    participants: Sequence[Any]
    withdrawn: Sequence[Any]
    """(participant id, when they withdrew)"""
    prompts: Sequence[tuple[str | None, int, int, int, int]]
    """(arm, sent, delivered, answered, could show a receipt)"""
    decisions: Sequence[Any]
    seed: str
    questionnaires: Sequence[EndCount]
    self_report_points: Sequence[Any]
    self_report_days: Sequence[Any]


def _day_reached(row: Any, study: Study, withdrawn_at: datetime | None, now: datetime) -> int:
    """The study day they are on now, or were on when they completed or withdrew (0 to their last day)."""
    end = now
    if row.status == Status.COMPLETED and row.completed_at is not None:
        end = row.completed_at
    elif row.status == Status.WITHDRAWN and withdrawn_at is not None:
        end = withdrawn_at
    day = (end.astimezone(zone_or_utc(row.timezone)).date() - date.fromisoformat(row.day_one)).days + 1
    if study.length_days is not None:
        day = min(day, study.length_days + (row.extra_days or 0))
    return max(day, 0)


def _study_days(rows: Sequence[Any], withdrawn: dict[str, datetime], study: Study, now: datetime) -> StudyDays:
    days = [_day_reached(row, study, withdrawn.get(row.id), now) for row in rows if row.day_one]
    return StudyDays(
        with_day_one=len(days), without_day_one=len(rows) - len(days),
        min=min(days) if days else None, median=statistics.median(days) if days else None,
        max=max(days) if days else None, length_days=study.length_days,
        completed=sum(1 for row in rows if row.status == Status.COMPLETED),
    )


def _arm(name: str | None) -> str:
    """A participant or decision point without an arm (no study file) counts under ``default``."""
    return name or DEFAULT_ARM.name


def _prompts(rows: Sequence[Any], arms: Sequence[str]) -> dict[str, PromptCounts]:
    totals = {arm: [0, 0, 0, 0] for arm in arms}
    for arm, *counts in rows:
        totals[_arm(arm)] = [total + int(count) for total, count in zip(totals[_arm(arm)], counts, strict=True)]
    return {arm: PromptCounts(*counts) for arm, counts in totals.items()}


def _by_status(rows: Sequence[Any]) -> dict[str, int]:
    counts = Counter(row.status for row in rows)
    order = [status for status in Status if status in counts]
    return {status: counts[status] for status in order + sorted(set(counts) - set(order))}


def _range(p: float, half: float) -> list[float]:
    return [round(max(0.0, p - half), 4), round(min(1.0, p + half), 4)]


class _Drawn:
    """One arm's available draws, each at its own stored probability (a protocol change moves no earlier yardstick)."""

    def __init__(self, actions: tuple[str, ...]) -> None:
        self.actions = actions
        self.counts: Counter[str] = Counter()
        self.expected: dict[str, float] = dict.fromkeys(actions, 0.0)
        self.variance = 0.0

    def add(self, action: str, probability: float | None, count: int) -> None:
        self.counts[action] += count
        p = 1.0 if probability is None else float(probability)  # nothing randomised: the first action
        first, *rest = self.actions
        self.expected[first] += count * p
        if rest:
            self.expected[rest[0]] += count * (1 - p)
        self.variance += count * p * (1 - p)

    def actions_report(self, designed: dict[str, float]) -> dict[str, ActionDraws]:
        available = sum(self.counts.values())
        out = {}
        for action in [*designed, *sorted(set(self.counts) - set(designed))]:
            if available:
                p: float | None = round(self.expected[action] / available, 4) if action in designed else None
                half = Z95 * math.sqrt(self.variance) / available
                expected = None if p is None else _range(p, half)
            else:  # nothing drawn yet: the current design
                p = designed.get(action)
                expected = _range(p, 0.0) if p is not None else None
            out[action] = ActionDraws(count=self.counts[action], designed=p, expected_range=expected,
                                      share=round(self.counts[action] / available, 4) if available else None)
        return out


def _seed(kept: str, study: Study) -> SeedKept:
    if kept != "database":
        return SeedKept(kept, None)
    why = ("chosen by the study file: seed_in_database = true" if study.seed_in_database else
           "left there by an older release: the service moves it to its state directory when it next starts")
    return SeedKept(kept, f"{SEED_IN_DATABASE_WARNING} ({why})")


def _decisions(rows: Sequence[Any], arms: Sequence[str], study: Study) -> DecisionCounts:
    total = sum(count for *_, count in rows)
    reasons: Counter[str] = Counter()
    rule = study.decision  # the probability of each action the design draws (no rule: every available point sends)
    designed = {SEND: 1.0} if rule is None else {rule.actions[0]: rule.p, rule.actions[1]: 1 - rule.p}
    by_arm = {arm: _Drawn(tuple(designed)) for arm in arms}
    totals: Counter[str] = Counter()
    for arm, available, reason, action, probability, count in rows:
        totals[_arm(arm)] += count
        if available:
            by_arm[_arm(arm)].add(action, probability, count)
        else:
            reasons[reason or "unknown"] += count
    available = total - sum(reasons.values())
    order = [r for r in Unavailable if r in reasons] + sorted(set(reasons) - set(Unavailable))
    return DecisionCounts(
        total=total, available=available, availability_rate=round(available / total, 4) if total else None,
        unavailable_reasons={reason: reasons[reason] for reason in order},
        by_arm={arm: ArmDecisions(total=totals[arm], available=sum(by_arm[arm].counts.values()),
                                  actions=by_arm[arm].actions_report(designed)) for arm in arms},
    )


def _questionnaires(rows: Sequence[EndCount], study: Study) -> dict[str, QuestionnaireCounts]:
    """The study file's questionnaires in its order, then any other with instances."""
    found = {}
    for qid, counts in by_questionnaire(rows, [q.id for q in study.questionnaires]):
        t = tally(counts)
        rate = t.completion_rate
        found[qid] = QuestionnaireCounts(
            sent=t.sent, completed=t.by_outcome["completed"], partial=t.by_outcome["partial"],
            expired=t.by_outcome["expired"], stopped=t.by_outcome["stopped"], not_sent=t.by_outcome["not_sent"],
            completion_rate=None if rate is None else round(rate, 4))
    return found


def _self_report_by_action(points: Sequence[Any], days: Sequence[Any], study: Study) -> dict[str, AnsweredShare] | None:
    """Each available point is measured by the question of its outcome date."""
    if study.self_report is None:
        return None
    answered = {(pid, day) for pid, day, status in days if status == InstanceStatus.COMPLETED}
    counts = Counter(action for *_, action in points)
    hits: Counter[str] = Counter()
    for pid, local_date, scheduled, decided, zone, action in points:
        hits[action] += (pid, outcome_date(local_date, scheduled or decided, zone, study.self_report.at)) in answered
    return {action: AnsweredShare(counts[action], hits[action], round(hits[action] / counts[action], 4))
            for action in sorted(counts)}


def report_of(rows: ReportRows, study: Study, now: datetime) -> StudyReport:
    """The report of ``rows``; ``now`` decides which study day active participants are on."""
    people = rows.participants
    seen = {_arm(row.arm) for row in people} | {_arm(row[0]) for row in (*rows.prompts, *rows.decisions)}
    named = [arm.name for arm in study.arms] if study.in_use else []
    arms = named + sorted(seen - set(named))  # the study's arms in its order, then others (an earlier protocol's)
    return StudyReport(
        study=ProtocolNamed(name=study.name or None, hash=study.hash or None, length_days=study.length_days,
                            decision=study.decision),
        arms=arms,
        participants=Participants(total=len(people), by_status=_by_status(people),
                                  by_arm={arm: sum(1 for row in people if _arm(row.arm) == arm) for arm in arms}),
        study_days=_study_days(people, {pid: at for pid, at in rows.withdrawn}, study, now),
        prompts=_prompts(rows.prompts, arms),
        decisions=_decisions(rows.decisions, arms, study),
        seed=_seed(rows.seed, study),
        questionnaires=_questionnaires(rows.questionnaires, study),
        self_report_by_action=_self_report_by_action(rows.self_report_points, rows.self_report_days, study),
    )
