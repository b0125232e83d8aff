"""Availability is decided once, at the scheduled time, before the draw: a model outage that delays
the turn must not turn an available point into an unavailable one (which would make availability
depend on the drawn action). A prompt the model cannot write before the day ends or quiet hours
begin is coded ``model_outage``; every point carries its draw and the protocol hash in force."""

from __future__ import annotations

import csv
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select

from promptpipe.app import App
from promptpipe.export.files import export_study
from promptpipe.research import admin, erasure
from promptpipe.study.rules.decision_rule import draw_action
from promptpipe.study.rules.protocol import SELF_REPORT_QUESTION
from promptpipe.study.store.seed import study_seed
from promptpipe.study.store.tables import Decision
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, polls
from tests.flow.test_decisions import decisions, study, through_days
from tests.schedule_helpers import NUDGE, at, step_through
from tests.study_helpers import in_study, with_study

MORNINGS_ONLY = study('[quiet_hours]\nstart = "09:00"\nend = "06:00"\n')
"""Quiet from 09:00 to 06:00 in Toronto: Ana's 07:50 prompt is fine, 09:05 is not."""


async def model_down_from_tuesdays_prompt(app: App, fake: FakeOpenAIServer, minutes: int) -> None:
    """The model answers nothing from Tuesday's prompt time for ``minutes``, then works again."""
    fake.fail(503, match="scheduled daily nudge", repeat=True)
    await step_through(app, MONDAY_PROMPT + DAY + timedelta(minutes=minutes), step=timedelta(minutes=5))
    fake.reset()
    fake.always(NUDGE, match="scheduled daily nudge")


async def test_a_model_outage_past_the_start_of_quiet_hours_is_coded_as_an_outage_not_unavailability(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, MORNINGS_ONLY)
    tuesday = MONDAY_PROMPT + DAY
    await model_down_from_tuesdays_prompt(app, fake_openai, 75)  # into quiet hours
    await step_through(app, tuesday + timedelta(hours=3), step=timedelta(minutes=15))
    row = (await decisions(app))[-1]
    assert (row.local_date, row.available, row.unavailable_reason, row.action) == ("2026-01-06", True, None, "send")
    assert (row.not_sent_reason, row.prompt_message_id, row.prompt_style) == ("model_outage", None, None)
    assert row.scheduled_for == tuesday and row.decided_at > tuesday + timedelta(hours=1)
    assert NUDGE not in transport.texts_to(ANA)  # nothing went out in the quiet hours
    await at(app, MONDAY_PROMPT + 2 * DAY)  # Wednesday: the model is back
    assert transport.texts_to(ANA).count(NUDGE) == 1
    assert (await decisions(app))[-1].not_sent_reason is None


async def test_a_prompt_the_model_writes_late_but_before_quiet_hours_goes_out_as_drawn(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, MORNINGS_ONLY)
    await model_down_from_tuesdays_prompt(app, fake_openai, 30)
    await step_through(app, MONDAY_PROMPT + DAY + timedelta(minutes=60), step=timedelta(minutes=5))
    row = (await decisions(app))[-1]
    assert (row.available, row.action, row.not_sent_reason) == (True, "send", None)
    assert row.prompt_message_id is not None and transport.texts_to(ANA).count(NUDGE) == 1


EVENING_QUESTION = study('[self_report]\ntime = "20:00"\nwindow = "3h"\n')
"""The day's outcome question at 20:00 in Toronto; no quiet hours."""


