"""The language model behind one small interface; openai's types and errors stay in this file."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import openai
from openai import AsyncOpenAI

from promptpipe.config import Settings
from promptpipe.errors import LLMRejected, LLMUnavailable


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str
    """The raw JSON text the model wrote; tools parse (and reject) it themselves."""

    def signature(self) -> tuple[str, str]:
        """Identity of the call for the repeated-call guard: name plus normalised arguments."""
        try:
            normalised = json.dumps(json.loads(self.arguments), sort_keys=True)
        except (ValueError, TypeError):
            normalised = self.arguments.strip()
        return self.name, normalised


@dataclass(frozen=True)
class Completion:
    content: str | None
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)


class LLM(Protocol):
    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> Completion:
        """One chat completion. Raises LLMUnavailable (retry later) or LLMRejected."""
        ...


@contextmanager
def map_openai_errors() -> Iterator[None]:
    """Turn the openai client's exceptions into ours at the boundary."""
    try:
        yield
    except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError) as exc:
        raise LLMUnavailable(f"{type(exc).__name__}: {_short(exc)}") from exc
    except openai.APIStatusError as exc:
        if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
            raise LLMUnavailable(f"model server answered {exc.status_code}: {_short(exc)}") from exc
        raise LLMRejected(f"model server refused the request ({exc.status_code}): {_short(exc)}") from exc
    except openai.APIResponseValidationError as exc:
        raise LLMUnavailable(f"model server sent an unreadable answer: {_short(exc)}") from exc
    except openai.OpenAIError as exc:
        raise LLMUnavailable(f"{type(exc).__name__}: {_short(exc)}") from exc


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


class OpenAILLM:
    """Chat completions through ``AsyncOpenAI``; honours OPENAI_BASE_URL."""

    def __init__(self, settings: Settings) -> None:
        settings.require_llm()
        self._client = AsyncOpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout.total_seconds(),
            max_retries=settings.llm_max_retries,
        )
        self._model = settings.genai_model
        self._temperature = settings.genai_temperature

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": list(messages),
            "temperature": self._temperature,
        }
        if tools:
            kwargs["tools"] = list(tools)
        with map_openai_errors():
            response = await self._client.chat.completions.create(**kwargs)
        if not response.choices:
            raise LLMUnavailable("model server returned no choices")
        message = response.choices[0].message
        calls = tuple(
            ToolCall(id=call.id, name=call.function.name, arguments=call.function.arguments or "")
            for call in (message.tool_calls or [])
            if getattr(call, "function", None) is not None
        )
        return Completion(content=message.content, tool_calls=calls)

    async def close(self) -> None:
        await self._client.close()
