"""Daily prompts prepared a few seconds before they are due (``AlarmClock.prepare``): the row is written only at due,
never earlier, and only if the participant and the schedule are still as they were when it was prepared; a participant
who stopped or withdrew, or whose schedule moved in between, gets no prompt at the old time. The changes below are
made straight in the database, as another service (or a change whose alarm sync has not been applied yet) makes them:
the prepared row itself must notice. Time is a ManualClock; nothing sleeps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select, update

from promptpipe.app import App
from promptpipe.domain.states import Status
from promptpipe.scheduling.ahead import PREPARE_AHEAD_S
from promptpipe.storage.models import Participant
from promptpipe.storage.prompt_tables import Schedule
from promptpipe.storage.queue_tables import InboxItem
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, job_ids, sent_kinds, utc

ANA = "+15145550101"
DUE = utc(2026, 1, 5, 12, 50)  # habit 08:00 in Toronto (EST), prompt 10 minutes before
"""The prompt's instant; the app's clock starts at 09:00 UTC the same day."""


async def ana_prepared(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> tuple[App, MemoryTransport, str]:
    """Ana, enrolled in Toronto with a prompt at 08:00 local, and her prompt prepared 2 s before it is due."""
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    ana = await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto")
    await at(app, DUE - timedelta(seconds=2))
    assert await app.alarms.prepare() == 1
    return app, transport, ana


async def prompt_rows(app: App) -> list[tuple[str, object]]:
    rows = await app.db.run(lambda s: s.execute(
        select(InboxItem.key, InboxItem.created_at).where(InboxItem.kind == "daily_prompt")).all())
    return [(key, created) for key, created in rows]


async def test_a_prepared_prompt_is_written_at_due_not_before(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, ana = await ana_prepared(make_app, fake_openai)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, DUE - timedelta(milliseconds=1))
    assert await prompt_rows(app) == []
    assert len(sent_kinds(transport, ANA)) == 1  # the greeting only
    await at(app, DUE)
    rows = await prompt_rows(app)
    assert [key for key, _ in rows] == [f"prompt:{ana}:{(await schedule_id(app, ana))}:2026-01-05"]
    assert as_utc(rows[0][1]) == DUE  # written at due, not when prepared
    assert sent_kinds(transport, ANA)[-2:] == [("text", NUDGE), ("poll", "Did you do it?")]
    # stored with its next day: the next morning's prompt comes, once
    await at(app, DUE + timedelta(days=1))
    assert [k for k, _ in sent_kinds(transport, ANA)].count("poll") == 2
    assert len(await prompt_rows(app)) == 2


async def test_a_participant_who_withdrew_after_preparation_gets_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, ana = await ana_prepared(make_app, fake_openai)
    await app.db.run(lambda s: s.execute(update(Participant).where(Participant.id == ana)
                                         .values(status=Status.WITHDRAWN)))
    await at(app, DUE + timedelta(minutes=5))
    assert await prompt_rows(app) == []
    assert len(sent_kinds(transport, ANA)) == 1  # the greeting only


async def test_a_participant_who_wrote_stop_after_preparation_is_not_prompted(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await ana_prepared(make_app, fake_openai)
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    after_stop = len(sent_kinds(transport, ANA))  # the STOP's confirmation
    await at(app, DUE + timedelta(minutes=5))
    assert len(sent_kinds(transport, ANA)) == after_stop
    assert NUDGE not in transport.texts_to(ANA)


async def test_a_schedule_moved_after_preparation_prompts_at_its_new_time_only(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, ana = await ana_prepared(make_app, fake_openai)
    await app.db.run(lambda s: s.execute(update(Schedule).where(Schedule.participant_id == ana)
                                         .values(habit_time="09:00")))
    await at(app, DUE + timedelta(minutes=5))
    assert await prompt_rows(app) == []  # the old time passes silently
    assert len(sent_kinds(transport, ANA)) == 1
    app.alarms.request_sync([ana])  # the change's own request, applied late
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, DUE + timedelta(hours=1))  # 09:00 local minus 10 minutes
    assert [key.rsplit(":", 1)[1] for key, _ in await prompt_rows(app)] == ["2026-01-05"]
    assert sent_kinds(transport, ANA)[-2:] == [("text", NUDGE), ("poll", "Did you do it?")]
    assert any(job.startswith(f"daily:{ana}:") for job in await job_ids(app))


def as_utc(value: object) -> datetime:
    assert isinstance(value, datetime)
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


async def schedule_id(app: App, participant_id: str) -> str:
    return str(await app.db.run(lambda s: s.execute(
        select(Schedule.id).where(Schedule.participant_id == participant_id)).scalar_one()))


async def test_a_crash_after_the_prepared_row_before_the_job_moved_fires_again_as_a_no_op(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The row is committed, the job store's move is not (the process dies in between): the job is still due, fires
    again (no longer prepared) and its key makes it nothing; the prompt goes once."""
    app, transport, _ = await ana_prepared(make_app, fake_openai)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    store = app.alarms.store

    def dies() -> int:
        raise RuntimeError("killed before the job store committed")

    app.clock.set(DUE)  # type: ignore[attr-defined]
    monkeypatch.setattr(store, "commit_deferred", dies)
    with pytest.raises(RuntimeError, match="killed"):
        await app.alarms.run_due()
    monkeypatch.undo()
    assert len(await prompt_rows(app)) == 1
    await at(app, DUE + timedelta(seconds=1))
    assert len(await prompt_rows(app)) == 1
    assert transport.texts_to(ANA).count(NUDGE) == 1
    assert [k for k, _ in sent_kinds(transport, ANA)].count("poll") == 1


async def test_the_alarm_loop_prepares_the_next_prompts_a_few_seconds_before_they_are_due(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The loop sleeps until PREPARE_AHEAD_S before the next job, prepares, then sleeps until it is due; once."""
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto")
    alarms = app.alarms
    await at(app, DUE - timedelta(seconds=10))
    wait = await alarms.run_due()
    assert wait == pytest.approx(10)
    assert await alarms._prepare_or_wait(wait) == pytest.approx(10 - PREPARE_AHEAD_S)
    await at(app, DUE - timedelta(seconds=PREPARE_AHEAD_S))
    wait = await alarms.run_due()
    assert await alarms._prepare_or_wait(wait) == pytest.approx(PREPARE_AHEAD_S)
    assert len(alarms._ready) == 1
    assert await alarms._prepare_or_wait(wait) == pytest.approx(PREPARE_AHEAD_S)  # not prepared twice
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, DUE)
    assert alarms._ready == {}
    assert transport.texts_to(ANA).count(NUDGE) == 1


async def test_a_job_stored_anew_after_preparation_fires_as_stored(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The schedule changes to a habit five minutes later with five minutes more to prepare (the same instant) and
    its job is stored anew before due: the prompt goes once, at due, and the job's next day is the new schedule's."""
    app, transport, ana = await ana_prepared(make_app, fake_openai)
    await app.db.run(lambda s: s.execute(update(Schedule).where(Schedule.participant_id == ana)
                                         .values(habit_time="08:05", prep_minutes=15)))
    app.alarms.request_sync([ana])
    await app.alarms.sync_requested()
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, DUE)
    assert transport.texts_to(ANA).count(NUDGE) == 1
    assert len(await prompt_rows(app)) == 1
    job = app.alarms.store.lookup_job(next(j for j in await job_ids(app) if j.startswith("daily:")))
    assert job.next_run_time == DUE + timedelta(days=1)
    assert job.trigger.spec.prep_minutes == 15
