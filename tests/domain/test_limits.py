"""Caps that keep one participant, one model answer or one typo from growing without bound:
schedules (defect 13) and lengths (defect 14)."""

from __future__ import annotations

import json

import pytest

from promptpipe.domain.limits import BACKGROUND_CHARS, NAME_CHARS, PROFILE_FIELD_CHARS
from promptpipe.errors import AdminError
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import enrolled

ANA = "+14165550123"




def tool_results(request: dict) -> list[str]:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_a_participant_cannot_get_a_hundred_prompts_a_day(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 13: one turn created 96 daily schedules."""
    app, transport = await enrolled(make_app, fake_openai)
    creates = [("scheduler", {"action": "create", "type": "fixed", "fixed_time": f"{7 + n:02d}:00",
                              "keep_existing": True}) for n in range(6)]
    fake_openai.call_tools(creates, match="100 prompts")
    fake_openai.say("I can send at most three a day.", match="the most this study allows")
    await transport.inject(ANA, "send me 100 prompts a day")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "I can send at most three a day."
    results = tool_results(fake_openai.requests[-1])
    assert [r.startswith("Saved.") for r in results] == [True, True, True, False, False, False]
    assert "MAX_SCHEDULES_PER_PARTICIPANT=3" in results[3]
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert sorted(s.habit for s in shown.schedules) == ["07:00", "08:00", "09:00"]
    fake_openai.assert_complete()


async def test_the_limit_is_a_setting(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai, MAX_SCHEDULES_PER_PARTICIPANT="1")
    fake_openai.call_tools([("scheduler", {"action": "create", "type": "fixed", "fixed_time": "08:00"}),
                            ("scheduler", {"action": "create", "type": "fixed", "fixed_time": "18:00",
                                           "keep_existing": True})], match="twice a day")
    fake_openai.say("Once a day it is.", match="MAX_SCHEDULES_PER_PARTICIPANT=1")
    await transport.inject(ANA, "twice a day please")
    await app.run_until_idle()
    assert len((await admin.schedules(app.db, app.clock, phone=ANA)).schedules) == 1
    fake_openai.assert_complete()


async def test_two_identical_schedules_are_refused(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """Defect 13: two identical 09:00 schedules were accepted."""
    app, transport = await enrolled(make_app, fake_openai)
    same = {"action": "create", "type": "fixed", "fixed_time": "09:00", "keep_existing": True}
    fake_openai.call_tools([("scheduler", same), ("scheduler", {**same, "fixed_time": "9:00"}),
                            ("scheduler", {**same, "fixed_time": "18:30"})], match="nine")
    fake_openai.say("Done: 9:00 and 18:30.", match="same timing")
    await transport.inject(ANA, "at nine, and again at nine, and 18:30")
    await app.run_until_idle()
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert sorted(s.habit for s in shown.schedules) == ["09:00", "18:30"]
    [evening] = [s.id for s in shown.schedules if s.habit == "18:30"]
    fake_openai.call_tool("scheduler", {"action": "update", "schedule_id": evening, "type": "fixed",
                                        "fixed_time": "09:00"}, match="move the evening")
    fake_openai.say("That would double up, so I left it.", match="same timing")
    await transport.inject(ANA, "move the evening one to 9")
    await app.run_until_idle()
    shown = await admin.schedules(app.db, app.clock, phone=ANA)
    assert sorted(s.habit for s in shown.schedules) == ["09:00", "18:30"]  # the update changed nothing
    fake_openai.assert_complete()


async def test_an_overlong_profile_field_is_refused_and_never_reaches_later_prompts(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 14: a 200,000-character profile field was saved and sent in every later prompt."""
    app, transport = await enrolled(make_app, fake_openai)
    essay = "more and more detail " * 10_000
    fake_openai.call_tool("save_user_profile", {"additional_info": essay, "habit_domain": "walking"}, match="my life")
    fake_openai.call_tool("save_user_profile", {"additional_info": "long working days", "habit_domain": "walking"},
                          match=f"a profile field holds at most {PROFILE_FIELD_CHARS:,}")
    fake_openai.say("Noted.", match="SAVED")
    await transport.inject(ANA, "here is my life story")
    await app.run_until_idle()
    profile = (await admin.show(app.db, ANA)).profile
    assert (profile["additional_info"], profile["habit_domain"]) == ("long working days", "walking")
    fake_openai.say("Hello again.", match="hello again")
    await transport.inject(ANA, "hello again")
    await app.run_until_idle()
    assert len(json.dumps(fake_openai.requests[-1])) < 30_000
    fake_openai.assert_complete()


async def test_names_backgrounds_and_reasons_are_capped(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    """Defect 14: a 100,000-character name was accepted."""
    app, _ = await enrolled(make_app, fake_openai)
    with pytest.raises(AdminError, match=f"at most {NAME_CHARS}"):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550124", name="N" * 100_000, timezone="UTC"))
    with pytest.raises(AdminError, match=f"at most {BACKGROUND_CHARS:,}"):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550124", name="Ben", timezone="UTC",
                           background="b" * (BACKGROUND_CHARS + 1)))
    with pytest.raises(AdminError, match="--reason"):
        await admin.set_status(app.db, app.clock, phone=ANA, action="pause", reason="r" * 10_000)
    assert [p.phone for p in await admin.list_participants(app.db)] == [ANA]
    fake_openai.assert_complete()


async def test_a_long_whatsapp_name_is_cut_for_an_auto_enrolled_sender(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on")
    fake_openai.say("Hello!", match="hi")
    await transport.inject(ANA, "hi", name="A" * 5_000)
    await app.run_until_idle()
    [person] = await admin.list_participants(app.db)
    assert len(person.name) == NAME_CHARS
    fake_openai.assert_complete()
