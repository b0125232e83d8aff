"""Pytest fixtures for the fake OpenAI server; `tests/conftest.py` registers this module as a plugin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

__all__ = ["fake_openai", "openai_server_session"]


@pytest.fixture(scope="session")
def openai_server_session() -> Iterator[FakeOpenAIServer]:
    """One fake server for the whole run, stopped at the end."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_openai(openai_server_session: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The session server, reset before and after the test. A test that leaves scripted turns
    unused (or made a request nothing was scripted for) fails at teardown."""
    openai_server_session.reset()
    yield openai_server_session
    try:
        openai_server_session.assert_complete()
    finally:
        openai_server_session.reset()  # also releases handlers still waiting on a hang or gate
