"""What researchers do: enroll, list, show, simulate, read transcripts, change a status (consent,
safety flags and stuck inputs are followed in :mod:`promptpipe.research.oversight`).

Every function works whether or not ``serve`` is running: it writes rows to the shared database and
the service picks them up (the greeting of a new participant, a simulated message) within seconds.
Functions return plain data; the CLI formats it.
"""

from __future__ import annotations

import getpass
import secrets
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.conversation import ScheduleEntry
from promptpipe.domain.limits import BACKGROUND_CHARS, INBOUND_CHARS, NAME_CHARS, REASON_CHARS
from promptpipe.domain.localtime import is_iana_zone, local_label, zone_or_utc
from promptpipe.domain.phones import parse_e164
from promptpipe.domain.polls import normalise
from promptpipe.domain.profile import HABIT_FIELDS, Profile
from promptpipe.domain.states import ACTIVE, WITHDRAWN
from promptpipe.domain.text import has_undecodable
from promptpipe.domain.tone import ToneState
from promptpipe.errors import AdminError, DuplicateKey
from promptpipe.pipeline.events import AlarmSyncRequested, DailyPromptDue, Enrolled, as_input
from promptpipe.pipeline.inbox import Inbox, InboxConfig
from promptpipe.scheduling.jobstore import armed_job_ids
from promptpipe.storage.conversations import change_status_now, change_timezone_now
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import newest_polls, prompt_wa_ids
from promptpipe.storage.inbox_rows import add_input
from promptpipe.storage.models import (
    PENDING,
    SENDING,
    Conversation,
    InboxItem,
    Message,
    OutboxItem,
    Participant,
    Timer,
    table_of,
)
from promptpipe.storage.participants import create_participant, participant_by_phone
from promptpipe.storage.receipts import ReceiptTimes, receipt_times
from promptpipe.storage.schedules import load_schedules
from promptpipe.transport import InboundMessage, PollVote, Reaction, poll_option_hash
from promptpipe.transport.base import NON_TEXT_CONTENT

_CONVERSATION = table_of(Conversation)
_INBOX = table_of(InboxItem)
_MESSAGE = table_of(Message)
_OUTBOX = table_of(OutboxItem)
_PARTICIPANT = table_of(Participant)
_TIMER = table_of(Timer)


def researcher_name() -> str:
    """Who is running the admin script (the default for ``--by``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (a bare container)
        return "unknown researcher"


def validate_phone(raw: str) -> str:
    raw = validate_text("--phone", raw, 40, required=True)
    try:
        return parse_e164(raw)
    except ValueError as exc:
        raise AdminError(f"--phone: {exc}") from None


def validate_timezone(raw: str) -> str:
    raw = validate_text("--timezone", raw, 60, required=True)
    if not is_iana_zone(raw):
        raise AdminError(
            f"--timezone: {raw!r} is not an IANA time zone; use a name like America/Toronto or Europe/Berlin"
        )
    return raw


def validate_text(option: str, raw: str, limit: int, *, required: bool = False) -> str:
    """A researcher's free text: trimmed, valid UTF-8, at most ``limit`` characters."""
    if has_undecodable(raw):
        raise AdminError(f"{option}: the text has bytes that are not valid UTF-8; check the terminal's "
                         "encoding (e.g. LANG=C.UTF-8) and type it again")
    text = raw.strip()
    if required and not text:
        raise AdminError(f"{option}: it is empty")
    if len(text) > limit:
        raise AdminError(f"{option}: {len(text):,} characters is too long; at most {limit:,}")
    return text


