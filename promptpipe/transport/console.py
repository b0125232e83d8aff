"""Console: a person plays one participant in a terminal (``promptpipe chat --phone …``)."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import TextIO

from promptpipe.transport.base import (
    InboundHandler,
    InboundMessage,
    PollVote,
    ReceiptHandler,
    Recipient,
    SentMessage,
    poll_option_hash,
)


class ConsoleTransport:
    """Stdin lines are the participant's messages; a number alone (or ``/vote 2``) taps that option of the latest poll.
    Ctrl-D or ``/quit`` calls ``on_exit`` so the service can stop."""

    name = "console"
    resend_is_safe = True
    reaches_people = False
    sends_receipts = False

    def __init__(self, phone: str, *, out: TextIO | None = None, read_line: Callable[[], str] | None = None,
                 on_exit: Callable[[], None] | None = None) -> None:
        self.phone = phone
        self.out = out or sys.stdout
        self._read_line = read_line or sys.stdin.readline
        self._on_exit = on_exit
        self._task: asyncio.Task[None] | None = None
        self._last_poll: tuple[str, tuple[str, ...]] | None = None

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        self._print("You are chatting as " + self.phone + ". Type a message; /quit to leave.")
        self._task = asyncio.create_task(self._read_loop(on_message), name="console-input")

    async def stop(self) -> None:
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _read_loop(self, on_message: InboundHandler) -> None:
        while True:
            line = await asyncio.to_thread(self._read_line)
            if line == "" or line.strip() in ("/quit", "/exit"):
                if self._on_exit:
                    self._on_exit()
                return
            text = line.strip()
            if not text:
                continue
            if (msg := self._to_inbound(text)) is not None:
                await on_message(msg)

    def _to_inbound(self, text: str) -> InboundMessage | None:
        vote: PollVote | None = None
        number = text[5:].strip() if text.startswith("/vote") else text
        if text.startswith("/vote") or (text.isdigit() and self._last_poll is not None):
            if self._last_poll is None:
                self._print("(there is no poll to vote on)")
                return None
            poll_id, options = self._last_poll
            if not (number.isdigit() and 1 <= int(number) <= len(options)):
                self._print(f"(choose a number from 1 to {len(options)})")
                return None
            vote = PollVote(poll_id, (poll_option_hash(options[int(number) - 1]),))
            text = ""
        return InboundMessage(message_id="console-" + secrets.token_hex(8), sender_phone=self.phone, sender_lid=None,
                              sender_name="console", text=text, timestamp=datetime.now(timezone.utc), poll_vote=vote)

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        self._print(f"\nagent> {text}\n")
        return SentMessage(message_id="console-" + secrets.token_hex(8), timestamp=datetime.now(timezone.utc))

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        sent = await self.send_text(to, question)
        self._last_poll = (sent.message_id, tuple(options))
        for number, option in enumerate(options, start=1):
            self._print(f"   {number}. {option}")
        self._print("   (tap an option: type its number)")
        return sent

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        if typing:
            self._print("agent is typing…")

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        return None
