"""Writes to a participant's status, time zone and conversation go through one path that bumps the
conversation version, so a turn that read the old state runs again instead of writing it back."""

from __future__ import annotations

import asyncio
import threading

from promptpipe.research import admin
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import ANA, enrolled
from tests.pipeline.test_lanes import until


async def test_a_time_zone_changed_during_a_turn_that_opts_out_is_kept(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    gate = threading.Event()
    fake_openai.call_tool("opt_out", {"reason": "no more texts"}, match="leave me alone", gate=gate)
    fake_openai.call_tool("opt_out", {"reason": "no more texts"}, match="leave me alone")  # the turn runs again

    await transport.inject(ANA, "please leave me alone from now on")
    running = asyncio.create_task(app.run_until_idle())
    await until(lambda: fake_openai.in_flight() == 1, "the turn to reach the model")
    await admin.set_timezone(app.db, app.clock, phone=ANA, timezone="Europe/Berlin")
    gate.set()
    await running

    shown = await admin.show(app.db, ANA)
    assert (shown.status, shown.timezone) == ("paused", "Europe/Berlin")
    fake_openai.assert_complete()
