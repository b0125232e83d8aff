"""Helpers for the scheduling tests: a participant with a schedule, and moving time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import select, text

from promptpipe.app import App
from promptpipe.research import admin
from promptpipe.storage.queue_tables import InboxItem, Timer
from promptpipe.transport.memory import MemoryTransport
from tests.fakes.openai_server import FakeOpenAIServer

PROFILE = {"habit_domain": "stretching", "prompt_anchor": "after my morning coffee", "preferred_time": "08:00",
           "motivational_frame": "less back pain"}
NUDGE = "After your morning coffee, stretch your arms for one minute. Try it?"
QUIET = {  # timers off unless a test switches one on
    "DAILY_PROMPT_REMINDER_DELAY": "0", "AUTO_FEEDBACK_AFTER_PROMPT_ENABLED": "off",
    "FEEDBACK_INITIAL_TIMEOUT": "0", "FEEDBACK_FOLLOWUP_DELAY": "0", "INTENSITY_POLL_ENABLED": "off",
    "INTAKE_INACTIVITY": "0", "INTAKE_REMINDER_DELAY": "0",
}


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


async def enroll_with_schedule(
    app: App, fake: FakeOpenAIServer, phone: str, zone: str, schedule: dict[str, Any] | None = None, name: str = "Ana",
) -> str:
    """Enroll; in the greeting turn the model saves the profile and creates the schedule."""
    row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone=zone,
                                                                study=app.settings.study))
    fake.call_tool("save_user_profile", PROFILE, match=phone_marker(name))
    fake.call_tool("scheduler", schedule or {"action": "create", "type": "fixed", "fixed_time": "08:00"},
                   match=phone_marker(name))
    fake.say(f"Welcome {name}!", match=phone_marker(name))
    await app.run_until_idle()
    return str(row.id)


def phone_marker(name: str) -> str:
    return f"Participant: {name}"


async def at(app: App, when: datetime) -> None:
    """Move the clock to ``when`` and let everything that is due happen."""
    clock = app.clock
    assert clock.now() <= when, "time only moves forward"
    clock.set(when)  # type: ignore[attr-defined]
    await app.run_until_idle()


async def step_through(app: App, until: datetime, step: timedelta = timedelta(minutes=1)) -> None:
    """Move the clock minute by minute (as the running service would see time pass)."""
    while app.clock.now() + step <= until:
        await at(app, app.clock.now() + step)
    await at(app, until)


def sent_kinds(transport: MemoryTransport, phone: str) -> list[tuple[str, str]]:
    return [(item.kind, item.text) for item in transport.sent if item.to.phone == phone]


async def pending_timers(app: App, participant_id: str) -> dict[str, datetime]:
    rows = await app.db.run(lambda s: s.execute(select(Timer.kind, Timer.due_at).where(
        Timer.participant_id == participant_id, Timer.status == "pending")).all())
    return {kind: due for kind, due in rows}


async def job_ids(app: App) -> set[str]:
    return set(await app.db.run(lambda s: s.execute(text("SELECT id FROM apscheduler_jobs")).scalars().all()))


async def inbox_rows(app: App, kind: str) -> list[tuple[str, str]]:
    rows = await app.db.run(lambda s: s.execute(
        select(InboxItem.key, InboxItem.status).where(InboxItem.kind == kind).order_by(InboxItem.id)).all())
    return [(key, status) for key, status in rows]
