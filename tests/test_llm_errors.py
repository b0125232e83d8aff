"""Every exception the openai client can raise becomes one of ours at the boundary: a new kind in
a future openai release that slipped through would reach a turn as a bug, so this test lists
them all from the installed package."""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from promptpipe.errors import ContextTooLong, LLMError, LLMRejected, LLMUnavailable
from promptpipe.llm import map_openai_errors

http: Any = importlib.import_module("httpx2" if importlib.util.find_spec("httpx2") else "httpx")
REQUEST = http.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

STATUS = {
    openai.BadRequestError: 400, openai.AuthenticationError: 401, openai.PermissionDeniedError: 403,
    openai.NotFoundError: 404, openai.ConflictError: 409, openai.UnprocessableEntityError: 422,
    openai.RateLimitError: 429, openai.InternalServerError: 500,
}
"""The status each status error stands for (the client picks the class by status)."""
RETRIED_STATUSES = (408, 409, 429)


def refused(error: BaseException) -> bool:
    """A 4xx (but a timeout, conflict or rate limit) is LLMRejected: the request itself is wrong,
    and trying again will not help; everything else is LLMUnavailable (tried again later)."""
    return isinstance(error, openai.APIStatusError) and error.status_code < 500 and (
        error.status_code not in RETRIED_STATUSES)


def every_openai_exception() -> list[type[BaseException]]:
    """The classes among openai's names. ``type(c)``, not ``inspect.isclass``: the latter reads
    ``__class__``, which loads each of openai's lazily imported API resources (2 s a process)."""
    classes = (c for c in list(vars(openai).values()) if issubclass(type(c), type))
    return sorted((c for c in classes if issubclass(c, BaseException)), key=lambda c: c.__name__)


def an_instance(cls: type[BaseException]) -> BaseException:
    if issubclass(cls, openai.APIStatusError):
        response = http.Response(STATUS.get(cls, 418), request=REQUEST)
        try:
            return cls("boom", response=response, body=None)
        except TypeError:  # OAuthError takes no message
            return cls(response=response, body=None)  # type: ignore[call-arg]
    if issubclass(cls, openai.APITimeoutError):
        return cls(request=REQUEST)
    if issubclass(cls, openai.APIConnectionError):
        return cls(request=REQUEST)
    if issubclass(cls, openai.APIResponseValidationError):
        return cls(http.Response(200, request=REQUEST), None)
    if cls is openai.APIError:
        return cls("boom", REQUEST, body=None)
    for args, kwargs in (((), {}), (("boom",), {}), ((), {"completion": SimpleNamespace(usage=None)}),
                         (("boom",), {"unsent_messages": []})):
        try:
            return cls(*args, **kwargs)
        except TypeError:
            continue
    raise AssertionError(f"cannot build {cls.__name__} for the test; teach an_instance how")


def test_the_list_is_not_empty() -> None:
    assert {openai.RateLimitError, openai.APIConnectionError, openai.BadRequestError} <= set(every_openai_exception())


@pytest.mark.parametrize("cls", every_openai_exception(), ids=lambda c: c.__name__)
def test_every_openai_exception_becomes_one_of_ours(cls: type[BaseException]) -> None:
    error = an_instance(cls)
    with pytest.raises(LLMError) as caught, map_openai_errors():
        raise error
    expected: type[LLMError] = LLMRejected if refused(error) else LLMUnavailable
    assert isinstance(caught.value, expected) and caught.value.__cause__ is error


def test_a_request_too_long_for_the_context_is_its_own_kind() -> None:
    response = http.Response(400, request=REQUEST)
    error = openai.BadRequestError("This model's maximum context length is 8192 tokens", response=response,
                                   body={"error": {"code": "context_length_exceeded"}})
    with pytest.raises(ContextTooLong), map_openai_errors():
        raise error
