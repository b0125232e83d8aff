"""The safety net: crisis words get the study's safety message at once, even while the model is
down; the model can flag what a list cannot catch; researchers see and resolve flags; the alert
webhook gets the participant id and severity, never the text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from promptpipe.agents.agent import SAFETY_CUE
from promptpipe.domain.safety import DEFAULT_SAFETY_MESSAGE, CrisisScreen
from promptpipe.errors import AdminError
from promptpipe.flow import APOLOGY
from promptpipe.research import admin, oversight
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.webhook import WebhookReceiver
from tests.participant_helpers import enrolled

ANA = "+14165550123"
CRISIS = "honestly some nights I want to hurt myself"


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver




@pytest.mark.parametrize(("text", "phrase"), [
    ("I want to hurt myself", "hurt myself"),
    ("I WANT TO END MY LIFE!!", "end my life"),
    ("Don’t want to live anymore", "dont want to live"),
    ("feeling suicidal 😞", "suicidal"),
    ("I did my stretches", None),
    ("this habit is killing me lol", None),
    ("I will spend my lifetime walking", None),
])
def test_the_screen_matches_whole_crisis_phrases_whatever_the_spelling(text: str, phrase: str | None) -> None:
    assert CrisisScreen.load().match(text) == phrase


async def test_crisis_words_get_the_safety_message_at_once_even_with_the_model_down(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.fail(503, match="hurt myself")
    await transport.inject(ANA, CRISIS)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [DEFAULT_SAFETY_MESSAGE, APOLOGY]
    [flag] = await oversight.flags(app.db)
    assert (flag.phone, flag.source, flag.severity, flag.trigger, flag.status) == (
        ANA, "screen", "high", "hurt myself", "open")

    # The model is back: the conversation goes on, told that the safety message went out.
    fake_openai.say("I'm really glad you told me. I'm here with you.", match="hurt myself")
    app.clock.advance(60)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "I'm really glad you told me. I'm here with you."
    assert SAFETY_CUE in str(fake_openai.requests[-1]["messages"])
    assert transport.texts_to(ANA).count(DEFAULT_SAFETY_MESSAGE) == 1  # a retry does not flag twice
    assert len(await oversight.flags(app.db)) == 1
    fake_openai.assert_complete()


async def test_the_model_flags_what_a_list_cannot_catch(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.call_tool("flag_concern", {"severity": "medium", "reason": "sounds hopeless about everything"},
                          match="point in anything")
    fake_openai.say("That sounds heavy. Do you want to talk about it?", match="Flag recorded")
    await transport.inject(ANA, "I don't see the point in anything lately")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-2:] == [DEFAULT_SAFETY_MESSAGE, "That sounds heavy. Do you want to talk about it?"]
    [flag] = await oversight.flags(app.db)
    assert (flag.source, flag.severity, flag.trigger) == (
        "model", "medium", "sounds hopeless about everything")
    fake_openai.assert_complete()


async def test_a_bad_flag_call_comes_back_to_the_model(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.call_tool("flag_concern", {"severity": "extreme", "reason": "x"}, match="rough day")
    fake_openai.say("Sorry to hear that.", match="'severity' must be one of low, medium, high")
    await transport.inject(ANA, "rough day")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Sorry to hear that."
    assert await oversight.flags(app.db) == []
    fake_openai.assert_complete()


async def test_researchers_resolve_flags_with_a_note(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("I'm here.", match="hurt myself")
    await transport.inject(ANA, CRISIS)
    await app.run_until_idle()
    [flag] = await oversight.flags(app.db)
    said = await oversight.resolve(app.db, app.clock, flag_id=flag.id, note="called her; she is safe", by="Dr Lee")
    assert "resolved by Dr Lee" in said
    assert await oversight.flags(app.db) == []
    [closed] = await oversight.flags(app.db, include_resolved=True)
    assert (closed.status, closed.resolved_by, closed.note) == (
        "resolved", "Dr Lee", "called her; she is safe")
    with pytest.raises(AdminError, match="resolved already"):
        await oversight.resolve(app.db, app.clock, flag_id=flag.id, note="again")
    fake_openai.assert_complete()


async def test_the_webhook_gets_id_and_severity_never_the_text(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, webhook: WebhookReceiver
) -> None:
    app, transport = await enrolled(make_app, fake_openai, ALERT_WEBHOOK_URL=webhook.url)
    webhook.status = 503  # the receiver is down at first
    fake_openai.say("I'm here with you.", match="hurt myself")
    await transport.inject(ANA, CRISIS)
    await app.run_until_idle()
    assert webhook.bodies == [] and len(webhook.raw) >= 1
    assert (await oversight.flags(app.db))[0].alert == "pending"

    webhook.status = 200
    await app.run_until_idle()
    [body] = webhook.bodies
    [flag] = await oversight.flags(app.db)
    participant = await admin.show(app.db, ANA)
    assert body == {"event": "promptpipe.safety_flag", "flag_id": flag.id, "participant_id": participant.id,
                    "severity": "high", "source": "screen", "raised_at": body["raised_at"]}
    everything = b"".join(webhook.raw).decode()
    assert "hurt myself" not in everything and ANA not in everything and "Ana" not in everything
    assert flag.alert == "sent"
    await app.run_until_idle()
    assert len(webhook.bodies) == 1  # delivered once
    fake_openai.assert_complete()


async def test_a_study_sets_its_own_safety_message_and_phrases(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    message = tmp_path / "safety.txt"
    message.write_text("Please call the study's support line on +1 416 555 0199, day or night.\n", encoding="utf-8")
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("# French\nje veux mourir\n", encoding="utf-8")
    app, transport = await enrolled(make_app, fake_openai, SAFETY_MESSAGE_FILE=str(message),
                                    SAFETY_PHRASES_FILE=str(phrases))
    fake_openai.say("Je suis là.", match="mourir")
    await transport.inject(ANA, "parfois je veux mourir")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-2:] == [
        "Please call the study's support line on +1 416 555 0199, day or night.", "Je suis là."]
    fake_openai.assert_complete()


@pytest.mark.parametrize("action", ["pause", "withdraw"])
async def test_a_paused_or_withdrawn_participant_in_crisis_still_gets_the_safety_message(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, action: str
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    await admin.set_status(app.db, app.clock, phone=ANA, action=action)
    await transport.inject(ANA, "I want to end my life")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1:] == [DEFAULT_SAFETY_MESSAGE]  # and no "paused" note after it
    assert len(await oversight.flags(app.db)) == 1
    fake_openai.assert_complete()  # no model: they are not active


async def test_crisis_words_hidden_by_zero_width_characters_get_the_safety_message_without_the_model(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.fail(503, match="myself")
    await transport.inject(ANA, "i want to k\u200bi\u200bl\u200bl\u200bmyself")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[1] == DEFAULT_SAFETY_MESSAGE
    [flag] = await oversight.flags(app.db)
    assert flag.trigger == "kill myself"
