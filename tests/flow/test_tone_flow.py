"""Tone in the running service: proposals through save_user_profile, validated by the server,
logged, and the tone guide in the intake, feedback and prompt-writer calls."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select

from promptpipe.domain.polls import POLL_OPTIONS
from promptpipe.domain.tone import GUIDE_HEADER
from promptpipe.research import admin
from promptpipe.storage.models import ToneEvent
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, polls, prompted, vote
from tests.schedule_helpers import NUDGE, at


def has_guide(request: dict) -> bool:  # type: ignore[type-arg]
    return any(GUIDE_HEADER in m["content"] for m in request["messages"] if m["role"] == "system")


async def tone_events(app) -> list[tuple[str, list[str], list[str], str, list[str]]]:  # type: ignore[no-untyped-def]
    rows = await app.db.run(lambda s: s.execute(select(ToneEvent).order_by(ToneEvent.id)).scalars().all())
    return [(r.source, r.proposed, r.stripped, r.outcome, r.active_after) for r in rows]


async def test_an_explicit_request_applies_at_once_and_reaches_every_model_call(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    assert not has_guide(fake_openai.requests[-1])  # no tone learned yet
    await vote(app, transport, polls(transport)[-1], POLL_OPTIONS[0])

    fake_openai.call_tool("save_user_profile", {"tone_tags": ["Concise", "no_emojis", "sparkly"],
                                                "tone_update_source": "explicit"}, match="shorter")
    fake_openai.say("Got it.", match="shorter")
    await transport.inject(ANA, "please keep your messages shorter and skip the emojis")
    await app.run_until_idle()
    result = json.loads(next(m["content"] for m in fake_openai.requests[-1]["messages"]
                             if m["role"] == "tool").split("\n", 1)[1])
    assert result["tone"] == {"outcome": "applied", "active_tags": ["concise", "no_emojis"],
                              "unknown_tags_ignored": ["sparkly"]}
    assert (await admin.show(app.db, ANA)).tone == "concise, no_emojis"
    assert await tone_events(app) == [("explicit", ["concise", "no_emojis"], ["sparkly"], "applied",
                                       ["concise", "no_emojis"])]

    fake_openai.say("Nice.", match="all good")
    await transport.inject(ANA, "all good")
    await app.run_until_idle()
    assert has_guide(fake_openai.requests[-1])  # feedback
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    writer = fake_openai.requests[-1]
    assert ("You write one habit nudge" in writer["messages"][0]["content"]
            and GUIDE_HEADER in writer["messages"][0]["content"])

    fake_openai.call_tool("transition_state", {"target_state": "INTAKE"}, match="new habit")
    fake_openai.say("Sure.", match="new habit")
    fake_openai.say("What would you like to read?", match="reading")
    await transport.inject(ANA, "a new habit please")  # back in intake, the guide is still there
    await app.run_until_idle()
    await transport.inject(ANA, "reading")
    await app.run_until_idle()
    intake_call = fake_openai.requests[-1]
    assert intake_call["messages"][0]["content"] == app.flow.deps.prompts.intake and has_guide(intake_call)
    fake_openai.assert_complete()


async def test_implicit_inference_moves_slowly_and_at_most_every_three_minutes(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport, _ = await prompted(make_app, fake_openai)
    await vote(app, transport, polls(transport)[-1], POLL_OPTIONS[0])
    implicit = {"tone_tags": ["casual"], "tone_update_source": "implicit"}
    for n in range(3):
        fake_openai.call_tool("save_user_profile", implicit, match=f"msg {n}")
        fake_openai.say("ok", match=f"msg {n}")
    await transport.inject(ANA, "msg 0")
    await app.run_until_idle()
    app.clock.advance(timedelta(minutes=2))  # type: ignore[attr-defined]
    await transport.inject(ANA, "msg 1")
    await app.run_until_idle()
    app.clock.advance(timedelta(minutes=1))  # type: ignore[attr-defined]
    await transport.inject(ANA, "msg 2")
    await app.run_until_idle()
    events = await tone_events(app)
    assert [outcome for _, _, _, outcome, _ in events] == ["applied", "rate_limited", "applied"]
    assert all(active == [] for *_, active in events)  # 0.15, then 0.2775: far from the 0.7 needed
    scores = await app.db.run(lambda s: s.execute(select(ToneEvent.scores).order_by(ToneEvent.id)).scalars().all())
    assert [round(s.get("casual", 0), 4) for s in scores] == [0.15, 0.15, round(0.85 * 0.15 + 0.15, 4)]
    assert not has_guide(fake_openai.requests[-1])
    fake_openai.assert_complete()
