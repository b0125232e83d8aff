"""History that doesn't forget: older turns folded into a running summary the model reads."""

from __future__ import annotations

from promptpipe.agents.agent import SUMMARY_HEADER
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer

ANA = "+15145550101"
SETTINGS = {"CHAT_HISTORY_LIMIT": "4", "HISTORY_SUMMARY_EVERY_TURNS": "3"}


def summary_requests(fake: FakeOpenAIServer) -> list[str]:
    return [r["messages"][1]["content"] for r in fake.requests if "Summary so far:" in r["messages"][-1]["content"]]


def chat_part(request: dict) -> list[str]:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] in ("user", "assistant")]


async def started(make_app: AppFactory, fake: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    transport = MemoryTransport()
    app = await make_app(transport, **SETTINGS)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="Europe/Berlin"))
    fake.say("Hello Ana!")
    await app.run_until_idle()
    return app, transport


async def say(app, transport: MemoryTransport, fake: FakeOpenAIServer, n: int) -> dict:  # type: ignore[no-untyped-def,type-arg]
    fake.say(f"reply {n}", match=f"message {n}")
    await transport.inject(ANA, f"message {n}")
    await app.run_until_idle()
    return fake.requests[-1]


async def test_older_turns_are_summarised_when_the_window_overflows_and_the_summary_is_used(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    await say(app, transport, fake_openai, 0)
    await say(app, transport, fake_openai, 1)
    assert summary_requests(fake_openai) == []  # five messages, but not enough turns yet

    fake_openai.say("Ana wants to stretch after coffee.", match="Summary so far:")
    call = await say(app, transport, fake_openai, 2)
    [first] = summary_requests(fake_openai)
    assert "(none yet)" in first and "Coach: Hello Ana!\nParticipant: message 0\nCoach: reply 0" in first
    assert "message 1" not in first  # the newer half of the window is left out
    assert f"{SUMMARY_HEADER}\nAna wants to stretch after coffee." in [m["content"] for m in call["messages"]]
    assert chat_part(call) == ["message 0", "reply 0", "message 1", "reply 1", "message 2"]  # 4 + the new one

    await say(app, transport, fake_openai, 3)
    call = await say(app, transport, fake_openai, 4)
    assert len(summary_requests(fake_openai)) == 1  # at most once per three turns
    assert chat_part(call) == ["message 2", "reply 2", "message 3", "reply 3", "message 4"]

    fake_openai.say("Ana stretches after coffee and chats a lot.", match="Summary so far:")
    call = await say(app, transport, fake_openai, 5)
    second = summary_requests(fake_openai)[-1]
    assert "Summary so far:\nAna wants to stretch after coffee." in second
    assert "Participant: message 1" in second and "Participant: message 3" in second
    assert f"{SUMMARY_HEADER}\nAna stretches after coffee and chats a lot." in [m["content"] for m in call["messages"]]
    assert (await admin.show(app.db, ANA)).summary == "Ana stretches after coffee and chats a lot."
    fake_openai.assert_complete()


async def test_a_failed_summary_never_costs_the_reply_and_is_tried_again(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await started(make_app, fake_openai)
    for n in range(2):
        await say(app, transport, fake_openai, n)
    fake_openai.fail(503, match="Summary so far:")
    call = await say(app, transport, fake_openai, 2)
    assert transport.texts_to(ANA)[-1] == "reply 2"
    assert chat_part(call)[:4] == ["message 0", "reply 0", "message 1", "reply 1"]
    assert (await admin.show(app.db, ANA)).summary == ""

    fake_openai.say("Ana is new to the study.", match="Summary so far:")
    await say(app, transport, fake_openai, 3)
    assert (await admin.show(app.db, ANA)).summary == "Ana is new to the study."
    assert "Participant: message 0" in summary_requests(fake_openai)[-1]  # nothing was skipped
    fake_openai.assert_complete()