async def enroll(
    db: Database, clock: Clock, *, phone: str, name: str, timezone: str, background: str = "", by: str = "",
) -> dict[str, Any]:
    """Create the participant and queue their greeting; the running service sends it."""
    phone = validate_phone(phone)
    timezone = validate_timezone(timezone)
    if not name.strip() and not has_undecodable(name):
        raise AdminError("--name: give the participant's name (it is used to greet them)")
    name = validate_text("--name", name, NAME_CHARS, required=True)
    if "\n" in name or "\r" in name:
        raise AdminError("--name: a name is one line")
    background = validate_text("--background", background, BACKGROUND_CHARS)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()

    def write(session: Session) -> dict[str, Any]:
        existing = participant_by_phone(session, phone)
        if existing is not None:
            raise _already_enrolled(phone, existing)
        participant = create_participant(session, phone=phone, name=name, timezone=timezone, background=background,
                                         now=now, reason="enrolled by a researcher", source="researcher", actor=by)
        add_input(db, session, as_input(Enrolled(), key=keys.enrollment(participant.id), participant_id=participant.id),
                  now)
        return _participant_row(participant, None)

    try:
        return await db.run(write)
    except DuplicateKey:  # enrolled at the same moment by someone else (PostgreSQL)
        existing = await find(db, phone)
        raise _already_enrolled(phone, existing) from None


def _already_enrolled(phone: str, existing: Participant | None) -> AdminError:
    who = f" as {existing.id} ({existing.name or 'no name'}, {existing.status})" if existing else ""
    return AdminError(f"{phone} is already enrolled{who}; nothing was changed")


async def find(db: Database, phone: str) -> Participant | None:
    """The participant with this phone, or None."""
    phone = validate_phone(phone)
    return await db.run(lambda session: participant_by_phone(session, phone))


async def _get(db: Database, phone: str) -> tuple[Participant, Conversation]:
    phone = validate_phone(phone)

    def read(session: Session) -> tuple[Participant, Conversation]:
        participant = participant_by_phone(session, phone)
        if participant is None:
            raise AdminError(f"{phone} is not enrolled; enroll them first with `promptpipe-admin enroll`")
        conversation = session.get(Conversation, participant.id)
        assert conversation is not None
        return participant, conversation

    return await db.run(read)


def _participant_row(participant: Participant, conversation: Conversation | None) -> dict[str, Any]:
    return {
        "id": participant.id,
        "phone": participant.phone,
        "name": participant.name,
        "timezone": participant.timezone,
        "status": participant.status,
        "paused_by": participant.paused_by,
        "opted_out": participant.opted_out,
        "researcher_paused": participant.researcher_paused,
        "sub_state": conversation.sub_state if conversation else "INTAKE",
        "enrolled_at": participant.enrolled_at.isoformat(),
    }


async def list_participants(db: Database) -> list[dict[str, Any]]:
    rows = await db.run(lambda session: session.execute(
        select(Participant, Conversation).join(Conversation, _CONVERSATION.c.participant_id == _PARTICIPANT.c.id)
        .order_by(_PARTICIPANT.c.enrolled_at)
    ).all())
    return [_participant_row(p, c) for p, c in rows]


async def show(db: Database, phone: str) -> dict[str, Any]:
    participant, conversation = await _get(db, phone)

    def count(session: Session) -> tuple[dict[str, int], int, int]:
        counts: dict[str, int] = dict(session.execute(
            select(_MESSAGE.c.direction, func.count()).where(_MESSAGE.c.participant_id == participant.id)
            .group_by(_MESSAGE.c.direction)
        ).all())
        waiting = session.execute(
            select(func.count()).select_from(InboxItem)
            .where(_INBOX.c.participant_id == participant.id, _INBOX.c.status == PENDING)
        ).scalar_one()
        unsent = session.execute(
            select(func.count()).select_from(OutboxItem)
            .where(_OUTBOX.c.participant_id == participant.id, _OUTBOX.c.status.in_((PENDING, SENDING)))
        ).scalar_one()
        return counts, waiting, unsent

    counts, waiting, unsent = await db.run(count)
    profile = Profile.from_json(conversation.profile)
    row = _participant_row(participant, conversation)
    row.update(
        background=participant.background,
        profile={name: profile.habit.value(name) for name in HABIT_FIELDS},
        last_habit_prompt=profile.record.last_habit_prompt,
        intensity=profile.record.intensity,
        counters=profile.counters_view(),
        tone=", ".join(ToneState.from_json(conversation.tone).active),
        summary=conversation.summary,
        messages_in=counts.get("in", 0),
        messages_out=counts.get("out", 0),
        inputs_waiting=waiting,
        replies_unsent=unsent,
    )
    return row


