"""What a broadcast would do now, for the dashboard's count-first page, with the same filter and consent rule as
:func:`messaging.broadcast`, so ``matches`` is the count a broadcast is confirmed with."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.consent import why_not_writable
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.domain.quiet_hours import in_quiet_hours
from promptpipe.research.listing import check_filter
from promptpipe.storage.db import Database
from promptpipe.storage.participant_list import matching_groups
from promptpipe.study.rules.protocol import QuietHours

__all__ = ["BroadcastPlan", "broadcast_plan"]


@dataclass(frozen=True)
class BroadcastPlan:
    matches: int
    recipients: int
    skipped: tuple[tuple[str, int], ...]
    """Why the others will be skipped: (reason, how many), a key of ``domain.consent.NOT_WRITABLE``."""
    in_quiet_hours: int
    """Recipients for whom it is inside the study's quiet hours now: they get it when those end."""


async def broadcast_plan(db: Database, clock: Clock, flt: ParticipantFilter,
                         quiet: QuietHours | None) -> BroadcastPlan:
    """What a broadcast to ``flt`` would do now (one read transaction)."""
    check_filter(flt)
    now = clock.now()

    def read(session: Session) -> BroadcastPlan:
        reasons: dict[str, int] = {}
        matched = recipients = quiet_now = 0
        for status, opted_out, erased, zone, count in matching_groups(session, flt, now):
            matched += count
            reason = why_not_writable(status, opted_out=opted_out, erased=erased)
            if reason is not None:
                reasons[reason] = reasons.get(reason, 0) + count
                continue
            recipients += count
            quiet_now += count * in_quiet_hours(quiet, now, zone_or_utc(zone))
        return BroadcastPlan(matched, recipients, tuple(sorted(reasons.items())), quiet_now)

    return await db.run(read)
