"""Self-tests: the real `openai` client against the fake server."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion

from tests.fakes.openai_server import FakeOpenAIServer

MODEL = "gpt-test"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


@pytest.fixture
async def client(fake_openai: FakeOpenAIServer) -> AsyncIterator[AsyncOpenAI]:
    async with AsyncOpenAI(api_key="test", base_url=fake_openai.url, max_retries=0,
                           timeout=10) as client:
        yield client


async def ask(client: AsyncOpenAI, text: str, **kwargs: Any) -> ChatCompletion:
    messages = [{"role": "system", "content": "You are a coach."},
                {"role": "user", "content": text}]
    return await client.chat.completions.create(model=MODEL, messages=messages, **kwargs)


async def wait_until(condition: Callable[[], bool], limit_s: float = 10.0) -> None:
    """Poll observable state; the limit only keeps a broken test from hanging."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, "condition never became true"
        await asyncio.sleep(0.01)


async def test_say_returns_text(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.say("Hello there")

    completion = await ask(client, "hi", temperature=0.2)

    choice = completion.choices[0]
    assert choice.message.content == "Hello there"
    assert choice.finish_reason == "stop"
    assert choice.message.tool_calls is None
    assert completion.model == MODEL
    assert fake_openai.last_user_text(fake_openai.requests[0]) == "hi"
    fake_openai.assert_complete()


async def test_call_tool(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.call_tool("get_weather", {"city": "Zürich"}, text="Let me check.")

    completion = await ask(client, "weather?", tools=[WEATHER_TOOL])

    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me check."
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("call_")
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Zürich"}
    fake_openai.assert_complete()


async def test_call_tools_two_calls(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.call_tools([("get_weather", {"city": "Bern"}), ("get_weather", {"city": "Chur"})])

    completion = await ask(client, "two cities", tools=[WEATHER_TOOL])

    calls = completion.choices[0].message.tool_calls
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Bern", "Chur"]
    assert len({c.id for c in calls}) == 2
    assert completion.choices[0].message.content is None
    fake_openai.assert_complete()


async def test_string_args_verbatim(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.call_tool("get_weather", '{"city": "Bern"')

    completion = await ask(client, "broken", tools=[WEATHER_TOOL])

    assert completion.choices[0].message.tool_calls[0].function.arguments == '{"city": "Bern"'
    fake_openai.assert_complete()


async def test_match_picks_step_out_of_order(
    fake_openai: FakeOpenAIServer, client: AsyncOpenAI
) -> None:
    first = fake_openai.say("about apples", match="apple")
    fake_openai.say("about pears", match="pear")

    pear = await ask(client, "tell me about a pear")
    apple = await ask(client, "and an apple")

    assert pear.choices[0].message.content == "about pears"
    assert apple.choices[0].message.content == "about apples"
    assert first.request is fake_openai.requests[1]
    fake_openai.assert_complete()


async def test_unexpected_request_fails_assert_complete(
    fake_openai: FakeOpenAIServer, client: AsyncOpenAI
) -> None:
    fake_openai.say("only for cats", match="cat")

    with pytest.raises(openai.InternalServerError):
        await ask(client, "dogs")

    assert len(fake_openai.errors) == 1
    assert "no scripted step matches" in fake_openai.errors[0]
    with pytest.raises(AssertionError, match="unexpected request"):
        fake_openai.assert_complete()
    fake_openai.reset()  # seen: the fixture's own check would fail the test again


async def test_leftover_steps_fail_assert_complete(
    fake_openai: FakeOpenAIServer, client: AsyncOpenAI
) -> None:
    fake_openai.say("one")
    fake_openai.call_tool("get_weather", {"city": "Bern"})

    await ask(client, "hi")

    with pytest.raises(AssertionError, match="leftover step: call_tools"):
        fake_openai.assert_complete()
    fake_openai.reset()


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (500, openai.InternalServerError),
        (429, openai.RateLimitError),
        (401, openai.AuthenticationError),
    ],
)
async def test_fail_raises_matching_error(
    fake_openai: FakeOpenAIServer, client: AsyncOpenAI, status: int, error: type[Exception]
) -> None:
    fake_openai.fail(status, message="nope")

    with pytest.raises(error) as raised:
        await ask(client, "hi")

    assert raised.value.status_code == status
    assert "nope" in str(raised.value)
    fake_openai.assert_complete()


async def test_hang_triggers_client_timeout(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.hang(2)

    async with AsyncOpenAI(api_key="test", base_url=fake_openai.url, max_retries=0,
                           timeout=0.5) as client:
        with pytest.raises(openai.APITimeoutError):
            await ask(client, "hi")

    fake_openai.assert_complete()


async def test_gate_holds_response(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    gate = threading.Event()
    fake_openai.say("released", gate=gate)

    task = asyncio.create_task(ask(client, "wait for it"))
    await wait_until(lambda: fake_openai.in_flight() == 1)
    assert not task.done()
    gate.set()
    completion = await task

    assert completion.choices[0].message.content == "released"
    await wait_until(lambda: fake_openai.in_flight() == 0)
    fake_openai.assert_complete()


async def test_two_gated_requests_overlap(
    fake_openai: FakeOpenAIServer, client: AsyncOpenAI
) -> None:
    gate = threading.Event()
    fake_openai.say("first", gate=gate)
    fake_openai.say("second", gate=gate)

    tasks = [asyncio.create_task(ask(client, f"q{i}")) for i in range(2)]
    await wait_until(lambda: fake_openai.in_flight() == 2)
    gate.set()
    completions = await asyncio.gather(*tasks)

    assert sorted(c.choices[0].message.content for c in completions) == ["first", "second"]
    assert fake_openai.max_in_flight == 2
    fake_openai.assert_complete()


async def test_requests_record_tools(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.say("ok")

    await ask(client, "hi", tools=[WEATHER_TOOL], temperature=0)

    (request,) = fake_openai.requests
    assert request["tools"] == [WEATHER_TOOL]
    assert request["model"] == MODEL and request["temperature"] == 0
    fake_openai.assert_complete()


async def test_stream_is_rejected(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    fake_openai.say("never")

    with pytest.raises(openai.BadRequestError):
        await ask(client, "hi", stream=True)

    assert "stream=true is not supported" in fake_openai.errors[0]
    with pytest.raises(AssertionError, match="leftover step"):
        fake_openai.assert_complete()
    fake_openai.reset()


async def test_models_endpoint(fake_openai: FakeOpenAIServer, client: AsyncOpenAI) -> None:
    models = await client.models.list()

    assert [m.id async for m in models] == ["fake-model"]
    fake_openai.assert_complete()


def test_context_manager_and_reset() -> None:
    with FakeOpenAIServer() as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/v1")
        server.say("left over")
        server.errors.append("boom")
        server.reset()
        server.assert_complete()
    with pytest.raises(RuntimeError):
        _ = server.url  # a stopped server has no URL
