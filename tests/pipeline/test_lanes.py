"""Inbox, lanes and restarts: nothing lost, nothing answered twice, people served in parallel."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from promptpipe.research import admin
from promptpipe.storage.queue_tables import InboxItem
from promptpipe.transport import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.markers import SQLITE_ONLY

ANA, BEN = "+15145550101", "+4915112345678"


async def until(condition: Callable[[], bool], what: str, limit_s: float = 120.0) -> None:
    """Wait for observable state (never a fixed sleep); fail clearly if it never comes (the limit only
    catches a hang: a busy machine makes the wait longer, not wrong)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for: {what}")
        await asyncio.sleep(0.01)


async def enrolled(app, fake: FakeOpenAIServer, *people: tuple[str, str]) -> None:  # type: ignore[no-untyped-def]
    for phone, name in people:
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="Europe/Berlin"))
        fake.say(f"Hi {name}!", match=f"Participant: {name}")
    await app.run_until_idle()


def user_texts(request: dict) -> list[str]:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


async def test_the_same_message_id_ten_times_at_once_is_answered_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    fake_openai.say("Got it.", match="hello there")

    await asyncio.gather(*(transport.inject(ANA, "hello there", message_id="WAMID-1") for _ in range(10)))
    await app.run_until_idle()

    assert transport.texts_to(ANA) == ["Hi Ana!", "Got it."]
    rows = await admin.transcript(app.db, ANA)
    assert [r.direction for r in rows] == ["out", "in", "out"]
    assert app.inbox.duplicates == 9
    fake_openai.assert_complete()


