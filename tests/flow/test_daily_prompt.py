"""Delivery of a daily prompt: written from the profile, sent with its poll, counted, seen later."""

from __future__ import annotations

import json
from datetime import date

from promptpipe.domain import keys
from promptpipe.domain.polls import POLL_OPTIONS, POLL_QUESTION
from promptpipe.flow import APOLOGY
from promptpipe.pipeline.events import DailyPromptDue, as_input
from promptpipe.research import admin
from promptpipe.storage.inbox_rows import add_input
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA = "+15145550101"
NUDGE = "After your morning coffee, stretch your arms for one minute; your back will thank you. Try it?"


async def ready(make_app: AppFactory, fake: FakeOpenAIServer, *, profile: dict | None = None):  # type: ignore[no-untyped-def,type-arg]
    transport = MemoryTransport()
    app = await make_app(transport, INTENSITY_POLL_ENABLED="off")  # the intensity poll has its own tests
    row = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake.call_tool("save_user_profile", profile if profile is not None else {
        "habit_domain": "stretching", "prompt_anchor": "after my morning coffee", "preferred_time": "07:30",
        "motivational_frame": "less back pain"})
    fake.say("Welcome, Ana!")
    await app.run_until_idle()
    return app, transport, row.id


async def fire(app, participant_id: str, key: str | None = None) -> int | None:  # type: ignore[no-untyped-def]
    """What the participant's daily alarm does: write the event to their inbox."""
    key = key or keys.daily_prompt(participant_id, "s_test", date(2026, 1, 5))
    now = app.clock.now()
    inbox_id = await app.db.run(lambda session: add_input(
        app.db, session, as_input(DailyPromptDue(), key=key, participant_id=participant_id), now))
    await app.run_until_idle()
    return inbox_id


async def test_prompt_and_poll_are_sent_recorded_and_counted(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await ready(make_app, fake_openai)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await fire(app, pid)

    sent = transport.sent[-2:]
    assert [(s.kind, s.text) for s in sent] == [("text", NUDGE), ("poll", POLL_QUESTION)]
    assert sent[1].options == POLL_OPTIONS
    rows = await admin.transcript(app.db, ANA)
    assert [(r.kind, r.status) for r in rows[-2:]] == [("prompt", "sent"), ("poll", "sent")]
    shown = await admin.show(app.db, ANA)
    assert shown.last_habit_prompt == NUDGE
    generator = fake_openai.requests[-1]["messages"]
    assert "after my morning coffee" in generator[1]["content"]

    # The next conversation sees which prompt is being answered.
    fake_openai.say("Great job! What made it easy?", match="did it this morning")
    await transport.inject(ANA, "did it this morning")
    await app.run_until_idle()
    history = json.dumps(fake_openai.requests[-1]["messages"])
    assert NUDGE in history and POLL_QUESTION in history
    fake_openai.assert_complete()


async def test_the_same_days_prompt_is_sent_once_however_often_the_alarm_fires(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await ready(make_app, fake_openai)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    assert await fire(app, pid) is not None
    assert await fire(app, pid) is None  # same participant, schedule and local day
    assert transport.texts_to(ANA).count(NUDGE) == 1
    fake_openai.assert_complete()


async def test_missing_profile_fields_hand_the_participant_back_to_intake(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await ready(make_app, fake_openai, profile={"habit_domain": "stretching"})
    await fire(app, pid)
    message = transport.texts_to(ANA)[-1]
    assert "the everyday moment your habit can follow" in message and "when you'd like to get your nudge" in message
    assert (await admin.show(app.db, ANA)).sub_state == "INTAKE"
    assert len(fake_openai.requests) == 2  # no prompt was generated
    fake_openai.assert_complete()


async def test_no_scheduled_message_reaches_a_paused_participant(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await ready(make_app, fake_openai)
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    sent_before = len(transport.sent)
    await fire(app, pid)
    assert len(transport.sent) == sent_before
    fake_openai.assert_complete()


async def test_a_generator_outage_delays_the_prompt_without_an_apology(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, pid = await ready(make_app, fake_openai)
    fake_openai.fail(503, match="scheduled daily nudge")
    await fire(app, pid)
    assert APOLOGY not in transport.texts_to(ANA) and NUDGE not in transport.texts_to(ANA)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    app.clock.advance(31)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-2:] == [NUDGE, POLL_QUESTION]
    fake_openai.assert_complete()


async def test_a_researcher_can_send_the_prompt_now(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await ready(make_app, fake_openai)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await admin.send_prompt_now(app.db, app.clock, phone=ANA)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-2:] == [NUDGE, POLL_QUESTION]
    fake_openai.assert_complete()
