"""Dry-run: nothing leaves the machine (a pilot without a phone). With ``PROMPTPIPE_DRYRUN_JOURNAL`` each send is a JSON
line, flushed before it counts as sent; like a provider with idempotency keys it skips an outbox key it already has."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from promptpipe.transport.base import InboundHandler, ReceiptHandler, Recipient, SentMessage


class DryRunTransport:
    name = "dry-run"
    resend_is_safe = True
    reaches_people = False
    sends_receipts = False

    def __init__(self, journal: Path | None = None) -> None:
        self.journal = journal
        self._known: dict[str, SentMessage] = {}
        self.recognised = 0  # sends the journal already had (a crash came after they were written)

    async def start(self, on_message: InboundHandler, on_receipt: ReceiptHandler | None = None) -> None:
        if self.journal is not None and self.journal.exists():
            content = self.journal.read_bytes()
            if content and not content.endswith(b"\n"):  # a line torn by a crash: close it off
                with open(self.journal, "ab") as handle:
                    handle.write(b"\n")
            for line in content.decode("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:  # a line cut short by a crash never counted as sent
                    continue
                if entry.get("ref"):
                    self._known[entry["ref"]] = SentMessage(entry["id"], datetime.fromisoformat(entry["at"]))

    async def stop(self) -> None:
        return None

    async def send_text(self, to: Recipient, text: str, *, ref: str = "", kind: str = "") -> SentMessage:
        return self._record(to, text, "text", ref)

    async def send_poll(self, to: Recipient, question: str, options: Sequence[str], *, ref: str = "",
                        multiple: bool = False, kind: str = "") -> SentMessage:
        return self._record(to, question, "poll", ref, options=list(options))

    async def set_typing(self, to: Recipient, typing: bool) -> None:
        return None

    async def mark_read(self, to: Recipient, message_ids: Sequence[str]) -> None:
        return None

    def _record(self, to: Recipient, text: str, kind: str, ref: str, **extra: Any) -> SentMessage:
        if ref and ref in self._known:
            self.recognised += 1
            return self._known[ref]
        sent = SentMessage(message_id="dry-" + secrets.token_hex(8), timestamp=datetime.now(timezone.utc))
        if self.journal is not None:
            entry = {"ref": ref, "id": sent.message_id, "at": sent.timestamp.isoformat(), "to": to.phone,
                     "kind": kind, "text": text, **extra}
            line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
            fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one append: a line is either all there or torn at the end
                os.fsync(fd)
            finally:
                os.close(fd)
        if ref:
            self._known[ref] = sent
        return sent
