"""The study's quiet hours for what the research team sends by hand (a team message, a prompt now)."""

from __future__ import annotations

from datetime import datetime

from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.quiet_hours import quiet_period_end
from promptpipe.errors import Forbidden
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["quiet_hours_wait"]


def quiet_hours_wait(quiet: QuietHours | None, *, who: str, timezone: str, now: datetime, what: str,
                     anyway: bool, after_quiet_hours: bool) -> datetime | None:
    """When quiet hours end if ``now`` is inside the participant's and it is to wait for that (``after_quiet_hours``);
    None when it goes now (outside them, or ``anyway``); Forbidden otherwise, saying what the researcher can do."""
    if anyway:
        return None
    zone = zone_or_utc(timezone)
    end = quiet_period_end(quiet, now, zone)
    if end is None or after_quiet_hours:
        return end
    raise Forbidden(
        f"{who}: it is {now.astimezone(zone):%H:%M} for them ({zone.key}), inside the study's quiet hours; "
        f"{what} was not sent. Send it after {end.astimezone(zone):%H:%M} their time, have it sent then "
        "(--after-quiet-hours; in the API \"after_quiet_hours\": true), or send it anyway (--anyway; in the API "
        "\"anyway\": true)."
    )
