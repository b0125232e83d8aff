"""Study files for tests: a short study, written once per text and reused."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

from promptpipe.app import App
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, MONDAY_PROMPT
from tests.schedule_helpers import PROFILE, QUIET, at, enroll_with_schedule

SHORT_STUDY = """
name = "Two-day pilot"
length_days = 2
day_one = "after_intake"
"""
"""Two study days after intake, no quiet hours, one arm, no randomisation."""


def study_file(text: str = SHORT_STUDY) -> str:
    """The path of a study file with this text (content-addressed in the temp directory)."""
    folder = Path(tempfile.gettempdir()) / "promptpipe-test-studies"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.toml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return str(path)


def with_study(text: str = SHORT_STUDY, **settings: str) -> dict[str, str]:
    """Settings that run the app with this study file."""
    return {"PROMPTPIPE_STUDY_FILE": study_file(text), **settings}


async def in_study(make_app: AppFactory, fake: FakeOpenAIServer, text: str = SHORT_STUDY,
                   schedule: dict[str, Any] | None = None, **settings: str) -> tuple[App, MemoryTransport, str]:
    """Ana (Toronto, a habit at 08:00: prompts at 07:50, unless ``schedule`` says otherwise) in the
    study: her intake is done on Monday at 04:00, so study day 1 is Tuesday and Monday's prompt is
    before the study."""
    transport = MemoryTransport()
    app = await make_app(transport, **{**QUIET, **with_study(text), **settings})
    pid = await enroll_with_schedule(app, fake, ANA, "America/Toronto", schedule)
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "plan complete"}, match="all set")
    fake.say("Great, tell me how it goes.", match="all set")
    await transport.inject(ANA, "I'm all set")
    await app.run_until_idle()
    await at(app, MONDAY_PROMPT)
    return app, transport, pid


async def enroll_walkers(app: App, fake: FakeOpenAIServer, zones: list[str]) -> None:
    """One participant per zone (Walker00 on +1 416 555 0100, …), each greeting turn setting up
    the plan (a walk at 09:00) and finishing intake."""
    for n, zone in enumerate(zones):
        name = f"Walker{n:02d}"
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=walker_phone(n), name=name, timezone=zone,
                           study=app.settings.study))
        fake.call_tools([("save_user_profile", PROFILE),
                         ("scheduler", {"action": "create", "type": "fixed", "fixed_time": "09:00"}),
                         ("transition_state", {"target_state": "FEEDBACK", "reason": "plan set"})],
                        match=f"Participant: {name}\\n")
        fake.say(f"Welcome {name}!", match=f"Participant: {name}\\n")
        if n % 10 == 9:  # a few greetings at a time: forty at once can overrun the fake model's listen queue
            await app.run_until_idle()
    await app.run_until_idle()


def walker_phone(n: int) -> str:
    return f"+1416555{100 + n:04d}"
