"""``promptpipe evaluate --repeats N``: every persona and case runs N times, each repeat with a seed of its own that
reaches the coach's, the participant's and the judge's requests."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from promptpipe.cli._evaluate import Models, add_arguments, evaluate_command
from promptpipe.config import Settings
from promptpipe.errors import AdminError
from promptpipe.evaluation.cases import load_cases
from promptpipe.evaluation.repeats import pass_seed
from promptpipe.llm import Completion
from tests.conftest import make_settings
from tests.evaluation.fake_models import FakeCoach, FakeJudge, FakePlayer

OPT_OUT = "I'd rather not get these texts anymore, thanks for everything though!"
"""The one message of the built-in case opt-out-polite."""
PERSONA = """
[[persona]]
name = "Maya"
habit = "a 10-minute walk around the block"
preferred_time = "12:30"
anchor = "after lunch"
motivation = "my back hurts by Friday"
answer_rate = 1.0
"""
CHECKS_ONLY = "[checks]\nall = 1.0\n"


class Seen:
    """Wraps a fake model and notes the seed of each request, with the last message it answered."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.requests: list[tuple[int | None, str]] = []

    async def complete(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None, *,
                       seed: int | None = None) -> Completion:
        self.requests.append((seed, str(messages[-1].get("content") or "")))
        answer: Completion = await self.inner.complete(messages, tools, seed=seed)
        return answer

    def seeds(self) -> set[int | None]:
        return {seed for seed, _ in self.requests}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state", "http://127.0.0.1:9/v1")


async def run(settings: Settings, argv: list[str], models: Models) -> tuple[int, list[str]]:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    said: list[str] = []
    return await evaluate_command(settings, parser.parse_args(argv), models=models, say=said.append), said


async def test_each_conversation_runs_once_per_repeat_and_each_repeat_has_its_own_seed(
    settings: Settings, tmp_path: Path
) -> None:
    coach, player = Seen(FakeCoach(load_cases())), Seen(FakePlayer())
    judges = (Seen(FakeJudge()), Seen(FakeJudge(lenient=True)))
    models = Models(coach=coach, player=player, judges=(("fake#1", judges[0]), ("fake#2", judges[1])),
                    coach_name="fake-coach", player_name="fake-player")
    (tmp_path / "personas.toml").write_text(PERSONA, encoding="utf-8")
    (tmp_path / "gate.toml").write_text(CHECKS_ONLY, encoding="utf-8")
    code, said = await run(settings, ["--personas", str(tmp_path / "personas.toml"), "--only", "Maya,opt-out-polite",
                                      "--days", "1", "--repeats", "3", "--seed", "5", "--out", str(tmp_path / "run"),
                                      "--thresholds", str(tmp_path / "gate.toml")], models)
    assert code == 0, "\n".join(said)

    asked = [seed for seed, last in coach.requests if last == OPT_OUT]
    assert sorted(asked) == [5, 6, 7], "the coach had the case's conversation three times, once per seed"
    assert coach.seeds() == {5, 6, 7} and player.seeds() == {5, 6, 7}
    for name, judge in zip(("fake#1", "fake#2"), judges, strict=True):
        assert judge.seeds() == {pass_seed(seed, name) for seed in (5, 6, 7)}
    assert judges[0].seeds().isdisjoint(judges[1].seeds()), "two passes of one model would agree by construction"

    runs = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["run"]
    assert runs["repeats"] == 3
    assert sorted((c["id"], c["repeat"], c["seed"]) for c in runs["conversations"]) == [
        ("case:opt-out-polite#1", 1, 5), ("case:opt-out-polite#2", 2, 6), ("case:opt-out-polite#3", 3, 7),
        ("persona:Maya#1", 1, 5), ("persona:Maya#2", 2, 6), ("persona:Maya#3", 3, 7)]
    assert any("each 3 times (seeds 5 to 7)" in line for line in said)
    assert any("case opt-out-polite (repeat 2 of 3)" in line for line in said)


async def test_a_single_run_keeps_its_ids_and_still_seeds_the_models(settings: Settings, tmp_path: Path) -> None:
    coach = Seen(FakeCoach(load_cases()))
    models = Models(coach=coach, player=None, judges=(), coach_name="fake-coach", player_name=None)
    code, said = await run(settings, ["--only", "opt-out-polite", "--no-judge", "--seed", "9",
                                      "--out", str(tmp_path / "run")], models)
    assert code == 0, said
    [conversation] = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["run"]["conversations"]
    assert (conversation["id"], conversation["repeat"], conversation["seed"]) == ("case:opt-out-polite", None, 9)
    assert coach.seeds() == {9}


@pytest.mark.parametrize("repeats", ["0", "-2", "101"])
async def test_a_repeat_count_out_of_range_is_refused_before_anything_runs(settings: Settings, tmp_path: Path,
                                                                           repeats: str) -> None:
    models = Models(coach=FakeCoach(), player=None, judges=(), coach_name="fake-coach", player_name=None)
    with pytest.raises(AdminError, match=r"--repeats: give 1 to 100 runs of each conversation"):
        await run(settings, ["--repeats", repeats, "--out", str(tmp_path / "run")], models)
    assert not (tmp_path / "run").exists()
