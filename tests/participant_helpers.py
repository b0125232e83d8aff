"""One enrolled participant whose greeting has gone out: the starting point of most tests."""

from __future__ import annotations

from typing import Any

from promptpipe.app import App
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA = "+14165550123"


async def enrolled(
    make_app: AppFactory, fake: FakeOpenAIServer, *, phone: str = ANA, name: str = "Ana", **settings: str
) -> tuple[App, MemoryTransport]:
    """An app (with ``settings``) and its transport, ``name`` enrolled and greeted."""
    transport = MemoryTransport()
    app = await make_app(transport, **settings)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="America/Toronto",
                       study=app.settings.study))
    fake.say(f"Hi {name}!", match=f"Participant: {name}")
    await app.run_until_idle()
    return app, transport


async def inbound_rows(app: App, phone: str = ANA) -> list[dict[str, Any]]:
    """The participant's messages in the transcript, oldest first."""
    return [row for row in await admin.transcript(app.db, phone) if row.direction == "in"]
