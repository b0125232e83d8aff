"""The language model behind one small interface; openai's types and errors stay in this file. Anything that is not a
well-formed completion (a proxy's HTML page, a truncated body) means the model is unavailable: retried, never a bug.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NotRequired, Protocol, TypedDict

import openai
from openai import AsyncOpenAI, DefaultAioHttpClient
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCallParam,
)

from promptpipe.config import Settings
from promptpipe.domain.text import clean_for_storage
from promptpipe.errors import ContextTooLong, LLMRejected, LLMUnavailable
from promptpipe.logging import get_logger
from promptpipe.tls import client_context

log = get_logger("promptpipe.llm")


class Message(TypedDict):
    """One chat message as the chat completions endpoint takes it."""

    role: str
    """system | user | assistant | tool"""
    content: str | None
    tool_calls: NotRequired[list[ChatCompletionMessageFunctionToolCallParam]]
    tool_call_id: NotRequired[str]


ToolSpec = ChatCompletionFunctionToolParam


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
    truncated: bool = False
    """The model hit its output limit (``finish_reason: length``): the text ends mid-thought."""
    prompt_tokens: int = 0  # what the server said the request cost (0 when it did not say)
    completion_tokens: int = 0


class LLM(Protocol):
    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, *,
                       seed: int | None = None) -> Completion:
        """One chat completion. Raises LLMUnavailable (retry later) or LLMRejected. ``seed``: asks the
        server to sample reproducibly (the evaluation's repeats); a server may ignore it."""


_CONTEXT_WORDS = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long|"
    r"reduce the length|input is too long|exceeds? the (available )?context", re.IGNORECASE)


def is_context_rejection(exc: openai.APIStatusError) -> bool:
    """The request does not fit the model's context (the wordings of OpenAI, vLLM, llama.cpp …; 413 from a proxy)."""
    if exc.status_code == 413:
        return True
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
    code = str(error.get("code") or "") + " " + str(error.get("type") or "")
    return "context" in code or bool(_CONTEXT_WORDS.search(str(exc)))


@contextmanager
def map_openai_errors() -> Iterator[None]:
    """The openai client's exceptions as ours; a body it cannot parse means an unavailable server too."""
    try:
        yield
    except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError) as exc:
        raise LLMUnavailable(f"{type(exc).__name__}: {_short(exc)}") from exc
    except openai.APIStatusError as exc:
        if exc.status_code >= 500 or exc.status_code in (408, 409, 429):
            raise LLMUnavailable(f"model server answered {exc.status_code}: {_short(exc)}") from exc
        if is_context_rejection(exc):
            raise ContextTooLong(f"the request is too long for the model ({exc.status_code}): {_short(exc)}") from exc
        raise LLMRejected(f"model server refused the request ({exc.status_code}): {_short(exc)}") from exc
    except openai.APIResponseValidationError as exc:
        raise LLMUnavailable(f"model server sent an unreadable answer: {_short(exc)}") from exc
    except openai.OpenAIError as exc:
        raise LLMUnavailable(f"{type(exc).__name__}: {_short(exc)}") from exc
    except ValueError as exc:  # json.JSONDecodeError and friends, raised while reading the body
        raise LLMUnavailable(f"model server sent an unreadable answer: {type(exc).__name__}") from exc


def read_completion(response: object) -> Completion:
    """Our :class:`Completion` from what the client returned, or LLMUnavailable when it is not a chat completion (the
    client hands back a ``str`` for a non-JSON body, and fills a JSON object of the wrong shape with ``None``)."""
    if not isinstance(response, ChatCompletion):
        raise LLMUnavailable(f"model server sent something that is not a completion ({type(response).__name__})")
    choices = response.choices
    if not isinstance(choices, list) or not choices:
        raise LLMUnavailable("model server returned no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    raw_calls = getattr(message, "tool_calls", None) or []
    if message is None or not isinstance(content, (str, type(None))) or not isinstance(raw_calls, list):
        raise LLMUnavailable("model server sent a completion without a usable message")
    calls = []
    for call in raw_calls:
        function = getattr(call, "function", None)
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
        if function is None:
            continue
        if not isinstance(name, str) or not isinstance(arguments, (str, type(None))):
            raise LLMUnavailable("model server sent a malformed tool call")
        calls.append(ToolCall(id=str(getattr(call, "id", "") or ""), name=name, arguments=arguments or ""))
    usage = getattr(response, "usage", None)
    return Completion(content=clean_for_storage(content) if content else content, tool_calls=tuple(calls),
                      truncated=getattr(choice, "finish_reason", None) == "length",
                      prompt_tokens=_count(getattr(usage, "prompt_tokens", 0)),
                      completion_tokens=_count(getattr(usage, "completion_tokens", 0)))


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


_IDENTIFIER = re.compile(r"[A-Za-z0-9_.-]{1,60}")


def _short(exc: BaseException) -> str:
    """The error's class, type and code: never its message, which providers fill with the participant's words (it
    stays on ``__cause__``, logged only with PROMPTPIPE_DEBUG on)."""
    parts = [type(exc).__name__]
    for name in ("type", "code"):
        value = getattr(exc, name, None)
        if isinstance(value, str) and _IDENTIFIER.fullmatch(value):
            parts.append(f"{name}={value}")
    return " ".join(parts)


def _refuses_seed(exc: LLMRejected) -> bool:
    """The server refused the ``seed`` field, as its error says (read here, never logged: it may quote the request)."""
    cause = exc.__cause__
    if not isinstance(cause, openai.APIStatusError):
        return False
    return "seed" in f"{cause.message} {cause.body}".casefold()


class OpenAILLM:
    """Chat completions through ``AsyncOpenAI``; honours OPENAI_BASE_URL."""

    def __init__(self, settings: Settings) -> None:
        settings.require_llm()
        self._client = AsyncOpenAI(
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            timeout=settings.llm_timeout.total_seconds(),
            max_retries=settings.llm_max_retries,
            # aiohttp under the SDK: a third of the default transport's CPU per call when a burst
            # has a hundred calls in flight (proxies from the environment are honoured the same)
            http_client=DefaultAioHttpClient(verify=client_context()),
        )
        self._model = settings.genai_model
        self._temperature = settings.genai_temperature
        self._send_seed = True

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None, *,
                       seed: int | None = None) -> Completion:
        kwargs: dict[str, object] = {"model": self._model, "messages": list(messages), "temperature": self._temperature}
        if tools:
            kwargs["tools"] = list(tools)
        if seed is not None and self._send_seed:
            kwargs["seed"] = seed
        try:
            return await self._post(kwargs)
        except LLMRejected as exc:
            if "seed" not in kwargs or isinstance(exc, ContextTooLong) or not _refuses_seed(exc):
                raise
        # A server that ignores the seed is fine; one that refuses the field gets requests without it
        # from now on (the evaluation's repeats then differ only as the model samples).
        self._send_seed = False
        log.warning("llm_seed_refused", model=self._model)
        del kwargs["seed"]
        return await self._post(kwargs)

    async def _post(self, body: dict[str, object]) -> Completion:
        with map_openai_errors():
            # not ``chat.completions.create``: its type transforms cost a quarter of the client's CPU per call
            response = await self._client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        return read_completion(response)

    async def close(self) -> None:
        await self._client.close()
