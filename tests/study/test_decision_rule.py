"""The micro-randomised decision rule: the drawn probability matches p, a decision point always
draws the same action, and the availability table (each reason, their order, a rule that lists
only some, and the service without a study file)."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import replace
from pathlib import Path

import pytest

from promptpipe.study.rules.decision_rule import (
    NOT_DRAWN,
    DecisionFacts,
    Draw,
    draw_action,
    unavailable_reason,
    uniform,
)
from promptpipe.study.rules.protocol import (
    AVAILABILITY_RULES,
    DECISION_ACTIONS,
    FIXED_STYLE,
    NO_SEND,
    PERSONALISED,
    SEND,
    DecisionRule,
    Unavailable,
)

SEED = b"\x5a" * 32
AVAILABLE = DecisionFacts(
    study_day=5, length_days=28, baseline_days=3, paused=False, in_quiet_hours=False, answered_today=False,
    study_in_use=True,
)


@pytest.mark.parametrize("p", [0.6, 0.5, 0.1])
def test_the_treatment_is_drawn_with_probability_p(p: float) -> None:
    rule = DecisionRule(actions=(SEND, NO_SEND), p=p)
    draws = [draw_action(rule, SEED, f"participant-{n % 97}|2026-05-{n // 97:05d}|09:00") for n in range(100_000)]
    treated = sum(draw.action == SEND for draw in draws)
    assert abs(treated / len(draws) - p) <= 0.01
    assert {draw.action for draw in draws} == {SEND, NO_SEND}
    assert all(draw.probability == p for draw in draws)


@pytest.mark.parametrize(("p", "expected"), [(1.0, PERSONALISED), (0.0, FIXED_STYLE)])
def test_probability_one_and_zero_are_not_random(p: float, expected: str) -> None:
    rule = DecisionRule(actions=(PERSONALISED, FIXED_STYLE), p=p)
    assert {draw_action(rule, SEED, f"point-{n}").action for n in range(2_000)} == {expected}


def test_a_decision_point_draws_the_same_action_every_time() -> None:
    """A restart or retry re-evaluates the same point: same seed and key, same draw."""
    rule = DecisionRule(p=0.5)
    for key in ("p1|2026-05-05|09:00", "p1|2026-05-06|09:00", "p2|2026-05-05|09:00"):
        first = draw_action(rule, SEED, key)
        assert draw_action(rule, SEED, key) == first
        assert first.seed_ref == key
        assert first.draw == uniform(SEED, key)
        assert first.action == (SEND if uniform(SEED, key) < 0.5 else NO_SEND)


def test_keys_and_seeds_change_the_draw() -> None:
    by_key = [uniform(SEED, f"point-{n}") for n in range(50)]
    by_seed = [uniform(bytes([n]) * 32, "point-0") for n in range(50)]
    assert len(set(by_key)) == 50 and len(set(by_seed)) == 50


def test_uniform_numbers_are_in_the_unit_interval() -> None:
    values = [uniform(SEED, str(n)) for n in range(20_000)]
    assert all(0.0 <= value < 1.0 for value in values)
    assert min(values) < 0.01 and max(values) > 0.99


def test_without_a_rule_every_point_sends_and_nothing_is_drawn() -> None:
    assert draw_action(None, SEED, "p1|2026-05-05|09:00") == Draw(SEND, None, None, "")


def test_an_unavailable_point_records_an_action_no_draw_can_give() -> None:
    assert all(NOT_DRAWN not in pair for pair in DECISION_ACTIONS)


def facts(**changes: object) -> DecisionFacts:
    return replace(AVAILABLE, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, None),
        # Not in the study: before day 1, after the last day, day 1 unknown (intake running).
        ({"study_day": 0}, "not_in_study"),
        ({"study_day": -2}, "not_in_study"),
        ({"study_day": 29}, "not_in_study"),
        ({"study_day": None}, "not_in_study"),
        ({"study_day": 28}, None),
        ({"study_day": 400, "length_days": None}, None),  # open-ended
        ({"paused": True}, "paused"),
        ({"study_day": 1}, "baseline"),
        ({"study_day": 3}, "baseline"),
        ({"study_day": 4}, None),
        ({"study_day": 1, "baseline_days": 0}, None),
        ({"in_quiet_hours": True}, "quiet_hours"),
        ({"answered_today": True}, "already_answered"),
        # The first reason that holds is the one recorded, in the declared order.
        ({"study_day": 0, "paused": True, "in_quiet_hours": True}, "not_in_study"),
        ({"study_day": 29, "answered_today": True}, "not_in_study"),
        ({"paused": True, "study_day": 2, "in_quiet_hours": True, "answered_today": True}, "paused"),
        ({"study_day": 2, "in_quiet_hours": True, "answered_today": True}, "baseline"),
        ({"in_quiet_hours": True, "answered_today": True}, "quiet_hours"),
    ],
)
def test_availability_reasons_in_order(changes: dict[str, object], expected: str | None) -> None:
    for rule in (None, DecisionRule(), DecisionRule(unavailable_when=tuple(reversed(AVAILABILITY_RULES)))):
        assert unavailable_reason(facts(**changes), rule) == expected


def test_every_reason_can_be_recorded() -> None:
    seen = {unavailable_reason(facts(**changes), None) for changes in (
        {"study_day": 0}, {"paused": True}, {"study_day": 1}, {"in_quiet_hours": True}, {"answered_today": True},
        {"paused": True, "opted_out": True},
    )}
    # the alarm clock records missed_service_down; the export derives withdrawn (days after a withdrawal)
    assert seen | {"missed_service_down", "withdrawn"} == set(Unavailable)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"paused": True}, "paused"),
        ({"study_day": 2}, None),  # baseline not listed: baseline days are decision points too
        ({"in_quiet_hours": True}, None),  # quiet hours not listed
        ({"answered_today": True}, "already_answered"),
        ({"study_day": 2, "in_quiet_hours": True, "answered_today": True}, "already_answered"),
        ({"study_day": 0}, "not_in_study"),  # always applies
    ],
)
def test_a_rule_decides_which_reasons_apply(changes: dict[str, object], expected: str | None) -> None:
    rule = DecisionRule(unavailable_when=("already_answered", "paused"))
    assert unavailable_reason(facts(**changes), rule) == expected


def test_a_rule_with_no_reasons_leaves_only_the_study_period() -> None:
    rule = DecisionRule(unavailable_when=())
    busy = facts(paused=True, study_day=1, in_quiet_hours=True, answered_today=True)
    assert unavailable_reason(busy, rule) is None
    assert unavailable_reason(replace(busy, study_day=0), rule) == "not_in_study"


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, None),
        ({"paused": True}, "paused"),
        ({"study_day": None}, None),  # no study days without a study file
        ({"study_day": 0, "length_days": None}, None),
        ({"study_day": 1}, None),  # no baseline
        ({"in_quiet_hours": True}, None),  # no quiet hours
        ({"answered_today": True}, None),  # prompts were always sent regardless
        ({"paused": True, "study_day": None, "answered_today": True}, "paused"),
    ],
)
def test_without_a_study_file_only_a_pause_makes_a_point_unavailable(
    changes: dict[str, object], expected: str | None
) -> None:
    no_study = facts(study_in_use=False, **changes)
    for rule in (None, DecisionRule(), DecisionRule(unavailable_when=())):
        assert unavailable_reason(no_study, rule) == expected


def _documented_draws() -> list[tuple[str, str, float, str]]:
    """The known vector of docs/allocation.md's decision-draw table, read from the page."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "allocation.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(decision:[^`]+)` \| `([0-9a-f]{64})` \| ([0-9.]+) \| (actions\[[01]\]) \|$", page, re.M)
    return [(key, digest, float(draw), action) for key, digest, draw, action in rows]


def test_the_documented_draw_rule_reproduces_the_service_s_draws() -> None:
    """A statistician re-implementing the page's three steps gets the service's draws and actions."""
    seed, rule = bytes(range(32)), DecisionRule(actions=(SEND, NO_SEND), p=0.5)
    documented = _documented_draws()
    assert len(documented) == 2
    for key, digest, draw, action in documented:
        assert hmac.new(seed, key.encode(), hashlib.sha256).hexdigest() == digest
        assert (int.from_bytes(bytes.fromhex(digest)[:8], "big") >> 11) / 2**53 == draw
        drawn = draw_action(rule, seed, key)
        assert (drawn.draw, drawn.seed_ref) == (draw, key)
        assert drawn.action == rule.actions[int(action[-2])]
