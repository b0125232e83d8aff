"""Which participants a researcher means (one filter for the list, a broadcast, the API and the dashboard)."""

from __future__ import annotations

from dataclasses import dataclass

from promptpipe.domain.states import Stage, Status

__all__ = ["IDENTIFYING_SORT_KEYS", "MAX_SILENT_DAYS", "SORT_KEYS", "ParticipantFilter", "ParticipantSort"]

MAX_SILENT_DAYS = 3650
SORT_KEYS = ("enrolled", "id", "name", "status", "stage", "arm", "study_day", "streak", "last_in", "last_out",
             "answered")
"""What the participant list can be sorted by (``-key`` for descending)."""
IDENTIFYING_SORT_KEYS = frozenset({"name"})
"""Sort keys that would reveal what a viewer may not read (names, in their alphabetical order)."""


@dataclass(frozen=True)
class ParticipantFilter:
    """None matches everyone; ``silent_days``: enrolled that long ago and no message from them since."""

    status: str | None = None
    stage: str | None = None
    arm: str | None = None
    silent_days: int | None = None

    def problems(self) -> list[str]:
        """What is wrong with it, each naming the field and what it takes (empty: fine)."""
        found = []
        for name, value, allowed in (("status", self.status, tuple(Status)), ("stage", self.stage, tuple(Stage))):
            if value is not None and value not in allowed:
                found.append(f"{name}: {value!r} is not one of {', '.join(allowed)}")
        if self.silent_days is not None and not 1 <= self.silent_days <= MAX_SILENT_DAYS:
            found.append(f"silent_days: give a whole number of days from 1 to {MAX_SILENT_DAYS}")
        if self.arm is not None and not self.arm.strip():
            found.append("arm: it is empty")
        return found

    def describe(self) -> str:
        """``status active, arm coach, silent 3+ days`` (or ``everyone``), for a confirmation."""
        parts = [f"status {self.status}" if self.status else "", f"stage {self.stage}" if self.stage else "",
                 f"arm {self.arm}" if self.arm else "",
                 f"silent {self.silent_days}+ days" if self.silent_days else ""]
        return ", ".join(part for part in parts if part) or "everyone"


@dataclass(frozen=True)
class ParticipantSort:
    key: str = "enrolled"
    descending: bool = False

    @classmethod
    def parse(cls, text: str) -> ParticipantSort:
        """``last_in`` or ``-last_in``; ValueError naming the keys otherwise."""
        descending = text.startswith("-")
        key = text.removeprefix("-")
        if key not in SORT_KEYS:
            raise ValueError(f"sort: {key!r} is not one of {', '.join(SORT_KEYS)} (prefix - for descending)")
        return cls(key, descending)

    def __str__(self) -> str:
        return ("-" if self.descending else "") + self.key