STATUS_COMMANDS = {
    "pause": ("paused_by_researcher", "paused by a researcher"),
    "resume": ("resumed_by_researcher", "resumed by a researcher"),
    "withdraw": ("withdrawn_by_researcher", "withdrawn by a researcher"),
}


async def set_status(db: Database, clock: Clock, *, phone: str, action: str, reason: str = "", by: str = "") -> str:
    """pause | resume | withdraw. Returns a one-line description of what happened.

    A researcher's pause and a participant's opt-out (STOP) are separate: ``resume`` lifts only the
    researcher's pause, and the participant stays paused while their own STOP holds."""
    participant, _ = await _get(db, phone)
    name, default_reason = STATUS_COMMANDS[action]
    reason = validate_text("--reason", reason, REASON_CHARS) or default_reason
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    if participant.status == WITHDRAWN:
        raise AdminError(f"{participant.phone} was withdrawn from the study; that cannot be undone or changed")
    if action == "resume" and not participant.researcher_paused:
        if participant.opted_out:
            raise AdminError(
                f"{participant.phone} stopped the messages themselves (STOP); only they can switch them back "
                "on, by sending START"
            )
        return f"{participant.phone} is already active; nothing changed"
    if action == "pause" and participant.researcher_paused:
        return f"{participant.phone} is already paused by the research team; nothing changed"
    now = clock.now()

    def write(session: Session) -> str | None:
        state = change_status_now(session, participant.id, name, reason=reason, now=now, actor=by)
        if state is None:
            return None
        _ask_for_alarm_sync(db, session, participant.id, now)
        return state.status

    status = await db.run(write)
    if status is None:
        return f"{participant.phone} is already {participant.status}; nothing changed"
    if action == "resume" and status != ACTIVE:
        return (f"{participant.phone}: the research team's pause is lifted, but they stay paused because they "
                "sent STOP themselves; only they can switch messages back on, by sending START")
    if action == "pause" and participant.opted_out:
        return (f"{participant.phone} is now paused by the research team as well as by their own STOP; "
                "both must be lifted before anything is sent")
    return f"{participant.phone} is now {status}" + (
        "; no scheduled message will be sent to them" if status != ACTIVE else "")


async def set_timezone(db: Database, clock: Clock, *, phone: str, timezone: str) -> str:
    timezone = validate_timezone(timezone)
    participant, _ = await _get(db, phone)
    if participant.timezone == timezone:
        return f"{participant.phone} already uses {timezone}; nothing changed"
    now = clock.now()

    def write(session: Session) -> None:
        if change_timezone_now(session, participant.id, timezone, reason="changed by a researcher", now=now):
            _ask_for_alarm_sync(db, session, participant.id, now)

    await db.run(write)
    return (f"{participant.phone} now uses {timezone} (was {participant.timezone}); "
            "their daily prompts follow the new local time from the next one on")


def _ask_for_alarm_sync(db: Database, session: Session, participant_id: str, now: datetime) -> None:
    """The service owns the alarm clock: an inbox row asks it to bring this participant's alarms
    in line with the change (if it is not running, its start-up check does the same)."""
    add_input(db, session, as_input(AlarmSyncRequested(), key=keys.alarm_sync(participant_id, secrets.token_hex(4)),
                                    participant_id=participant_id), now)


async def schedules(db: Database, clock: Clock, *, phone: str) -> dict[str, Any]:
    """A participant's daily prompt schedules and pending timers, with their next local times."""
    participant, _ = await _get(db, phone)
    now = clock.now()

    def read(session: Session) -> tuple[list[ScheduleEntry], list[Timer], set[str]]:
        entries = load_schedules(session, participant.id)
        timers = list(session.execute(select(Timer).where(
            _TIMER.c.participant_id == participant.id, _TIMER.c.status == PENDING).order_by(_TIMER.c.due_at)).scalars())
        armed = armed_job_ids(session, [keys.daily_job(participant.id, e.id) for e in entries]
                               + [keys.timer_job(participant.id, t.kind) for t in timers])
        return entries, timers, armed

    entries, timers, armed = await db.run(read)
    zone = zone_or_utc(participant.timezone)
    active = participant.status == ACTIVE
    return {
        "phone": participant.phone,
        "status": participant.status,
        "timezone": participant.timezone,
        "schedules": [
            {
                "id": entry.id,
                "habit": entry.spec().describe(),
                "prep_minutes": entry.prep_minutes,
                "next_prompt": local_label(entry.spec().next_fire(now, zone)[1], zone) if active else None,
                "armed": keys.daily_job(participant.id, entry.id) in armed,
            }
            for entry in entries
        ],
        "timers": [_timer_row(timer, zone, armed, participant.phone) for timer in timers],
    }


