"""Messages from the research team: to one participant or a broadcast. Each is sent once through
the outbox by the running service, kept in the transcript as the team's, and never sent to
someone who sent STOP, was withdrawn or erased, whatever the order things happen in."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from structlog.testing import capture_logs

from promptpipe.app import App
from promptpipe.domain.consent import why_not_writable
from promptpipe.domain.conversation import RESEARCHER_NOTE
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.errors import AdminError, Conflict, Forbidden
from promptpipe.flow.commands import STOPPED
from promptpipe.research import admin, erasure
from promptpipe.storage.inbox_rows import reopen_input
from promptpipe.storage.queue_tables import InboxItem, OutboxItem
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import enrolled

ANA, BEN, CARA = "+14165550140", "+14165550141", "+14165550142"
NOTE = "Hello from the study team: your check-in call is on Friday at 10."


async def researcher_rows(app: App, phone: str) -> list[dict[str, Any]]:
    return [row for row in await admin.transcript(app.db, phone) if row.kind == "researcher"]


async def inbox_statuses(app: App, kind: str = "researcher_message") -> list[str]:
    return await app.db.run(lambda s: list(s.execute(
        select(InboxItem.status).where(InboxItem.kind == kind).order_by(InboxItem.id)).scalars()))


async def test_the_participant_gets_the_teams_words_and_the_transcript_says_who_wrote_them(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    before = await admin.schedules(app.db, app.clock, phone=ANA)
    stage = (await admin.show(app.db, ANA)).sub_state

    queued = await admin.send_message(app.db, app.clock, who=ANA, text=f"  {NOTE}\n", by="Dr Lee")
    assert NOTE not in transport.texts_to(ANA)  # nothing is sent inside the researcher's request
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == NOTE
    [row] = await researcher_rows(app, ANA)
    assert (row.direction, row.status, row.text) == ("out", "sent", NOTE)
    assert row.payload == {"by": "Dr Lee", "broadcast_id": None}
    assert queued.participant_id == (await admin.show(app.db, ANA)).id
    after = await admin.schedules(app.db, app.clock, phone=ANA)
    assert after.timers == before.timers  # no timer cancelled or armed
    assert (await admin.show(app.db, ANA)).sub_state == stage
    assert len(fake_openai.requests) == 1  # only the greeting: the model did not write it

    fake_openai.say("Great, see you then!", match="friday works")
    await transport.inject(ANA, "friday works for me")
    await app.run_until_idle()
    seen = [m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "assistant"]
    assert f"{RESEARCHER_NOTE} {NOTE}" in seen  # the model knows the team wrote it, not itself
    fake_openai.assert_complete()


async def test_sent_once_when_the_service_restarts_before_sending_and_the_turn_runs_again(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    queued = await admin.send_message(app.db, app.clock, who=ANA, text=NOTE)
    app.flow.sender = None  # the commit leaves it to the dispatcher (no hand-over) ...
    await app.lanes.poll_once()  # the flow queues it in the outbox ...
    await app.lanes.wait_idle()
    assert NOTE not in transport.texts_to(ANA)
    await app.stop()  # ... and the service stops before the outbox sends it

    restarted = await make_app(transport)
    now = restarted.clock.now()
    await restarted.db.run(lambda s: reopen_input(s, queued.inbox_id, now))  # the turn runs again too
    await restarted.run_until_idle()
    await restarted.run_until_idle()
    assert transport.texts_to(ANA).count(NOTE) == 1
    assert len(await researcher_rows(restarted, ANA)) == 1
    outbox = await restarted.db.run(lambda s: list(s.execute(select(OutboxItem.status)).scalars()))
    assert outbox.count("sent") == 2 and set(outbox) == {"sent"}  # the greeting and the note
    fake_openai.assert_complete()


async def test_nobody_who_said_stop_or_was_withdrawn_is_written_to(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=BEN, name="Ben", timezone="UTC"))
    fake_openai.say("Hi Ben!", match="Participant: Ben")
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await admin.set_status(app.db, app.clock, phone=BEN, action="withdraw")
    await app.run_until_idle()

    with pytest.raises(Forbidden, match=r"\+14165550140: not sent, because they sent STOP"):
        await admin.send_message(app.db, app.clock, who=ANA, text=NOTE)
    with pytest.raises(Forbidden, match="withdrawn from the study"):
        await admin.send_message(app.db, app.clock, who=BEN, text=NOTE)
    await app.run_until_idle()
    assert NOTE not in transport.texts_to(ANA) + transport.texts_to(BEN)
    assert await inbox_statuses(app) == []  # refused before anything was written
    fake_openai.assert_complete()


async def test_a_stop_that_arrives_before_the_message_goes_out_wins(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    await admin.simulate(app.db, app.clock, phone=ANA, text="stop")  # in the inbox, not handled yet
    await admin.send_message(app.db, app.clock, who=ANA, text=NOTE)  # still active: accepted
    with capture_logs() as logs:
        await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == STOPPED
    assert NOTE not in transport.texts_to(ANA)
    assert await researcher_rows(app, ANA) == []
    assert await inbox_statuses(app) == ["done"]  # settled, not retried
    [refusal] = [entry for entry in logs if entry["event"] == "researcher_message_not_sent"]
    assert refusal["reason"] == "opted_out" and refusal["participant_id"].startswith("p_")
    assert NOTE not in repr(logs) and ANA not in repr(logs)
    fake_openai.assert_complete()


async def test_the_teams_pause_does_not_keep_their_own_message_from_them(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai, phone=ANA)
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    await admin.send_message(app.db, app.clock, who=ANA, text=NOTE)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == NOTE
    assert (await admin.show(app.db, ANA)).status == "paused"  # and they stay paused
    fake_openai.assert_complete()


@pytest.mark.parametrize(("status", "opted_out", "erased", "reason"), [
    ("active", False, False, None), ("completed", False, False, None), ("paused", False, False, None),
    ("paused", True, False, "opted_out"), ("completed", True, False, "opted_out"),
    ("withdrawn", False, False, "withdrawn"), ("withdrawn", False, True, "erased"),
])
def test_who_may_be_written_to(status: str, opted_out: bool, erased: bool, reason: str | None) -> None:
    assert why_not_writable(status, opted_out=opted_out, erased=erased) == reason


async def greeted_three(make_app: AppFactory, fake: FakeOpenAIServer) -> tuple[App, MemoryTransport]:
    """Ana and Cara active, Ben paused by his own STOP."""
    app, transport = await enrolled(make_app, fake, phone=ANA)
    for phone, name in ((BEN, "Ben"), (CARA, "Cara")):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="UTC"))
        fake.say(f"Hi {name}!", match=f"Participant: {name}")
    await app.run_until_idle()
    await transport.inject(BEN, "STOP")
    await app.run_until_idle()
    return app, transport


async def test_a_broadcast_reaches_whom_the_filter_matches_and_skips_who_said_stop(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await greeted_three(make_app, fake_openai)
    active = ParticipantFilter(status="active")
    assert await admin.broadcast_count(app.db, app.clock, active) == 2
    done = await admin.broadcast(app.db, app.clock, text="The survey closes tonight.", flt=active, expected=2)
    assert (done.queued, done.skipped) == (2, 0) and done.broadcast_id.startswith("b_")
    await app.run_until_idle()
    assert [transport.texts_to(p)[-1] == "The survey closes tonight." for p in (ANA, BEN, CARA)] == [
        True, False, True]
    [row] = await researcher_rows(app, CARA)
    assert row.payload["broadcast_id"] == done.broadcast_id

    everyone = ParticipantFilter()
    assert await admin.broadcast_count(app.db, app.clock, everyone) == 3
    again = await admin.broadcast(app.db, app.clock, text="Thank you all!", flt=everyone, expected=3)
    assert (again.queued, again.skipped) == (2, 1)
    await app.run_until_idle()
    assert "Thank you all!" not in transport.texts_to(BEN)
    assert transport.texts_to(ANA)[-1] == transport.texts_to(CARA)[-1] == "Thank you all!"
    fake_openai.assert_complete()


async def test_a_broadcast_is_refused_when_the_count_changed_since_it_was_confirmed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await greeted_three(make_app, fake_openai)
    active = ParticipantFilter(status="active")
    confirmed = await admin.broadcast_count(app.db, app.clock, active)
    await admin.set_status(app.db, app.clock, phone=CARA, action="pause")  # someone changes meanwhile
    with pytest.raises(Conflict, match="the filter now matches 1 participants, not 2; count again"):
        await admin.broadcast(app.db, app.clock, text="Survey!", flt=active, expected=confirmed)
    with pytest.raises(AdminError, match="status: 'sleeping' is not one of"):
        await admin.broadcast(app.db, app.clock, text="Survey!", flt=ParticipantFilter(status="sleeping"))
    await app.run_until_idle()
    assert "Survey!" not in transport.texts_to(ANA)
    assert await inbox_statuses(app) == []
    fake_openai.assert_complete()


async def test_an_erased_participant_is_neither_written_to_nor_changed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, _ = await enrolled(make_app, fake_openai, phone=ANA)
    pid = (await admin.show(app.db, ANA)).id
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA)
    with pytest.raises(Forbidden, match="their personal data was erased"):
        await admin.send_message(app.db, app.clock, who=pid, text=NOTE)
    with pytest.raises(Forbidden, match="was erased"):
        await admin.update_participant(app.db, app.clock, who=pid, name="Ana")
    assert await inbox_statuses(app) == []
    fake_openai.assert_complete()


async def test_a_name_and_notes_can_be_corrected(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, _ = await enrolled(make_app, fake_openai, phone=ANA)
    said = await admin.update_participant(app.db, app.clock, who=ANA, name=" Ana María ", background="Night shifts")
    assert said == f"{ANA}: name changed from 'Ana' to 'Ana María'; background notes updated"
    shown = await admin.show(app.db, ANA)
    assert (shown.name, shown.background) == ("Ana María", "Night shifts")
    assert await admin.update_participant(app.db, app.clock, who=ANA, name="Ana María") == f"{ANA}: nothing changed"
    with pytest.raises(AdminError, match="a name is one line"):
        await admin.update_participant(app.db, app.clock, who=ANA, name="Ana\nMaría")
    with pytest.raises(AdminError, match="give the participant's name"):
        await admin.update_participant(app.db, app.clock, who=ANA, name="  ")
    assert (await admin.show(app.db, ANA)).name == "Ana María"
    fake_openai.assert_complete()
