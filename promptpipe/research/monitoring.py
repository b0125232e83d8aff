"""What a study lead watches: the study at a glance, prompt statistics by day and arm, and the adherence heatmap."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain.adherence import best_outcome, heatmap_first_day
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.domain.messages import VoteSource
from promptpipe.domain.outcomes import Outcome, delivery_outcome
from promptpipe.domain.participant_filter import ParticipantFilter, ParticipantSort
from promptpipe.domain.states import Vote
from promptpipe.errors import AdminError
from promptpipe.research._common import get_participant
from promptpipe.research.listing import participant_list
from promptpipe.research.status import StatusReport, read_status
from promptpipe.research.views import iso
from promptpipe.storage.db import Database
from promptpipe.study.store import stats
from promptpipe.study.store.day import pause_holders

__all__ = ["MAX_STATS_DAYS", "Adherence", "AdherenceRow", "DayStats", "DeliveryView", "Overview", "PromptStats",
           "TodayCounts", "adherence", "deliveries", "overview", "prompt_stats"]

MAX_STATS_DAYS = 366
MAX_HEATMAP_DAYS = 120
ENROLMENT_ORDER = ParticipantSort("enrolled")
STEPS = ("sent", "delivered", "read", "answered", "done")
"""How far the daily prompts got, in order: each count includes the later ones."""


def _counts_row(counts: stats.DayCounts) -> dict[str, int]:
    return {step: getattr(counts, step) for step in STEPS}


@dataclass(frozen=True)
class TodayCounts:
    """Daily prompts sent since ``since`` (midnight, the researcher's time) and how far they got."""

    since: str
    sent: int
    delivered: int
    read: int
    answered: int
    done: int


@dataclass(frozen=True)
class Overview:
    participants: int
    by_status: dict[str, int]
    by_stage: dict[str, int]
    by_arm: dict[str, int]
    """By arm name; ``-`` for no arm."""
    today: TodayCounts
    service: StatusReport


@dataclass(frozen=True)
class DayStats:
    """One participant-local day of one arm."""

    date: str
    arm: str | None
    sent: int
    delivered: int
    read: int
    answered: int
    done: int


@dataclass(frozen=True)
class PromptStats:
    first_day: str
    last_day: str
    days: list[DayStats]
    arms: dict[str, dict[str, int]]
    """Totals per arm (``-`` for no arm): sent, delivered, read, answered, done."""


@dataclass(frozen=True)
class AdherenceRow:
    participant_id: str
    name: str
    status: str
    arm: str | None
    first_day: str
    cells: list[str]
    """One outcome per day from ``first_day``: one of :data:`CELL_OUTCOMES`."""
    stage: str = ""
    paused_by: str | None = None
    """Who holds the pause (participant, researcher or both), for a paused participant."""


@dataclass(frozen=True)
class Adherence:
    total: int
    limit: int
    offset: int
    days: int
    """The widest row."""
    rows: list[AdherenceRow]


@dataclass(frozen=True)
class DeliveryView:
    """One daily prompt sent: receipts, answer and outcome."""

    local_date: str
    sent_at: str | None
    delivered_at: str | None
    read_at: str | None
    vote: Vote | None
    vote_source: VoteSource | None
    replied_at: str | None
    reminder_at: str | None
    prompt_text: str | None
    outcome: Outcome


async def overview(db: Database, clock: Clock, *, zone: ZoneInfo) -> Overview:
    """Participants by status, stage and arm; prompts sent since midnight in the researcher's ``zone``; the service."""
    now = clock.now()
    midnight = datetime.combine(now.astimezone(zone).date(), time(0, 0), zone)

    def read(session: Session) -> tuple[list[tuple[str, str, str | None, int]], list[stats.DayCounts]]:
        return stats.participant_counts(session), stats.prompt_counts(session, sent_since=midnight, by_day=False)

    groups, today = await db.run(read)
    by_status: Counter[str] = Counter()
    by_stage: Counter[str] = Counter()
    by_arm: Counter[str] = Counter()
    for state, stage, arm, count in groups:
        by_status[state] += count
        by_stage[stage] += count
        by_arm[arm or "-"] += count
    totals = Counter[str]()
    for counts in today:
        totals.update(_counts_row(counts))
    report = await read_status(db)
    return Overview(participants=sum(by_status.values()), by_status=dict(by_status), by_stage=dict(by_stage),
                    by_arm=dict(by_arm), today=TodayCounts(since=midnight.isoformat(), **{s: totals[s] for s in STEPS}),
                    service=report)


async def prompt_stats(db: Database, *, first_day: date, last_day: date) -> PromptStats:
    """Daily prompts by participant-local day and arm, and totals per arm."""
    if last_day < first_day:
        raise AdminError("to: the last day is before the first day")
    if (last_day - first_day).days + 1 > MAX_STATS_DAYS:
        raise AdminError(f"from/to: at most {MAX_STATS_DAYS} days at once")
    rows = await db.run(lambda session: stats.day_counts(session, first_day=first_day.isoformat(),
                                                         last_day=last_day.isoformat()))
    per_arm: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        per_arm[row.arm or "-"].update(_counts_row(row))
    return PromptStats(first_day=first_day.isoformat(), last_day=last_day.isoformat(),
                       days=[DayStats(date=row.local_date, arm=row.arm, **_counts_row(row)) for row in rows],
                       arms={arm: dict(counts) for arm, counts in sorted(per_arm.items())})


async def adherence(db: Database, clock: Clock, flt: ParticipantFilter, *, limit: int = 50, offset: int = 0,
                    receipt_window: timedelta = timedelta(hours=12),
                    order: ParticipantSort = ENROLMENT_ORDER) -> Adherence:
    """A page of participants, each with the day's outcome (:mod:`promptpipe.domain.adherence`) from day 1 on."""
    page = await participant_list(db, clock, flt, order, limit=limit, offset=offset)
    ids = [row.id for row in page.items]

    def read(session: Session) -> tuple[list[stats.HeatmapDelivery], dict[str, str]]:
        return stats.deliveries_for_heatmap(session, ids), pause_holders(session, ids)

    deliveries, paused = await db.run(read)
    now = clock.now()
    cutoff = now - receipt_window
    outcomes: dict[tuple[str, str], list[str]] = defaultdict(list)
    for d in deliveries:
        not_delivered = (d.receipts_expected and d.delivered_at is None and d.sent_at <= cutoff)
        outcomes[(d.participant_id, d.local_date)].append(
            delivery_outcome(d.vote, d.replied_at, d.reminder_at, not_delivered=not_delivered))
    rows, width = [], 0
    for item in page.items:
        zone = zone_or_utc(item.timezone)
        first = heatmap_first_day(item.day_one, datetime.fromisoformat(item.enrolled_at).astimezone(zone).date())
        end = now.astimezone(zone).date()
        if item.completed_at:
            end = min(end, datetime.fromisoformat(item.completed_at).astimezone(zone).date())
        days = max(0, min((end - first).days + 1, MAX_HEATMAP_DAYS))
        cells = [best_outcome(outcomes.get((item.id, (first + timedelta(days=i)).isoformat()), []))
                 for i in range(days)]
        width = max(width, days)
        rows.append(AdherenceRow(participant_id=item.id, name=item.name, status=item.status, arm=item.arm,
                                 first_day=first.isoformat(), cells=cells, stage=item.stage,
                                 paused_by=paused.get(item.id)))
    return Adherence(total=page.total, limit=limit, offset=offset, days=width, rows=rows)


async def deliveries(db: Database, clock: Clock, who: str, *,
                     receipt_window: timedelta = timedelta(hours=12)) -> tuple[str, list[DeliveryView]]:
    """A participant's daily prompts with receipts, answer and outcome (participant id, rows)."""
    participant, _ = await get_participant(db, who)
    rows = await db.run(lambda session: stats.participant_deliveries(session, participant.id))
    cutoff = clock.now() - receipt_window
    return participant.id, [DeliveryView(
        local_date=row.local_date, sent_at=iso(row.sent_at), delivered_at=iso(row.delivered_at),
        read_at=iso(row.read_at), vote=Vote(row.vote) if row.vote else None,
        vote_source=VoteSource(row.vote_source) if row.vote_source else None, replied_at=iso(row.replied_at),
        reminder_at=iso(row.reminder_at), prompt_text=row.prompt_text,
        outcome=delivery_outcome(row.vote, row.replied_at, row.reminder_at, not_delivered=(
            row.receipts_expected and row.delivered_at is None and row.sent_at <= cutoff))) for row in rows]
