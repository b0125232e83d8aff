"""The outbox: retries, order per participant, crash mid-send, rate limit."""

from __future__ import annotations

import asyncio
import random
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from promptpipe.clock import ManualClock
from promptpipe.errors import NotConnected, SendFailed
from promptpipe.flow import router as router_module
from promptpipe.pipeline import outbox as outbox_module
from promptpipe.pipeline.outbox import SEND_CONCURRENCY
from promptpipe.pipeline.pacing import RateLimiter
from promptpipe.research import admin
from promptpipe.storage.models import Message
from promptpipe.storage.queue_tables import InboxItem, OutboxItem
from promptpipe.storage.transcript import ToSend, queue_messages, queue_outgoing
from promptpipe.transport import Recipient
from promptpipe.transport.dryrun import DryRunTransport
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import MONDAY_PROMPT
from tests.pipeline.test_lanes import until
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule

ANA = "+15145550101"


async def queue(app, *texts: str) -> str:  # type: ignore[no-untyped-def]
    """Enroll Ana without a greeting turn and queue replies for her directly."""
    row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC"))

    def write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))
        for n, text in enumerate(texts):
            queue_outgoing(session, participant_id=row.id, key=f"test:{n}", text=text, now=app.clock.now())

    await app.db.run(write)
    return row.id


async def statuses(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.status for r in await admin.transcript(app.db, ANA)]


async def queue_for_many(app, people: int, text: str = "hello") -> list:  # type: ignore[no-untyped-def,type-arg]
    """Enroll ``people`` participants (+1 416 555 0101 …) without greeting turns and queue one
    message for each; returns their rows."""
    enrolled = [await admin.enroll(app.db, app.clock, admin.Enrolment(phone=f"+1416555{101 + n:04d}", name=f"P{n}",
                                                                      timezone="UTC"))
                for n in range(people)]

    def write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))
        for row in enrolled:
            queue_outgoing(session, participant_id=row.id, key=f"test:{row.id}", text=text, now=app.clock.now())

    await app.db.run(write)
    return enrolled


async def test_not_connected_is_retried_with_backoff_and_order_is_kept(make_app: AppFactory) -> None:
    transport = MemoryTransport(fail_next=[NotConnected("offline")])
    app = await make_app(transport)
    await queue(app, "first", "second")

    await app.run_until_idle()
    assert transport.sent == []  # "second" must not overtake "first"
    assert await statuses(app) == ["queued", "queued"]

    app.clock.advance(timedelta(seconds=5))
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["first", "second"]
    assert await statuses(app) == ["sent", "sent"]


async def test_a_permanent_failure_is_recorded_and_does_not_block_later_messages(make_app: AppFactory) -> None:
    transport = MemoryTransport(fail_next=[SendFailed("bad recipient", retryable=False)])
    app = await make_app(transport)
    await queue(app, "first", "second")
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["second"]
    assert await statuses(app) == ["failed", "sent"]


async def test_a_send_that_timed_out_is_uncertain_and_never_repeated(make_app: AppFactory) -> None:
    transport = MemoryTransport(fail_next=[SendFailed("no answer within 90 s", retryable=False, ambiguous=True)])
    app = await make_app(transport)
    await queue(app, "maybe delivered", "next one")
    await app.run_until_idle()
    app.clock.advance(timedelta(hours=1))
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["next one"]
    assert await statuses(app) == ["uncertain", "sent"]


async def _interrupt_mid_send(make_app: AppFactory, transport) -> tuple:  # type: ignore[no-untyped-def]
    app = await make_app(MemoryTransport())
    await queue(app, "was being sent")
    claimed = await app.db.run(app.outbox._claim)  # what the dispatcher holds when the process dies
    assert len(claimed) == 1
    await app.stop()
    restarted = await make_app(transport)
    await restarted.run_until_idle()
    return restarted, claimed


async def test_a_send_interrupted_by_a_crash_is_marked_uncertain_not_resent(make_app: AppFactory) -> None:
    transport = MemoryTransport()
    restarted, _ = await _interrupt_mid_send(make_app, transport)
    assert transport.sent == []
    assert await statuses(restarted) == ["uncertain"]


