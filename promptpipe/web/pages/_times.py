"""Times as the dashboard shows them: in the participant's local time and in the researcher's, each labelled."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

__all__ = ["TimeLabel", "from_label", "time_label"]


@dataclass(frozen=True)
class TimeLabel:
    iso: str
    """The instant in UTC (ISO 8601), for ``<time datetime>``."""
    participant: str
    participant_zone: str
    researcher: str
    researcher_zone: str

    @property
    def same_zone(self) -> bool:
        return self.participant_zone == self.researcher_zone

    def __str__(self) -> str:
        if self.same_zone:
            return f"{self.participant} participant time and your time ({self.participant_zone})"
        return (f"{self.participant} participant time ({self.participant_zone}) · "
                f"{self.researcher} your time ({self.researcher_zone})")


def _format(instant: datetime, today: date) -> str:
    if instant.date() == today:
        return instant.strftime("%H:%M")
    if instant.year == today.year:
        return f"{instant:%a} {instant.day} {instant:%b %H:%M}"
    return f"{instant.day} {instant:%b %Y %H:%M}"


def time_label(value: datetime | str | None, participant_zone: ZoneInfo, researcher_zone: ZoneInfo,
               now: datetime) -> TimeLabel | None:
    """``value`` (aware datetime or ISO text) in both zones; no date if today there, no year if this year."""
    if value is None or value == "":
        return None
    instant = datetime.fromisoformat(value) if isinstance(value, str) else value
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=timezone.utc)
    mine, theirs = instant.astimezone(researcher_zone), instant.astimezone(participant_zone)
    return TimeLabel(
        iso=instant.astimezone(timezone.utc).isoformat(timespec="seconds"),
        participant=_format(theirs, now.astimezone(participant_zone).date()), participant_zone=participant_zone.key,
        researcher=_format(mine, now.astimezone(researcher_zone).date()), researcher_zone=researcher_zone.key)


def from_label(label: str | None, participant_zone: ZoneInfo) -> datetime | None:
    """The instant of a ``Tuesday 2026-03-10 08:50 (America/Toronto)`` label, or None if it is not one."""
    if not label:
        return None
    text = label.rsplit(" (", 1)[0]
    try:
        return datetime.strptime(text, "%A %Y-%m-%d %H:%M").replace(tzinfo=participant_zone)
    except ValueError:
        return None
