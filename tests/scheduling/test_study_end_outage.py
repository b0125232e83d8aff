"""The end of a study while the service is down (issue 48, items 6 and 7), whole service on the
controllable clock: the service stops, the clock moves past MISFIRE_GRACE, a new service starts.

A study's end is not a nudge that may be skipped: at restart the participant completes, the
closing message goes (held to the end of quiet hours when they are on), the exit questionnaire
follows, and no decision rows come after. Days after the last study day that the outage covered
are not study days: no ``missed_service_down`` rows for them."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from promptpipe.app import App
from promptpipe.research import admin
from promptpipe.storage.models import table_of
from promptpipe.study.store.tables import Decision, QuestionnaireInstance
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, pending_timers, step_through
from tests.study_helpers import with_study

LEA = "+14165550142"
TORONTO = ZoneInfo("America/Toronto")
CLOSING = "That was your last study day. Thank you for taking part!"
EXIT_QUESTION = "Would you take part in a study like this again?"
HEAD = f'name = "Two-day pilot"\nlength_days = 2\nday_one = "after_intake"\nclosing_message = "{CLOSING}"\n'
EXIT = (f'[[questionnaires]]\nid = "exit"\ntitle = "exit"\nsend = {{ event = "study_end" }}\nopen_for = "2d"\n'
        f'[[questionnaires.items]]\nid = "again"\ntext = "{EXIT_QUESTION}"\ntype = "yes_no"\n')
NIGHT = '[quiet_hours]\nstart = "01:00"\nend = "07:00"\n'
"""Quiet hours that begin after the study's midnight end: the end timer is not moved, but a
restart at 01:30 falls inside them."""


def local(day: int, hour: int, minute: int = 0) -> datetime:
    """A Toronto wall-clock time in January 2026 (intake on Monday the 5th: day 1 is the 6th)."""
    return datetime(2026, 1, day, hour, minute, tzinfo=TORONTO)


STUDY_END = local(8, 0)
"""The end of study day 2 (Wednesday the 7th): local midnight."""


async def lea_in_study(make_app: AppFactory, fake: FakeOpenAIServer, transport: MemoryTransport,
                       study: str) -> App:
    """Léa (Toronto, a habit at 08:00: prompts at 07:50) finishes intake on Monday the 5th."""
    app = await make_app(transport, **{**QUIET, **with_study(study)})
    await enroll_with_schedule(app, fake, LEA, "America/Toronto", name="Lea")
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "plan complete"}, match="all set")
    fake.say("Great, tell me how it goes.", match="all set")
    await transport.inject(LEA, "I'm all set")
    await app.run_until_idle()
    fake.always(NUDGE, match="scheduled daily nudge")
    return app


async def restarted(app: App, make_app: AppFactory, transport: MemoryTransport, study: str, down: datetime,
                    up: datetime) -> App:
    """Run until ``down`` (in steps shorter than the grace), stop, and start a new service at ``up``."""
    await step_through(app, down, timedelta(minutes=55))
    await app.stop()
    app.clock.set(up)  # type: ignore[attr-defined]
    again = await make_app(transport, **{**QUIET, **with_study(study)})
    await again.run_until_idle()
    return again


async def decisions(app: App) -> list[tuple[str, int | None, str | None]]:
    rows = await app.db.run(lambda s: s.execute(
        sa.select(Decision.local_date, Decision.study_day, Decision.unavailable_reason)
        .order_by(Decision.local_date)).all())
    return [(day, number, reason) for day, number, reason in rows]


async def lea_id(app: App) -> str:
    return str(await app.db.run(lambda s: s.execute(sa.text("SELECT id FROM participant")).scalar_one()))


async def exit_instances(app: App) -> list[tuple[str, str]]:
    table = table_of(QuestionnaireInstance)
    return [(occasion, status) for occasion, status in await app.db.run(lambda s: s.execute(
        sa.select(table.c.occasion, table.c.status)).all())]


async def test_a_study_end_missed_while_down_ends_the_study_at_restart(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    study = HEAD + EXIT
    app = await lea_in_study(make_app, fake_openai, transport, study)
    # down from 23:30 on the last study day to 01:30: the end at midnight is 90 minutes late
    again = await restarted(app, make_app, transport, study, local(7, 23, 30), local(8, 1, 30))
    assert (await admin.show(again.db, phone=LEA)).status == "completed"
    assert transport.texts_to(LEA)[-2:] == [CLOSING, EXIT_QUESTION]
    assert await exit_instances(again) == [("study_end", "sent")]
    days = await decisions(again)
    for day in range(9, 13):  # the days after: no prompt, no decision row
        await at(again, local(day, 9))
    assert await decisions(again) == days
    assert [number for _, number, _ in days] == [0, 1, 2]  # Monday's (before day 1) and the two study days
    assert NUDGE not in transport.texts_to(LEA)[-2:]
    assert "study_end" not in await pending_timers(again, await lea_id(again))


async def test_a_late_study_end_inside_quiet_hours_holds_the_closing_message_until_morning(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    study = HEAD + NIGHT + EXIT
    app = await lea_in_study(make_app, fake_openai, transport, study)
    again = await restarted(app, make_app, transport, study, local(7, 23, 30), local(8, 1, 30))
    assert (await admin.show(again.db, phone=LEA)).status == "completed"  # completed at once ...
    assert CLOSING not in transport.texts_to(LEA)  # ... but nothing is sent at night
    await at(again, local(8, 6, 59))
    assert CLOSING not in transport.texts_to(LEA)
    await at(again, local(8, 7, 0))
    assert transport.texts_to(LEA)[-2:] == [CLOSING, EXIT_QUESTION]
    for day in range(9, 12):
        await at(again, local(day, 9))
    assert [reason for _, number, reason in await decisions(again) if number is None or number > 2] == []


async def test_catching_up_after_an_outage_counts_no_days_past_the_study(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    study = HEAD + EXIT
    app = await lea_in_study(make_app, fake_openai, transport, study)
    # down from day 2 (after its prompt) to day 5 (after what would have been its prompt)
    again = await restarted(app, make_app, transport, study, local(7, 9), local(10, 9))
    rows = await decisions(again)
    assert [(day, number) for day, number, _ in rows] == [("2026-01-05", 0), ("2026-01-06", 1), ("2026-01-07", 2)]
    assert all(reason != "missed_service_down" for _, _, reason in rows)
    assert (await admin.show(again.db, phone=LEA)).status == "completed"
    assert transport.texts_to(LEA)[-2:] == [CLOSING, EXIT_QUESTION]
    assert await exit_instances(again) == [("study_end", "sent")]


async def test_catching_up_records_the_study_days_the_outage_cost(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    study = HEAD
    app = await lea_in_study(make_app, fake_openai, transport, study)
    # down from day 1 to day 4: day 2's prompt is lost (a study day), days 3 and 4 are past the end
    again = await restarted(app, make_app, transport, study, local(6, 9), local(9, 9))
    rows = await decisions(again)
    assert rows[-1] == ("2026-01-07", 2, "missed_service_down")
    assert [number for _, number, _ in rows] == [0, 1, 2]
    assert transport.texts_to(LEA)[-1] == CLOSING


async def test_the_end_of_a_study_extended_before_the_outage_is_counted_from_its_new_last_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    study = HEAD
    app = await lea_in_study(make_app, fake_openai, transport, study)
    await step_through(app, local(6, 12), timedelta(minutes=55))
    await admin.extend(app.db, app.clock, study=app.settings.study, phone=LEA, days=1)
    await app.run_until_idle()
    # down from day 1 to the day after the new last day (3): days 2 and 3 lost, day 4 not a study day
    again = await restarted(app, make_app, transport, study, local(6, 13), local(10, 9))
    rows = await decisions(again)
    assert [(number, reason) for _, number, reason in rows[-2:]] == [
        (2, "missed_service_down"), (3, "missed_service_down")]
    assert [number for _, number, _ in rows] == [0, 1, 2, 3]
    assert (await admin.show(again.db, phone=LEA)).status == "completed"
    assert transport.texts_to(LEA)[-1] == CLOSING
    timers = await pending_timers(again, await lea_id(again))
    assert "study_end" not in timers


async def test_a_participant_left_active_by_an_end_recorded_missed_completes_at_the_next_prompt(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """A release before this fix recorded the late end as missed and left them active with no
    end pending: their next daily prompt (a not_in_study point) arms the end, and it happens."""
    transport = MemoryTransport()
    study = HEAD + EXIT
    app = await lea_in_study(make_app, fake_openai, transport, study)
    again = await restarted(app, make_app, transport, study, local(7, 23, 30), local(7, 23, 40))
    await again.db.run(lambda s: s.execute(sa.text("UPDATE timer SET status = 'missed' WHERE kind = 'study_end'")))
    await again.stop()
    again.clock.set(local(8, 1, 30))  # type: ignore[attr-defined]
    third = await make_app(transport, **{**QUIET, **with_study(study)})
    await third.run_until_idle()
    assert (await admin.show(third.db, phone=LEA)).status == "active"  # what the old release left
    await at(third, local(8, 7, 50))
    assert (await admin.show(third.db, phone=LEA)).status == "completed"
    assert transport.texts_to(LEA)[-2:] == [CLOSING, EXIT_QUESTION]
    for day in range(9, 12):
        await at(third, local(day, 9))
    assert [(number, reason) for _, number, reason in await decisions(third)][-2:] == [
        (2, None), (3, "not_in_study")]  # the one point of the day it ended, none after
