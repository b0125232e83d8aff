"""Issue 46, 3: the participant's own clock decides their consent. Cloud API webhooks come out of
order and again, and a linked phone that was offline catches up late: a START the participant
sent before a later STOP, delivered after it, must not lift that STOP."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.flow.commands import PAUSED_HINT, RESUMED, STOPPED
from promptpipe.research import admin, oversight
from promptpipe.storage.models import Message
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.flow.test_commands import ANA, fold, started


async def test_a_start_sent_before_a_stop_but_delivered_after_it_changes_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    now = app.clock.now()
    await transport.inject(ANA, "STOP", timestamp=now)
    await app.run_until_idle()
    await transport.inject(ANA, "START", timestamp=now - timedelta(seconds=120))  # delivered after, sent before
    await app.run_until_idle()

    assert transport.texts_to(ANA)[1:] == [STOPPED]  # no "Welcome back"
    ledger = await oversight.consent(app.db, ANA)
    assert (ledger.status, ledger.opted_out) == ("paused", True)
    assert [(e.event, e.said_at) for e in ledger.events[1:]] == [
        ("opted_out", now.isoformat()), ("opt_in_superseded", (now - timedelta(seconds=120)).isoformat())]
    queued = await admin.broadcast(app.db, app.clock, text="News from the team", flt=ParticipantFilter(), anyway=True)
    await app.run_until_idle()
    assert queued.queued == 0 and transport.texts_to(ANA)[1:] == [STOPPED]


async def test_a_stop_sent_before_a_start_that_lifted_an_earlier_stop_changes_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """STOP at 9:00, START at 9:10, and a STOP typed at 9:05 that the phone delivers last: by the
    participant's clock their latest word is START."""
    app, transport = await started(make_app, fake_openai)
    nine = app.clock.now()
    for text, minutes in (("STOP", 0), ("START", 10), ("STOP", 5)):
        app.clock.set(nine + timedelta(minutes=10, seconds=len(transport.sent)))
        await transport.inject(ANA, text, timestamp=nine + timedelta(minutes=minutes))
        await app.run_until_idle()

    assert transport.texts_to(ANA)[1:] == [STOPPED, RESUMED]
    ledger = await oversight.consent(app.db, ANA)
    assert ledger.status == "active" and not ledger.opted_out
    assert [e.event for e in ledger.events[1:]] == ["opted_out", "opted_in", "opt_out_superseded"]


async def test_what_was_written_before_a_stop_and_arrives_after_it_gets_no_answer(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    now = app.clock.now()
    await transport.inject(ANA, "STOP", timestamp=now)
    await app.run_until_idle()
    await transport.inject(ANA, "HELP", timestamp=now - timedelta(seconds=40))
    await transport.inject(ANA, "are you there?", timestamp=now - timedelta(seconds=30))
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [STOPPED]

    app.clock.advance(timedelta(minutes=1))
    await transport.inject(ANA, "are you there?", timestamp=app.clock.now())  # written after: answered
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [STOPPED, PAUSED_HINT]


async def test_the_transcript_keeps_when_the_participant_sent_a_message_never_later_than_it_came(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    now = app.clock.now()
    await transport.inject(ANA, "STOP", timestamp=now - timedelta(minutes=3))
    await transport.inject(ANA, "HELP", timestamp=now + timedelta(hours=2))  # a phone whose clock runs ahead
    await app.run_until_idle()

    def read(session):  # type: ignore[no-untyped-def]
        return session.execute(select(Message.text, Message.sent_at, Message.created_at)
                               .where(Message.direction == "in").order_by(Message.id)).all()

    rows = await app.db.run(read)
    assert [(text, sent, created) for text, sent, created in rows] == [
        ("STOP", now - timedelta(minutes=3), now), ("HELP", now, now)]


async def test_after_a_stop_only_its_confirmation_goes_even_for_what_came_with_it(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """HELP and STOP arriving together: the person's latest word is STOP, so the help text is not
    sent after it."""
    app, transport = await started(make_app, fake_openai)
    await fold(app, "HELP", "STOP")
    assert transport.texts_to(ANA)[1:] == [STOPPED]


async def test_a_repeated_stop_is_still_their_latest_word(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Found by the consent property test: STOP (sent an hour ago, arriving now), STOP again (sent
    now), then a START sent two minutes ago: by their clock the STOP sent now is the latest."""
    app, transport = await started(make_app, fake_openai)
    now = app.clock.now()
    for text, sent in (("STOP", now - timedelta(hours=1)), ("STOP", now), ("resume", now - timedelta(minutes=2))):
        await transport.inject(ANA, text, timestamp=sent)
        await app.run_until_idle()
    assert RESUMED not in transport.texts_to(ANA)
    assert (await oversight.consent(app.db, ANA)).opted_out
