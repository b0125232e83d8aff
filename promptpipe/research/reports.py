"""What researchers read: the participant list, one participant in full, their schedules and
timers (and whether each alarm is armed), and the transcript with WhatsApp's receipts."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.localtime import local_label, zone_or_utc
from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.domain.profile import HABIT_FIELDS, Profile
from promptpipe.domain.states import Stage, Status
from promptpipe.domain.tone import ToneState
from promptpipe.research._common import get_participant, participant_id_in, participant_key
from promptpipe.research.views import (
    MessageView,
    ParticipantDetail,
    ParticipantView,
    SchedulesView,
    ScheduleView,
    TimerView,
    iso,
)
from promptpipe.scheduling.jobstore import armed_job_ids
from promptpipe.storage.db import Database
from promptpipe.storage.models import Conversation, Message, Participant, table_of
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus, Timer, TimerStatus
from promptpipe.storage.receipts import ReceiptTimes, receipt_times
from promptpipe.storage.schedules import load_schedules

__all__ = ["list_participants", "participant_row", "pending_timers", "schedules", "show", "transcript"]

_CONVERSATION = table_of(Conversation)
_INBOX = table_of(InboxItem)
_MESSAGE = table_of(Message)
_OUTBOX = table_of(OutboxItem)
_PARTICIPANT = table_of(Participant)
_TIMER = table_of(Timer)


def participant_row(participant: Participant, conversation: Conversation | None) -> ParticipantView:
    return ParticipantView(
        id=participant.id, phone=participant.phone, name=participant.name, timezone=participant.timezone,
        status=Status(participant.status), paused_by=participant.paused_by, opted_out=participant.opted_out,
        researcher_paused=participant.researcher_paused,
        sub_state=Stage(conversation.sub_state) if conversation else Stage.INTAKE,
        enrolled_at=participant.enrolled_at.isoformat(), arm=participant.arm, strata=dict(participant.strata or {}),
        day_one=participant.day_one, extra_days=participant.extra_days or 0,
        completed_at=iso(participant.completed_at), number=participant.number)


async def list_participants(db: Database) -> list[ParticipantView]:
    rows = await db.run(lambda session: session.execute(
        select(Participant, Conversation).join(Conversation, _CONVERSATION.c.participant_id == _PARTICIPANT.c.id)
        .order_by(_PARTICIPANT.c.enrolled_at)
    ).all())
    return [participant_row(p, c) for p, c in rows]


async def show(db: Database, phone: str) -> ParticipantDetail:
    participant, conversation = await get_participant(db, phone)

    def count(session: Session) -> tuple[dict[str, int], int, int]:
        counts: dict[str, int] = dict(session.execute(
            select(_MESSAGE.c.direction, func.count()).where(_MESSAGE.c.participant_id == participant.id)
            .group_by(_MESSAGE.c.direction)
        ).all())
        waiting = session.execute(
            select(func.count()).select_from(InboxItem)
            .where(_INBOX.c.participant_id == participant.id, _INBOX.c.status == InboxStatus.PENDING)
        ).scalar_one()
        unsent = session.execute(
            select(func.count()).select_from(OutboxItem)
            .where(_OUTBOX.c.participant_id == participant.id,
                   _OUTBOX.c.status.in_((OutboxStatus.PENDING, OutboxStatus.SENDING)))
        ).scalar_one()
        return counts, waiting, unsent

    counts, waiting, unsent = await db.run(count)
    profile = Profile.from_json(conversation.profile)
    return ParticipantDetail(
        **dataclasses.asdict(participant_row(participant, conversation)),
        background=participant.background, profile={name: profile.habit.value(name) for name in HABIT_FIELDS},
        last_habit_prompt=profile.record.last_habit_prompt, intensity=profile.record.intensity,
        counters=profile.counters_view(), tone=", ".join(ToneState.from_json(conversation.tone).active),
        summary=conversation.summary, messages_in=counts.get("in", 0), messages_out=counts.get("out", 0),
        inputs_waiting=waiting, replies_unsent=unsent)


async def schedules(db: Database, clock: Clock, *, phone: str) -> SchedulesView:
    """A participant's daily prompt schedules and pending timers, with their next local times."""
    participant, _ = await get_participant(db, phone)
    now = clock.now()

    def read(session: Session) -> tuple[list[ScheduleEntry], list[Timer], set[str]]:
        entries = load_schedules(session, participant.id)
        timers = list(session.execute(select(Timer).where(
            _TIMER.c.participant_id == participant.id, _TIMER.c.status == TimerStatus.PENDING)
            .order_by(_TIMER.c.due_at)).scalars())
        armed = armed_job_ids(session, [keys.daily_job(participant.id, e.id) for e in entries]
                               + [keys.timer_job(participant.id, t.kind) for t in timers])
        return entries, timers, armed

    entries, timers, armed = await db.run(read)
    zone = zone_or_utc(participant.timezone)
    active = participant.status == Status.ACTIVE
    return SchedulesView(
        phone=participant.phone, status=Status(participant.status), timezone=participant.timezone,
        schedules=[
            ScheduleView(id=entry.id, habit=entry.spec().describe(), prep_minutes=entry.prep_minutes,
                         next_prompt=local_label(entry.spec().next_fire(now, zone)[1], zone) if active else None,
                         armed=keys.daily_job(participant.id, entry.id) in armed)
            for entry in entries
        ],
        timers=[_timer_row(timer, zone, armed, participant.phone) for timer in timers],
    )


