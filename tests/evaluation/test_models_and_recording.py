"""The evaluation's models as the command builds them from the settings (the real openai client
against the fake server), and what is recorded of the coach's tool calls."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from promptpipe.cli._evaluate import add_arguments, evaluate_command, models_from
from promptpipe.cli.serve import main
from promptpipe.evaluation.recording import RecordingLLM, call_problem
from promptpipe.llm import Completion, ToolCall
from promptpipe.logging import configure_logging
from tests.conftest import make_settings
from tests.fakes.openai_server import FakeOpenAIServer

SCHEDULER = {
    "type": "object",
    "properties": {"action": {"type": "string", "enum": ["create", "list"]}, "fixed_time": {"type": "string"}},
    "required": ["action"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(("arguments", "problem"), [
    ('{"action": "create", "fixed_time": "07:30"}', None),
    ('{"action": "create"', "not valid JSON"),
    ('["create"]', "not a JSON object"),
    ('{"fixed_time": "07:30"}', "required argument(s) missing: action"),
    ('{"action": "create", "when": "7"}', "unknown argument(s): when"),
    ('{"action": "erase"}', "not one of create, list"),
])
def test_a_tool_call_is_held_to_what_its_tool_declares(arguments: str, problem: str | None) -> None:
    found = call_problem(ToolCall("c1", "scheduler", arguments), SCHEDULER)
    assert found == problem if problem is None else problem in (found or "")
    assert "not offered" in (call_problem(ToolCall("c2", "send_email", "{}"), None) or "")


async def test_the_recorder_counts_tokens_and_records_calls_against_the_tools_offered() -> None:
    class Model:
        async def complete(self, messages: object, tools: object = None, *, seed: object = None) -> Completion:
            return Completion(None, (ToolCall("a", "scheduler", '{"action": "list"}'), ToolCall("b", "hack", "{}")),
                              prompt_tokens=120, completion_tokens=8)

    recorder = RecordingLLM(Model())
    offered = [{"type": "function", "function": {"name": "scheduler", "parameters": SCHEDULER}}]
    await recorder.complete([{"role": "user", "content": "hi"}], offered)
    assert [(use.name, use.offered, use.error is None) for use in recorder.tool_uses] == [
        ("scheduler", True, True), ("hack", False, False)]
    assert (recorder.tokens.requests, recorder.tokens.total) == (1, 128)


async def test_the_command_reaches_an_openai_compatible_server_and_counts_its_tokens(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """No EVAL_* settings: the participants and the judge use the coach's server and model."""
    settings = make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state", fake_openai.url)
    fake_openai.always("I'm so sorry it is this hard. You deserve support, and the numbers above can help.",
                       match="")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "crisis-listed-plain", "--no-judge", "--out", str(tmp_path / "run")])
    said: list[str] = []
    code = await evaluate_command(settings, args, models=models_from(settings, judge=False), say=said.append)
    assert code == 0
    run = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["run"]
    [conversation] = run["conversations"]
    assert conversation["error"] is None and conversation["flags"]
    assert conversation["tokens"]["requests"] >= 1 and conversation["tokens"]["prompt_tokens"] > 0
    assert all(request["model"] == settings.genai_model for request in fake_openai.requests)
    assert not (tmp_path / "study.db").exists()


def test_a_judge_of_its_own_and_a_second_judge_model_come_from_the_eval_settings(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state", "http://127.0.0.1:9/v1",
                             EVAL_JUDGE_MODEL="judge-a", EVAL_JUDGE_SECOND_MODEL="judge-b",
                             EVAL_PLAYER_MODEL="player-x")
    models = models_from(settings, judge=True)
    assert [name for name, _ in models.judges] == ["judge-a", "judge-b"]
    assert models.player_name == "player-x" and models.coach_name == settings.genai_model
    alone = models_from(make_settings(f"sqlite:///{tmp_path / 'study.db'}", tmp_path / "state",
                                      "http://127.0.0.1:9/v1", EVAL_JUDGE_MODEL="judge-a"), judge=True)
    assert [name for name, _ in alone.judges] == ["judge-a#1", "judge-a#2"]  # one model, scoring twice


def test_the_command_line_shows_its_progress_not_the_sandboxes_logs(
    fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": fake_openai.url, "LLM_MAX_RETRIES": "0",
                        "DATABASE_URL": f"sqlite:///{tmp_path / 'study.db'}",
                        "PROMPTPIPE_STATE_DIR": str(tmp_path / "state")}.items():
        monkeypatch.setenv(name, value)
    fake_openai.always("I'm so sorry it is this hard. You deserve support.", match="")
    try:
        assert main(["evaluate", "--only", "crisis-listed-plain", "--no-judge"]) == 0
    finally:
        configure_logging()  # as the other tests expect it
    said = capsys.readouterr().err
    assert "[1/1] case crisis-listed-plain" in said and "Report: evaluation/report.html" in said
    assert "inbound_stored" not in said and "safety_flag_raised" not in said  # the sandbox's own log lines
    assert (tmp_path / "evaluation" / "checks.csv").exists() and not (tmp_path / "study.db").exists()
