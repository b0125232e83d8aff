"""The deployment's WhatsApp numbers (several split the sending pace and the risk of a ban) and which one a participant
is given at enrolment; they keep it, and a row naming none has the first, default one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["BALANCED", "DEFAULT_NUMBER", "NUMBER_NAME", "ONE_NUMBER", "NumberPlan", "NumberRule", "assign_number",
           "parse_rule"]

DEFAULT_NUMBER = "main"
"""The one number of a deployment that declares none."""
NUMBER_NAME = re.compile(r"[a-z0-9_-]{1,32}")
BALANCED, ARM, STRATUM = "balanced", "arm", "stratum"


@dataclass(frozen=True)
class NumberRule:
    """``balanced`` (fewest participants in the study), ``arm`` or ``stratum`` (named like theirs, for ``field``)."""

    kind: str = BALANCED
    field: str = ""

    def describe(self) -> str:
        return f"{STRATUM}:{self.field}" if self.kind == STRATUM else self.kind


@dataclass(frozen=True)
class NumberPlan:
    """The deployment's numbers (the first is the default) and the rule that gives one at enrolment."""

    numbers: tuple[str, ...] = (DEFAULT_NUMBER,)
    rule: NumberRule = NumberRule()

    @property
    def default(self) -> str:
        return self.numbers[0]

    @property
    def several(self) -> bool:
        return len(self.numbers) > 1

    def of(self, stored: str | None) -> str:
        """The number a participant's row stands for (None: the default one)."""
        return stored or self.default


ONE_NUMBER = NumberPlan()
"""A deployment with one number (and what code that knows of no other assumes)."""


def parse_rule(raw: str) -> NumberRule:
    """``balanced``, ``arm`` or ``stratum:<field>``; ValueError saying what is accepted."""
    text = raw.strip().lower()
    if text in (BALANCED, ARM):
        return NumberRule(text)
    kind, _, field = text.partition(":")
    if kind == STRATUM and re.fullmatch(r"[a-z0-9_]{1,32}", field):
        return NumberRule(STRATUM, field)
    raise ValueError(f"{raw!r} is not a rule: write balanced, arm, or stratum:FIELD (e.g. stratum:site)")


def assign_number(plan: NumberPlan, *, arm: str | None, strata: Mapping[str, str], counts: Mapping[str, int],
                  asked: str | None = None) -> str:
    """``asked`` when the team named one, else the plan's rule's (``counts``: participants still in the study per
    number); ValueError for a number the deployment does not have."""
    if asked is not None:
        if asked not in plan.numbers:
            raise ValueError(f"there is no number {asked!r}; this deployment has {', '.join(plan.numbers)}")
        return asked
    if not plan.several:
        return plan.default
    rule = plan.rule
    if rule.kind == BALANCED:
        return min(plan.numbers, key=lambda name: (counts.get(name, 0), plan.numbers.index(name)))
    wanted = arm if rule.kind == ARM else strata.get(rule.field)
    if wanted is None or wanted not in plan.numbers:
        what = "arm" if rule.kind == ARM else f"level of {rule.field}"
        raise ValueError(f"NUMBER_ASSIGNMENT={rule.describe()} gives each participant the number named like their "
                         f"{what}, but theirs is {wanted!r} and this deployment has {', '.join(plan.numbers)}")
    return wanted
