"""Dry-run: nothing leaves the machine; every outbound message is recorded as sent.

With the admin script's ``simulate`` a researcher can pilot a whole study without a phone.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timezone

from promptpipe.transport.base import InboundHandler, Recipient, SentMessage


class DryRunTransport:
    name = "dry-run"
    resend_is_safe = True

    async def start(self, on_message: InboundHandler) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def send_text(self, to: Recipient, text: str) -> SentMessage:
        return SentMessage(message_id="dry-" + secrets.token_hex(8), timestamp=datetime.now(timezone.utc))

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str]) -> SentMessage:
        return await self.send_text(to, question)

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        return None