async def test_two_quick_messages_are_answered_in_one_turn(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    fake_openai.say("Walking after lunch sounds great.")

    # Both are stored before the lane looks (written by the admin path, which wakes nobody).
    await admin.simulate(app.db, app.clock, phone=ANA, text="I'd like to walk more")
    await admin.simulate(app.db, app.clock, phone=ANA, text="maybe after lunch")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[1:] == ["Walking after lunch sounds great."]
    assert user_texts(fake_openai.requests[-1]) == ["I'd like to walk more", "maybe after lunch"]
    fake_openai.assert_complete()


async def test_messages_arriving_during_a_turn_are_answered_together_next(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    gate = threading.Event()
    fake_openai.say("Tell me more about it.", match="first", gate=gate)
    fake_openai.say("Both noted, thanks!", match="third")

    await transport.inject(ANA, "first")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the first turn to reach the model")
    await transport.inject(ANA, "second")
    await transport.inject(ANA, "third")
    gate.set()
    await running

    assert transport.texts_to(ANA)[1:] == ["Tell me more about it.", "Both noted, thanks!"]
    assert user_texts(fake_openai.requests[-1])[-2:] == ["second", "third"]
    assert "first" in [m["content"] for m in fake_openai.requests[-1]["messages"]]  # now part of the history
    fake_openai.assert_complete()


async def test_two_participants_are_served_concurrently(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"), (BEN, "Ben"))
    gate = threading.Event()
    fake_openai.say("Hello Ana", match="from Ana", gate=gate)
    fake_openai.say("Hello Ben", match="from Ben", gate=gate)

    await transport.inject(ANA, "from Ana")
    await transport.inject(BEN, "from Ben")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 2, "both turns to be at the model at the same time")
    gate.set()
    await running

    assert transport.texts_to(ANA)[-1] == "Hello Ana"
    assert transport.texts_to(BEN)[-1] == "Hello Ben"
    assert fake_openai.max_in_flight == 2
    fake_openai.assert_complete()


async def test_a_message_stored_before_a_crash_is_answered_once_after_restart(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    first_transport = MemoryTransport()
    app = await make_app(first_transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    gate = threading.Event()
    fake_openai.say("this answer is lost in the crash", match="still there?", gate=gate)
    await first_transport.inject(ANA, "still there?")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the turn to be waiting on the model")
    running.cancel()
    await app.stop()  # the process is gone mid-turn
    gate.set()
    fake_openai.reset()

    second_transport = MemoryTransport()
    restarted = await make_app(second_transport)
    fake_openai.say("Yes, still here!", match="still there?")
    await restarted.run_until_idle()
    await restarted.run_until_idle()

    assert second_transport.texts_to(ANA) == ["Yes, still here!"]
    assert first_transport.texts_to(ANA) == ["Hi Ana!"]
    rows = await admin.transcript(restarted.db, ANA)
    assert [(r.direction, r.text) for r in rows][-2:] == [("in", "still there?"), ("out", "Yes, still here!")]
    fake_openai.assert_complete()


async def test_a_message_never_processed_before_shutdown_is_answered_after_restart(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app = await make_app(MemoryTransport())
    await enrolled(app, fake_openai, (ANA, "Ana"))
    await app.transport.inject(ANA, "written just before the crash")  # type: ignore[attr-defined]
    await app.stop()

    transport = MemoryTransport()
    restarted = await make_app(transport)
    fake_openai.say("Answered after the restart.", match="written just before the crash")
    await restarted.run_until_idle()
    assert transport.texts_to(ANA) == ["Answered after the restart."]
    fake_openai.assert_complete()


async def test_unknown_senders_are_ignored_unless_auto_enroll_is_on(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await transport.inject("+15145550999", "who is this?")
    await app.run_until_idle()
    assert transport.sent == [] and app.inbox.ignored == 1
    assert await admin.list_participants(app.db) == []
    await app.stop()

    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on", DEFAULT_TIMEZONE="Asia/Tokyo")
    fake_openai.say("Welcome! What habit would you like to build?", match="hi, I saw the flyer")
    await transport.inject("+15145550999", "hi, I saw the flyer", name="Chris")
    await app.run_until_idle()
    assert transport.texts_to("+15145550999") == ["Welcome! What habit would you like to build?"]
    [row] = await admin.list_participants(app.db)
    assert (row.name, row.timezone) == ("Chris", "Asia/Tokyo")
    fake_openai.assert_complete()


async def test_lid_senders_are_mapped_to_the_participant_and_remembered(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    fake_openai.say("First reply", match="with both ids")
    fake_openai.say("Second reply", match="lid only")

    await transport.inject(ANA, "with both ids", lid="201234567890123")
    await app.run_until_idle()
    await app.stop()
    transport = MemoryTransport()
    restarted = await make_app(transport)
    await transport.inject(None, "lid only", lid="201234567890123")
    await restarted.run_until_idle()

    assert transport.texts_to(ANA) == ["Second reply"]
    assert transport.sent[-1].to.lid == "201234567890123"
    fake_openai.assert_complete()


async def test_poll_votes_are_recorded_in_the_transcript_without_an_llm_call(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    await transport.inject(ANA, "", vote=PollVote("poll-1", (poll_option_hash("Done"),)))
    await app.run_until_idle()
    rows = await admin.transcript(app.db, ANA)
    assert rows[-1].direction == "in" and rows[-1].text.startswith("(poll vote")
    assert len(fake_openai.requests) == 1  # only the greeting
    fake_openai.assert_complete()


async def test_a_message_whose_first_look_fails_is_stored_and_answered_all_the_same(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """The lane's first read runs in the transaction that stores the message; if it fails (here:
    the turn's context cannot be read once), the message is stored anyway and the lane reads for
    itself."""
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    load, failures = app.flow.load, []

    def load_failing_once(session, participant_id, batch):  # type: ignore[no-untyped-def]
        if not failures:
            failures.append(participant_id)
            session.execute(sa.text("SELECT * FROM no_such_table"))  # a database error, inside the savepoint
        return load(session, participant_id, batch)

    app.flow.load = load_failing_once  # type: ignore[method-assign]
    fake_openai.say("Stretching it is.", match="stretch")

    await transport.inject(ANA, "I want to stretch")
    await app.run_until_idle()

    assert failures and transport.texts_to(ANA) == ["Hi Ana!", "Stretching it is."]
    assert [row.direction for row in await admin.transcript(app.db, ANA)] == ["out", "in", "out"]


async def test_a_message_is_stored_ahead_of_the_turns_waiting_for_the_database(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """During a burst the database thread has a queue of turns' reads and commits: a
    participant's message (a STOP, a reply) is stored before them, not after."""
    transport = MemoryTransport()
    app = await make_app(transport)
    await enrolled(app, fake_openai, (ANA, "Ana"))
    if not app.db.is_sqlite:
        pytest.skip("one database thread on SQLite; PostgreSQL's several threads take work side by side")
    inbox_rows = sa.select(sa.func.count()).select_from(InboxItem)
    before = await app.db.run(lambda session: session.execute(inbox_rows).scalar_one())
    started, gate, stored_when_run = threading.Event(), threading.Event(), []
    busy = app.db.submit(lambda session: started.set() or gate.wait(5))
    await until(started.is_set, "the database thread to be busy")
    turns = [app.db.submit(lambda session: stored_when_run.append(session.execute(inbox_rows).scalar_one()))
             for _ in range(20)]
    fake_openai.say("Noted.", match="stretch")
    arriving = asyncio.ensure_future(transport.inject(ANA, "I want to stretch"))
    await until(lambda: app.db.waiting == 21, "the message to wait for the database")
    gate.set()
    await arriving
    for future in [busy, *turns]:
        await asyncio.wrap_future(future)
    assert stored_when_run == [before + 1] * 20
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Noted."


@SQLITE_ONLY
async def test_lanes_waiting_for_a_turn_slot_hold_no_task_and_go_in_the_order_they_came(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """A burst of due prompts wakes thousands of lanes at once. Those waiting for a turn slot
    (two per model call; one call at a time here) wait as a queue of ids: a task per waiting lane
    made every full pass of the garbage collector stall the event loop for ~100 ms at 10,000.

    On SQLite only: the queue is the same code on both databases, and only SQLite's one database
    thread makes the order of the model calls follow it exactly. On PostgreSQL the two lanes that
    hold the slots read on two connections, and under load the second's read finished first (its
    turn then reached the model first: seen in a parallel run of the suite)."""
    people = [(f"+1416555{150 + n:04d}", f"P{n}") for n in range(6)]
    transport = MemoryTransport()
    app = await make_app(transport, LANE_CONCURRENCY="1")
    await enrolled(app, fake_openai, *people)
    gate = threading.Event()
    for phone, name in people:
        fake_openai.say(f"answer for {name}", match=f"question from {name}", gate=gate)
        await transport.inject(phone, f"question from {name}")
    running = asyncio.create_task(app.run_until_idle())
    try:
        await until(lambda: fake_openai.in_flight() == 1, "the first turn to reach the model")
        assert app.lanes.running <= 2, "lanes waiting for a slot hold tasks"
    finally:
        gate.set()
        await running

    # The turns reached the model in the order the messages came (one call at a time), and each
    # reply was sent once.
    asked = [re.findall(r"question from (P\d)", fake_openai.last_user_text(request))
             for request in fake_openai.requests]
    assert [names[0] for names in asked if names] == [name for _, name in people]
    answered = [item.text for item in transport.sent if item.text.startswith("answer for ")]
    assert sorted(answered) == [f"answer for {name}" for _, name in people]
    fake_openai.assert_complete()
