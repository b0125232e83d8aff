"""What the team sends, and the greeting, wait for the end of the participant's quiet hours instead
of waking them: a held message goes when they end on the participant's clock, holds back nothing
the participant asks meanwhile, and is cancelled if they send STOP before it goes."""

from __future__ import annotations

import pytest

from promptpipe.app import App
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.errors import Forbidden
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA as ANA_IN_STUDY
from tests.flow.test_lifecycle import NIGHTS_OFF
from tests.schedule_helpers import NUDGE, at, utc
from tests.study_helpers import in_study, with_study

ANA, BO = "+14165550111", "+14165550112"
NIGHT = utc(2026, 1, 6, 4, 30)  # 23:30 in Toronto, 13:30 in Tokyo
MORNING = utc(2026, 1, 6, 12, 0)  # 07:00 in Toronto: quiet hours end


async def greeted_by_day(make_app: AppFactory, fake: FakeOpenAIServer, transport: MemoryTransport,
                         *people: tuple[str, str, str]):  # type: ignore[no-untyped-def]
    app = await make_app(transport, **with_study(NIGHTS_OFF))
    await at(app, utc(2026, 1, 5, 15, 0))  # 10:00 in Toronto
    for phone, name, zone in people:
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone=zone,
                                                              study=app.settings.study))
        fake.say(f"Hi {name}!", match=f"Participant: {name}")
    await app.run_until_idle()
    return app


async def ana_greeted_at_night(make_app: AppFactory, fake: FakeOpenAIServer) -> tuple[App, MemoryTransport]:
    """Ana enrolled at 01:00 Toronto time: her greeting is written and held for quiet hours."""
    transport = MemoryTransport()
    app = await make_app(transport, **with_study(NIGHTS_OFF))
    await at(app, NIGHT)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                       study=app.settings.study))
    fake.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    return app, transport


