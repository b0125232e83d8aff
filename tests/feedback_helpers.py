"""Helpers for the feedback tests: a participant at the moment a daily prompt went out, votes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from promptpipe.app import App
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, utc

ANA = "+15145550101"
MONDAY_PROMPT = utc(2026, 1, 5, 12, 50)  # 07:50 in Toronto, for a habit at 08:00
DAY = timedelta(days=1)


async def prompted(make_app: AppFactory, fake: FakeOpenAIServer, *, schedule: dict[str, Any] | None = None,
                   prompt_at: Any = MONDAY_PROMPT, nudge: str = NUDGE, transport: MemoryTransport | None = None,
                   **settings: str) -> tuple[App, MemoryTransport, str]:
    """Ana in Toronto, enrolled with a schedule, at the moment her Monday prompt went out."""
    transport = transport or MemoryTransport()
    app = await make_app(transport, **{**QUIET, **settings})
    pid = await enroll_with_schedule(app, fake, ANA, "America/Toronto", schedule)
    fake.say(nudge, match="scheduled daily nudge")
    await at(app, prompt_at)
    assert [nudge, "Did you do it?"] == [t for t in transport.texts_to(ANA) if t in (nudge, "Did you do it?")][-2:]
    return app, transport, pid


def polls(transport: MemoryTransport, question: str = "Did you do it?") -> list[str]:
    """WhatsApp ids of the polls with this question, oldest first."""
    return [item.message_id for item in transport.sent if item.kind == "poll" and item.text == question]


async def vote(app: App, transport: MemoryTransport, poll_id: str, *options: str) -> None:
    """Vote on a poll (no options: withdraw the vote) and let the service handle it."""
    await transport.inject(ANA, "", vote=PollVote(poll_id, tuple(poll_option_hash(o) for o in options)))
    await app.run_until_idle()


async def deliveries(app: App, participant_id: str) -> list[PromptDelivery]:
    return list(await app.db.run(lambda s: s.execute(
        select(PromptDelivery).where(PromptDelivery.participant_id == participant_id).order_by(PromptDelivery.id)
    ).scalars().all()))