async def pending_timers(db: Database) -> list[dict[str, Any]]:
    """Every pending timer of every participant, soonest first."""

    def read(session: Session) -> list[tuple[Timer, Participant]]:
        rows = session.execute(
            select(Timer, Participant).join(Participant, _PARTICIPANT.c.id == _TIMER.c.participant_id)
            .where(_TIMER.c.status == PENDING).order_by(_TIMER.c.due_at)).all()
        return [(timer, person) for timer, person in rows]

    rows = await db.run(read)
    ids = [keys.timer_job(p.id, t.kind) for t, p in rows]
    armed = await db.run(lambda session: armed_job_ids(session, ids))
    return [_timer_row(timer, zone_or_utc(person.timezone), armed, person.phone) for timer, person in rows]


def _timer_row(timer: Timer, zone: Any, armed: set[str], phone: str) -> dict[str, Any]:
    return {
        "phone": phone,
        "kind": timer.kind,
        "due": local_label(timer.due_at, zone),
        "due_utc": timer.due_at.isoformat(),
        "detail": ", ".join(f"{k}={v}" for k, v in sorted(timer.payload.items())),
        "armed": keys.timer_job(timer.participant_id, timer.kind) in armed,
    }


async def send_prompt_now(db: Database, clock: Clock, *, phone: str) -> int:
    """Queue a daily-prompt event for now, as the participant's daily alarm would."""
    participant, _ = await _get(db, phone)
    if participant.status != ACTIVE:
        raise AdminError(f"{participant.phone} is {participant.status}; scheduled messages are not sent to them")
    now = clock.now()
    key = keys.manual_prompt(participant.id, secrets.token_hex(4))
    inbox_id = await db.run(lambda session: add_input(
        db, session, as_input(DailyPromptDue(manual=True), key=key, participant_id=participant.id), now))
    assert inbox_id is not None
    return inbox_id


async def simulate(db: Database, clock: Clock, *, phone: str, text: str = "", kind: str = "text",
                   reply_to_prompt: str | None = None) -> int:
    """Store a message exactly as if the participant had sent it on WhatsApp: text, or a message
    without words (``kind`` voice, image …); ``reply_to_prompt`` (YYYY-MM-DD) makes it a swipe
    reply to the daily prompt of that day."""
    phone = validate_phone(phone)
    if kind != "text":
        if kind not in NON_TEXT_CONTENT:
            raise AdminError(f"--kind: {kind!r} is not one of text, {', '.join(NON_TEXT_CONTENT)}")
        if text.strip():
            raise AdminError(f"--kind {kind}: leave the text out (a photo, video or document with a caption "
                             "arrives as text: send the caption as a plain message)")
    else:
        if not text.strip() and not has_undecodable(text):
            raise AdminError("the message text is empty; give the text to send as the participant")
        text = validate_text("the message", text, INBOUND_CHARS, required=True)
    participant, _ = await _get(db, phone)
    quoted = None
    if reply_to_prompt is not None:
        day = _parse_day("--reply-to-prompt", reply_to_prompt)
        ids = await db.run(lambda session: prompt_wa_ids(session, participant.id, day))
        if ids is None or ids[0] is None:
            raise AdminError(f"--reply-to-prompt: no daily prompt was sent to {phone} on {day}")
        quoted = ids[0]
    return await _ingest_as(db, clock, phone, text=text.strip(), content=kind, quoted_message_id=quoted)


