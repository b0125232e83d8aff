"""The database work one message costs, per kind of turn: SQL statements and transactions counted
with SQLAlchemy's events while the running service handles it end to end (stored, turned,
committed, sent, marked sent). The count does not depend on the machine, so it is a test: a
change that needs more raises the budget here, in the same commit, saying why."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from promptpipe.app import App
from promptpipe.domain.polls import POLL_OPTIONS
from promptpipe.domain.timers import TimerKind
from promptpipe.research import admin
from promptpipe.storage.outbox_rows import PLAN_EACH_TIME
from promptpipe.storage.queue_tables import Timer
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, polls, prompted, vote
from tests.flow.test_questionnaires import SMOKED, poll_id, started
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, utc

BUDGET = {  # kind of turn: (statements, transactions), the whole path of one message
    "intake message": (11, 3),
    "feedback message": (12, 3),
    "poll vote": (18, 3),
    "STOP": (21, 4),
    "daily prompt": (18, 5),
    "reminder": (14, 4),
    "team message": (12, 5),
    "questionnaire tap": (17, 3),
    "questionnaire typed answer": (15, 3),
}
"""Today's figures (the daily prompt 17 or 18: whether its poll goes in the prompt's recorded send
depends on timing; its three messages go into the transcript in one statement). Transactions
count every one, reads included. An ordinary message (intake, feedback) is within issue 26's 12
statements and 3 transactions. A questionnaire answer pays the
ordinary message's path (the turn still reads the model's history, which an answer does not need)
plus its answer, the next item asked and the instance's progress. Each reduction lowers its line
here, so what was won stays won."""

POSTGRES_BUDGET = {
    "intake message": (10, 3),
    "feedback message": (11, 3),
    "poll vote": (17, 3),
    "STOP": (20, 4),
    "daily prompt": (14, 5),
    "reminder": (13, 4),
    "team message": (11, 5),
    "questionnaire tap": (16, 3),
    "questionnaire typed answer": (14, 3),
}
"""PostgreSQL's figures where they are lower: a turn's transcript and outbox rows are one statement
there, and a daily prompt's decision, delivery and recount one, its timer cancel and arms one
(data-modifying CTEs SQLite does not have)."""

POLL = "SELECT inbox.participant_id, inbox.id FROM inbox WHERE inbox.status"
"""The lanes' poll for participants with due inputs: one per poll cycle, however many it finds.
(The look it takes at lanes whose turn runs, for a STOP another process stored, is made only when
it found a row of theirs not seen before: it is counted.)"""
CLAIM, CLAIMED = "UPDATE outbox SET status=", "SELECT outbox.id, outbox."
CANCEL_SCAN = "SELECT outbox.message_id FROM outbox WHERE outbox.status"
"""The clean-up an outbox claim that found nothing runs (cancelling rows that may not be sent)."""


def _is_claim(statement: str) -> bool:
    return statement.startswith(CLAIM) and "attempts=(outbox.attempts" in statement


@dataclass
class Counted:
    """What the engine ran, one list of statements per transaction."""

    groups: list[list[str]] = field(default_factory=list)
    dialect: str = "sqlite"

    def productive(self) -> list[list[str]]:
        """The transactions and statements left when the polls are taken out: the lanes' poll and
        the outbox claims that found nothing (a transaction of its own, with its clean-up). The
        running service makes those on its own clock, message or not; how many fall inside a turn
        depends on timing. A claim run inside a commit (the hand-over of what it queued) counts;
        the planning setting a dispatcher's claim starts with on PostgreSQL does not (once per
        claim of up to 200 rows, not per message)."""
        kept = []
        for group in self.groups:
            statements = [statement for statement in group
                          if not statement.startswith(POLL) and statement != PLAN_EACH_TIME]
            if statements and _is_claim(statements[0]) and not (
                    len(statements) > 1 and statements[1].startswith(CLAIMED)):
                statements = [statement for statement in statements[1:] if not statement.startswith(CANCEL_SCAN)]
            if statements:
                kept.append(statements)
        return kept

    def shapes(self) -> str:
        """One line per statement, values left out: what to look at when a budget is exceeded."""
        return "\n---\n".join("\n".join(s[:140] for s in group) for group in self.productive())


def count_on(app: App) -> Counted:
    counted = Counted(dialect=app.db.dialect)
    open_on: dict[int, list[str]] = {}
    """Each connection's transaction: on PostgreSQL several database threads run at once, so
    statements are grouped by the connection that ran them, not by the order they came in."""

    def on_begin(conn: Any) -> None:
        open_on[id(conn)] = group = []
        counted.groups.append(group)

    def on_statement(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if not statement.startswith(("BEGIN", "SAVEPOINT", "RELEASE")):
            if id(conn) not in open_on:
                on_begin(conn)
            open_on[id(conn)].append(re.sub(r"\s+", " ", statement))

    event.listen(app.db.engine, "begin", on_begin)
    event.listen(app.db.engine, "after_cursor_execute", on_statement)
    return counted


async def measure(app: App, step: Callable[[], Awaitable[Any]]) -> Counted:
    """What ``step`` and everything it causes cost, handled to the end. One transaction at a time:
    SQLite's writer commits transactions that happen to wait side by side together (a burst's
    saving, which timing decides), which would merge a message's transactions with the service's
    polls."""
    app.db.write_together = False
    await app.run_until_idle()
    counted = count_on(app)
    await step()
    await app.run_until_idle()
    return counted


def within(kind: str, counted: Counted) -> None:
    statements, transactions = (POSTGRES_BUDGET if counted.dialect == "postgresql" else BUDGET)[kind]
    groups = counted.productive()
    used = sum(len(group) for group in groups)
    print(f"{kind}: {used} statements, {len(groups)} transactions")
    assert used <= statements and len(groups) <= transactions, counted.shapes()


@pytest.fixture
async def feedback(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> tuple[App, Any, str]:
    return await prompted(make_app, fake_openai)


async def test_an_intake_message(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app = await make_app(**QUIET)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.say("Welcome Ana! What habit would you like to build?")
    await app.run_until_idle()
    fake_openai.say("Stretching sounds good. When in your day?")
    counted = await measure(app, lambda: app.transport.inject(ANA, "I want to stretch more"))  # type: ignore[attr-defined]
    within("intake message", counted)


async def test_a_feedback_message(feedback: tuple[App, Any, str], fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = feedback
    fake_openai.say("Glad to hear it. Same time tomorrow?")
    within("feedback message", await measure(app, lambda: transport.inject(ANA, "did it by the kettle")))


async def test_a_poll_vote(feedback: tuple[App, Any, str]) -> None:
    app, transport, _ = feedback
    poll = polls(transport)[-1]
    within("poll vote", await measure(app, lambda: vote(app, transport, poll, POLL_OPTIONS[0])))


async def test_stop(feedback: tuple[App, Any, str]) -> None:
    app, transport, _ = feedback
    within("STOP", await measure(app, lambda: transport.inject(ANA, "STOP")))


async def test_a_daily_prompt(feedback: tuple[App, Any, str], fake_openai: FakeOpenAIServer) -> None:
    app, _, _ = feedback
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    within("daily prompt", await measure(app, lambda: at(app, MONDAY_PROMPT + DAY)))


async def test_a_reminder(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, _, _ = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="1h")
    within("reminder", await measure(app, lambda: at(app, utc(2026, 1, 5, 13, 51))))


async def test_a_team_message(feedback: tuple[App, Any, str]) -> None:
    app, _, _ = feedback
    within("team message", await measure(
        app, lambda: admin.send_message(app.db, app.clock, who=ANA, text="The survey closes tonight.")))


async def test_a_questionnaire_answer_tapped_and_typed(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await started(make_app, fake_openai)
    within("questionnaire tap", await measure(
        app, lambda: vote(app, transport, poll_id(transport, SMOKED), "Yes")))
    within("questionnaire typed answer", await measure(app, lambda: transport.inject(ANA, "6")))
    assert transport.texts_to(ANA)[-1].startswith("Anything you want to add?")


async def test_storing_a_message_skips_the_writes_and_reads_that_would_change_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Who wrote comes with what their message will have to do: cancel a reminder only when one
    is pending, mark the prompt answered only while it is not, read their waiting inputs only
    when one was there before this. The first reply after a prompt does all of it; the next
    message none of it, and both are answered."""
    app, transport, _ = await prompted(make_app, fake_openai, DAILY_PROMPT_REMINDER_DELAY="1h")
    fake_openai.say("Glad to hear it.", match="kettle")
    first = await measure(app, lambda: transport.inject(ANA, "did it by the kettle"))
    fake_openai.say("Good luck tomorrow!", match="tomorrow")
    second = await measure(app, lambda: transport.inject(ANA, "same again tomorrow"))

    def ran(counted: Counted, start: str) -> bool:
        return any(s.startswith(start) for group in counted.productive() for s in group)

    assert ran(first, "UPDATE timer SET status") and ran(first, "UPDATE prompt_delivery SET replied_at")
    assert not ran(second, "UPDATE timer SET status") and not ran(second, "UPDATE prompt_delivery SET replied_at")
    stored = second.productive()[0]  # theirs was the only input waiting: its row is not read back
    assert stored[0].startswith("SELECT participant.id") and not any(s.startswith("SELECT inbox.id") for s in stored)
    assert transport.texts_to(ANA)[-2:] == ["Glad to hear it.", "Good luck tomorrow!"]
    reminders = sa.select(Timer.kind, Timer.status).where(Timer.kind == TimerKind.REMINDER)
    timers = await app.db.run(lambda s: s.execute(reminders).all())
    assert [tuple(row) for row in timers] == [(TimerKind.REMINDER, "cancelled")]


