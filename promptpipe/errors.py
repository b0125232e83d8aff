"""Every error PromptPipe raises on purpose, grouped by who has to act; misuse by our own code stays a plain
``ValueError`` / ``TypeError``."""

from __future__ import annotations


class PromptPipeError(Exception):
    """Root of all PromptPipe errors."""


class ConfigError(PromptPipeError):
    """A setting is missing or wrong; the message names the variable and the fix."""


class StorageError(PromptPipeError):
    """The database could not be reached or used."""


class DuplicateKey(StorageError):
    """A unique key (a phone, an inbox key) exists already; ``constraint`` names it."""

    def __init__(self, message: str, *, constraint: str = "") -> None:
        super().__init__(message)
        self.constraint = constraint


class TransportError(PromptPipeError):
    """A messaging transport failed."""


class NotConnected(TransportError):
    """The transport is not connected (yet); the send can be retried later."""


class SendFailed(TransportError):
    """``retryable``: another try can succeed; ``ambiguous``: it may have arrived anyway, so it must not be resent."""

    def __init__(self, message: str, *, retryable: bool = True, ambiguous: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.ambiguous = ambiguous


class LLMError(PromptPipeError):
    """The language model call failed."""


class LLMUnavailable(LLMError):
    """Timeout, rate limit or server error: the turn is retried later."""


class LLMRejected(LLMError):
    """The model server refused the request (authentication, unknown model, bad request)."""


class ContextTooLong(LLMRejected):
    """The conversation sent does not fit the model's context: shorten it and ask again."""


class ToolArgumentError(PromptPipeError):
    """A tool was called with arguments it cannot use. The text goes back to the model."""


class AdminError(PromptPipeError):
    """An admin command cannot be carried out; the message says why."""


class NotFound(AdminError):
    """What the command names does not exist (the HTTP API answers 404)."""


class Conflict(AdminError):
    """The command clashes with what exists, e.g. a phone that is enrolled already (HTTP 409)."""


class Forbidden(AdminError):
    """Not allowed for this participant, e.g. a message to someone who sent STOP (HTTP 409 with its own code)."""
