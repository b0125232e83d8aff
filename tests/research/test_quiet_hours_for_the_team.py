"""A team message and a prompt-now respect the study's quiet hours: inside them they are refused
with the participant's local time and when quiet hours end, unless the researcher says "anyway"."""

from __future__ import annotations

import pytest

from promptpipe.errors import Forbidden
from promptpipe.research import admin
from tests.conftest import AppFactory
from tests.flow.test_lifecycle import NIGHTS_OFF
from tests.schedule_helpers import utc
from tests.study_helpers import with_study

ANA = "+14165550111"


async def enrolled_at_night(make_app: AppFactory):  # type: ignore[no-untyped-def]
    app = await make_app(**with_study(NIGHTS_OFF))
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto",
                                                          study=app.settings.study))
    app.clock.set(utc(2026, 1, 6, 4, 30))  # 23:30 in Toronto (the service is not running)
    return app


async def test_a_team_message_inside_quiet_hours_is_refused_with_when_they_end(make_app: AppFactory) -> None:
    app = await enrolled_at_night(make_app)
    quiet = app.settings.study.quiet_hours
    with pytest.raises(Forbidden, match=r"23:30 for them .*quiet hours.*after 07:00 their time.*anyway"):
        await admin.send_message(app.db, app.clock, who=ANA, text="A note from the team", quiet=quiet)
    with pytest.raises(Forbidden, match="quiet hours"):
        await admin.send_prompt_now(app.db, app.clock, phone=ANA, quiet=quiet)
    queued = await admin.send_message(app.db, app.clock, who=ANA, text="Urgent: the study is paused", quiet=quiet,
                                      anyway=True)
    assert queued.inbox_id > 0


async def test_outside_quiet_hours_nothing_is_in_the_way(make_app: AppFactory) -> None:
    app = await enrolled_at_night(make_app)
    app.clock.set(utc(2026, 1, 6, 14, 0))  # 09:00 in Toronto
    quiet = app.settings.study.quiet_hours
    assert (await admin.send_message(app.db, app.clock, who=ANA, text="Good morning", quiet=quiet)).inbox_id > 0
