"""Daily prompt schedules end to end: the scheduler tool, APScheduler jobs, delivery at local
time, daylight saving, time-zone changes, restarts inside and outside the grace window, and the
reconciler restoring a lost job. Time is a ManualClock; nothing sleeps."""

from __future__ import annotations

from sqlalchemy import select, text

from promptpipe.research import admin
from promptpipe.storage.db import Database
from promptpipe.study.store.tables import Decision
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, inbox_rows, job_ids, sent_kinds, utc

ANA, BEN = "+15145550101", "+4915112345678"


async def test_prompt_fires_at_local_time_in_two_time_zones(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)  # clock starts Monday 2026-01-05 09:00 UTC
    ana = await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto", name="Ana")
    ben = await enroll_with_schedule(app, fake_openai, BEN, "Europe/Berlin", name="Ben")
    assert {f"daily:{ana}:", f"daily:{ben}:"} == {job[: job.rindex(":") + 1] for job in await job_ids(app)}
    tool_result = next(m["content"] for m in fake_openai.requests[2]["messages"] if m["role"] == "tool"
                       and "Saved." in m["content"])
    assert "Next prompt: Monday 2026-01-05 07:50 (America/Toronto)" in tool_result

    # Toronto: habit 08:00 EST, so the prompt goes at 07:50 EST = 12:50 UTC.
    fake_openai.say(NUDGE, match="Participant: Ana")
    await at(app, utc(2026, 1, 5, 12, 49, 59))
    assert sent_kinds(transport, ANA)[-1][0] == "text"  # still only the greeting
    await at(app, utc(2026, 1, 5, 12, 50))
    assert sent_kinds(transport, ANA)[-2:] == [("text", NUDGE), ("poll", "Did you do it?")]
    assert len(sent_kinds(transport, BEN)) == 1  # Berlin's 07:50 has not come yet

    # Berlin: 07:50 CET the next morning = 06:50 UTC.
    fake_openai.say(NUDGE, match="Participant: Ben")
    await at(app, utc(2026, 1, 6, 6, 49))
    assert len(sent_kinds(transport, BEN)) == 1
    await at(app, utc(2026, 1, 6, 6, 50))
    assert sent_kinds(transport, BEN)[-2:] == [("text", NUDGE), ("poll", "Did you do it?")]
    assert len([k for k, _ in sent_kinds(transport, ANA) if k == "poll"]) == 1  # Ana got one, not two
    fake_openai.assert_complete()


async def test_second_create_replaces_unless_asked_to_keep(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    ana = await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "18:30"})
    fake_openai.call_tool("scheduler", {"action": "create", "type": "random", "random_start_time": "12:00",
                                        "random_end_time": "13:00", "keep_existing": True})
    fake_openai.call_tool("scheduler", {"action": "list"})
    fake_openai.say("Done: evenings at 18:30 plus a lunchtime surprise.")
    await transport.inject(ANA, "make it 18:30, and add one at lunch")
    await app.run_until_idle()
    listing = fake_openai.requests[-1]["messages"][-1]["content"]
    assert listing.count("habit at") == 2
    assert "habit at 18:30" in listing and "habit at a random time 12:00-13:00" in listing
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert sorted(s.habit for s in shown.schedules) == ["18:30", "a random time 12:00-13:00"]
    assert all(s.armed for s in shown.schedules)
    assert len([j for j in await job_ids(app) if j.startswith(f"daily:{ana}:")]) == 2


async def test_bad_scheduler_arguments_reach_the_model_and_change_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    fake_openai.call_tool("scheduler", {"action": "create", "type": "random", "random_start_time": "10:00",
                                        "random_end_time": "09:00", "timezone": "Europe/Berlin"})
    fake_openai.say("Which window would suit you?")
    await transport.inject(ANA, "random please, between ten and nine")
    await app.run_until_idle()
    result = fake_openai.requests[-1]["messages"][-1]["content"]
    assert result.startswith("ERROR from scheduler") and "later than" in result
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert [s.habit for s in shown.schedules] == ["08:00"]
    assert shown.timezone == "UTC"  # the failed call did not change the zone either


async def test_spring_forward_fires_once_at_the_first_valid_instant(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock
) -> None:  # type: ignore[no-untyped-def]
    clock.set(utc(2026, 3, 7, 12, 0))  # Saturday before the change in Toronto
    transport = MemoryTransport()
    app = await make_app(transport, SCHEDULER_PREP_TIME_MINUTES="0", **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto",
                               {"action": "create", "type": "fixed", "fixed_time": "02:30"})
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, utc(2026, 3, 8, 6, 59))  # 01:59 EST: nothing yet
    assert len(sent_kinds(transport, ANA)) == 1
    await at(app, utc(2026, 3, 8, 7, 0))  # the jump: 03:00 EDT
    assert sent_kinds(transport, ANA)[-2][1] == NUDGE
    await at(app, utc(2026, 3, 8, 8, 0))  # 04:00 EDT: no second prompt that day
    assert len(sent_kinds(transport, ANA)) == 3
    assert [key.rsplit(":", 1)[1] for key, _ in await inbox_rows(app, "daily_prompt")] == ["2026-03-08"]


