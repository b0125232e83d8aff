"""What the model server says, and what it refuses, never costs a participant their message:
unreadable answers are an outage (defect 1), an over-long conversation is trimmed and, if it still
cannot be answered, failed with one line and listed for researchers (defect 3), a cut-off or
over-long reply is sent as whole sentences (defect 14), and a message waiting behind a failed
greeting gets its apology (defect 17)."""

from __future__ import annotations

import json

import pytest

from promptpipe.domain.limits import (
    CONTEXT_REJECTIONS_BEFORE_FAILING,
    MODEL_CHARS_PER_BATCH,
    MODEL_CHARS_PER_MESSAGE,
    REPLY_CHARS,
)
from promptpipe.errors import AdminError
from promptpipe.flow import APOLOGY
from promptpipe.flow.failures import MAX_ATTEMPTS_FOR_BUGS, TOO_LONG
from promptpipe.research import admin, oversight
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import enrolled

ANA = "+14165550123"
RETRY_WAIT_S = 16 * 60  # longer than the longest retry delay




def user_contents(request: dict) -> list[str]:  # type: ignore[type-arg]
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


UNREADABLE = {
    "proxy html page": ("<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
    "truncated json": ('{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"ind', "application/json"),
    "json array": ("[]", "application/json"),
    "wrong shape": ('{"choices": "none today"}', "application/json"),
    "no message": ('{"choices": [{"index": 0, "finish_reason": "stop"}]}', "application/json"),
    "empty body": ("", "application/json"),
}


@pytest.mark.parametrize("body", list(UNREADABLE), ids=list(UNREADABLE))
async def test_an_unreadable_answer_is_an_outage_retried_until_the_model_is_back(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, body: str
) -> None:
    """Defect 1: after 8 unreadable 200s the message was marked failed although the participant
    had been told it was kept."""
    app, transport = await enrolled(make_app, fake_openai)
    text, content_type = UNREADABLE[body]
    for _ in range(MAX_ATTEMPTS_FOR_BUGS + 2):
        fake_openai.raw(text, content_type=content_type, match="is anyone there")
    await transport.inject(ANA, "is anyone there?")
    for _ in range(MAX_ATTEMPTS_FOR_BUGS + 2):
        await app.run_until_idle()
        app.clock.advance(RETRY_WAIT_S)
    rows = await admin.transcript(app.db, ANA)
    assert [r.status for r in rows if r.direction == "in"] == ["received"]  # kept, not failed
    assert transport.texts_to(ANA).count(APOLOGY) == 1

    fake_openai.say("Yes, here I am.", match="is anyone there")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Yes, here I am."
    rows = await admin.transcript(app.db, ANA)
    assert [r.status for r in rows if r.direction == "in"] == ["answered"]
    fake_openai.assert_complete()


async def test_six_huge_messages_do_not_wedge_the_conversation(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 3: six 20,000-character messages exceeded the model's context, the 400 was retried
    forever and a later 'hi, are you there?' was never answered."""
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.context_limit_chars = 40_000  # about 10k tokens, a small model
    huge = [(f"part {n}: " + "I keep thinking about my routine. " * 600).strip() for n in range(6)]
    assert all(len(text) > 19_000 for text in huge)
    fake_openai.say("That's a lot to carry. Let's pick one small step.", match="are you there")
    for text in huge:
        await admin.simulate(app.db, app.clock, phone=ANA, text=text)
    await admin.simulate(app.db, app.clock, phone=ANA, text="hi, are you there?")
    await app.run_until_idle()

    assert transport.texts_to(ANA)[-1] == "That's a lot to carry. Let's pick one small step."
    seen = user_contents(fake_openai.requests[-1])
    assert seen[-1] == "hi, are you there?"  # the newest message is seen whole
    assert all(len(text) <= MODEL_CHARS_PER_MESSAGE for text in seen)
    assert sum(len(text) for text in seen) <= MODEL_CHARS_PER_BATCH + 200
    rows = await admin.transcript(app.db, ANA)
    kept = [r.text for r in rows if r.direction == "in"]
    assert kept[:6] == huge  # the transcript keeps every message whole
    fake_openai.assert_complete()


async def test_a_context_rejection_is_retried_with_less_inside_the_turn(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    for n in range(6):  # some history to trim
        fake_openai.say(f"noted {n}", match=f"note {n}:")
        await transport.inject(ANA, f"note {n}: " + "walking after lunch helps me think. " * 40)
        await app.run_until_idle()
    first_try = len(json.dumps(fake_openai.requests[-1]["messages"], ensure_ascii=False))
    fake_openai.context_limit_chars = first_try  # the full history no longer fits
    fake_openai.say("Short and sweet.", match="one more")
    await transport.inject(ANA, "one more note: " + "and I sleep better. " * 150)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Short and sweet."
    assert fake_openai.context_rejections == 1
    assert APOLOGY not in transport.texts_to(ANA)
    fake_openai.assert_complete()


async def test_a_message_that_never_fits_fails_with_one_line_and_is_listed_as_stuck(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.context_limit_chars = 300  # not even the system prompt fits
    await transport.inject(ANA, "a message the model cannot take")
    for _ in range(CONTEXT_REJECTIONS_BEFORE_FAILING + 2):
        await app.run_until_idle()
        app.clock.advance(RETRY_WAIT_S)
    assert transport.texts_to(ANA)[1:] == [TOO_LONG]  # one short line, no apology before it
    rows = await admin.transcript(app.db, ANA)
    assert [(r.text, r.status) for r in rows if r.direction == "in"] == [
        ("a message the model cannot take", "failed")]
    [stuck] = await oversight.inbox_rows(app.db, stuck_only=True)
    assert (stuck.phone, stuck.status, stuck.attempts) == (ANA, "failed", CONTEXT_REJECTIONS_BEFORE_FAILING)
    assert "ContextTooLong" in stuck.last_error

    # The conversation is not wedged: a later message is answered once the model can take it.
    fake_openai.context_limit_chars = None
    fake_openai.say("Yes, I'm here.", match="are you there")
    await transport.inject(ANA, "hi, are you there?")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Yes, I'm here."

    # A researcher retries the stuck one (the model has a bigger context now) ...
    fake_openai.say("Thanks, got it now.", match="cannot take")
    assert "queued again" in await oversight.retry_inbox(app.db, app.clock, inbox_id=stuck.id)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Thanks, got it now."
    assert await oversight.inbox_rows(app.db, stuck_only=True) == []
    fake_openai.assert_complete()


async def test_a_researcher_can_skip_a_stuck_input(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.context_limit_chars = 300
    await transport.inject(ANA, "never answerable")
    for _ in range(CONTEXT_REJECTIONS_BEFORE_FAILING):
        await app.run_until_idle()
        app.clock.advance(RETRY_WAIT_S)
    [stuck] = await oversight.inbox_rows(app.db, stuck_only=True)
    assert "skipped" in await oversight.skip_inbox(app.db, app.clock, inbox_id=stuck.id, by="Dr Lee")
    assert await oversight.inbox_rows(app.db, stuck_only=False) == []
    rows = await admin.transcript(app.db, ANA)
    assert [r.status for r in rows if r.direction == "in"] == ["skipped"]
    with pytest.raises(AdminError, match="handled already"):
        await oversight.retry_inbox(app.db, app.clock, inbox_id=stuck.id)
    fake_openai.assert_complete()


async def test_a_cut_off_reply_is_sent_as_its_whole_sentences(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 14: a finish_reason 'length' cut was sent mid-sentence."""
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("Great plan! Let's start tomorrow at eight. I also think you could try to",
                    match="plan", finish_reason="length")
    await transport.inject(ANA, "here is my plan")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Great plan! Let's start tomorrow at eight."
    fake_openai.assert_complete()


async def test_a_cut_off_reply_without_a_whole_sentence_gets_the_fallback(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    from promptpipe.agents.intake import INTAKE_FALLBACK

    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("Well, the thing about building habits is that", match="habits", finish_reason="length")
    await transport.inject(ANA, "tell me about habits")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == INTAKE_FALLBACK
    fake_openai.assert_complete()


async def test_an_overlong_reply_is_capped_at_a_sentence(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("This is one sentence of advice. " * 400, match="advice")
    await transport.inject(ANA, "any advice?")
    await app.run_until_idle()
    sent = transport.texts_to(ANA)[-1]
    assert len(sent) <= REPLY_CHARS and sent.endswith("advice.")
    fake_openai.assert_complete()


async def test_a_message_waiting_behind_a_failed_greeting_gets_an_apology(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 17: while the greeting was the failing item, a participant who wrote got nothing."""
    transport = MemoryTransport()
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.fail(503, match="Participant: Ana")
    await app.run_until_idle()
    assert transport.texts_to(ANA) == []  # a failed greeting: nobody is waiting yet

    await transport.inject(ANA, "hello? is this the study?")
    await app.run_until_idle()
    assert transport.texts_to(ANA) == [APOLOGY]
    await transport.inject(ANA, "hello??")
    await app.run_until_idle()
    assert transport.texts_to(ANA) == [APOLOGY]  # once per outage

    fake_openai.say("Hi Ana, welcome to the study!", match="has just been enrolled")
    fake_openai.say("Yes, this is it.", match="is this the study")
    app.clock.advance(RETRY_WAIT_S)
    await app.run_until_idle()
    assert transport.texts_to(ANA) == [APOLOGY, "Hi Ana, welcome to the study!", "Yes, this is it."]
    fake_openai.assert_complete()


@pytest.mark.parametrize("answer", [
    "word " * 60_000, "x" * 300_000, "First, a long clause, " * 15_000 + "then an end.",
])
async def test_an_overlong_reply_without_a_whole_sentence_to_keep_gets_the_fallback(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, answer: str,
) -> None:
    """Never a reply cut mid-word or mid-sentence with an ellipsis: whole sentences, or the fallback."""
    from promptpipe.agents.intake import INTAKE_FALLBACK

    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say(answer, match="ramble")
    await transport.inject(ANA, "ramble on")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == INTAKE_FALLBACK
    fake_openai.assert_complete()
