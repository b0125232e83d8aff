"""For the dashboard's tests, in and out of a browser: a running study with its web server (one
participant with a Monday done and a Tuesday "not this time", another still in intake who raised
a safety flag), signing in over HTTP, and where Debian's Chromium is for Playwright."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import httpx

from promptpipe.domain.polls import DONE, NOT_THIS_TIME
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import DAY, MONDAY_PROMPT, polls
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule
from tests.web.chromium import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS  # noqa: F401 - where the tests import them from
from tests.web.conftest import Web, serving

ZOFIA, ZOFIA_NAME = "+14165550142", "Zofia Quillfeather"
BRAM, BRAM_NAME = "+14165550177", "Bram Okonkwo-Lindqvist"
ZOFIA_SAYS = "I stretched by the kettle this morning"
BRAM_SAYS = "some nights I want to hurt myself"
"""Raises a safety flag (the screen's phrase list)."""


@dataclass
class Study:
    web: Web
    transport: MemoryTransport
    zofia: str
    """Zofia's participant id: prompted Monday (voted Done) and Tuesday (voted Not this time)."""
    bram: str
    """Bram's participant id: enrolled and greeted, still in intake; his message raised a flag."""


async def _vote(study_transport: MemoryTransport, poll_id: str, option: str) -> None:
    from promptpipe.transport.base import PollVote, poll_option_hash

    await study_transport.inject(ZOFIA, "", vote=PollVote(poll_id, (poll_option_hash(option),)))


@asynccontextmanager
async def running_study(make_app: AppFactory, fake: FakeOpenAIServer) -> AsyncIterator[Study]:
    """The service (timers quiet) with its web server and a token per role, at Tuesday's prompt."""
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET, RESEARCHER_TIMEZONE="Europe/Berlin")
    zofia = await enroll_with_schedule(app, fake, ZOFIA, "America/Toronto", name=ZOFIA_NAME)
    app.clock.advance(timedelta(minutes=5))  # type: ignore[attr-defined]  # Bram enrolls after Zofia
    fake.say(f"Hello {BRAM_NAME}, welcome!", match=f"Participant: {BRAM_NAME}")
    bram = (await admin.enroll(app.db, app.clock, admin.Enrolment(phone=BRAM, name=BRAM_NAME, timezone="Europe/Lisbon",
                               study=app.settings.study))).id
    await app.run_until_idle()
    for day, option in ((0, DONE), (1, NOT_THIS_TIME)):
        fake.say(NUDGE, match="scheduled daily nudge")
        await at(app, MONDAY_PROMPT + day * DAY)
        await _vote(transport, polls(transport)[-1], option)
        await app.run_until_idle()
    await transport.inject(ZOFIA, ZOFIA_SAYS)
    fake.say("Lovely, thank you for telling me.", match=ZOFIA_SAYS)
    await transport.inject(BRAM, BRAM_SAYS)
    fake.say("I'm glad you told me. The study team will be in touch.", match="hurt myself")
    await app.run_until_idle()
    async with serving(app) as web:
        yield Study(web, transport, zofia, str(bram))


CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(page: str) -> str:
    """The CSRF token in a page's first form."""
    found = CSRF_FIELD.search(page)
    assert found, "the page has no form with a csrf field"
    return found.group(1)


@asynccontextmanager
async def signed_in(web: Web, role: str = "researcher") -> AsyncIterator[httpx.AsyncClient]:
    """A client (no redirects followed) with a dashboard session of ``role``'s token."""
    async with httpx.AsyncClient(base_url=web.url, timeout=10) as client:
        form = await client.get("/login")
        answer = await client.post("/login", data={"token": web.tokens[role], "csrf": csrf_of(form.text), "next": "/"})
        assert answer.status_code == 303, answer.text
        yield client