async def pending_timers(db: Database) -> list[TimerView]:
    """Every pending timer of every participant, soonest first."""

    rows = await db.run(lambda session: session.execute(
        select(Timer, Participant).join(Participant, _PARTICIPANT.c.id == _TIMER.c.participant_id)
        .where(_TIMER.c.status == TimerStatus.PENDING).order_by(_TIMER.c.due_at)).all())
    ids = [keys.timer_job(p.id, t.kind) for t, p in rows]
    armed = await db.run(lambda session: armed_job_ids(session, ids))
    return [_timer_row(timer, zone_or_utc(person.timezone), armed, person.phone) for timer, person in rows]


def _timer_row(timer: Timer, zone: Any, armed: set[str], phone: str) -> TimerView:
    detail = ", ".join(f"{k}={v}" for k, v in sorted(timer.payload.items()))
    return TimerView(phone=phone, kind=timer.kind, due=local_label(timer.due_at, zone),
                     due_utc=timer.due_at.isoformat(), detail=detail,
                     armed=keys.timer_job(timer.participant_id, timer.kind) in armed)


async def transcript(db: Database, phone: str, *, limit: int | None = None,
                     before_id: int | None = None) -> list[MessageView]:
    """The messages, oldest first: all, or the newest ``limit`` older than ``before_id``. One bounded query of plain
    rows: the API's transcript is one of its most asked-for reads."""
    by_id, key = participant_key(phone)
    m = _MESSAGE.c

    def read(session: Session) -> tuple[list[Any], dict[str, ReceiptTimes]]:
        query = select(m.id, m.created_at, m.direction, m.kind, m.status, m.sent_at, m.wa_message_id, m.text,
                       m.payload).where(m.participant_id == participant_id_in(session, by_id, key))
        if before_id is not None:
            query = query.where(m.id < before_id)
        newest_first = query.order_by(m.id.desc()).limit(limit)
        query = newest_first if limit is not None else query.order_by(m.id)
        messages = sorted(session.connection().execute(query).all(), key=lambda message: message.id)
        return messages, receipt_times(session, [row.wa_message_id for row in messages if row.direction == "out"])

    rows, receipts = await db.run(read)
    return [_message_view(row, receipts.get(row.wa_message_id or "")) for row in rows]


def _message_view(row: Any, times: ReceiptTimes | None) -> MessageView:
    times = times or ReceiptTimes()
    return MessageView(
        id=row.id, at=row.created_at.isoformat(), direction=row.direction, kind=MessageKind(row.kind),
        status=MessageStatus(row.status), sent_at=iso(row.sent_at), delivered_at=iso(times.delivered_at),
        read_at=iso(times.read_at), played_at=iso(times.played_at), whatsapp_id=row.wa_message_id, text=row.text,
        payload=dict(row.payload or {}))
