"""The APScheduler trigger of a daily prompt: our own, so the daylight-saving policy and the
daily draw of a random window are the ones in :mod:`promptpipe.domain.localtime` (APScheduler's
``CronTrigger`` fires a nonexistent spring-forward time late and a repeated autumn time twice).

Its pickled state holds only plain values, versioned, so a refactor cannot silently break the
stored jobs (and if one ever fails to load, the reconciler re-creates it from our tables).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.triggers.base import BaseTrigger

from promptpipe.domain.localtime import DailySpec, format_hhmm, parse_hhmm, zone_or_utc


class DailyPromptTrigger(BaseTrigger):  # type: ignore[misc]  # APScheduler 3 ships no type information
    __slots__ = ("spec", "zone")

    def __init__(self, spec: DailySpec, zone: str) -> None:
        self.spec = spec
        self.zone = zone

    @property
    def tz(self) -> ZoneInfo:
        return zone_or_utc(self.zone)

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None:
        if previous_fire_time is None:
            return self.spec.next_fire(now, self.tz, inclusive=True)[1]
        return self.spec.next_fire(previous_fire_time, self.tz)[1]

    def __getstate__(self) -> dict[str, Any]:
        spec = self.spec

        def hhmm(value: Any) -> str | None:
            return format_hhmm(value) if value is not None else None

        return {"version": 1, "kind": spec.kind, "habit_time": hhmm(spec.habit_time),
                "window_start": hhmm(spec.window_start), "window_end": hhmm(spec.window_end),
                "prep_minutes": spec.prep_minutes, "seed": spec.seed, "zone": self.zone}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state.get("version") != 1:
            raise ValueError(f"DailyPromptTrigger state version {state.get('version')} is not supported")
        def hhmm(value: str | None) -> Any:
            return parse_hhmm(value) if value else None

        self.spec = DailySpec(kind=state["kind"], habit_time=hhmm(state["habit_time"]),
                              window_start=hhmm(state["window_start"]), window_end=hhmm(state["window_end"]),
                              prep_minutes=int(state["prep_minutes"]), seed=state["seed"])
        self.zone = state["zone"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DailyPromptTrigger) and (self.spec, self.zone) == (other.spec, other.zone)

    def __hash__(self) -> int:
        return hash((self.spec, self.zone))

    def __str__(self) -> str:
        return f"daily at {self.spec.describe()} minus {self.spec.prep_minutes} min ({self.zone})"

    def __repr__(self) -> str:
        return f"<DailyPromptTrigger {self}>"