async def test_a_dry_run_send_interrupted_by_a_crash_is_simply_sent_again(make_app: AppFactory) -> None:
    restarted, _ = await _interrupt_mid_send(make_app, DryRunTransport())
    assert await statuses(restarted) == ["sent"]
    [row] = await restarted.db.run(lambda session: session.execute(select(OutboxItem)).scalars().all())
    assert row.attempts == 2 and row.wa_message_id.startswith("dry-")


async def test_queueing_the_same_key_twice_sends_once(make_app: AppFactory) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    participant_id = await queue(app, "only once")
    again = await app.db.run(lambda session: queue_outgoing(
        session, participant_id=participant_id, key="test:0", text="only once", now=app.clock.now()))
    assert again is None
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["only once"]


async def test_a_batch_with_a_key_already_queued_sends_each_message_once_in_order(make_app: AppFactory) -> None:
    transport = MemoryTransport()
    app = await make_app(transport)
    participant_id = await queue(app, "first")
    batch = [ToSend("test:0", "first"), ToSend("test:1", "second"), ToSend("test:1", "second again"),
             ToSend("test:2", "third")]
    ids = await app.db.run(lambda session: queue_messages(session, participant_id, batch, app.clock.now()))
    assert ids["test:0"] is None and ids["test:1"] is not None and ids["test:2"] is not None
    texts = await app.db.run(lambda session: {message_id: text for message_id, text in session.execute(
        select(Message.id, Message.text).where(Message.id.in_([ids["test:1"], ids["test:2"]])))})
    assert (texts[ids["test:1"]], texts[ids["test:2"]]) == ("second", "third")  # each key has its own message
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["first", "second", "third"]


async def test_rate_limiter_spaces_sends_by_the_configured_rate() -> None:
    clock = ManualClock()
    start = clock.now()
    limiter = RateLimiter(2.0, clock)
    for _ in range(5):
        await limiter.acquire()
    # a burst of 2 goes at once, the other 3 wait half a second each
    assert clock.now() - start == timedelta(seconds=1.5)


