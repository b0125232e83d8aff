"""The dashboard's message and prompt-now respect the study's quiet hours: the confirmation offers
to send when they end (ticked by default), and a message confirmed at night waits for the
morning."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.flow.test_lifecycle import NIGHTS_OFF
from tests.schedule_helpers import at, utc
from tests.study_helpers import with_study
from tests.web.browser import csrf_of, signed_in
from tests.web.conftest import Web, serving

ANA = "+14165550121"
NIGHT, MORNING = utc(2026, 1, 6, 4, 30), utc(2026, 1, 6, 12, 0)  # 23:30 and 07:00 in Toronto


@pytest.fixture
async def night_web(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> AsyncIterator[tuple[Web, MemoryTransport]]:
    transport = MemoryTransport()
    app = await make_app(transport, **with_study(NIGHTS_OFF))
    await at(app, utc(2026, 1, 5, 15, 0))
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                                                          study=app.settings.study))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    await at(app, NIGHT)
    async with serving(app, ("researcher",)) as running:
        yield running, transport


async def test_a_message_confirmed_at_night_waits_for_the_end_of_quiet_hours(
    night_web: tuple[Web, MemoryTransport],
) -> None:
    web, transport = night_web
    pid = (await admin.find(web.app.db, ANA)).id  # type: ignore[union-attr]
    text = "A note from the study team for the morning."
    async with signed_in(web, "researcher") as client:
        page = await client.get(f"/participants/{pid}")
        confirm = await client.post(f"/participants/{pid}/confirm/message", data={"csrf": csrf_of(page.text),
                                                                               "text": text})
        assert 'name="after_quiet_hours" value="1" checked' in confirm.text and "22:00-07:00" in confirm.text
        assert "It is 23:30 for them now, inside their quiet hours" in confirm.text  # said, not left to work out
        sent = await client.post(f"/participants/{pid}/actions/message",
                                 data={"csrf": csrf_of(confirm.text), "text": text, "after_quiet_hours": "1"})
        assert sent.headers["location"].endswith("?done=sent")
        unticked = await client.post(f"/participants/{pid}/actions/message",
                                     data={"csrf": csrf_of(confirm.text), "text": "right now"})
        assert unticked.status_code == 409 and "quiet hours" in unticked.text  # refused, saying why
    await web.app.run_until_idle()
    assert text not in transport.texts_to(ANA)
    await at(web.app, MORNING)
    assert transport.texts_to(ANA)[-1] == text
    async with signed_in(web, "researcher") as client:
        page = await client.get(f"/participants/{pid}")
        confirm = await client.post(f"/participants/{pid}/confirm/message", data={"csrf": csrf_of(page.text),
                                                                               "text": "Good morning"})
    assert "for them now, inside their quiet hours" not in confirm.text