async def test_autumn_repeated_hour_fires_once(make_app: AppFactory, fake_openai: FakeOpenAIServer, clock) -> None:  # type: ignore[no-untyped-def]
    clock.set(utc(2026, 10, 24, 12, 0))
    transport = MemoryTransport()
    app = await make_app(transport, SCHEDULER_PREP_TIME_MINUTES="0", **QUIET)
    await enroll_with_schedule(app, fake_openai, BEN, "Europe/Berlin",
                               {"action": "create", "type": "fixed", "fixed_time": "02:15"}, name="Ben")
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, utc(2026, 10, 25, 0, 15))  # 02:15 CEST, the first time
    assert sent_kinds(transport, BEN)[-2][1] == NUDGE
    await at(app, utc(2026, 10, 25, 1, 15))  # 02:15 CET, the repeat
    await at(app, utc(2026, 10, 25, 3, 0))
    assert len(sent_kinds(transport, BEN)) == 3  # greeting + prompt + poll, once
    fake_openai.assert_complete()


async def test_timezone_change_moves_future_prompts(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "America/Toronto")
    message = await admin.set_timezone(app.db, app.clock, phone=ANA, timezone="Europe/Berlin")
    assert "Europe/Berlin" in message
    await app.run_until_idle()  # the service picks up the admin's change
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert shown.schedules[0].next_prompt == "Tuesday 2026-01-06 07:50 (Europe/Berlin)"
    await at(app, utc(2026, 1, 5, 12, 50))  # the old Toronto time passes silently
    assert len(sent_kinds(transport, ANA)) == 1
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, utc(2026, 1, 6, 6, 50))
    assert sent_kinds(transport, ANA)[-2][1] == NUDGE


async def test_restart_inside_grace_sends_the_missed_prompt_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock
) -> None:  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "UTC")  # prompt at 07:50 UTC daily
    await app.stop()  # down from 09:00 on Monday ...
    clock.set(utc(2026, 1, 6, 8, 30))  # ... to 08:30 on Tuesday: 40 minutes late, inside the 1 h grace
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    again = await make_app(transport, **QUIET)
    await again.run_until_idle()
    assert sent_kinds(transport, ANA)[-2:] == [("text", NUDGE), ("poll", "Did you do it?")]
    await at(again, utc(2026, 1, 6, 12, 0))
    assert len(sent_kinds(transport, ANA)) == 3
    assert await inbox_rows(again, "daily_prompt") == [(await _key(again, "2026-01-06"), "done")]


async def test_restart_outside_grace_skips_and_records_the_missed_prompt(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock
) -> None:  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    await app.stop()
    clock.set(utc(2026, 1, 6, 9, 0))  # 70 minutes after Tuesday's 07:50: beyond the grace window
    again = await make_app(transport, **QUIET)
    await again.run_until_idle()
    assert len(sent_kinds(transport, ANA)) == 1  # nothing late
    assert await inbox_rows(again, "daily_prompt") == [(await _key(again, "2026-01-06"), "missed")]
    # The decision point the outage cost is a row of its own, coded apart from a choice not to send.
    [missed] = await again.db.run(lambda s: s.execute(select(Decision)).scalars().all())
    assert (missed.local_date, missed.available, missed.unavailable_reason, missed.action) == (
        "2026-01-06", False, "missed_service_down", "none")
    assert missed.scheduled_for == utc(2026, 1, 6, 7, 50) and missed.decided_at == utc(2026, 1, 6, 9, 0)
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(again, utc(2026, 1, 7, 7, 50))  # Wednesday's comes as usual
    assert sent_kinds(transport, ANA)[-2][1] == NUDGE


async def test_reconciler_restores_a_job_deleted_from_the_job_store(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    ana = await enroll_with_schedule(app, fake_openai, ANA, "UTC")
    await app.stop()
    deleter = Database(app.settings.database_url)  # by hand, while the service is down
    await deleter.run(lambda s: s.execute(text("DELETE FROM apscheduler_jobs")))
    await deleter.close()
    again = await make_app(transport, **QUIET)
    assert {j for j in await job_ids(again) if j.startswith(f"daily:{ana}:")}, "the reconciler put it back"
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(again, utc(2026, 1, 6, 7, 50))
    assert sent_kinds(transport, ANA)[-2][1] == NUDGE


async def _key(app, day: str) -> str:  # type: ignore[no-untyped-def]
    keys = [key for key, _ in await inbox_rows(app, "daily_prompt")]
    return next(key for key in keys if key.endswith(day))
