"""A participant's habit plan the model keeps (:class:`HabitProfile`) and the server's record (:class:`ServerRecord`),
as one flat JSON object under unchanged keys (so earlier rows read as they are; unknown keys are kept)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from promptpipe.domain.outcomes import COUNTER_DATES, COUNTER_INTS

INTAKE_FIELDS: tuple[str, ...] = ("habit_domain", "prompt_anchor", "motivational_frame", "preferred_time")
"""What intake gathers before the first prompt."""

PROMPT_REQUIRED_FIELDS: tuple[str, ...] = ("prompt_anchor", "preferred_time")
"""What a habit prompt cannot be written without."""


class Intensity(StrEnum):
    """The size of the daily steps, lightest first: the intensity poll moves it one level."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"


MAX_RECENT_BARRIERS = 5


@dataclass
class HabitProfile:
    """What the model learned about the habit (free text); the fields, in order, are the Go ``UserProfile`` contract."""

    habit_domain: str = ""
    prompt_anchor: str = ""
    motivational_frame: str = ""
    preferred_time: str = ""
    additional_info: str = ""
    last_successful_prompt: str = ""
    last_barrier: str = ""
    last_motivator: str = ""
    last_tweak: str = ""

    def value(self, name: str) -> str:
        if name not in HABIT_FIELDS:
            raise KeyError(name)
        return str(getattr(self, name))

    def filled(self) -> dict[str, str]:
        """The fields that have a value, in the contract's order."""
        return {name: self.value(name) for name in HABIT_FIELDS if self.value(name)}

    def missing(self, names: tuple[str, ...]) -> list[str]:
        return [name for name in names if not self.value(name).strip()]

    def merge(self, changes: dict[str, str]) -> list[str]:
        """Only non-empty values that differ from what is stored overwrite it; returns the names that changed."""
        updated = []
        for name, value in changes.items():
            if value and self.value(name) != value:
                setattr(self, name, value)
                updated.append(name)
        return updated


HABIT_FIELDS: tuple[str, ...] = tuple(spec.name for spec in dataclasses.fields(HabitProfile))
"""Free-text fields the model may set."""


@dataclass(frozen=True)
class Barrier:
    local_date: str
    text: str


@dataclass(frozen=True)
class IntensityVote:
    """The participant's vote on the newest intensity poll and the level that poll started at."""

    poll: int | None
    base: str
    choice: str
    source: str = "tap"


@dataclass
class ServerRecord:
    """What the server keeps about the participant's prompts (never written by the model)."""

    last_habit_prompt: str = ""
    last_prompt_sent_at: str | None = None
    """ISO time the newest daily prompt went to the outbox."""
    last_prompt_vote: str | None = None
    intensity: str = "normal"
    intensity_poll_date: str | None = None
    """The local day of the newest intensity poll (at most one a day)."""
    intensity_poll_message: int | None = None
    """Transcript id of the newest intensity poll (only its votes count)."""
    intensity_vote: IntensityVote | None = None
    recent_barriers: list[Barrier] = field(default_factory=list)
    counters: dict[str, int | str | None] = field(default_factory=dict)
    """Recomputed from the delivery rows on every prompt and vote (see domain.outcomes)."""
    updated_at: str | None = None
    """ISO time the model last changed the habit profile."""
    intake_reminders: int = 0
    """Intake reminders sent since intake was last put on hold."""
    last_turn_at: str | None = None
    """ISO time of the last turn the model answered (how long a conversation has been quiet)."""
    language: str | None = None
    """The language (ISO 639-1) of their last command whose words belong to it alone: the service's replies use it."""

    @property
    def level(self) -> str:
        return self.intensity if self.intensity in tuple(Intensity) else Intensity.NORMAL

    def note_barrier(self, local_date: str, text: str) -> None:
        self.recent_barriers = [*self.recent_barriers, Barrier(local_date, text)][-MAX_RECENT_BARRIERS:]

    def counter(self, name: str) -> int | str | None:
        """A counter's value; numbers default to 0, dates to None."""
        return self.counters.get(name, 0 if name in COUNTER_INTS else None)


_RECORD_KEYS = tuple(spec.name for spec in dataclasses.fields(ServerRecord))


@dataclass
class Profile:
    habit: HabitProfile = field(default_factory=HabitProfile)
    record: ServerRecord = field(default_factory=ServerRecord)
    extra: dict[str, Any] = field(default_factory=dict)
    """Stored keys this version does not know (kept as they are)."""

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Profile:
        data = dict(data or {})
        habit = HabitProfile(**{name: str(data.pop(name) or "") for name in HABIT_FIELDS if name in data})
        values: dict[str, Any] = {name: data.pop(name) for name in _RECORD_KEYS if name in data}
        values["intensity_vote"] = _intensity_vote(values.get("intensity_vote"))
        values["recent_barriers"] = [Barrier(str(entry.get("date", "?")), str(entry.get("text", "")))
                                     for entry in values.get("recent_barriers") or [] if isinstance(entry, dict)]
        values["counters"] = dict(values.get("counters") or {})
        values["intensity"] = str(values.get("intensity") or "normal")
        values["last_habit_prompt"] = str(values.get("last_habit_prompt") or "")
        for name, default in (("intake_reminders", 0), ("intensity_poll_message", None)):
            value = values.get(name)
            values[name] = value if isinstance(value, int) and not isinstance(value, bool) else default
        return cls(habit=habit, record=ServerRecord(**values), extra=data)

    def to_json(self) -> dict[str, Any]:
        record = self.record
        data: dict[str, Any] = {**self.extra, **self.habit.filled()}
        for name in _RECORD_KEYS:
            value = getattr(record, name)
            if name == "intensity_vote":
                value = None if value is None else dataclasses.asdict(value)
            elif name == "recent_barriers":
                value = [{"date": b.local_date, "text": b.text} for b in value]
            if value not in (None, "", [], {}) and not (name == "intake_reminders" and value == 0):
                data[name] = value
        return data

    def erased(self) -> Profile:
        """What stays of it when the participant's data is erased: counts and a level, nothing they said."""
        return Profile(record=ServerRecord(intensity=self.record.intensity, counters=dict(self.record.counters)))

    def counters_view(self) -> dict[str, int | str | None]:
        """Every counter, defaults filled in."""
        return {name: self.record.counter(name) for name in (*COUNTER_INTS, *COUNTER_DATES)}


def _intensity_vote(value: Any) -> IntensityVote | None:
    if not isinstance(value, dict) or value.get("base") not in tuple(Intensity):
        return None
    poll = value.get("poll")
    return IntensityVote(poll=poll if isinstance(poll, int) else None, base=str(value["base"]),
                         choice=str(value.get("choice") or ""), source=str(value.get("source") or "tap"))
