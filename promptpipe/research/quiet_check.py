"""The study's quiet hours for what the research team sends by hand (a team message, a prompt
now): inside them it is refused, saying the participant's local time and when quiet hours end,
unless the researcher sends it anyway."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.domain.study import QuietHours
from promptpipe.errors import Forbidden

__all__ = ["refuse_in_quiet_hours"]


def refuse_in_quiet_hours(quiet: QuietHours | None, *, who: str, timezone: str, now: datetime, what: str,
                          anyway: bool, can_wait: bool = False) -> None:
    """Forbidden when ``now`` is inside the participant's quiet hours (and not ``anyway``);
    ``can_wait``: the refusal offers to hold it until they end."""
    if anyway:
        return
    zone = zone_or_utc(timezone)
    end = quiet_period_end(quiet, now, zone)
    if end is None:
        return
    raise Forbidden(
        f"{who}: it is {now.astimezone(zone):%H:%M} for them ({zone.key}), inside the study's quiet hours; "
        f"{what} was not sent. Send it after {end.astimezone(zone):%H:%M} their time"
        + (", have it sent then (--after-quiet-hours; in the API \"after_quiet_hours\": true)," if can_wait else "")
        + " or send it anyway (--anyway; in the API \"anyway\": true)."
    )
