"""Every daily prompt time is a decision point with one row: available or not (and why), what the
study's rule drew with which probability, and what was sent. Arms change the prompt's style and the
timers; a fixed prompt needs no model."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from promptpipe.app import App
from promptpipe.app.parts import load_prompts
from promptpipe.flow.decisions import prompt_hash
from promptpipe.research import admin
from promptpipe.storage.queue_tables import Timer
from promptpipe.study.rules.decision_rule import draw_action
from promptpipe.study.store.seed import study_seed
from promptpipe.study.store.tables import Decision
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, polls, vote
from tests.schedule_helpers import NUDGE, at, pending_timers
from tests.study_helpers import in_study

FIXED_TEXTS = ("Put your shoes by the door tonight.", "Walk to the corner and back after breakfast.")


def study(body: str) -> str:
    return '''name = "Walking pilot"
length_days = 24
fixed_prompts = ["Put your shoes by the door tonight.", "Walk to the corner and back after breakfast."]
''' + body


async def decisions(app: App) -> list[Decision]:
    return list(await app.db.run(lambda s: s.execute(select(Decision).order_by(Decision.id)).scalars().all()))


async def through_days(app: App, fake: FakeOpenAIServer, days: range, *, personalised: bool = True) -> None:
    for day in days:
        if personalised:
            fake.always(NUDGE, match="scheduled daily nudge")
        await at(app, MONDAY_PROMPT + day * DAY)


def facts(rows: list[Decision]) -> list[tuple[Any, ...]]:
    return [(row.local_date, row.study_day, row.available, row.unavailable_reason, row.action) for row in rows]


async def test_baseline_days_send_nothing_and_are_recorded(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, study("baseline_days = 2\n"))
    await through_days(app, fake_openai, range(1, 4))
    assert facts(await decisions(app)) == [
        ("2026-01-05", 0, False, "not_in_study", "none"),  # Monday: intake day, before the study
        ("2026-01-06", 1, False, "baseline", "none"),
        ("2026-01-07", 2, False, "baseline", "none"),
        ("2026-01-08", 3, True, None, "send"),
    ]
    assert transport.texts_to(ANA).count(NUDGE) == 1
    fake_openai.assert_complete()


async def test_a_micro_randomised_prompt_is_drawn_and_recorded(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, pid = await in_study(make_app, fake_openai, study(
        "[decision]\nactions = [\"send\", \"no_send\"]\np = 0.5\n"), DAILY_PROMPT_REMINDER_DELAY="5h")
    await through_days(app, fake_openai, range(1, 21))
    rows = [row for row in await decisions(app) if row.available]
    assert len(rows) == 20 and {row.probability for row in rows} == {0.5}
    assert {row.action for row in rows} == {"send", "no_send"}  # 20 draws at 0.5: both (fails once in 500,000)
    sent = [row for row in rows if row.action == "send"]
    assert transport.texts_to(ANA).count(NUDGE) == len(sent)
    assert all(row.prompt_message_id is not None and row.prompt_style == "personalised" for row in sent)
    assert all(row.prompt_message_id is None and row.prompt_style is None for row in rows if row.action == "no_send")
    assert all(row.draw is not None and row.seed_ref.startswith("decision:prompt:") for row in rows)
    assert {row.model for row in sent} == {app.settings.genai_model}
    generator = load_prompts(app.settings).prompt_generator  # the text as the model gets it
    assert {row.system_prompt_hash for row in sent} == {prompt_hash(generator)}
    reminders = await app.db.run(lambda s: s.execute(
        select(Timer.id).where(Timer.participant_id == pid, Timer.kind == "reminder")).all())
    assert len(reminders) == len(sent)  # a prompt not sent is not followed up either


async def test_the_draw_is_the_same_when_the_turn_runs_again(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The model fails the first time: the prompt is retried, and the decision point is still one
    row with the draw the first attempt would have made."""
    app, _, _ = await in_study(make_app, fake_openai, study("[decision]\np = 0.5\n"))
    failing = fake_openai.fail(503, match="scheduled daily nudge")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    days = 0
    while days < 6 or (failing.request is None and days < 24):  # until a drawn prompt has failed once
        days += 1                                                 # (24 days without one: 1 run in 17 million)
        await at(app, MONDAY_PROMPT + days * DAY)
        await at(app, MONDAY_PROMPT + days * DAY + timedelta(minutes=2))
    rows = [row for row in await decisions(app) if row.available]
    assert len(rows) == len({row.inbox_id for row in rows}) == days
    seed = await app.db.run(lambda s: study_seed(s, None, app.settings.study.outside_seed))
    assert [draw_action(app.settings.study.decision, seed, row.seed_ref).action for row in rows] == [
        row.action for row in rows]


async def test_arms_get_their_own_style_and_timers(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """A study of one fixed-style arm: the day's fixed text, no model, and the arm's reminder delay."""
    app, transport, pid = await in_study(make_app, fake_openai, study(
        '[[arms]]\nname = "fixed"\nprompt_style = "fixed"\nreminder_delay = "2h"\n'))
    await through_days(app, fake_openai, range(1, 3), personalised=False)
    assert [t for t in transport.texts_to(ANA) if t in FIXED_TEXTS] == list(FIXED_TEXTS)
    rows = [row for row in await decisions(app) if row.available]
    assert [(row.arm, row.prompt_style, row.model) for row in rows] == [("fixed", "fixed", None)] * 2
    assert (await pending_timers(app, pid))["reminder"] == MONDAY_PROMPT + 2 * DAY + timedelta(hours=2)
    assert (await admin.show(app.db, ANA)).arm == "fixed"
    fake_openai.assert_complete()


async def test_a_day_already_done_makes_the_second_prompt_unavailable(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, study(""), MAX_SCHEDULES_PER_PARTICIPANT="2")
    fake_openai.call_tool("scheduler", {"action": "create", "type": "fixed", "fixed_time": "20:00",
                                        "keep_existing": True}, match="evening too")
    fake_openai.say("Done: a second nudge at 19:50.", match="evening too")
    await transport.inject(ANA, "could I get one in the evening too?")
    await app.run_until_idle()
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await vote(app, transport, polls(transport)[-1], "Done")
    await at(app, MONDAY_PROMPT + DAY + timedelta(hours=12))
    tuesday = [row for row in await decisions(app) if row.local_date == "2026-01-06"]
    assert [(row.available, row.unavailable_reason) for row in tuesday] == [(True, None), (False, "already_answered")]
    assert transport.texts_to(ANA).count(NUDGE) == 1


async def test_a_participants_own_stop_is_coded_apart_from_a_team_pause(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """An analysis treats "the participant opted out" and "the team paused them" differently."""
    from promptpipe.research import admin

    app, transport, _ = await in_study(make_app, fake_openai, study(""))
    await through_days(app, fake_openai, range(1, 2))
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    await through_days(app, fake_openai, range(2, 3), personalised=False)
    await transport.inject(ANA, "START")
    await app.run_until_idle()
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause")
    await through_days(app, fake_openai, range(3, 4), personalised=False)
    assert [(row.local_date, row.unavailable_reason) for row in await decisions(app)][-2:] == [
        ("2026-01-07", "opted_out"), ("2026-01-08", "paused")]
