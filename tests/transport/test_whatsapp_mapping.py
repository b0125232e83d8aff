"""neonize events in, PromptPipe values out: built from real neonize protobufs, no client."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone

import pytest
from neonize.exc import SendMessageError
from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource, SendResponse
from neonize.proto.Neonize_pb2 import Message as MessageEv
from neonize.proto.waCommon.WACommon_pb2 import MessageKey
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import (
    AudioMessage,
    ContactMessage,
    ContextInfo,
    DocumentMessage,
    ExtendedTextMessage,
    ImageMessage,
    LocationMessage,
    Message,
    PollUpdateMessage,
    PollVoteMessage,
    ProtocolMessage,
    ReactionMessage,
    StickerMessage,
    VideoMessage,
)

from promptpipe.errors import NotConnected, SendFailed
from promptpipe.transport._neonize_mapping import (
    classify_send_error,
    jid_for,
    poll_vote_from_decrypted,
    sanitize_outgoing_text,
    sent_message_from,
    to_inbound,
)
from promptpipe.transport.base import PollVote, Reaction, Recipient, poll_option_hash

PHONE = "14165550123"
LID = "204857239405761"
TS_MS = 1_767_610_800_123  # 2026-01-05 11:00:00.123 UTC
EMPTY = JID(User="", Server="", IsEmpty=True)


def pn(user: str = PHONE, device: int = 0) -> JID:
    return JID(User=user, Server="s.whatsapp.net", Device=device, RawAgent=0, Integrator=0)


def lid(user: str = LID, device: int = 0) -> JID:
    return JID(User=user, Server="lid", Device=device, RawAgent=0, Integrator=0)


def event(
    message: Message | None = None,
    *,
    chat: JID | None = None,
    sender: JID | None = None,
    sender_alt: JID = EMPTY,
    is_group: bool = False,
    from_me: bool = False,
    ts: int = TS_MS,
) -> MessageEv:
    sender = sender or pn()
    source = MessageSource(
        Chat=chat or JID(User=sender.User, Server=sender.Server),
        Sender=sender,
        SenderAlt=sender_alt,
        IsGroup=is_group,
        IsFromMe=from_me,
    )
    info = MessageInfo(MessageSource=source, ID="3EB0C0FFEE", Timestamp=ts, Pushname="Ada")
    return MessageEv(Info=info, Message=message if message is not None else Message(conversation="hello"))


def test_phone_dm_with_device_suffix_gives_e164_phone_and_text() -> None:
    msg = to_inbound(event(sender=pn(device=7)))

    assert msg is not None
    assert msg.sender_phone == "+14165550123"
    assert msg.sender_lid is None
    assert (msg.message_id, msg.sender_name, msg.text) == ("3EB0C0FFEE", "Ada", "hello")
    assert msg.poll_vote is None


def test_timestamp_in_milliseconds_becomes_aware_utc() -> None:
    msg = to_inbound(event())

    assert msg is not None
    assert msg.timestamp == datetime(2026, 1, 5, 11, 0, 0, 123000, tzinfo=timezone.utc)


def test_timestamp_in_seconds_is_accepted_too() -> None:
    msg = to_inbound(event(ts=TS_MS // 1000))

    assert msg is not None
    assert msg.timestamp == datetime(2026, 1, 5, 11, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (Message(conversation="plain"), "plain"),
        (Message(extendedTextMessage=ExtendedTextMessage(text="with preview")), "with preview"),
        (Message(imageMessage=ImageMessage(caption="my walk today")), "my walk today"),
    ],
)
def test_text_comes_from_conversation_extended_text_or_caption(message: Message, text: str) -> None:
    msg = to_inbound(event(message))

    assert msg is not None
    assert msg.text == text


def test_lid_sender_with_phone_alternate_gives_both() -> None:
    msg = to_inbound(event(sender=lid(device=3), sender_alt=pn()))

    assert msg is not None
    assert (msg.sender_phone, msg.sender_lid) == ("+14165550123", LID)


def test_phone_sender_with_lid_alternate_gives_both() -> None:
    msg = to_inbound(event(sender=pn(), sender_alt=lid()))

    assert msg is not None
    assert (msg.sender_phone, msg.sender_lid) == ("+14165550123", LID)


def test_lid_sender_without_alternate_keeps_lid_and_unknown_phone() -> None:
    msg = to_inbound(event(sender=lid()))

    assert msg is not None
    assert (msg.sender_phone, msg.sender_lid) == (None, LID)


def test_lid_sender_uses_phone_the_adapter_resolved() -> None:
    msg = to_inbound(event(sender=lid()), resolved_phone=PHONE)

    assert msg is not None
    assert (msg.sender_phone, msg.sender_lid) == ("+14165550123", LID)


@pytest.mark.parametrize(
    "ev",
    [
        pytest.param(event(from_me=True), id="own-message"),
        pytest.param(event(chat=JID(User="120363025246125888", Server="g.us"), is_group=True), id="group"),
        pytest.param(event(chat=JID(User="120363025246125888", Server="g.us")), id="group-server-only"),
        pytest.param(event(chat=JID(User="status", Server="broadcast")), id="status"),
        pytest.param(event(chat=JID(User="120363144038483540", Server="newsletter")), id="newsletter"),
        pytest.param(event(Message()), id="empty-message"),
        pytest.param(event(sender=JID(User="4455", Server="bot")), id="no-phone-no-lid"),
        pytest.param(
            event(Message(pollUpdateMessage=PollUpdateMessage(pollCreationMessageKey=MessageKey(ID="P1")))),
            id="undecrypted-poll-vote",
        ),
    ],
)
def test_messages_not_meant_for_the_agent_are_dropped(ev: MessageEv) -> None:
    assert to_inbound(ev) is None


def test_poll_vote_hashes_match_poll_option_hash() -> None:
    decrypted = PollVoteMessage(selectedOptions=[hashlib.sha256(b"Done").digest()])

    vote = poll_vote_from_decrypted("POLL-1", decrypted)

    assert vote == PollVote(poll_message_id="POLL-1", selected_hashes=(poll_option_hash("Done"),))


def test_withdrawn_vote_has_no_hashes() -> None:
    assert poll_vote_from_decrypted("POLL-1", PollVoteMessage()).selected_hashes == ()


def test_decrypted_poll_vote_is_attached_with_empty_text() -> None:
    update = Message(pollUpdateMessage=PollUpdateMessage(pollCreationMessageKey=MessageKey(ID="POLL-1")))
    vote = PollVote(poll_message_id="POLL-1", selected_hashes=(poll_option_hash("Done"),))

    msg = to_inbound(event(update), poll_vote=vote)

    assert msg is not None
    assert (msg.text, msg.poll_vote) == ("", vote)


def test_jid_for_prefers_lid_and_falls_back_to_phone_digits() -> None:
    assert jid_for(Recipient(phone="+14165550123", lid=LID)) == (LID, "lid")
    assert jid_for(Recipient(phone="+14165550123")) == (PHONE, "s.whatsapp.net")


def test_send_response_seconds_become_aware_utc() -> None:
    sent = sent_message_from(SendResponse(ID="3EB0AA", Timestamp=1_767_610_800))

    assert sent.message_id == "3EB0AA"
    assert sent.timestamp == datetime(2026, 1, 5, 11, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    ["Great job today! 🎉", "Meet at 10:30, email me@example.com", "Score: 12345 steps", "@ada hi"],
)
def test_sanitize_keeps_ordinary_text(text: str) -> None:
    assert sanitize_outgoing_text(text) == text


@pytest.mark.parametrize(
    "text",
    ["Call @14165550123 now", "ping @0 please", "see @120363025246125888@g.us", "@-----------@g.us"],
)
def test_sanitize_stops_mentions_and_group_lookups(text: str) -> None:
    out = sanitize_outgoing_text(text)

    assert out != text
    assert out.replace("\u200d", "") == text
    # neonize's own mention and group patterns no longer match
    assert not re.search(r"@([0-9]{5,16}|0)", out)
    assert not re.search(r"@([0-9-]{11,26}|0)@g\.us", out)


@pytest.mark.parametrize(
    ("text", "kind", "retryable"),
    [
        ("client is nil", NotConnected, None),
        ("websocket not connected", NotConnected, None),
        ("the store doesn't contain a device JID", NotConnected, None),
        ("not logged in", NotConnected, None),
        ("timed out waiting for message send response", SendFailed, False),
        ("message recipient must be a user JID with no device part", SendFailed, False),
        ("no LID found for 14165550123@s.whatsapp.net from server", SendFailed, False),
        ("server returned error 500", SendFailed, True),
    ],
)
def test_classify_send_error(text: str, kind: type, retryable: bool | None) -> None:
    error = classify_send_error(SendMessageError(text))

    assert type(error) is kind
    if retryable is not None:
        assert error.retryable is retryable  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", [
    "failed to send message: websocket disconnected before message send returned response",
    "timed out waiting for message send response",
])
def test_a_send_the_connection_dropped_under_is_uncertain_never_resent(text: str) -> None:
    """The message node may have reached WhatsApp before the socket closed: resending it under a
    new id would deliver it twice, so the outbox marks it uncertain instead."""
    error = classify_send_error(SendMessageError(text))

    assert isinstance(error, SendFailed)
    assert (error.retryable, error.ambiguous) == (False, True)


def test_a_look_up_the_connection_dropped_under_is_retried() -> None:
    """Before the message node is written (a key look-up), nothing can have reached the phone."""
    error = classify_send_error(SendMessageError("websocket disconnected before info query returned response"))

    assert isinstance(error, SendFailed)
    assert (error.retryable, error.ambiguous) == (True, False)


def test_classified_error_text_hides_phone_numbers() -> None:
    error = classify_send_error(SendMessageError("no LID found for 14165550123@s.whatsapp.net from server"))

    assert "14165550123" not in str(error)
    assert "0123" in str(error)


def test_whatsapp_library_warnings_are_formatted_and_masked_like_our_own() -> None:
    """whatsmeow's warnings reach Python logging (neonize forwards them); a failed send's warning
    names the recipient, which must not reach the log unmasked."""
    import io
    import json
    import logging

    from promptpipe.logging import configure_logging

    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        logging.getLogger("whatsmeow.Client").warning("Failed to send to 14165550123@s.whatsapp.net: timed out")
    finally:
        configure_logging("console")
    (line,) = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["event"] == "Failed to send to +*******0123@s.whatsapp.net: timed out"
    assert (record["level"], record["logger"]) == ("warning", "whatsmeow.Client") and "timestamp" in record


def test_what_the_go_library_prints_goes_through_our_masked_logs(tmp_path) -> None:
    """neonize's Go side prints to the process's stdout directly (bypassing Python): such lines
    become log lines with numbers masked, while our own output (the QR code) still reaches the
    terminal."""
    import subprocess
    import sys

    script = tmp_path / "go_prints.py"
    script.write_text(
        "import os\n"
        "from promptpipe.logging import configure_logging, get_logger\n"
        "from promptpipe.transport._go_output import capture_library_stdout\n"
        "configure_logging('console')\n"
        "restore = capture_library_stdout(get_logger('promptpipe.transport.whatsapp'))\n"
        "os.write(1, b'Press Ctrl+C to exit\\n')\n"
        "os.write(1, b'failed to send message to 14165550123@s.whatsapp.net\\n')\n"
        "print('Scan this code')\n"
        "restore()\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Scan this code\n"
    assert "whatsapp_library_output" in done.stderr and "Press Ctrl+C to exit" in done.stderr
    assert "+*******0123@s.whatsapp.net" in done.stderr and "14165550123" not in done.stderr


def test_what_the_go_library_writes_to_stderr_is_logged_masked_even_when_the_process_dies(tmp_path) -> None:
    """Go's builtin println ("Press Ctrl+C to exit") and a Go panic's trace go to fd 2: they are
    logged in our format with numbers masked, and a trace written just before the process dies
    (os._exit, as a Go crash would) still arrives whole."""
    import json
    import subprocess
    import sys

    script = tmp_path / "go_crashes.py"
    script.write_text(
        "import os, sys\n"
        "from promptpipe.logging import configure_logging, get_logger\n"
        "from promptpipe.transport._stderr_relay import start_stderr_relay\n"
        "configure_logging('json')\n"
        "restore = start_stderr_relay('json')\n"
        "get_logger('promptpipe.cli').info('our_own_line', phone='+14165550123')\n"
        "os.write(2, b'Press Ctrl+C to exit\\n')\n"
        "os.write(2, b'panic: send to 14165550123@s.whatsapp.net failed\\ngoroutine 1 [running]:\\n')\n"
        "os._exit(2)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)

    assert done.returncode == 2
    records = [json.loads(line) for line in done.stderr.splitlines()]
    ours = [r for r in records if r["event"] == "our_own_line"]
    library = [r["line"] for r in records if r["event"] == "whatsapp_library_output"]
    assert len(ours) == 1 and ours[0]["phone"] == "+*******0123"  # our lines are not logged twice
    assert library == ["panic: send to +*******0123@s.whatsapp.net failed", "goroutine 1 [running]:"]
    assert "14165550123" not in done.stderr and "Press Ctrl+C" not in done.stderr  # noise only in debug


# ------------------------------------------------- every way a participant answers


@pytest.mark.parametrize(
    ("message", "content"),
    [
        pytest.param(Message(audioMessage=AudioMessage(PTT=True, seconds=7)), "voice", id="voice-note"),
        pytest.param(Message(audioMessage=AudioMessage(seconds=70)), "audio", id="audio-file"),
        pytest.param(Message(imageMessage=ImageMessage()), "image", id="photo-without-caption"),
        pytest.param(Message(videoMessage=VideoMessage()), "video", id="video-without-caption"),
        pytest.param(Message(stickerMessage=StickerMessage()), "sticker", id="sticker"),
        pytest.param(Message(documentMessage=DocumentMessage(fileName="plan.pdf")), "document", id="document"),
        pytest.param(Message(locationMessage=LocationMessage(degreesLatitude=43.6)), "location", id="location"),
        pytest.param(Message(contactMessage=ContactMessage(displayName="Bo")), "contact", id="contact"),
    ],
)
def test_messages_without_words_are_kept_with_their_kind(message: Message, content: str) -> None:
    msg = to_inbound(event(message))

    assert msg is not None and (msg.content, msg.text) == (content, "")


def test_a_caption_is_text_as_before() -> None:
    msg = to_inbound(event(Message(imageMessage=ImageMessage(caption="my walk today"))))

    assert msg is not None and (msg.content, msg.text) == ("text", "my walk today")


def test_a_swipe_reply_keeps_the_id_of_the_message_it_quotes() -> None:
    quoting = ExtendedTextMessage(text="that one worked", contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))

    msg = to_inbound(event(Message(extendedTextMessage=quoting)))

    assert msg is not None and (msg.text, msg.quoted_message_id) == ("that one worked", "3EB0PROMPT")
    assert to_inbound(event()).quoted_message_id is None  # type: ignore[union-attr]


def test_an_edit_is_a_new_message_marked_as_an_edit() -> None:
    unwrapped = event(Message(conversation="I walked 30 minutes"))
    unwrapped.IsEdit = True
    wrapped = event(Message(protocolMessage=ProtocolMessage(editedMessage=Message(conversation="30, not 20"))))

    first, second = to_inbound(unwrapped), to_inbound(wrapped)

    assert first is not None and second is not None
    assert (first.text, first.edited, second.text, second.edited) == ("I walked 30 minutes", True, "30, not 20", True)
    assert first.message_id != "3EB0C0FFEE"  # never mistaken for a repeat of the original message
    assert first.message_id == to_inbound(unwrapped).message_id  # a redelivered edit still is one  # type: ignore[union-attr]


def test_a_reaction_names_the_message_and_the_emoji_and_an_empty_one_takes_it_back() -> None:
    # The participant reacts to a message we sent: their key says fromMe=false and names our chat.
    key = MessageKey(ID="3EB0PROMPT", fromMe=False, remoteJID="14165550100@s.whatsapp.net")

    given = to_inbound(event(Message(reactionMessage=ReactionMessage(key=key, text="👍", senderTimestampMS=TS_MS))))
    taken_back = to_inbound(event(Message(reactionMessage=ReactionMessage(key=key, text=""))))

    assert given is not None and (given.content, given.text, given.reaction) == (
        "reaction", "", Reaction("3EB0PROMPT", "👍"))
    assert taken_back is not None and taken_back.reaction == Reaction("3EB0PROMPT", "")


@pytest.mark.parametrize("message", [
    Message(audioMessage=AudioMessage(contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))),
    Message(stickerMessage=StickerMessage(contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))),
    Message(locationMessage=LocationMessage(contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))),
    Message(contactMessage=ContactMessage(contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))),
    Message(ptvMessage=VideoMessage(contextInfo=ContextInfo(stanzaID="3EB0PROMPT"))),
])
def test_a_voice_note_sticker_location_contact_or_video_note_in_reply_keeps_what_it_quotes(message: Message) -> None:
    """A voice note recorded as a swipe reply to the prompt is feedback on that prompt too."""
    msg = to_inbound(event(message))

    assert msg is not None and msg.quoted_message_id == "3EB0PROMPT"