async def test_a_prompt_that_cannot_go_before_the_outcome_question_is_not_sent_late_and_is_coded(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The model is down from Tuesday's 07:50 prompt until 21:00, after that day's 20:00 question:
    the prompt is not sent at 21:00 (treatment after its outcome was asked), and says why."""
    app, transport, _ = await in_study(make_app, fake_openai, EVENING_QUESTION)
    tuesday = MONDAY_PROMPT + DAY
    fake_openai.fail(503, match="scheduled daily nudge", repeat=True)
    await step_through(app, tuesday + timedelta(hours=13, minutes=10), step=timedelta(minutes=15))  # 21:00
    assert len(polls(transport, SELF_REPORT_QUESTION)) == 1  # asked on time, at 20:00
    fake_openai.reset()
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await step_through(app, tuesday + timedelta(hours=14), step=timedelta(minutes=15))
    assert NUDGE not in transport.texts_to(ANA)
    row = (await decisions(app))[-1]
    assert (row.local_date, row.available, row.action) == ("2026-01-06", True, "send")
    assert (row.not_sent_reason, row.prompt_message_id, row.prompt_style) == ("after_outcome_question", None, None)
    await at(app, MONDAY_PROMPT + 2 * DAY)  # Wednesday: sent as usual
    assert transport.texts_to(ANA).count(NUDGE) == 1


async def test_an_evening_prompt_after_the_question_goes_out_it_is_measured_by_the_next_days_question(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """A habit at 21:10: its 21:00 prompt comes after that day's 20:00 question, which does not
    measure it (the next evening's does), so it goes out on time."""
    evening = {"action": "create", "type": "fixed", "fixed_time": "21:10"}
    app, transport, _ = await in_study(make_app, fake_openai, EVENING_QUESTION, schedule=evening)
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY + timedelta(hours=13, minutes=10))  # Tuesday 21:00 in Toronto
    assert transport.texts_to(ANA).count(NUDGE) == 1
    row = (await decisions(app))[-1]
    assert (row.local_date, row.not_sent_reason) == ("2026-01-06", None)


async def test_unavailable_points_carry_their_draw_and_the_protocol_hash(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, _, _ = await in_study(make_app, fake_openai, study("baseline_days = 2\n[decision]\np = 0.5\n"))
    await through_days(app, fake_openai, range(1, 6))
    rows = await decisions(app)
    seed = await app.db.run(lambda s: study_seed(s, None, app.settings.study.outside_seed))
    unavailable = [row for row in rows if not row.available]
    assert {row.unavailable_reason for row in unavailable} == {"not_in_study", "baseline"}
    for row in rows:
        assert row.probability == 0.5 and row.draw == draw_action(app.settings.study.decision, seed, row.seed_ref).draw
        assert row.protocol_hash == app.settings.study.hash
    assert {row.action for row in unavailable} == {"none"}  # drawn, never acted on
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        exported = list(csv.DictReader(stream))
    assert [r["action_treatment"] for r in exported if r["available"] == "false"] == [""] * len(unavailable)
    assert all(r["draw"] and r["protocol_hash"] == app.settings.study.hash for r in exported)


async def test_a_missed_point_carries_the_protocol_hash_in_force(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock,  # type: ignore[no-untyped-def]
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, MORNINGS_ONLY)
    await app.stop()
    clock.set(MONDAY_PROMPT + DAY + timedelta(hours=2))  # past MISFIRE_GRACE
    again = await make_app(transport, **with_study(MORNINGS_ONLY))
    await again.run_until_idle()
    [missed] = await again.db.run(lambda s: s.execute(
        select(Decision).where(Decision.unavailable_reason == "missed_service_down")).scalars().all())
    assert missed.protocol_hash == again.settings.study.hash != ""


async def test_withdrawal_and_erasure_are_dated_on_the_participant_and_each_decision(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, _, pid = await in_study(make_app, fake_openai, study("[decision]\np = 0.5\n"))
    await through_days(app, fake_openai, range(1, 3))
    withdrawn = MONDAY_PROMPT + 2 * DAY + timedelta(hours=3)
    await at(app, withdrawn)
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="Dr. Lee")
    erased = withdrawn + DAY
    await at(app, erased)
    await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr. Lee")
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "participants.csv").open(encoding="utf-8") as stream:
        [person] = list(csv.DictReader(stream))
    assert (person["id"], person["status"]) == (pid, "withdrawn")
    assert person["withdrawn_at_utc"] == withdrawn.isoformat(timespec="seconds")
    assert person["withdrawn_at_local"] == withdrawn.astimezone(ZoneInfo("America/Toronto")).isoformat(
        timespec="seconds")
    assert person["erased_at_utc"] == erased.isoformat(timespec="seconds")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        points = list(csv.DictReader(stream))
    recorded = [p for p in points if p["unavailable_reason"] != "withdrawn"]  # the rest: days 3 … 24, derived
    assert len(recorded) == 3 and len(points) == 3 + 22
    assert {(p["withdrawn_at_utc"], p["erased_at_utc"]) for p in points} == {
        (withdrawn.isoformat(timespec="seconds"), erased.isoformat(timespec="seconds"))}
