"""A turn that needs no model does not wait for the model (issue 48, item 1): a fixed-text arm's
daily prompt goes at its time while the model is down, whether the turn stuck on the model is the
participant's own (waiting for its retry in their lane) or other participants' (holding every
place in the queue for the model)."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

from promptpipe.research import admin
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT
from tests.flow.test_decisions import FIXED_TEXTS, decisions, study
from tests.pipeline.test_lanes import until
from tests.schedule_helpers import at, enroll_with_schedule
from tests.study_helpers import in_study

FIXED_ARM = study('[[arms]]\nname = "fixed"\nprompt_style = "fixed"\n')
TUESDAY = MONDAY_PROMPT + DAY
"""Ana's 07:50 prompt on study day 1; its fixed text is the list's first."""


async def test_a_fixed_text_prompt_does_not_wait_behind_its_own_turn_stuck_on_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """The model is down when Ana writes at 06:00, so that turn waits for its retry; her 07:50
    prompt needs no model and goes at 07:50 all the same, and her message is answered later."""
    app, transport, _ = await in_study(make_app, fake_openai, FIXED_ARM)
    fake_openai.fail(503, message="model down", match="Slept badly", repeat=True)
    await at(app, TUESDAY - timedelta(hours=1, minutes=50))
    await transport.inject(ANA, "Slept badly, I'll see how the day goes")
    await app.run_until_idle()
    await at(app, TUESDAY)
    assert FIXED_TEXTS[0] in transport.texts_to(ANA)
    [row] = [row for row in await decisions(app) if row.local_date == "2026-01-06"]
    assert (row.prompt_style, row.decided_at, row.not_sent_reason) == ("fixed", TUESDAY, None)
    fake_openai.reset()
    fake_openai.say("Sorry to hear that. Go easy on yourself today.", match="Slept badly")
    await at(app, TUESDAY + timedelta(minutes=15))
    assert transport.texts_to(ANA)[-1] == "Sorry to hear that. Go easy on yourself today."


async def test_a_fixed_text_prompt_does_not_queue_behind_other_turns_waiting_on_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """One model call at a time (LANE_CONCURRENCY=1), and Ben's turn is stuck on it: Ana's 07:50
    prompt, which needs no model, goes while Ben's turn still waits."""
    app, transport, _ = await in_study(make_app, fake_openai, FIXED_ARM, LANE_CONCURRENCY="1",
                                       LLM_TIMEOUT="60s")
    await enroll_with_schedule(app, fake_openai, "+14165550149", "America/Toronto", name="Ben")
    stuck = threading.Event()
    fake_openai.say("Here is my answer, Ben.", match="question from Ben", gate=stuck)
    await transport.inject("+14165550149", "question from Ben")
    app.clock.set(TUESDAY)  # type: ignore[attr-defined]
    running = asyncio.create_task(app.run_until_idle())
    try:
        await until(lambda: fake_openai.in_flight() == 1, "Ben's turn to reach the model")
        await until(lambda: FIXED_TEXTS[0] in transport.texts_to(ANA), "Ana's prompt", limit_s=20)
        assert fake_openai.in_flight() == 1  # Ben's turn is still waiting on the model
    finally:
        stuck.set()
        await running
    assert "Here is my answer, Ben." in transport.texts_to("+14165550149")
    fake_openai.assert_complete()


async def test_a_prompt_sent_by_hand_to_a_fixed_text_arm_does_not_wait_behind_a_turn_stuck_on_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Ana's 06:00 message waits for the model, which is down; the team sends her prompt by hand at
    06:30 (a fixed text: no model needed), and it goes at once."""
    app, transport, _ = await in_study(make_app, fake_openai, FIXED_ARM)
    fake_openai.fail(503, message="model down", match="Slept badly", repeat=True)
    await at(app, TUESDAY - timedelta(hours=1, minutes=50))
    await transport.inject(ANA, "Slept badly, I'll see how the day goes")
    await app.run_until_idle()
    await at(app, TUESDAY - timedelta(hours=1, minutes=20))
    await admin.send_prompt_now(app.db, app.clock, phone=ANA, study=app.settings.study)
    await app.run_until_idle()
    assert FIXED_TEXTS[0] in transport.texts_to(ANA)


FIXED_ARM_QUIET_NIGHTS = FIXED_ARM + '\n[quiet_hours]\nstart = "22:00"\nend = "06:30"\n'


async def test_a_fixed_text_prompt_held_for_quiet_hours_does_not_wait_behind_a_turn_stuck_on_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    """Asked for at 06:00 inside the quiet hours, Ana's prompt is held until they end at 06:30; her
    06:05 message waits for the model, which is down; the prompt goes at 06:30 all the same."""
    app, transport, _ = await in_study(make_app, fake_openai, FIXED_ARM_QUIET_NIGHTS)
    fake_openai.fail(503, message="model down", match="Slept badly", repeat=True)
    await at(app, TUESDAY - timedelta(hours=1, minutes=50))
    await admin.send_prompt_now(app.db, app.clock, phone=ANA, study=app.settings.study, after_quiet_hours=True)
    await app.run_until_idle()
    await at(app, TUESDAY - timedelta(hours=1, minutes=45))
    await transport.inject(ANA, "Slept badly, I'll see how the day goes")
    await app.run_until_idle()
    await at(app, TUESDAY - timedelta(hours=1, minutes=19))
    assert FIXED_TEXTS[0] in transport.texts_to(ANA)