class ClockedTransport(MemoryTransport):
    """Notes the (manual) clock's time and the number of each send."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__()
        self.clock = clock
        self.times: list[tuple[str | None, float]] = []

    async def send_text(self, to, text, *, ref="", kind=""):  # type: ignore[no-untyped-def]
        self.times.append((to.number, (self.clock.now() - START).total_seconds()))
        return await super().send_text(to, text)


START = ManualClock().now()


async def test_each_number_keeps_its_own_pace(make_app: AppFactory, clock: ManualClock) -> None:
    """At one send a second per number, the first message on each of two numbers goes at once;
    the second on the same number waits its second (a pace shared by all numbers made the other
    number's first message wait too)."""
    transport = ClockedTransport(clock)
    app = await make_app(transport, SEND_RATE_PER_SECOND="1", SEND_JITTER="0", WHATSAPP_NUMBERS="toronto,montreal")
    plan = app.settings.number_plan
    people = [await admin.enroll(app.db, clock, admin.Enrolment(phone=f"+1416555{171 + n:04d}", name=f"P{n}",
                                                                timezone="UTC",
                                 numbers=plan, number=number))
              for n, number in enumerate(("toronto", "montreal", "toronto"))]

    def write(session: Session) -> None:
        session.execute(update(InboxItem).values(status="done"))
        for row in people:
            queue_outgoing(session, participant_id=row.id, key=f"test:{row.id}", text="hello", now=clock.now())

    await app.db.run(write)
    await app.run_until_idle()
    assert sorted(transport.times) == [("montreal", 0.0), ("toronto", 0.0), ("toronto", 1.0)]


async def test_rate_limit_zero_means_no_waiting() -> None:
    clock = ManualClock()
    start = clock.now()
    limiter = RateLimiter(0, clock)
    for _ in range(100):
        await limiter.acquire()
    assert clock.now() == start


class GatedTransport(MemoryTransport):
    """Holds every send until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def send_text(self, to, text, *, ref="", kind=""):  # type: ignore[no-untyped-def]
        self.waiting.set()
        await self.gate.wait()
        return await super().send_text(to, text)


async def test_stopping_the_service_lets_a_started_send_finish_and_be_recorded(make_app: AppFactory) -> None:
    transport = GatedTransport()
    setup = await make_app(MemoryTransport())  # queued while no loop runs: no greeting turn can race the test
    await queue(setup, "in flight at shutdown")
    await setup.stop()
    app = await make_app(transport, start=False)
    await app.start(background=True)
    app._outbox_kick.set()
    await asyncio.wait_for(transport.waiting.wait(), 10)
    stopping = asyncio.create_task(app.stop())
    await asyncio.sleep(0)  # stop() has begun and is waiting for the send
    transport.gate.set()
    await stopping

    restarted = await make_app(MemoryTransport())
    await restarted.run_until_idle()
    assert await statuses(restarted) == ["sent"]  # not "uncertain", and not sent a second time
    assert transport.texts_to(ANA) == ["in flight at shutdown"]


async def test_jitter_only_ever_lengthens_the_waits_and_varies_them() -> None:
    """Sends never come faster than the rate, and not at a machine's regular beat either."""
    clock = ManualClock()
    limiter = RateLimiter(1.0, clock, jitter=0.5, rng=random.Random(7))
    await limiter.acquire()  # the burst of one goes at once
    gaps = []
    for _ in range(50):
        before = clock.now()
        await limiter.acquire()
        gaps.append((clock.now() - before).total_seconds())
    assert all(1.0 <= gap <= 1.5 for gap in gaps)
    assert len({round(gap, 3) for gap in gaps}) > 40
    assert 1.15 < sum(gaps) / len(gaps) < 1.35


async def test_a_crash_during_a_paced_burst_leaves_uncertain_only_what_was_about_to_go(make_app: AppFactory) -> None:
    """WhatsApp is paced (one send a second by default): a restart in the middle of a burst must
    not turn every message the outbox had picked up into an "uncertain" one that is never sent.
    Only what the pace lets go at once is taken; the rest stays queued and goes after the restart."""
    setup = await make_app(MemoryTransport())  # queued while no loop runs: no greeting turn can race the test
    phones = [row.phone for row in await queue_for_many(setup, 5, "today's prompt")]
    await setup.stop()
    paced = await make_app(MemoryTransport(), SEND_RATE_PER_SECOND="1")
    claimed = await paced.db.run(paced.outbox._claim)  # what the dispatcher holds when the process dies
    await paced.stop()

    transport = MemoryTransport()
    restarted = await make_app(transport)
    await restarted.run_until_idle()
    uncertain = [phone for phone in phones if [r.status for r in await admin.transcript(restarted.db, phone)]
                 == ["uncertain"]]
    assert len(claimed) <= 2 and len(uncertain) == len(claimed)
    assert sorted(item.to.phone for item in transport.sent) == sorted(set(phones) - set(uncertain))  # once each


async def test_a_reply_sent_straight_from_its_commit_never_overtakes_an_earlier_message(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport(fail_next=[NotConnected("offline")])
    app = await make_app(transport)
    await queue(app, "first")
    await app.run_until_idle()  # "first" failed: it waits for its retry
    fake_openai.say("Good to hear from you!")
    await transport.inject(ANA, "hello")  # type: ignore[attr-defined]
    await app.run_until_idle()
    assert transport.sent == []  # the reply waits behind "first"

    app.clock.advance(timedelta(seconds=5))
    await app.run_until_idle()
    assert transport.texts_to(ANA) == ["first", "Good to hear from you!"]


async def test_sends_do_not_wait_for_other_participants_outcomes_to_be_written(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a burst the database is busy and a send's outcome takes a while to be written: the
    other participants' messages still go to WhatsApp meanwhile (the limit on sends at once is on
    the transport's calls, not on the wait for the outcome's commit)."""
    people = SEND_CONCURRENCY + 4
    transport = MemoryTransport()
    app = await make_app(transport)
    await queue_for_many(app, people)
    busy = threading.Event()
    real = outbox_module.record_sends
    monkeypatch.setattr(outbox_module, "record_sends", lambda session, outcomes: (busy.wait(10), real(
        session, outcomes=outcomes))[1])
    dispatching = asyncio.create_task(app.outbox.dispatch_once())
    try:
        await until(lambda: len(transport.sent) == people, "every participant's message handed to the transport")
    finally:
        busy.set()
        await dispatching
    recorded = await app.db.run(lambda session: list(session.execute(select(OutboxItem.status)).scalars()))
    assert recorded == ["sent"] * people


async def test_a_reply_whose_turn_is_cancelled_while_its_commit_runs_is_still_sent(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service stopping cancels the turns under way; a commit already running finishes, and
    the message it claimed for sending must go, not stay 'sending' (after a restart that would be
    'uncertain' and never sent)."""
    transport = MemoryTransport()
    app = await make_app(transport)
    await queue(app)
    fake_openai.say("Good to hear from you!")
    entered, release = threading.Event(), threading.Event()
    real = router_module.mark_inbox_done

    def slow_done(*args, **kwargs):  # type: ignore[no-untyped-def]
        entered.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(router_module, "mark_inbox_done", slow_done)
    await transport.inject(ANA, "hello")  # type: ignore[attr-defined]
    await until(entered.is_set, "the turn's commit to start")
    stopping = asyncio.create_task(app.lanes.stop())  # the turn is cancelled while its commit runs
    await until(lambda: app.lanes.running == 0, "the turn to be cancelled")
    release.set()
    await stopping
    await app.outbox.settle_handed_over()
    assert transport.texts_to(ANA) == ["Good to hear from you!"]
    assert await statuses(app) == ["answered", "sent"]


async def test_commits_in_a_burst_claim_no_more_than_can_be_handed_to_whatsapp_at_once(make_app: AppFactory) -> None:
    """Every claimed row a crash finds is reported uncertain and never sent: while WhatsApp is
    slow to take them, commits stop claiming what they queue (the dispatcher takes it later)."""
    transport = GatedTransport()
    app = await make_app(transport)
    people = SEND_CONCURRENCY + 8
    enrolled = await queue_for_many(app, people)
    for row in enrolled:  # what each participant's commit does last: claim, then hand over
        commit = asyncio.ensure_future(app.db.run(
            lambda session, row=row: app.outbox.claim_queued(session, row.id, Recipient(row.phone), {})))
        app.outbox.send_when_committed(commit)
        await commit
        await asyncio.sleep(0)  # the hand-over starts its send
    sending = await app.db.run(lambda session: list(session.execute(
        select(OutboxItem.status).where(OutboxItem.status == "sending")).scalars()))
    assert len(sending) == SEND_CONCURRENCY
    transport.gate.set()
    await app.outbox.settle_handed_over()
    await app.run_until_idle()
    assert len(transport.sent) == people


async def test_a_prompts_poll_follows_it_without_waiting_for_the_dispatcher(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The commit that queues a daily prompt and its poll sends the prompt itself; the poll is
    claimed in the transaction that records the prompt's send. In a burst the dispatcher's claims
    wait behind thousands of turns, so polls went out only once every prompt had (a minute late):
    here the dispatcher never runs, and the poll still follows its prompt."""
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto")

    async def no_dispatcher() -> int:
        return 0
    app.outbox.dispatch_once = no_dispatcher  # type: ignore[method-assign]
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT)
    assert transport.texts_to(ANA)[-2:] == [NUDGE, "Did you do it?"]


async def test_the_dispatcher_is_woken_only_for_what_a_commit_could_not_send_itself(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Every turn used to wake the dispatcher, whose claim then found nothing: a transaction and
    two statements more for every message. A reply its commit hands over wakes nobody; one that
    must wait behind an earlier message (its retry not due yet) wakes the dispatcher."""
    transport = MemoryTransport(fail_next=[NotConnected("offline")])
    app = await make_app(transport)
    wakes: list[str] = []
    app.outbox.wake_dispatcher = lambda: wakes.append("woken")
    await queue(app, "first")
    await app.run_until_idle()  # "first" failed: it waits for its retry
    fake_openai.say("Good to hear from you!")
    await transport.inject(ANA, "hello")  # type: ignore[attr-defined]
    await app.run_until_idle()
    assert wakes == ["woken"] and transport.sent == []  # the reply waits behind "first"

    app.clock.advance(timedelta(seconds=5))
    await app.run_until_idle()
    fake_openai.say("Nice.")
    await transport.inject(ANA, "and again")  # type: ignore[attr-defined]
    await app.run_until_idle()
    assert wakes == ["woken"]  # the commit sent its reply itself
    assert transport.texts_to(ANA) == ["first", "Good to hear from you!", "Nice."]