SHARED_BUDGET = {"intake message": (12, 3)}
"""With several services on one database (issue 30), one statement more per turn: the commit
checks, last, that this service still holds the participant's number (``Sharing.fence``). The
lane's read finds the number in the turn's context it reads anyway (any service may wake a lane:
the one that stored the message, or the alarm clock's for everyone); until issue 50 it was a
statement of its own. A turn that changes schedules or timers also tells the alarm clock's
service, in its commit (``pg_notify``): one more again. Everything else is the one service's
path."""


async def alarm_clock_started(app: App) -> None:
    """The alarm clock's start, once its lease is taken, runs beside the service's first rounds and reads every
    schedule's last decision point: on a busy machine it fell inside the measured message (4 transactions, not 3)."""
    for _ in range(6000):  # at most a minute; it takes milliseconds on a quiet machine
        if app.alarm_role is not None and app.alarm_role.running:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the alarm clock did not start")


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_an_intake_message_with_several_services(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app = await make_app(**QUIET, SEVERAL_SERVICES="on", LEASE_TTL="15s", LEASE_HEARTBEAT="5s")
    assert app.sharing is not None and app.sharing.owns(None)
    await alarm_clock_started(app)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.say("Welcome Ana! What habit would you like to build?")
    await app.run_until_idle()
    fake_openai.say("Stretching sounds good. When in your day?")
    counted = await measure(app, lambda: app.transport.inject(ANA, "I want to stretch more"))  # type: ignore[attr-defined]
    statements, transactions = SHARED_BUDGET["intake message"]
    groups = counted.productive()
    assert sum(len(group) for group in groups) <= statements and len(groups) <= transactions, counted.shapes()
    ran = [statement for group in groups for statement in group]
    assert any(s.startswith("SELECT number_lease") for s in ran), counted.shapes()  # the fence is counted
    assert not any(s.startswith("SELECT participant.number") for s in ran), counted.shapes()  # read with the context


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_schedule_set_with_several_services_tells_the_alarm_clock_in_the_lease_check(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The commit that sets a schedule tells the alarm clock's service (``pg_notify``) in the statement that checks the
    lease, last in the commit: no round trip of its own (issue 50). The schedule is set and the welcome sent."""
    app = await make_app(**QUIET, SEVERAL_SERVICES="on", LEASE_TTL="15s", LEASE_HEARTBEAT="5s")
    await alarm_clock_started(app)
    counted = await measure(app, lambda: enroll_with_schedule(app, fake_openai, ANA, "America/Toronto"))
    ran = [statement for group in counted.productive() for statement in group]
    notices = [statement for statement in ran if "pg_notify" in statement]
    assert len(notices) == 1 and notices[0].startswith("SELECT number_lease.name"), counted.shapes()
    assert app.transport.texts_to(ANA) == ["Welcome Ana!"]  # type: ignore[attr-defined]
    assert await app.db.run(lambda s: s.execute(sa.text("SELECT count(*) FROM schedule")).scalar_one()) == 1
