"""What the Cloud API's refusal of a send means: tried again later, refused for good, or sent as a template instead."""

from __future__ import annotations

import re

import httpx

from promptpipe.errors import SendFailed
from promptpipe.transport._cloud_states import TOKEN_CODES, error_code, json_of

__all__ = ["RATE_LIMIT_CODES", "WINDOW_CLOSED_CODE", "WindowClosed", "error_of", "refusal", "retry_after"]

MAX_PAUSE_S = 3600.0
WINDOW_CLOSED_CODE = 131047
RATE_LIMIT_CODES = frozenset({4, 80007, 130429, 131048, 131056})
"""App, account, throughput, spam and per-recipient rate limits."""
TRANSIENT_CODES = frozenset({1, 2, 131000, 131016, 133004})


class WindowClosed(Exception):
    """The Cloud API refused a free-form message: the participant's window is closed."""


def error_of(response: httpx.Response) -> tuple[int, str]:
    """The answer's error code (0 when none) and its words, without phone numbers."""
    data = json_of(response)
    error = data.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    words = re.sub(r"\+?\d[\d ]{6,}\d", "[number]", str(message or response.reason_phrase or ""))[:300]
    return error_code(data), words


def refusal(status: int, code: int, detail: str, number: str, state: str | None) -> SendFailed:
    """The error a refused send raises; ``state``: what the error made of the number, if anything."""
    if status == 401 or code in TOKEN_CODES:
        return SendFailed(f"the Cloud API refused the access token: renew CLOUD_API_TOKEN ({detail})", retryable=True)
    if state is not None:  # its participants keep the number: the message waits for it (or for a move)
        words = "is not registered on the Cloud API" if state == "logged_out" else "is restricted by WhatsApp"
        return SendFailed(f"the participant's WhatsApp number {number!r} {words} (code {code}): {detail}; "
                          "tried again later", retryable=True)
    if status >= 500:  # Meta may have taken the message before failing: never send it twice
        return SendFailed(f"the Cloud API failed (HTTP {status}, code {code}): {detail}; it may have arrived",
                          retryable=False, ambiguous=True)
    if code in TRANSIENT_CODES:
        return SendFailed(f"the Cloud API failed for now (HTTP {status}, code {code}): {detail}", retryable=True)
    return SendFailed(f"the Cloud API refused the message (HTTP {status}, code {code}): {detail}", retryable=False)


def retry_after(raw: str | None) -> float:
    """Seconds from a Retry-After header given in seconds (0 when absent or a date), at most an hour."""
    try:
        return min(max(float(raw or 0), 0.0), MAX_PAUSE_S)
    except ValueError:
        return 0.0
