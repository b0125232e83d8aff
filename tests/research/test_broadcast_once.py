"""A broadcast confirmed twice (a double click, or the same form sent to two web processes behind
one address) is queued once: the form's key names the broadcast, and the database knows it."""

from __future__ import annotations

from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.research import admin, messaging
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA, BEN = "+14165550131", "+14165550132"


async def test_the_same_broadcast_id_queues_once_and_answers_the_same(make_app: AppFactory,
                                                                    fake_openai: FakeOpenAIServer) -> None:
    fake_openai.always("Welcome to the study!", match="")  # the greetings
    transport = MemoryTransport()
    app = await make_app(transport)
    for phone, name in ((ANA, "Ana"), (BEN, "Ben")):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="UTC"))
    await admin.set_status(app.db, app.clock, phone=BEN, action="withdraw", by="test")
    first = await messaging.broadcast(app.db, app.clock, text="Two weeks to go!", flt=ParticipantFilter(),
                                      expected=2, broadcast_id="b_" + "a" * 32, anyway=True)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550133", name="Chie",
                                                          timezone="UTC"))  # matches 3 now
    again = await messaging.broadcast(app.db, app.clock, text="Two weeks to go!", flt=ParticipantFilter(),
                                      expected=2, broadcast_id="b_" + "a" * 32, anyway=True)
    assert (first.queued, first.skipped, first.repeated) == (1, 1, False)
    assert (again.queued, again.repeated) == (1, True)  # not refused for the new count: it was sent before
    await app.run_until_idle()
    assert transport.texts_to(ANA).count("Two weeks to go!") == 1
