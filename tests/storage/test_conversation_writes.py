"""Writes to a participant's status, time zone and conversation go through one path that bumps the
conversation version, so a turn that read the old state runs again instead of writing it back."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta, timezone

from sqlalchemy import event
from sqlalchemy.orm import Session

from promptpipe.clock import ManualClock
from promptpipe.research import admin
from promptpipe.storage.conversations import load_turn_state
from promptpipe.storage.db import Database
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.storage.queue_tables import Timer
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import ANA, enrolled
from tests.pipeline.test_lanes import until


async def test_a_time_zone_changed_during_a_turn_that_opts_out_is_kept(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    gate = threading.Event()
    fake_openai.call_tool("opt_out", {"reason": "no more texts"}, match="leave me alone", gate=gate)
    fake_openai.call_tool("opt_out", {"reason": "no more texts"}, match="leave me alone")  # the turn runs again

    await transport.inject(ANA, "please leave me alone from now on")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the turn to reach the model")
    await admin.set_timezone(app.db, app.clock, phone=ANA, timezone="Europe/Berlin")
    gate.set()
    await running

    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.timezone) == ("paused", "Europe/Berlin")
    fake_openai.assert_complete()


async def test_a_turn_reads_every_active_schedule_and_pending_timer_in_one_statement(db: Database) -> None:
    """The turn's state comes in one read (participant, conversation, schedules, timers): with two
    active schedules and two pending timers the pairs must not double anything, and an inactive
    schedule or a settled timer is not part of the turn."""
    clock = ManualClock(datetime(2026, 1, 5, 9, tzinfo=timezone.utc))
    row = await admin.enroll(db, clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))
    now = clock.now()

    def seed(session: Session) -> None:
        for sid, habit, active, minutes in (("s_b", "07:30", True, 1), ("s_a", "08:00", True, 2),
                                            ("s_off", "09:00", False, 0)):
            session.add(Schedule(id=sid, participant_id=row.id, kind="daily", habit_time=habit, active=active,
                                 created_at=now + timedelta(minutes=minutes), updated_at=now))
        for kind, status in (("reminder", "pending"), ("feedback", "pending"), ("check_in", "cancelled")):
            session.add(Timer(participant_id=row.id, kind=kind, due_at=now + timedelta(hours=1), status=status,
                              payload={"for": kind}, created_at=now))

    await db.run(seed)
    statements: list[str] = []
    event.listen(db.engine, "after_cursor_execute", lambda *args: statements.append(args[2]))
    state = await db.run(lambda session: load_turn_state(session, row.id))
    assert len([s for s in statements if s.startswith("SELECT")]) == 1
    assert [s.id for s in state.schedules] == ["s_b", "s_a"]  # in the order they were made
    assert sorted(state.pending_timers) == ["feedback", "reminder"]
    assert state.pending_timers["reminder"].payload == {"for": "reminder"}


async def test_arming_a_timer_replaces_the_pending_one_of_its_kind_and_cancels_only_those_asked(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """A commit's timer changes (on PostgreSQL the cancel and the arms are one statement): the
    reminder armed again replaces the pending one, a check-in armed with it is new, a kind not
    named stays pending; each new timer comes back with its own id and kind."""
    from sqlalchemy import select

    from promptpipe.domain.conversation import TimerOp
    from promptpipe.storage.schedules import apply_timer_ops

    app, _ = await enrolled(make_app, fake_openai)
    state = await app.db.run(lambda session: load_turn_state(session, _participant_id(session)))
    pid = state.participant.id
    now = app.clock.now()
    soon, later = now + timedelta(hours=1), now + timedelta(hours=2)

    def arm(session: Session, ops: list[TimerOp]) -> list[tuple[str, int | None]]:
        return [(change.kind, change.timer.id if change.timer else None)
                for change in apply_timer_ops(session, pid, ops, now)]

    first = await app.db.run(lambda s: arm(s, [TimerOp("arm", "reminder", soon), TimerOp("arm", "handover", later)]))
    second = await app.db.run(lambda s: arm(s, [TimerOp("arm", "reminder", later, reason="moved"),
                                                TimerOp("arm", "checkin", later, reason="moved")]))
    rows = await app.db.run(lambda s: [tuple(row) for row in s.execute(
        select(Timer.id, Timer.kind, Timer.status, Timer.due_at, Timer.reason)
        .where(Timer.participant_id == pid, Timer.kind.in_(["reminder", "handover", "checkin"])).order_by(Timer.id))])
    ids = dict(first) | {f"{kind} again": timer_id for kind, timer_id in second}
    assert rows == [
        (ids["reminder"], "reminder", "cancelled", soon, "moved"),
        (ids["handover"], "handover", "pending", later, ""),
        (ids["reminder again"], "reminder", "pending", later, "moved"),
        (ids["checkin again"], "checkin", "pending", later, "moved"),
    ]


def _participant_id(session: Session) -> str:
    from sqlalchemy import select

    from promptpipe.storage.models import Participant
    return str(session.execute(select(Participant.id)).scalar_one())
