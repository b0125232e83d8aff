"""Each Cloud API number's state. There is no connection: a number is ``connected`` once a send succeeds, and
``logged_out`` or ``banned`` as Meta's errors say until one succeeds again (its participants keep it meanwhile)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

import httpx

from promptpipe.logging import get_logger
from promptpipe.transport.connection_state import ConnectionState, StateListener

__all__ = ["BANNED_CODES", "LOGGED_OUT_CODES", "TOKEN_CODES", "NumberStates", "check_numbers", "error_code",
           "json_of", "state_for_error"]

TOKEN_CODES = frozenset({190})
"""The access token is invalid or expired (with HTTP 401)."""
LOGGED_OUT_CODES = frozenset({133010})
"""The number is not registered on the Cloud API (it was deregistered or never set up)."""
BANNED_CODES = frozenset({368, 131031})
"""Blocked for policy violations; the business account is restricted or locked."""

log = get_logger("promptpipe.transport.cloud_api")


def state_for_error(status: int, code: int) -> tuple[str, str, bool] | None:
    """(state, detail, whether every number shares it: one token serves all), or None."""
    if status == 401 or code in TOKEN_CODES:
        return ("logged_out", f"the Cloud API refused the access token (code {code or status}): renew CLOUD_API_TOKEN",
                True)
    if code in LOGGED_OUT_CODES:
        return "logged_out", f"the number is not registered on the Cloud API (code {code}): register it again", False
    if code in BANNED_CODES:
        return "banned", f"WhatsApp restricted or locked the account (code {code}): see WhatsApp Manager", False
    return None


class NumberStates:
    """The last state of each number, telling ``listener`` each change (``number`` None: the transport has one)."""

    def __init__(self, numbers: Iterable[str], now: Callable[[], datetime]) -> None:
        self._numbers = tuple(numbers)
        self._now = now
        self._states: dict[str, ConnectionState] = {}
        self.listener: StateListener | None = None

    @property
    def states(self) -> dict[str, ConnectionState]:
        return dict(self._states)

    def report(self, number: str, name: str, detail: str = "") -> None:
        now = self._now()
        old = self._states.get(number)
        state, new = (old.moved_to(name, now, detail=detail) if old
                      else (ConnectionState(name, now, detail=detail), True))
        self._states[number] = state
        if not new:
            return
        log.info("cloud_api_number_state", number=number, state=name)
        if self.listener is not None:
            try:
                self.listener(state, number if len(self._numbers) > 1 else None)
            except Exception:  # only a report: sending goes on
                log.exception("cloud_api_number_state_not_reported", number=number, state=name)

    def report_error(self, number: str, status: int, code: int) -> str | None:
        found = state_for_error(status, code)
        if found is None:
            return None
        name, detail, every = found
        for each in self._numbers if every else (number,):
            self.report(each, name, detail)
        return name


CHECK_TIMEOUT_S = 5.0
"""How long the start waits for the Cloud API to say how each number stands."""
STATUS_STATES = {"CONNECTED": "connected", "RESTRICTED": "banned", "BANNED": "banned"}
"""What a phone number's ``status`` field says of it; any other value is logged, not acted on."""


async def check_numbers(client: httpx.AsyncClient, ids: Mapping[str, str], states: NumberStates) -> None:
    """Ask how each number stands, so trouble shows at start rather than at the first send (perhaps hours later)."""
    async def check(name: str, number_id: str) -> None:
        try:
            response = await asyncio.wait_for(client.get(f"/{number_id}", params={"fields": "status"}),
                                              timeout=CHECK_TIMEOUT_S)
        except Exception as exc:
            log.warning("cloud_api_number_not_checked", number=name, error=type(exc).__name__)
            return
        data = json_of(response)
        if response.status_code >= 300:
            code = error_code(data)
            log.warning("cloud_api_number_check_refused", number=name, status=response.status_code, code=code)
            states.report_error(name, response.status_code, code)
            return
        status = str(data.get("status") or "")
        found = STATUS_STATES.get(status.upper())
        log.info("cloud_api_number_checked", number=name, status=status or None)
        if found == "banned":
            states.report(name, found, f"the Cloud API says the number is {status.lower()}: see WhatsApp Manager")
        elif found is not None:
            states.report(name, found)

    await asyncio.gather(*(check(name, number_id) for name, number_id in ids.items()))


def json_of(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def error_code(data: Mapping[str, object]) -> int:
    error = data.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) else 0
