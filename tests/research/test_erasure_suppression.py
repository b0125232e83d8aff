"""Issue 46, 6: an erasure forgets the participant but not their STOP. The number is kept as a
keyed hash; enrolled again, by the team or by writing in, it starts opted out: no greeting, no
team message, no broadcast, until the person writes START themselves."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.errors import Forbidden
from promptpipe.flow.commands import RESUMED, STOPPED
from promptpipe.research import admin, erasure, oversight
from promptpipe.research.messaging import send_message
from promptpipe.storage.models import Suppression
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_erasure import everything_stored

ANA = "+14165550131"


async def erased_after_stop(make_app: AppFactory, fake: FakeOpenAIServer, *, stop: bool = True):  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on")
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    if stop:
        await transport.inject(ANA, "STOP")
        await app.run_until_idle()
        assert transport.texts_to(ANA) == ["Hi Ana!", STOPPED]
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)
    return app, transport


async def test_the_number_of_someone_who_stopped_is_enrolled_again_opted_out(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await erased_after_stop(make_app, fake_openai)
    before = len(transport.sent)

    again = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana B", timezone="America/Toronto"))
    await app.run_until_idle()

    assert (again.opted_out, again.status, again.paused_by) == (True, "paused", "participant")
    assert len(transport.sent) == before  # no greeting
    with pytest.raises(Forbidden, match="they sent STOP"):
        await send_message(app.db, app.clock, who=ANA, text="A note from the team")
    queued = await admin.broadcast(app.db, app.clock, text="News", flt=ParticipantFilter(), anyway=True)
    await app.run_until_idle()
    assert queued.queued == 0 and len(transport.sent) == before
    ledger = await oversight.consent(app.db, ANA)
    assert [(e.event, e.source) for e in ledger.events] == [("enrolled", "researcher"), ("opted_out", "server")]
    assert "sent STOP before their data was erased" in ledger.events[1].words

    fake_openai.say("Hi Ana B, welcome!", match="Participant: Ana B")
    await transport.inject(ANA, "START")  # their own START lifts it, and only now are they greeted
    await app.run_until_idle()
    assert transport.texts_to(ANA)[before:] == [RESUMED, "Hi Ana B, welcome!"]
    assert (await admin.show(app.db, ANA)).status == "active"
    assert await app.db.run(lambda session: session.execute(select(Suppression)).all()) == []


async def test_writing_in_from_a_suppressed_number_enrolls_them_opted_out(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await erased_after_stop(make_app, fake_openai)
    await transport.inject(ANA, "hello again")
    await app.run_until_idle()
    show = await admin.show(app.db, ANA)
    assert (show.status, show.paused_by) == ("paused", "participant")
    assert "Hi" not in " ".join(transport.texts_to(ANA)[2:])  # no greeting from the coach


async def test_the_list_keeps_nothing_readable_and_only_what_stopped(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, _ = await erased_after_stop(make_app, fake_openai)
    stored = await everything_stored(app)
    assert not [(table, value) for table, value in stored if ANA[1:] in value or ANA[-7:] in value]
    [entry] = await app.db.run(lambda session: list(session.execute(select(Suppression)).scalars()))
    assert len(entry.number_hash) == 64


async def test_someone_erased_without_a_stop_is_greeted_when_enrolled_again(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await erased_after_stop(make_app, fake_openai, stop=False)
    again = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana B", timezone="America/Toronto"))
    fake_openai.say("Hi Ana B!", match="Participant: Ana B")
    await app.run_until_idle()
    assert again.status == "active" and transport.texts_to(ANA)[-1] == "Hi Ana B!"


async def test_a_stop_sent_while_withdrawn_is_remembered_through_an_erasure(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Withdrawn, they get no reply; but their STOP is theirs, and the number enrolled again after
    an erasure starts opted out."""
    app, transport = await erased_after_stop(make_app, fake_openai, stop=False)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana B", timezone="America/Toronto"))
    fake_openai.say("Hi Ana B!", match="Participant: Ana B")
    await app.run_until_idle()
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw")
    before = len(transport.sent)
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    assert len(transport.sent) == before
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)

    again = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana C", timezone="America/Toronto"))
    await app.run_until_idle()
    assert again.opted_out and len(transport.sent) == before
