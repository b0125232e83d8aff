"""An on-disk spool (private files, written whole or not at all) for inbound messages the database could not store."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from promptpipe.logging import get_logger
from promptpipe.storage.files import PRIVATE_FILE_MODE, make_private_dir
from promptpipe.transport import InboundMessage, PollVote, Reaction

log = get_logger("promptpipe.pipeline.spool")

SUFFIX = ".json"


def encode(msg: InboundMessage) -> dict[str, JsonValue]:
    data = {**dataclasses.asdict(msg), "timestamp": msg.timestamp.isoformat()}
    del data["number"]
    return data


def decode(data: dict[str, Any]) -> InboundMessage:
    vote, reaction = data.get("poll_vote"), data.get("reaction")
    return InboundMessage(
        message_id=str(data["message_id"]), sender_phone=data.get("sender_phone"), sender_lid=data.get("sender_lid"),
        sender_name=str(data.get("sender_name") or ""), text=str(data.get("text") or ""),
        timestamp=datetime.fromisoformat(data["timestamp"]),
        poll_vote=None if not vote else PollVote(str(vote["poll_message_id"]), tuple(vote["selected_hashes"])),
        content=str(data.get("content") or "text"), quoted_message_id=data.get("quoted_message_id"),
        edited=bool(data.get("edited", False)), edit_of=data.get("edit_of"),
        reaction=None if not reaction else Reaction(str(reaction["message_id"]), str(reaction["emoji"])),
    )


@dataclass
class Spooled:
    message: InboundMessage
    path: Path | None
    """None: only in memory (the spool could not be written)."""


class Spool:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._memory: dict[str, InboundMessage] = {}
        self.written = 0

    def __len__(self) -> int:
        return len(self._memory) + sum(1 for _ in self._files())

    def keep(self, msg: InboundMessage) -> bool:
        """Keep a message for a later try; True when it is on disk, False when only in memory."""
        try:
            make_private_dir(self.directory)
            target = self.directory / (hashlib.sha256(msg.message_id.encode()).hexdigest()[:32] + SUFFIX)
            temp = target.with_suffix(".tmp")
            data = json.dumps(encode(msg), ensure_ascii=False).encode("utf-8", "surrogatepass")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, target)
        except OSError as exc:
            self._memory[msg.message_id] = msg
            log.error("inbound_spool_unwritable", message_id=msg.message_id, error=exc.strerror or type(exc).__name__,
                      hint="the message is kept in memory until the database recovers")
            return False
        self.written += 1
        return True

    def waiting(self) -> Iterator[Spooled]:
        """Spooled messages, oldest first (memory ones last)."""
        for path in self._files():
            try:
                yield Spooled(decode(json.loads(path.read_bytes().decode("utf-8", "surrogatepass"))), path)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.error("inbound_spool_file_unreadable", file=path.name, error=type(exc).__name__)
        for msg in list(self._memory.values()):
            yield Spooled(msg, None)

    def done(self, item: Spooled) -> None:
        """The message is in the database now."""
        if item.path is None:
            self._memory.pop(item.message.message_id, None)
            return
        item.path.unlink(missing_ok=True)

    def _files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        files = [p for p in self.directory.iterdir() if p.suffix == SUFFIX]
        return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name))