async def test_a_greeting_at_night_waits_for_the_morning_and_holds_back_no_reply(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await ana_greeted_at_night(make_app, fake_openai)
    assert transport.texts_to(ANA) == []  # written, but held
    fake_openai.say("I'm here: this is the habit study.", match="who is this")
    await transport.inject(ANA, "who is this?")  # she writes first, at 01:00: answered at once
    await at(app, utc(2026, 1, 6, 6, 0))
    assert transport.texts_to(ANA) == ["I'm here: this is the habit study."]
    await at(app, utc(2026, 1, 6, 11, 59))
    assert "Hi Ana!" not in transport.texts_to(ANA)
    await at(app, MORNING)
    # the coach already answered her: the held greeting is dropped, not sent into the conversation
    assert transport.texts_to(ANA) == ["I'm here: this is the habit study."]


async def test_a_greeting_held_overnight_goes_in_the_morning_when_nobody_wrote(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await ana_greeted_at_night(make_app, fake_openai)
    await at(app, MORNING)
    assert transport.texts_to(ANA) == ["Hi Ana!"]


async def test_a_team_message_at_night_can_wait_for_the_end_of_quiet_hours(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await greeted_by_day(make_app, fake_openai, transport, (ANA, "Ana", "America/Toronto"))
    await at(app, NIGHT)
    quiet = app.settings.study.quiet_hours
    with pytest.raises(Forbidden, match="--after-quiet-hours"):
        await admin.send_message(app.db, app.clock, who=ANA, text="Tomorrow's session moves to 10:00", quiet=quiet)
    queued = await admin.send_message(app.db, app.clock, who=ANA, text="Tomorrow's session moves to 10:00",
                                      quiet=quiet, after_quiet_hours=True)
    assert queued.held_until == MORNING.isoformat(timespec="seconds")
    await app.run_until_idle()
    fake_openai.say("Sure, I'm listening.", match="can I ask something")
    await transport.inject(ANA, "can I ask something?")
    await at(app, utc(2026, 1, 6, 5, 0))
    assert transport.texts_to(ANA)[-1] == "Sure, I'm listening."  # not held back by the waiting message
    assert "Tomorrow's session moves to 10:00" not in transport.texts_to(ANA)
    await at(app, MORNING)
    assert transport.texts_to(ANA)[-1] == "Tomorrow's session moves to 10:00"


async def test_stop_cancels_a_held_team_message(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await greeted_by_day(make_app, fake_openai, transport, (ANA, "Ana", "America/Toronto"))
    await at(app, NIGHT)
    await admin.send_message(app.db, app.clock, who=ANA, text="A note from the team",
                             quiet=app.settings.study.quiet_hours, after_quiet_hours=True)
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await at(app, utc(2026, 1, 6, 5, 0))
    await at(app, MORNING + (MORNING - NIGHT))
    assert "A note from the team" not in transport.texts_to(ANA)


@pytest.mark.parametrize("anyway", [False, True])
async def test_a_broadcast_reaches_each_participant_outside_their_own_quiet_hours(
    anyway: bool, make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await greeted_by_day(make_app, fake_openai, transport, (ANA, "Ana", "America/Toronto"),
                               (BO, "Bo", "Asia/Tokyo"))
    await at(app, NIGHT)
    result = await admin.broadcast(app.db, app.clock, text="Thank you for taking part", flt=ParticipantFilter(),
                                   anyway=anyway)
    assert result.queued == 2
    await app.run_until_idle()
    assert transport.texts_to(BO)[-1] == "Thank you for taking part"  # 13:30 in Tokyo
    assert (transport.texts_to(ANA)[-1] == "Thank you for taking part") is anyway  # 23:30 in Toronto
    await at(app, MORNING)
    assert transport.texts_to(ANA).count("Thank you for taking part") == 1
    assert transport.texts_to(BO).count("Thank you for taking part") == 1


async def test_a_prompt_asked_for_at_night_can_go_when_quiet_hours_end(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, NIGHTS_OFF)  # Ana, Toronto, prompts at 07:50
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    sent_before = transport.texts_to(ANA_IN_STUDY).count(NUDGE)
    await at(app, NIGHT)
    quiet = app.settings.study.quiet_hours
    with pytest.raises(Forbidden, match="--after-quiet-hours"):
        await admin.send_prompt_now(app.db, app.clock, phone=ANA_IN_STUDY, quiet=quiet)
    await admin.send_prompt_now(app.db, app.clock, phone=ANA_IN_STUDY, quiet=quiet, after_quiet_hours=True)
    await app.run_until_idle()
    await at(app, utc(2026, 1, 6, 11, 59))
    assert transport.texts_to(ANA_IN_STUDY).count(NUDGE) == sent_before  # nothing at night
    await at(app, MORNING)
    assert transport.texts_to(ANA_IN_STUDY).count(NUDGE) == sent_before + 1
    assert transport.texts_to(ANA_IN_STUDY)[-1] == "Did you do it?"


async def test_a_pause_cancels_a_prompt_held_for_the_morning(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, NIGHTS_OFF)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    sent_before = transport.texts_to(ANA_IN_STUDY).count(NUDGE)
    await at(app, NIGHT)
    await admin.send_prompt_now(app.db, app.clock, phone=ANA_IN_STUDY, quiet=app.settings.study.quiet_hours,
                                after_quiet_hours=True)
    await app.run_until_idle()
    await admin.set_status(app.db, app.clock, phone=ANA_IN_STUDY, action="pause", by="Dr. Lee")
    await at(app, utc(2026, 1, 6, 12, 30))  # after 07:00, before the 07:50 daily alarm
    assert transport.texts_to(ANA_IN_STUDY).count(NUDGE) == sent_before


@pytest.mark.parametrize("who", ["team", "participant"])
async def test_someone_whose_held_greeting_a_pause_cancelled_is_greeted_when_active_again(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, who: str,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **with_study(NIGHTS_OFF))
    await at(app, NIGHT)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                       study=app.settings.study))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()  # written, held for the morning
    if who == "team":
        await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    else:
        await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    await at(app, MORNING)
    assert "Hi Ana!" not in transport.texts_to(ANA)  # the pause cancelled it

    fake_openai.say("Hello Ana, welcome to the study!", match="Participant: Ana")
    if who == "team":
        await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    else:
        await transport.inject(ANA, "START")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == "Hello Ana, welcome to the study!"
    assert (await admin.show(app.db, ANA)).status == "active"
    fake_openai.assert_complete()


async def test_someone_already_greeted_is_not_greeted_again_after_a_pause(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await greeted_by_day(make_app, fake_openai, transport, (ANA, "Ana", "America/Toronto"))
    assert transport.texts_to(ANA) == ["Hi Ana!"]
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    await admin.set_status(app.db, app.clock, phone=ANA, action="resume")
    await transport.inject(ANA, "STOP")
    await transport.inject(ANA, "START")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[0] == "Hi Ana!" and "Hi Ana!" not in transport.texts_to(ANA)[1:]
    assert len(fake_openai.requests) == 1


async def test_erasure_cancels_a_held_message_in_the_outbox_and_the_transcript(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    from sqlalchemy import select

    from promptpipe.research import erasure
    from promptpipe.storage.models import Message
    from promptpipe.storage.queue_tables import OutboxItem

    transport = MemoryTransport()
    app = await greeted_by_day(make_app, fake_openai, transport, (ANA, "Ana", "America/Toronto"))
    await at(app, NIGHT)
    await admin.send_message(app.db, app.clock, who=ANA, text="A note from the team",
                             quiet=app.settings.study.quiet_hours, after_quiet_hours=True)
    await app.run_until_idle()
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)
    await at(app, MORNING)

    rows = await app.db.run(lambda s: s.execute(
        select(Message.kind, Message.status, OutboxItem.status).join(OutboxItem, OutboxItem.message_id == Message.id)
        .order_by(Message.id)).all())
    assert [tuple(row) for row in rows] == [("greeting", "sent", "sent"), ("researcher", "cancelled", "cancelled")]
    assert transport.texts_to(ANA) == ["Hi Ana!"]
