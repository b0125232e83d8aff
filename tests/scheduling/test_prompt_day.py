"""The prompt on its own local day (issue 48, item 9), whole service on the controllable clock: the
prompt goes SCHEDULER_PREP_TIME_MINUTES before the habit, but never before the start of the habit's
local day, so every local day gets its one prompt on that day and its decision row names it."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from promptpipe.app import App
from promptpipe.study.store.tables import Decision
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, step_through
from tests.study_helpers import in_study

TORONTO = ZoneInfo("America/Toronto")
JUST_AFTER_MIDNIGHT = {"action": "create", "type": "fixed", "fixed_time": "00:05"}


async def prompts_by_day(app: App) -> list[tuple[str, str]]:
    """(the day a decision row names, the local day its prompt was due to go out) for each prompt sent."""
    rows = await app.db.run(lambda s: s.execute(
        select(Decision.local_date, Decision.scheduled_for, Decision.timezone)
        .where(Decision.prompt_message_id.is_not(None)).order_by(Decision.scheduled_for)).all())
    return [(day, due.astimezone(ZoneInfo(zone)).date().isoformat()) for day, due, zone in rows]


async def test_a_habit_at_0005_gets_its_prompt_on_the_day_itself_from_day_one_to_the_last_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Intake is done on Monday (the 5th): study days 1 and 2 are Tuesday and Wednesday. Each
    prompt goes at 00:00 on its day; none on the intake day, one on the last study day."""
    app, transport, _ = await in_study(make_app, fake_openai, schedule=JUST_AFTER_MIDNIGHT)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await step_through(app, datetime(2026, 1, 9, 12, tzinfo=TORONTO), timedelta(minutes=55))
    assert await prompts_by_day(app) == [("2026-01-06", "2026-01-06"), ("2026-01-07", "2026-01-07")]
    assert transport.texts_to(ANA).count(NUDGE) == 2


@pytest.mark.parametrize(("zone", "night"), [("America/Santiago", "2026-09-06"), ("America/Havana", "2026-03-08")])
async def test_on_a_night_without_midnight_each_day_gets_one_prompt_and_its_row_names_that_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, zone: str, night: str,
) -> None:
    """A habit at 00:30 (prompt at 00:20): the night the clocks jump from 00:00 to 01:00 has no
    00:20, and the prompt goes at 01:00 that day, not at 23:50 the evening before."""
    where = ZoneInfo(zone)
    start = datetime.fromisoformat(night).replace(tzinfo=where) - timedelta(days=3)
    transport = MemoryTransport()
    app = await make_app(transport, **QUIET)
    await at(app, start + timedelta(hours=12))
    await enroll_with_schedule(app, fake_openai, "+14165550148", zone, {**JUST_AFTER_MIDNIGHT, "fixed_time": "00:30"})
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await step_through(app, start + timedelta(days=6, hours=12), timedelta(minutes=55))
    days = [(start + timedelta(days=n)).date().isoformat() for n in range(1, 7)]
    assert await prompts_by_day(app) == [(day, day) for day in days]
    assert transport.texts_to("+14165550148").count(NUDGE) == 6
