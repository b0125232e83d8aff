"""The model client sends a seed when asked for one (the evaluation's repeats), and a server that
refuses the field still answers: the request goes again without it, and later ones leave it out."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptpipe.errors import LLMRejected
from promptpipe.llm import OpenAILLM
from tests.conftest import make_settings
from tests.fakes.openai_server import FakeOpenAIServer

HELLO = [{"role": "user", "content": "hello"}]


def client(fake_openai: FakeOpenAIServer, tmp_path: Path) -> OpenAILLM:
    return OpenAILLM(make_settings(f"sqlite:///{tmp_path / 'db'}", tmp_path / "state", fake_openai.url))


async def test_the_seed_goes_with_the_request_only_when_given(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    llm = client(fake_openai, tmp_path)
    fake_openai.say("one")
    fake_openai.say("two")
    try:
        assert (await llm.complete(HELLO, seed=7)).content == "one"
        assert (await llm.complete(HELLO)).content == "two"
    finally:
        await llm.close()
    first, second = fake_openai.requests
    assert first["seed"] == 7
    assert "seed" not in second


async def test_a_server_refusing_the_seed_is_asked_again_without_it(fake_openai: FakeOpenAIServer,
                                                                  tmp_path: Path) -> None:
    llm = client(fake_openai, tmp_path)
    fake_openai.fail(400, message="Unrecognized request argument supplied: seed")
    fake_openai.say("answered without a seed")
    fake_openai.say("and again")
    try:
        assert (await llm.complete(HELLO, seed=3)).content == "answered without a seed"
        assert (await llm.complete(HELLO, seed=4)).content == "and again"
    finally:
        await llm.close()
    assert ["seed" in request for request in fake_openai.requests] == [True, False, False]


async def test_a_refusal_for_another_reason_is_not_retried(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    llm = client(fake_openai, tmp_path)
    fake_openai.fail(400, message="model 'nope' does not exist")
    try:
        with pytest.raises(LLMRejected):
            await llm.complete(HELLO, seed=3)
    finally:
        await llm.close()
    assert len(fake_openai.requests) == 1
