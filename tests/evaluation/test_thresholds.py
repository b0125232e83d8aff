"""The CI gate: a thresholds file, and the sentences that make `promptpipe evaluate` exit non-zero."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptpipe.errors import AdminError
from promptpipe.evaluation.gates import breaches
from promptpipe.evaluation.records import (
    Agreement,
    CheckRate,
    Comparison,
    ComparisonRow,
    CriterionMean,
    Interval,
    Summary,
    TokenCount,
)
from promptpipe.evaluation.stats import wilson
from promptpipe.evaluation.thresholds import Thresholds, load_thresholds

GATE = """
[checks]
all = 1.0
quiet_hours = 0.75
[scores]
all = 3.5
tone = 3.8
[judge]
min_within_one = 0.8
[compare]
score_drop = 0.3
pass_rate_drop = 0.05
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gate.toml"
    path.write_text(text, encoding="utf-8")
    return path


def summary(quiet_passed: int = 19, tone: float = 4.2, within_one: float = 0.9) -> Summary:
    return Summary(
        checks=(CheckRate("quiet_hours", quiet_passed, 20 - quiet_passed, 0, wilson(quiet_passed, 20)),
                CheckRate("safety_message", 5, 0, 15, wilson(5, 5)),
                CheckRate("no_reply_after_stop", 0, 0, 20, wilson(0, 0))),
        criteria=(CriterionMean("tone", Interval(tone, tone - 0.3, tone + 0.3, 20)),
                  CriterionMean("accuracy", Interval(3.9, 3.6, 4.2, 20))),
        agreement=(Agreement("tone", 0.6, within_one, 0.5, 20), Agreement("accuracy", 0.7, 0.95, 0.6, 20)),
        tokens=TokenCount())


def test_a_run_within_every_limit_passes_the_gate(tmp_path: Path) -> None:
    thresholds = load_thresholds(write(tmp_path, GATE))
    assert thresholds.check_limit("quiet_hours") == 0.75 and thresholds.check_limit("anything") == 1.0
    assert thresholds.score_limit("tone") == 3.8 and thresholds.score_limit("accuracy") == 3.5
    assert breaches(thresholds, summary()) == []  # 19 of 20: its lower bound is 76.4 %; a check with no cases is not
    # judged; the lower bounds of the means are 3.9 and 3.6


def test_each_shortfall_is_one_sentence_with_its_value_and_limit(tmp_path: Path) -> None:
    found = breaches(load_thresholds(write(tmp_path, GATE)), summary(quiet_passed=18, tone=3.9, within_one=0.7))
    assert found == [
        "Check quiet_hours passed in 90.0 % of 20 conversations; the lower bound of its 95 % interval, 69.9 %, is "
        "below the lowest allowed, 75.0 %.",
        "Criterion tone scored 3.90 on average over 20 conversations; the lower bound of its 95 % interval, 3.60, is "
        "below the lowest allowed, 3.8.",
        "The two judging passes agreed within one point (self-consistency) on tone in 70.0 % of 20 conversations; "
        "the lowest allowed is 80.0 %.",
    ]


def test_a_drop_against_the_baseline_breaches_only_when_compared(tmp_path: Path) -> None:
    thresholds = load_thresholds(write(tmp_path, GATE))
    rows = (ComparisonRow("check", "quiet_hours", wilson(20, 20), wilson(19, 20), Interval(-0.05, -0.2, 0.1, 40)),
            ComparisonRow("criterion", "tone", Interval(4.7, 4.5, 4.9, 20), Interval(4.2, 4.0, 4.4, 20),
                          Interval(-0.5, -0.8, -0.2, 20)))
    found = breaches(thresholds, summary(), Comparison("prompts v1", "prompts v2", rows))
    assert found == ["Criterion tone's mean score fell by 0.50 against prompts v1; the largest drop allowed is 0.3."]
    assert breaches(Thresholds(), summary(), Comparison("v1", "v2", rows)) == []


def test_a_gate_on_scores_fails_a_run_without_a_judge(tmp_path: Path) -> None:
    unjudged = Summary(checks=(), criteria=(), agreement=(), tokens=TokenCount())
    assert breaches(load_thresholds(write(tmp_path, "[scores]\nall = 3\n")), unjudged) == [
        "The run has no judge scores, but the thresholds set lowest scores."]


@pytest.mark.parametrize(("text", "message"), [
    ("[checks\nall = 1", "not valid TOML"),
    ("[limits]\nall = 1", "unknown section [limits]"),
    ("[checks]\nquiet_hours = 1.5", "[checks] quiet_hours is 1.5; it must be from 0 to 1"),
    ("[scores]\nall = 0", "[scores] all is 0; it must be from 1 to 5"),
    ("[scores]\nkindness = 4", "[scores] kindness: there is no criterion of that name"),
    ("[checks]\nall = \"high\"", "[checks] all must be a number from 0 to 1, not 'high'"),
    ("[judge]\nmin_agreement = 0.8", "[judge] min_agreement is not a setting; the settings are: min_within_one"),
    ("[compare]\nscore_drop = -1", "[compare] score_drop is -1"),
    ("checks = 1", "checks must be a section"),
])
def test_a_bad_file_names_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(AdminError) as error:
        load_thresholds(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_check_names_are_checked_when_they_are_known(tmp_path: Path) -> None:
    path = write(tmp_path, "[checks]\nquiet_hour = 1\n")
    assert load_thresholds(path).check_limit("quiet_hour") == 1.0
    with pytest.raises(AdminError, match="no check of that name; the names are: quiet_hours, safety_message"):
        load_thresholds(path, known_checks=["safety_message", "quiet_hours"])
    with pytest.raises(AdminError, match="cannot read"):
        load_thresholds(tmp_path / "missing.toml")
