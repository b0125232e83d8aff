"""Linking the study phone: QR codes, or a pairing code for WHATSAPP_PAIR_PHONE. When the codes run out a fresh process
is asked for: neonize 0.5.2 then waits in Go for a login that cannot come, and nothing, even stop, ends that wait."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from neonize.aioze.client import async_gocode
from neonize.aioze.events import PairStatusEv
from neonize.exc import PairPhoneError
from neonize.proto import Neonize_pb2 as neonize_proto
from neonize.utils.enum import ClientType

from promptpipe.logging import mask_phone
from promptpipe.transport._neonize_mapping import redact_numbers
from promptpipe.transport._whatsapp_support import print_pair_code, print_qr
from promptpipe.transport.connection_state import ExitRequest

__all__ = ["PAIR_DEVICE_NAME", "QR_EXPIRED_LINE", "LoginHost", "QrLogin", "request_pair_code"]

QR_EXPIRED_LINE = "The QR code expired; showing a new one."
PAIR_DEVICE_NAME = "Chrome (Linux)"
"""WhatsApp accepts a phone-code login only from a device named like a browser, ``Browser (OS)``;
neonize 0.5.2 would send ``FIREFOX (Linux)``."""


async def request_pair_code(client: Any, phone: str) -> str:
    """An 8-character pairing code, asked for as Chrome on Linux (see :data:`PAIR_DEVICE_NAME`)."""
    params = neonize_proto.PairPhoneParams(phone=phone, clientDisplayName=PAIR_DEVICE_NAME,
                                           clientType=ClientType.CHROME.value, showPushNotification=True)
    payload = params.SerializeToString()
    answer = neonize_proto.PairPhoneReturnFunction.FromString(
        await async_gocode.PairPhone(client.uuid, payload, len(payload)))
    if answer.Error:
        raise PairPhoneError(answer.Error)
    return str(answer.Code)


class LoginHost(Protocol):
    """What the login needs of the session."""

    @property
    def attempt(self) -> int: ...

    @property
    def client(self) -> Any: ...

    def should_keep_trying(self) -> bool: ...

    def login_waiting(self) -> None: ...

    def login_expired(self, request: ExitRequest) -> None: ...


class QrLogin:
    def __init__(self, host: LoginHost, *, pair_phone: str | None, pair_code: Callable[[Any, str], Awaitable[str]],
                 qr_timeout_s: float, sleep: Callable[[float], Awaitable[Any]], log: Any,
                 number: str | None = None) -> None:
        self._host, self._pair_phone, self._pair_code = host, pair_phone, pair_code  # digits, or None: QR only
        self._number = number  # the deployment's number being linked (None: it has one), named on screen
        self._qr_timeout_s, self._sleep, self._log = qr_timeout_s, sleep, log
        self._linked = self._qr_seen = self._pair_failed = False
        self._watchdog: asyncio.Task[None] | None = None

    def linked(self) -> None:
        self._linked = True
        self.cancel_watchdog()

    async def on_qr(self, data: bytes) -> None:
        """neonize's QR event: print the code, or request a pairing code once."""
        if self._linked or not self._host.should_keep_trying():
            return
        first = not self._qr_seen
        self._qr_seen = True
        if first:
            self._host.login_waiting()
            self._watchdog = asyncio.create_task(self._expire(self._host.attempt), name="whatsapp-qr-timeout")
        if self._pair_phone is not None and first:
            await self._show_pair_code(data)
        elif self._pair_phone is None or self._pair_failed:
            print_qr(data, self._number)

    async def on_pair_status(self, ev: Any) -> None:
        if ev.Status == PairStatusEv.SUCCESS:
            self.linked()
            self._log.info("whatsapp_linked", account=mask_phone(ev.ID.User), platform=ev.Platform)
        else:
            self._pair_failed = True  # from now on every new QR code is printed as a way in
            self._log.error("whatsapp_link_failed", error=redact_numbers(ev.Error),
                            hint="scan one of the QR codes printed from now on, or restart to get a new pairing code")

    async def _show_pair_code(self, qr_data: bytes) -> None:
        assert self._pair_phone is not None
        try:
            code = await self._pair_code(self._host.client, self._pair_phone)
        except Exception as exc:
            self._pair_failed = True
            self._log.error("whatsapp_pair_code_failed", error=redact_numbers(str(exc)), fallback="qr")
            print_qr(qr_data, self._number)
            return
        self._log.info("whatsapp_pair_code_shown", phone=mask_phone(self._pair_phone))
        print_pair_code(self._pair_phone, code, self._number)

    async def _expire(self, attempt: int) -> None:
        """Unscanned codes ran out: ask for a fresh process (see the module docstring)."""
        try:
            await self._sleep(self._qr_timeout_s)
            if attempt != self._host.attempt or self._linked or not self._host.should_keep_trying():
                return
            self._log.warning("whatsapp_qr_expired", waited_s=self._qr_timeout_s, action="restarting for a new QR code")
            print(QR_EXPIRED_LINE, flush=True)
            self._host.login_expired(ExitRequest(QR_EXPIRED_LINE, restart=True))
        except Exception:
            self._log.exception("whatsapp_qr_timeout_failed")

    def cancel_watchdog(self) -> None:
        task, self._watchdog = self._watchdog, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
