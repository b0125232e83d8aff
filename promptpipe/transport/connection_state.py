"""Where the WhatsApp connection stands: plain values (no WhatsApp library), since the admin script reads them back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypedDict

__all__ = ["CONNECTION_STATES", "NEEDS_THE_TEAM", "ConnectionState", "ExitRequest", "StateListener"]

CONNECTION_STATES = {  # each state, as a researcher reads it
    "connecting": "connecting",
    "waiting_for_scan": "waiting for the QR code (or pairing code) to be used",
    "connected": "connected",
    "unreachable": "WhatsApp unreachable",
    "banned": "temporarily banned by WhatsApp",
    "logged_out": "logged out: the device was unlinked",
    "replaced": "replaced: another program uses this session",
    "outdated": "refused as outdated: upgrade neonize",
    "restarting": "starting afresh: the WhatsApp library's session failed",
    "stopped": "stopped",
}

NEEDS_THE_TEAM = frozenset({"banned", "logged_out"})
"""States a number does not leave by itself: its participants are flagged for the team (never moved silently)."""


class StateListener(Protocol):
    """Told every new state; ``number``: the deployment's number (None: the transport serves one)."""

    def __call__(self, state: ConnectionState, number: str | None = None) -> None: ...


class ConnectionStateJson(TypedDict):
    name: str
    since: str
    until: str | None
    detail: str


@dataclass(frozen=True)
class ConnectionState:
    name: str
    since: datetime
    until: datetime | None = None
    """For ``banned``: when WhatsApp lifts the ban."""
    detail: str = ""
    """The last error or reason, already free of phone numbers."""

    def moved_to(self, name: str, now: datetime, *, detail: str = "", until: datetime | None = None,
                 keep_since: bool = False) -> tuple[ConnectionState, bool]:
        """The state after a move to ``name``, and whether it is new (a repeat only updates its detail;
        ``keep_since`` keeps the start of a run of failures)."""
        if self.name == name and self.until == until and (keep_since or self.detail == detail):
            return ConnectionState(name, self.since, until, detail), False
        since = self.since if keep_since and self.name == name else now
        return ConnectionState(name, since, until, detail), True

    def describe(self) -> str:
        text = f"{CONNECTION_STATES.get(self.name, self.name)} since {self.since.isoformat(timespec='seconds')}"
        if self.until is not None:
            text += f" until {self.until.isoformat(timespec='seconds')}"
        return text + (f" ({self.detail})" if self.detail else "")

    def to_json(self) -> ConnectionStateJson:
        return {"name": self.name, "since": self.since.isoformat(),
                "until": self.until.isoformat() if self.until else None, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConnectionState:
        return cls(name=str(data.get("name", "")), since=datetime.fromisoformat(data["since"]),
                   until=datetime.fromisoformat(data["until"]) if data.get("until") else None,
                   detail=str(data.get("detail") or ""))


@dataclass(frozen=True)
class ExitRequest:
    """The transport cannot go on in this process: ``restart`` asks for a fresh one (``kind`` qr or reconnect),
    otherwise the service stops with ``message`` and exit status 1."""

    message: str
    restart: bool = False
    kind: str = "qr"
    connected: bool = False  # this process was connected at some point (a restart after that starts a new count)