async def simulate_vote(db: Database, clock: Clock, *, phone: str, option: str) -> int:
    """Tap an option of the newest prompt's polls: by its words (the poll that has them), or by its
    number (on the newest poll: the intensity poll when one went out with the prompt)."""
    participant, conversation = await _get(db, validate_phone(phone))
    intensity_poll = Profile.from_json(conversation.profile).record.intensity_poll_message
    newest = await db.run(lambda session: newest_polls(session, participant.id, intensity_poll))
    polls = [poll for poll in (newest.intensity, newest.daily) if poll is not None] if newest else []
    if not polls:
        raise AdminError(f"{participant.phone} has no poll to answer yet: polls go out with each daily prompt "
                         "(`promptpipe-admin prompt-now` sends one)")
    words = normalise(option)
    choice = None
    if words.isdigit():
        poll = polls[0]
        if 1 <= int(words) <= len(poll.options):
            choice = (poll, poll.options[int(words) - 1])
    else:
        choice = next(((poll, o) for poll in polls for o in poll.options if normalise(o) == words), None)
    if choice is None:
        offered = "; ".join(", ".join(f"{n}. {o}" for n, o in enumerate(poll.options, 1)) for poll in polls)
        raise AdminError(f"--vote: {option!r} is not an option of the open poll{'s' if len(polls) > 1 else ''} "
                         f"({offered}); give an option's words or its number")
    poll, chosen = choice
    if poll.wa_message_id is None:
        raise AdminError("that poll has not been sent yet (is `promptpipe serve` running?); try again in a moment")
    return await _ingest_as(db, clock, participant.phone,
                            poll_vote=PollVote(poll.wa_message_id, (poll_option_hash(chosen),)))


REACTION_TARGETS = ("prompt", "poll")


async def simulate_reaction(db: Database, clock: Clock, *, phone: str, emoji: str, to: str = "prompt") -> int:
    """React to the newest daily prompt (or its poll) as the participant; an empty emoji takes a
    reaction back."""
    emoji = validate_text("--react", emoji, 16)
    participant, _ = await _get(db, validate_phone(phone))
    ids = await db.run(lambda session: prompt_wa_ids(session, participant.id))
    target = None if ids is None else ids[REACTION_TARGETS.index(to)]
    if target is None:
        raise AdminError(f"{participant.phone} has no sent daily {to} to react to yet")
    return await _ingest_as(db, clock, participant.phone, reaction=Reaction(target, emoji))


def _parse_day(option: str, raw: str) -> str:
    try:
        return date.fromisoformat(raw.strip()).isoformat()
    except ValueError:
        raise AdminError(f"{option}: {raw!r} is not a date; write it as YYYY-MM-DD, e.g. 2026-01-05") from None


async def _ingest_as(db: Database, clock: Clock, phone: str, *, text: str = "", **fields: Any) -> int:
    inbox = Inbox(db, clock, InboxConfig(auto_enroll=False, default_timezone="UTC"), wake=lambda _: None)
    inbox_id = await inbox.ingest(InboundMessage(
        message_id="sim-" + secrets.token_hex(8), sender_phone=phone, sender_lid=None, sender_name="",
        text=text, timestamp=clock.now(), **fields,
    ))
    if inbox_id is None:
        raise AdminError("the message was not stored (see the log)")
    return inbox_id


async def transcript(db: Database, phone: str) -> list[dict[str, Any]]:
    participant, _ = await _get(db, phone)

    def read(session: Session) -> tuple[list[Message], dict[str, ReceiptTimes]]:
        messages = list(session.execute(
            select(Message).where(_MESSAGE.c.participant_id == participant.id).order_by(_MESSAGE.c.id)).scalars().all())
        return messages, receipt_times(session, [m.wa_message_id for m in messages if m.direction == "out"])

    rows, receipts = await db.run(read)

    def when(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return [
        {
            "id": row.id,
            "at": row.created_at.isoformat(),
            "direction": row.direction,
            "kind": row.kind,
            "status": row.status,
            "sent_at": row.sent_at.isoformat() if row.sent_at else None,
            "delivered_at": when(receipts[row.wa_message_id].delivered_at) if row.wa_message_id in receipts else None,
            "read_at": when(receipts[row.wa_message_id].read_at) if row.wa_message_id in receipts else None,
            "played_at": when(receipts[row.wa_message_id].played_at) if row.wa_message_id in receipts else None,
            "whatsapp_id": row.wa_message_id,
            "text": row.text,
            "payload": row.payload,
        }
        for row in rows
    ]
