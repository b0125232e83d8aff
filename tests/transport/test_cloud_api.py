"""The WhatsApp Cloud API transport against a local fake of the Cloud API (nothing leaves 127.0.0.1)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from promptpipe.errors import SendFailed
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport._cloud_payloads import CHOICE_PREFIX
from promptpipe.transport.base import DeliveryReceipt, InboundMessage, Recipient, poll_option_hash
from promptpipe.transport.cloud_api import DEFAULT_NUMBER, CloudApiOptions, CloudApiTransport
from tests.fakes.cloud_api import FakeCloudApi, notify, post_signed

SECRET, VERIFY = "app-secret-for-tests", "verify-me"
ANA = Recipient("+14165550123")
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now, self.mono = NOW, 1000.0


@pytest.fixture
def fake() -> Iterator[FakeCloudApi]:
    with FakeCloudApi() as server:
        yield server


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make(fake: FakeCloudApi, clock: Clock, **templates: str) -> CloudApiTransport:
    return CloudApiTransport(CloudApiOptions(
        token="test-token", numbers={DEFAULT_NUMBER: "1234"}, app_secret=SECRET, verify_token=VERIFY,
        listen="127.0.0.1:0", base_url=fake.url,
        templates=[(kind, WhatsAppTemplate(name)) for kind, name in templates.items()],
    ), now=lambda: clock.now, monotonic=lambda: clock.mono)


@pytest.fixture
async def started(fake: FakeCloudApi, clock: Clock) -> AsyncIterator[tuple[CloudApiTransport, list[object]]]:
    got: list[object] = []

    async def on_message(msg: InboundMessage) -> None:
        got.append(msg)

    async def on_receipt(receipt: DeliveryReceipt) -> None:
        got.append(receipt)

    transport = make(fake, clock, prompt="daily_nudge")
    await transport.start(on_message, on_receipt)
    yield transport, got
    await transport.stop()


def text(body: str, message_id: str = "wamid.in-1", **extra: object) -> dict[str, object]:
    return {"from": "14165550123", "id": message_id, "timestamp": "1772442000", "type": "text",
            "text": {"body": body}, **extra}


async def test_only_a_correctly_signed_notification_is_handed_over(started: tuple[CloudApiTransport, list[object]]
                                                                   ) -> None:
    transport, got = started
    body = notify(messages=[text("hello")])
    assert (await post_signed(transport.webhook_url, None, body)).status_code == 401
    assert (await post_signed(transport.webhook_url, "another-secret", body)).status_code == 401
    assert (await post_signed(transport.webhook_url, None, body, signature="sha256=00")).status_code == 401
    assert got == []
    assert (await post_signed(transport.webhook_url, SECRET, body)).status_code == 200
    [msg] = got
    assert isinstance(msg, InboundMessage)
    assert (msg.sender_phone, msg.sender_name, msg.text, msg.message_id) == ("+14165550123", "Ana", "hello",
                                                                            "wamid.in-1")
    assert msg.number is None  # one number: nothing to tell apart


async def test_metas_subscription_check_needs_the_verify_token(started: tuple[CloudApiTransport, list[object]]
                                                               ) -> None:
    transport, _ = started
    async with httpx.AsyncClient() as client:
        good = await client.get(transport.webhook_url, params={"hub.mode": "subscribe", "hub.verify_token": VERIFY,
                                                               "hub.challenge": "1158201444"})
        bad = await client.get(transport.webhook_url, params={"hub.mode": "subscribe", "hub.verify_token": "guess",
                                                              "hub.challenge": "1158201444"})
        huge = await client.post(transport.webhook_url, content=b"x" * 1_000_001)
    assert (good.status_code, good.text) == (200, "1158201444")
    assert bad.status_code == 403 and "1158201444" not in bad.text
    assert huge.status_code == 413


async def test_replies_reactions_media_and_statuses_become_our_messages_and_receipts(
    started: tuple[CloudApiTransport, list[object]],
) -> None:
    transport, got = started
    body = notify(messages=[
        text("yes, that one", "wamid.in-2", context={"from": "14165550100", "id": "wamid.out-7"}),
        {"from": "14165550123", "id": "wamid.in-3", "timestamp": "1772442001", "type": "reaction",
         "reaction": {"message_id": "wamid.out-7", "emoji": "👍"}},
        {"from": "14165550123", "id": "wamid.in-4", "timestamp": "1772442002", "type": "audio",
         "audio": {"id": "media-1", "voice": True}},
        {"from": "14165550123", "id": "wamid.in-5", "timestamp": "1772442003", "type": "image",
         "image": {"id": "media-2", "caption": "my walk"}},
    ], statuses=[{"id": "wamid.out-7", "status": "delivered", "timestamp": "1772442004", "recipient_id": "1"},
                 {"id": "wamid.out-7", "status": "read", "timestamp": "1772442005", "recipient_id": "1"},
                 {"id": "wamid.out-8", "status": "sent", "timestamp": "1772442005", "recipient_id": "1"}])
    assert (await post_signed(transport.webhook_url, SECRET, body)).status_code == 200
    quoted, reaction, voice, image, delivered, read = got
    assert isinstance(quoted, InboundMessage) and quoted.quoted_message_id == "wamid.out-7"
    assert isinstance(reaction, InboundMessage) and reaction.content == "reaction"
    assert reaction.reaction is not None and (reaction.reaction.message_id, reaction.reaction.emoji) == (
        "wamid.out-7", "👍")
    assert isinstance(voice, InboundMessage) and (voice.content, voice.text) == ("voice", "")
    assert isinstance(image, InboundMessage) and (image.content, image.text) == ("text", "my walk")
    assert delivered == DeliveryReceipt(("wamid.out-7",), "delivered", datetime.fromtimestamp(1772442004, timezone.utc))
    assert isinstance(read, DeliveryReceipt) and read.kind == "read"


async def test_a_tap_on_a_polls_button_comes_back_as_our_vote(started: tuple[CloudApiTransport, list[object]],
                                                              fake: FakeCloudApi) -> None:
    transport, got = started
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hi")]))  # opens the window
    sent = await transport.send_poll(ANA, "Did you walk today?", ["Done", "Not this time"], kind="poll")
    buttons = fake.sends[-1]["interactive"]["action"]["buttons"]
    assert [b["reply"]["title"] for b in buttons] == ["Done", "Not this time"]
    tap = {"from": "14165550123", "id": "wamid.in-9", "timestamp": "1772442100", "type": "interactive",
           "context": {"from": "14165550100", "id": sent.message_id},
           "interactive": {"type": "button_reply", "button_reply": {"id": buttons[1]["reply"]["id"],
                                                                    "title": "Not this time"}}}
    await post_signed(transport.webhook_url, SECRET, notify(messages=[tap]))
    vote = got[-1]
    assert isinstance(vote, InboundMessage) and vote.poll_vote is not None
    assert (vote.poll_vote.poll_message_id, vote.poll_vote.selected_hashes) == (
        sent.message_id, (poll_option_hash("Not this time"),))


async def test_a_multiple_choice_poll_goes_as_a_list_and_taps_add_up(
    started: tuple[CloudApiTransport, list[object]], fake: FakeCloudApi,
) -> None:
    transport, got = started
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hi")]))
    options = ["Walking", "Cycling", "Swimming in the lake nearby"]
    sent = await transport.send_poll(ANA, "What did you do?", options, multiple=True, kind="questionnaire_poll")
    rows = fake.sends[-1]["interactive"]["action"]["sections"][0]["rows"]
    assert fake.sends[-1]["interactive"]["type"] == "list" and len(rows[2]["title"]) <= 24
    assert rows[2]["description"] == "Swimming in the lake nearby"
    for number, option in enumerate(("Walking", "Cycling", "Walking")):
        tap = {"from": "14165550123", "id": f"wamid.tap-{number}", "timestamp": "1772442100", "type": "interactive",
               "context": {"id": sent.message_id},
               "interactive": {"type": "list_reply", "list_reply": {"id": CHOICE_PREFIX + poll_option_hash(option),
                                                                    "title": option}}}
        await post_signed(transport.webhook_url, SECRET, notify(messages=[tap]))
    selections = [m.poll_vote.selected_hashes for m in got if isinstance(m, InboundMessage) and m.poll_vote]
    walk, cycle = poll_option_hash("Walking"), poll_option_hash("Cycling")
    assert selections == [(walk,), (walk, cycle), (cycle,)]  # a second tap on Walking takes it back


async def test_outside_the_24_hour_window_a_kind_goes_as_its_template_or_not_at_all(
    started: tuple[CloudApiTransport, list[object]], fake: FakeCloudApi, clock: Clock,
) -> None:
    transport, _ = started
    sent = await transport.send_text(ANA, "Time for your walk.\nEnjoy it!", kind="prompt")
    template = fake.sends[-1]["template"]
    assert (template["name"], template["language"]["code"]) == ("daily_nudge", "en_US")
    assert template["components"][0]["parameters"][0]["text"] == "Time for your walk. Enjoy it!"
    assert sent.message_id == fake.message_id(0)
    with pytest.raises(SendFailed) as refused:
        await transport.send_text(ANA, "Checking in", kind="check_in")
    assert not refused.value.retryable
    assert "window is closed" in str(refused.value) and "no template for check_in" in str(refused.value)

    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hello")]))
    await transport.send_text(ANA, "Checking in", kind="check_in")
    assert fake.texts() == ["Checking in"]
    clock.now += timedelta(hours=24)
    with pytest.raises(SendFailed, match="window is closed"):
        await transport.send_text(ANA, "Checking in", kind="check_in")


async def test_when_the_cloud_api_says_the_window_closed_the_template_goes_instead(
    started: tuple[CloudApiTransport, list[object]], fake: FakeCloudApi,
) -> None:
    transport, _ = started
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hello")]))
    fake.fail(status=400, code=131047)
    await transport.send_text(ANA, "Your prompt", kind="prompt")
    assert fake.sends[-1]["type"] == "template" and fake.refused[-1]["type"] == "text"
    fake.fail(status=400, code=131047)
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("again", "wamid.in-2")]))
    with pytest.raises(SendFailed, match="no template for reminder"):
        await transport.send_text(ANA, "A reminder", kind="reminder")


async def test_a_rate_limit_is_retried_later_and_pauses_sending_for_retry_after(
    started: tuple[CloudApiTransport, list[object]], fake: FakeCloudApi, clock: Clock,
) -> None:
    transport, _ = started
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hello")]))
    fake.fail(status=429, code=130429, retry_after="30")
    with pytest.raises(SendFailed) as limited:
        await transport.send_text(ANA, "one", kind="text")
    assert limited.value.retryable and not limited.value.ambiguous
    with pytest.raises(SendFailed, match="resumes in 30 s"):
        await transport.send_text(ANA, "one", kind="text")
    assert len(fake.refused) == 1 and fake.sends == []  # the pause held the second try back
    clock.mono += 31
    await transport.send_text(ANA, "one", kind="text")
    assert fake.texts() == ["one"]
    fake.fail(status=500, code=131000)
    with pytest.raises(SendFailed) as outage:
        await transport.send_text(ANA, "two", kind="text")
    assert outage.value.ambiguous and not outage.value.retryable  # Meta may have taken it: never twice
    fake.fail(status=400, code=131026)
    with pytest.raises(SendFailed) as undeliverable:
        await transport.send_text(ANA, "three", kind="text")
    assert not undeliverable.value.retryable
    assert set(fake.tokens) == {"Bearer test-token"}


async def test_typing_and_blue_ticks_go_as_read_marks_on_their_last_message(
    started: tuple[CloudApiTransport, list[object]], fake: FakeCloudApi,
) -> None:
    transport, _ = started
    await transport.set_typing(ANA, True)  # nothing of theirs to show it on yet
    await post_signed(transport.webhook_url, SECRET, notify(messages=[text("hello", "wamid.in-5")]))
    await transport.set_typing(ANA, True)
    await transport.set_typing(ANA, False)
    await transport.mark_read(ANA, ["wamid.in-4", "wamid.in-5"])
    assert fake.read_marks == [
        {"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.in-5",
         "typing_indicator": {"type": "text"}},
        {"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.in-5"}]
