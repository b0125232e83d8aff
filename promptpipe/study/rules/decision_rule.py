"""The micro-randomised decision rule; each daily prompt time is a decision point. An unavailable one records
:data:`NOT_DRAWN` with a coded reason; an available one draws from HMAC-SHA256(secret seed, point key), so the same
point always draws the same action and whoever holds the seed can reproduce every draw."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from promptpipe.study.rules.days import in_study
from promptpipe.study.rules.protocol import AVAILABILITY_RULES, SEND, DecisionRule, Unavailable

__all__ = ["NOT_DRAWN", "DecisionFacts", "Draw", "draw_action", "unavailable_reason", "uniform"]

NOT_DRAWN = "none"
"""The action recorded for an unavailable decision point (nothing was drawn)."""


@dataclass(frozen=True)
class DecisionFacts:
    """What the service knows about a participant at a decision point."""

    study_day: int | None
    length_days: int | None
    baseline_days: int
    paused: bool
    in_quiet_hours: bool
    answered_today: bool
    study_in_use: bool
    """False without a study file: only a pause makes a decision point unavailable."""
    opted_out: bool = False
    """The pause is (also) the participant's own STOP: coded ``opted_out``, not ``paused``."""


def unavailable_reason(facts: DecisionFacts, rule: DecisionRule | None) -> str | None:
    """The coded reason the decision point is unavailable (None: available): ``not_in_study`` first, then the rule's
    in :data:`AVAILABILITY_RULES` order; without a study file only ``paused``; their own STOP is ``opted_out``."""
    reason = _reason(facts, rule)
    return Unavailable.OPTED_OUT if reason == Unavailable.PAUSED and facts.opted_out else reason


def _reason(facts: DecisionFacts, rule: DecisionRule | None) -> str | None:
    if not facts.study_in_use:
        return Unavailable.PAUSED if facts.paused else None
    if not in_study(facts.study_day, facts.length_days):
        return Unavailable.NOT_IN_STUDY
    listed = AVAILABILITY_RULES if rule is None else rule.unavailable_when
    holds = {Unavailable.PAUSED: facts.paused, Unavailable.QUIET_HOURS: facts.in_quiet_hours,
             Unavailable.BASELINE: facts.study_day is not None and 1 <= facts.study_day <= facts.baseline_days,
             Unavailable.ALREADY_ANSWERED: facts.answered_today}
    return next((reason for reason in AVAILABILITY_RULES if reason in listed and holds[reason]), None)


@dataclass(frozen=True)
class Draw:
    action: str
    probability: float | None
    """The probability that the first (treatment) action is drawn; None (as ``draw``) when nothing was drawn."""
    draw: float | None
    seed_ref: str
    """The key the draw was made with: with the secret seed it reproduces the draw."""


def uniform(seed: bytes, key: str) -> float:
    """A uniform number in [0, 1) from HMAC-SHA256(seed, key), in 53 bits (so it never rounds up to 1.0)."""
    digest = hmac.new(seed, key.encode(), hashlib.sha256).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / 2**53


def draw_action(rule: DecisionRule | None, seed: bytes, key: str) -> Draw:
    """Draw the action of the decision point ``key`` (no rule: always send, nothing randomised)."""
    if rule is None:
        return Draw(SEND, None, None, "")
    u = uniform(seed, key)
    action = rule.actions[0] if u < rule.p else rule.actions[1]
    return Draw(action, rule.p, u, key)
