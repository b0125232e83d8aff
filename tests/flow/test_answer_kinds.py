"""Messages without words, swipe replies and edits: kept in the transcript as what they are, and
a participant who sends a voice note hears back instead of getting silence."""

from __future__ import annotations

from datetime import datetime, timezone

from promptpipe.pipeline.spool import decode, encode
from promptpipe.transport.base import InboundMessage
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import ANA, enrolled, inbound_rows


async def test_a_voice_note_is_kept_as_one_and_answered_in_words(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("I can't listen to voice messages, sorry. Could you type it for me?",
                    match="[a voice message; this study can only read text]")

    await transport.inject(ANA, "", content="voice", message_id="wa-voice")
    await app.run_until_idle()

    (row,) = await inbound_rows(app)
    assert (row.kind, row.text, row.payload["content"]) == (
        "voice", "[a voice message; this study can only read text]", "voice")
    assert transport.texts_to(ANA)[-1] == "I can't listen to voice messages, sorry. Could you type it for me?"


async def test_every_kind_without_words_gets_its_own_note(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    kinds = ["image", "video", "sticker", "document", "location", "contact", "audio"]
    for kind in kinds:
        fake_openai.say("Thanks!")
        await transport.inject(ANA, "", content=kind, message_id=f"wa-{kind}")
        await app.run_until_idle()

    rows = await inbound_rows(app)
    assert [row.kind for row in rows] == kinds
    assert len({row.text for row in rows}) == len(kinds) and all(row.text.startswith("[") for row in rows)


async def test_a_swipe_reply_and_an_edit_are_marked_in_the_transcript(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("Great.")
    await transport.inject(ANA, "that one worked", quoted_message_id="out-1", message_id="wa-q")
    await app.run_until_idle()
    fake_openai.say("Thirty, noted.")
    await transport.inject(ANA, "I walked 30 minutes", edited=True, message_id="wa-e", edit_of="wa-q")
    await app.run_until_idle()
    fake_openai.say("Sorry, that one did not come through: could you send it again?")
    await transport.inject(ANA, "", content="unreadable", message_id="wa-u~unreadable")
    await app.run_until_idle()

    quoted, edit, unreadable = await inbound_rows(app)
    assert quoted.payload["quoted_message_id"] == "out-1" and "edited" not in quoted.payload
    assert (edit.text, edit.payload["edited"], edit.payload["edit_of"]) == ("I walked 30 minutes", True,
                                                                                   "wa-q")
    assert unreadable.kind == "unreadable" and "could not be decrypted" in unreadable.text
    assert "could not be decrypted" in fake_openai.last_user_text(fake_openai.requests[-1])


def test_a_spooled_message_keeps_its_kind_quote_and_edit_mark() -> None:
    msg = InboundMessage(message_id="wa-1", sender_phone=ANA, sender_lid=None, sender_name="Ana", text="",
                         timestamp=datetime(2026, 1, 5, 9, tzinfo=timezone.utc), content="voice",
                         quoted_message_id="out-7", edited=True, edit_of="wa-0")

    assert decode(encode(msg)) == msg
