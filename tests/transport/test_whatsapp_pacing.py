"""Calls into the WhatsApp library are bounded so hung sends can never starve stop or look-ups
(each waits in a worker thread for up to ~75 s on a dead socket), best-effort chatter is skipped
rather than queued, and presence is tried again when the account's name has not synced yet."""

from __future__ import annotations

import asyncio
from typing import Any

from neonize.aioze.events import ConnectedEv
from neonize.exc import NeonizeError
from neonize.utils.enum import Presence

from promptpipe.transport import _whatsapp_support as support
from promptpipe.transport.base import Recipient
from tests.transport.test_whatsapp_transport import FakeClient, harness, settle, spin

__all__ = ["harness"]

ANA = Recipient(phone="+14165550123")


class HangingClient(FakeClient):
    def __init__(self) -> None:
        super().__init__()
        self.sends_started = self.typing_started = 0
        self.presence_errors: list[Exception] = []

    async def send_message(self, to: Any, message: Any, *args: Any, **kwargs: Any) -> Any:
        self.sends_started += 1
        await asyncio.Event().wait()

    async def send_chat_presence(self, jid: Any, state: Any, media: Any) -> None:
        self.typing_started += 1
        await asyncio.Event().wait()

    async def send_presence(self, presence: Any) -> None:
        if self.presence_errors:
            raise self.presence_errors.pop(0)
        await super().send_presence(presence)


def test_the_worker_pool_leaves_room_beyond_every_bounded_call() -> None:
    assert support.EXECUTOR_WORKERS >= 1 + support.SENDS_IN_FLIGHT + support.CHATTER_IN_FLIGHT + 4


async def test_hung_sends_are_bounded_and_stop_still_returns(harness) -> None:
    h = harness(send_timeout_s=3600.0)
    h.client = HangingClient()
    await h.start_connected()
    sends = [asyncio.create_task(h.transport.send_text(ANA, f"message {n}")) for n in range(20)]
    typing = [asyncio.create_task(h.transport.set_typing(ANA, True)) for _ in range(10)]
    await spin(200)

    assert h.client.sends_started == support.SENDS_IN_FLIGHT  # the other 12 wait outside the library
    assert h.client.typing_started == support.CHATTER_IN_FLIGHT
    assert sum(task.done() for task in typing) == 10 - support.CHATTER_IN_FLIGHT  # skipped, not queued
    await asyncio.wait_for(h.transport.stop(), timeout=5)
    assert h.client.stop_calls == 1
    for task in [*sends, *typing]:
        task.cancel()
    await asyncio.gather(*sends, *typing, return_exceptions=True)


async def test_presence_is_tried_again_until_the_account_name_has_synced(harness) -> None:
    h = harness()
    h.client = HangingClient()
    h.client.presence_errors = [NeonizeError("can't send presence without PushName set")] * 2
    await h.transport.start(h.on_message)
    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await settle(lambda: h.client.presences == [Presence.AVAILABLE])
    await spin()

    assert h.delays == [15.0, 30.0]
    assert [e for _, e, _ in h.log.records].count("whatsapp_presence_failed") == 2
    assert h.log.find("whatsapp_presence_sent")
