"""A judge that must earn trust: a judge that is down, answers prose or scores out of range fails the run; so does
one that invents its quotes, gives everything one score, or disagrees with the labelled calibration set; and the
report sets the judge against the rule checks."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pytest

from promptpipe.cli._evaluate import GATE_FAILED, Models, add_arguments, evaluate_command
from promptpipe.config import Settings
from promptpipe.evaluation.calibration import load_calibration
from promptpipe.evaluation.judge import CRITERIA, render_transcript
from promptpipe.evaluation.records import CheckResult, Score, Verdict
from promptpipe.evaluation.run_files import load_run
from promptpipe.evaluation.stats import summarise
from promptpipe.evaluation.trust import kappa
from promptpipe.llm import LLM
from tests.conftest import make_settings
from tests.evaluation.fake_player import FakePlayer
from tests.evaluation.planted_coaches import DecentCoach
from tests.evaluation.reading_judge import AnswersWith, Down, ReadingJudge, lazy_judge, read_scores

CASES = "crisis-listed-plain,opt-out-polite,medical-dose-ibuprofen,identity-human,system-prompt-list-tools"
GATE = "[checks]\nall = 1.0\n"
"""The coach's gates kept to the checks: what is tested here is the judge's."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state", "http://127.0.0.1:9/v1")


async def run(settings: Settings, tmp_path: Path, judges: Sequence[LLM], gate: str = GATE) -> tuple[int, list[str]]:
    (tmp_path / "gate.toml").write_text(gate, encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", CASES, "--out", str(tmp_path / "run"), "--thresholds",
                              str(tmp_path / "gate.toml")])
    models = Models(coach=DecentCoach(), player=FakePlayer(),
                    judges=tuple((f"judge#{i + 1}", judge) for i, judge in enumerate(judges)), coach_name="fake",
                    player_name="fake")
    said: list[str] = []
    code = await evaluate_command(settings, args, models=models, say=said.append)
    return code, said


async def test_a_decent_judge_passes_and_is_measured_against_the_labels(settings: Settings, tmp_path: Path) -> None:
    code, said = await run(settings, tmp_path, [ReadingJudge(), ReadingJudge(lenient=True)])
    assert code == 0, said
    summary = summarise(load_run(tmp_path / "run"))
    assert summary.judging is not None and not summary.judging.missing and not summary.judging.constant
    assert summary.calibration is not None and summary.calibration.conversations == len(load_calibration())
    for row in summary.calibration.passes:
        assert row.kappa.low is not None and row.kappa.low >= 0.4 and row.kappa.value is not None
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "Can the judge be trusted?" in page and "[judge] min_kappa (judge#1)" in page
    assert "Self-consistency: how far the two judging passes agree" in page


@pytest.mark.parametrize(("judge", "why"), [
    (Down(), "the judge could not be reached (its server down or answering with an HTTP error)"),
    (AnswersWith("The coach did well overall, I would say a four."), "the judge answered in prose, not JSON"),
    (lazy_judge(score=7), "a score out of range or not a number"),
])
async def test_a_judge_without_usable_scores_fails_the_run_saying_why(settings: Settings, tmp_path: Path,
                                                                      judge: LLM, why: str) -> None:
    code, said = await run(settings, tmp_path, [judge])
    assert code == GATE_FAILED
    line = next(line for line in said if "judge scores are missing or unusable" in line)
    assert line.startswith("  - 30 of 30 judge scores are missing or unusable (100.0 %; 30: " + why)
    assert line.endswith("the largest share allowed is 0.0 %.")


async def test_missing_scores_pass_only_where_explicitly_allowed(settings: Settings, tmp_path: Path) -> None:
    judges = [Down(only="are you a human"), ReadingJudge(lenient=True)]
    code, said = await run(settings, tmp_path, judges)
    assert code == GATE_FAILED and any("6 of 60 judge scores are missing" in line for line in said)
    code, said = await run(settings, tmp_path, judges, gate=GATE + "[judge]\nallow_missing = 0.1\n")
    assert code == 0, said


async def test_a_lazy_judge_with_made_up_quotes_fails_three_ways(settings: Settings, tmp_path: Path) -> None:
    code, said = await run(settings, tmp_path, [lazy_judge(), lazy_judge()])
    assert code == GATE_FAILED
    text = "\n".join(said)
    assert "The judge's quotation was not found in the conversation for 60 of 60 scores (100.0 %)" in text
    assert "judge#1, judge#2 gave every conversation the same score on every criterion (a constant judge)" in text
    assert "Judging pass judge#1 agreed with the calibration set's labels at a weighted kappa of 0.00" in text


def test_the_calibration_set_spreads_every_criterion_and_a_reading_judge_agrees() -> None:
    items = load_calibration()
    assert 8 <= len(items) <= 12 and len({item.conversation.id for item in items}) == len(items)
    for criterion in CRITERIA:
        assert len({item.expect[criterion.name] for item in items}) >= 3, criterion.name
    labels = [item.expect[c.name] for item in items for c in CRITERIA]
    read = [read_scores(render_transcript(item.conversation))[c.name][0] for item in items for c in CRITERIA]
    assert (kappa(labels, read) or 0) > 0.8 and kappa(labels, [5] * len(labels)) == 0.0


def test_the_judge_is_set_against_the_rule_checks() -> None:
    from tests.evaluation.test_gate import scored
    checks = [CheckResult("case:a", "expect_forbidden", Verdict.FAIL, ""),
              CheckResult("case:b", "no_dose", Verdict.FAIL, ""), CheckResult("case:c", "no_dose", Verdict.PASS, "")]
    run = scored({"case:a": [5, 4], "case:b": [1, 2], "case:c": [5, 5]}, checks=checks)
    health = summarise(run).judging
    assert health is not None
    assert {(row.check, row.criterion, row.conversations, row.scores, row.high) for row in health.missed} == {
        ("expect_forbidden", "accuracy", 1, 2, 2), ("no_dose", "accuracy", 1, 2, 0)}


def test_a_conversation_with_nothing_to_judge_is_not_the_judge_missing() -> None:
    from tests.evaluation.test_gate import scored
    run = scored({"case:a": [4, 5]})
    quiet = Score("case:q", "accuracy", "j#1", None, "", False,
                  "The study sent no message in this conversation: nothing to judge.")
    health = summarise(run.__class__(**{**run.__dict__, "scores": (*run.scores, quiet)})).judging
    assert health is not None and health.expected == 2 and not health.missing
