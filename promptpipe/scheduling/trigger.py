"""The APScheduler trigger of a daily prompt: our own, so the daylight-saving policy and a window's daily draw are
:mod:`promptpipe.domain.localtime`'s (``CronTrigger`` fires a skipped spring time late, a repeated autumn one twice).

Its pickled state holds only plain values, versioned, so a refactor cannot silently break the stored jobs. In a burst
most triggers share a few specs, zones and instants, so the next fire time and the state are remembered (they were a
third of a 10,000-job pass, issue 26).
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any, TypedDict

from apscheduler.triggers.base import BaseTrigger

from promptpipe.domain.localtime import DailySpec, format_hhmm, zone_or_utc


class DailyPromptTrigger(BaseTrigger):  # type: ignore[misc]  # APScheduler 3 ships no type information
    __slots__ = ("spec", "zone")

    def __init__(self, spec: DailySpec, zone: str) -> None:
        self.spec = spec
        self.zone = zone

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None:
        return _next_fire(self.spec, self.zone, previous_fire_time or now, previous_fire_time is None)

    def __getstate__(self) -> TriggerState:
        return _state_of(self.spec, self.zone).copy()

    def __setstate__(self, state: TriggerState) -> None:
        if state.get("version") != 1:
            raise ValueError(f"DailyPromptTrigger state version {state.get('version')} is not supported")
        self.spec = DailySpec.from_text(state["kind"], state["habit_time"], state["window_start"],
                                        state["window_end"], int(state["prep_minutes"]), state["seed"])
        self.zone = state["zone"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DailyPromptTrigger) and (self.spec, self.zone) == (other.spec, other.zone)

    def __hash__(self) -> int:
        return hash((self.spec, self.zone))

    def __str__(self) -> str:
        return f"daily at {self.spec.describe()} minus {self.spec.prep_minutes} min ({self.zone})"

    def __repr__(self) -> str:
        return f"<DailyPromptTrigger {self}>"


class TriggerState(TypedDict):
    """What a pickled trigger holds (``version`` 1)."""

    version: int
    kind: str
    habit_time: str | None
    window_start: str | None
    window_end: str | None
    prep_minutes: int
    seed: str
    zone: str


@functools.lru_cache(maxsize=4096)
def _next_fire(spec: DailySpec, zone: str, after: datetime, inclusive: bool) -> datetime:
    return spec.next_fire(after, zone_or_utc(zone), inclusive=inclusive)[1]


@functools.lru_cache(maxsize=4096)
def _state_of(spec: DailySpec, zone: str) -> TriggerState:
    """The state to pickle (callers copy it: the remembered dict is shared)."""
    def hhmm(value: Any) -> str | None:
        return format_hhmm(value) if value is not None else None

    return {"version": 1, "kind": spec.kind, "habit_time": hhmm(spec.habit_time),
            "window_start": hhmm(spec.window_start), "window_end": hhmm(spec.window_end),
            "prep_minutes": spec.prep_minutes, "seed": spec.seed, "zone": zone}
