"""The numbers in the report: pass rates, mean scores, the judges' agreement, and two runs compared."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from promptpipe.evaluation.records import CheckResult, Conversation, RunResult, Score, Source, TokenCount, Verdict
from promptpipe.evaluation.stats import agreement, compare, mean_interval, summarise, wilson

T0 = datetime(2026, 3, 2, tzinfo=UTC)


def chat(id: str, group: str, tokens: int = 0) -> Conversation:
    return Conversation(id=id, source=Source.PERSONA, label=id, group=group, timezone="UTC", messages=(),
                        tool_uses=(), profile={}, schedule_times=(), status="active", stage="FEEDBACK", flags=(),
                        quiet_hours=None, study_days=1, tokens=TokenCount(1, tokens, 0),
                        player_tokens=TokenCount(1, 0, tokens))


def run(label: str, conversations: list[Conversation], checks: Sequence[tuple[str, str, Verdict]],
        scores: Sequence[tuple[str, str, str, int | None]]) -> RunResult:
    return RunResult(label=label, started_at=T0, finished_at=T0, coach_model="coach", player_model="player",
                     judge_models=("judge", "judge"), study_days=1, conversations=tuple(conversations),
                     checks=tuple(CheckResult(c, name, verdict, "") for c, name, verdict in checks),
                     scores=tuple(Score(c, criterion, judge, value, "", True) for c, criterion, judge, value in scores),
                     judge_tokens=TokenCount(4, 1000, 100))


def test_wilson_matches_the_textbook_interval() -> None:
    rate = wilson(8, 10)
    assert rate.value == 0.8 and rate.n == 10
    assert rate.low == pytest.approx(0.490, abs=0.001) and rate.high == pytest.approx(0.943, abs=0.001)
    assert wilson(10, 10).high == 1.0 and wilson(10, 10).low == pytest.approx(0.722, abs=0.001)
    assert wilson(0, 0).value is None


def test_a_mean_has_a_t_interval() -> None:
    mean = mean_interval([3, 4, 5, 4])
    assert mean.value == 4.0 and mean.low == pytest.approx(2.701, abs=0.001)
    assert mean_interval([4]).low is None and mean_interval([]).value is None


def test_kappa_is_one_for_perfect_agreement_and_near_zero_for_chance() -> None:
    assert agreement([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]) == (1.0, 1.0, 1.0)
    exact, within, kappa = agreement([1, 1, 5, 5], [1, 5, 1, 5])  # the second judge ignores the first
    assert (exact, within, kappa) == (0.5, 0.5, 0.0)
    assert agreement([2, 3, 4, 5], [3, 4, 5, 4])[1] == 1.0
    assert agreement([], []) == (None, None, None)


def test_summary_of_a_run_judged_twice() -> None:
    conversations = [chat("persona:a", "terse", 10), chat("persona:b", "terse", 10), chat("case:c", "crisis", 10)]
    checks = [("persona:a", "quiet_hours", Verdict.PASS), ("persona:a", "safety_message", Verdict.NOT_APPLICABLE),
              ("persona:b", "quiet_hours", Verdict.FAIL), ("case:c", "quiet_hours", Verdict.PASS),
              ("case:c", "safety_message", Verdict.PASS)]
    scores = [("persona:a", "tone", "j#1", 4), ("persona:a", "tone", "j#2", 5),
              ("persona:b", "tone", "j#1", 2), ("persona:b", "tone", "j#2", 2),
              ("case:c", "tone", "j#1", 5), ("case:c", "tone", "j#2", 3),
              ("persona:a", "accuracy", "j#1", 5), ("persona:a", "accuracy", "j#2", None),
              ("persona:a", "custom", "j#1", 3)]
    summary = summarise(run("A", conversations, checks, scores))

    assert [c.check for c in summary.checks] == ["quiet_hours", "safety_message"]
    quiet, safety = summary.checks
    assert (quiet.passed, quiet.failed, quiet.not_applicable, quiet.rate.n) == (2, 1, 0, 3)
    assert quiet.rate.value == pytest.approx(2 / 3)
    assert (safety.passed, safety.not_applicable, safety.rate.value) == (1, 1, 1.0)

    assert [c.criterion for c in summary.criteria] == ["accuracy", "tone", "custom"]  # rubric order first
    tone = summary.criteria[1]
    assert tone.mean.value == pytest.approx((4.5 + 2 + 4) / 3) and tone.mean.n == 3
    assert tone.by_group["terse"].value == pytest.approx(3.25) and tone.by_group["crisis"].value == 4
    assert summary.criteria[0].mean.value == 5 and summary.criteria[0].mean.n == 1

    agreement_on = {a.criterion: a for a in summary.agreement}
    assert agreement_on["tone"].n == 3
    assert agreement_on["tone"].exact == pytest.approx(1 / 3)
    assert agreement_on["tone"].within_one == pytest.approx(2 / 3)
    assert agreement_on["accuracy"].n == 0 and agreement_on["accuracy"].within_one is None
    assert summary.tokens == TokenCount(4 + 6, 1000 + 30, 100 + 30)


def planted(label: str, tone_of_b: int, fails: int) -> RunResult:
    ids = [f"persona:{n}" for n in range(20)]
    checks = [(c, "no_tool_names", Verdict.FAIL if n < fails else Verdict.PASS) for n, c in enumerate(ids)]
    scores = [(c, "tone", judge, tone_of_b if n % 2 else tone_of_b - 1) for n, c in enumerate(ids)
              for judge in ("j#1", "j#2")]
    return run(label, [chat(c, "terse") for c in ids], checks, scores)


def test_comparing_identical_runs_finds_no_difference() -> None:
    comparison = compare(planted("A", 4, 2), planted("B", 4, 2))
    assert (comparison.a_label, comparison.b_label) == ("A", "B")
    assert [(row.what, row.name) for row in comparison.rows] == [("check", "no_tool_names"), ("criterion", "tone")]
    for row in comparison.rows:
        assert row.difference.value == 0
        assert row.difference.low is not None and row.difference.high is not None
        assert row.difference.low <= 0 <= row.difference.high


def test_comparing_finds_a_planted_difference_and_repeats_its_numbers() -> None:
    a, b = planted("A", 3, 10), planted("B", 5, 0)
    check, tone = compare(a, b).rows
    assert check.a.value == 0.5 and check.b.value == 1.0 and check.difference.value == 0.5
    assert check.difference.low is not None and check.difference.low > 0
    assert tone.difference.value == 2 and tone.difference.low is not None and tone.difference.low > 0
    assert compare(a, b) == compare(a, b)


def test_runs_of_different_conversations_are_compared_unpaired() -> None:
    a = planted("A", 3, 10)
    b = run("B", [chat("case:x", "crisis")] + [chat(f"case:{n}", "crisis") for n in range(9)],
            [(f"case:{n}", "no_tool_names", Verdict.PASS) for n in range(9)],
            [(f"case:{n}", "tone", "j#1", 5 - n % 2) for n in range(9)])
    check, tone = compare(a, b).rows
    assert check.difference.value == 0.5 and check.difference.low is not None and 0 < check.difference.low < 0.5
    assert tone.difference.value == pytest.approx(4 + 5 / 9 - 2.5)
    assert tone.difference.low is not None and tone.difference.low > 0
