"""Several WhatsApp numbers on one Cloud API transport: each participant is written to from their
own number, each number has its own windows and its own rate-limit pause, and one webhook takes in
every number's messages, tagged with the number they came to."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from promptpipe.app.parts import build_transport
from promptpipe.config import load_settings
from promptpipe.errors import ConfigError, SendFailed
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport.base import DeliveryReceipt, InboundMessage, Recipient
from promptpipe.transport.cloud_api import CloudApiOptions, CloudApiTransport
from tests.fakes.cloud_api import FakeCloudApi, notify, post_signed

SECRET = "app-secret-for-tests"
TORONTO, MONTREAL = "1111", "2222"
ANA, BEN = "+14165550123", "+14165550124"


class Clock:
    def __init__(self) -> None:
        self.now, self.mono = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc), 1000.0


@pytest.fixture
def fake() -> Iterator[FakeCloudApi]:
    with FakeCloudApi(TORONTO, MONTREAL) as server:
        yield server


@pytest.fixture
async def two(fake: FakeCloudApi) -> AsyncIterator[tuple[CloudApiTransport, list[object], Clock]]:
    got: list[object] = []
    clock = Clock()

    async def on_message(msg: InboundMessage) -> None:
        got.append(msg)

    async def on_receipt(receipt: DeliveryReceipt) -> None:
        got.append(receipt)

    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={"toronto": TORONTO, "montreal": MONTREAL}, app_secret=SECRET, verify_token="v",
        listen="127.0.0.1:0", base_url=fake.url, templates=[("prompt", WhatsAppTemplate("daily_nudge"))],
    ), now=lambda: clock.now, monotonic=lambda: clock.mono)
    await transport.start(on_message, on_receipt)
    yield transport, got, clock
    await transport.stop()


def text(sender: str, body: str, message_id: str) -> dict[str, object]:
    return {"from": sender.lstrip("+"), "id": message_id, "timestamp": "1772442000", "type": "text",
            "text": {"body": body}}


async def writes(transport: CloudApiTransport, sender: str, number_id: str, message_id: str) -> None:
    body = notify(messages=[text(sender, "hello", message_id)], wa_id=sender.lstrip("+"), phone_number_id=number_id)
    assert (await post_signed(transport.webhook_url, SECRET, body)).status_code == 200


async def test_one_webhook_takes_every_numbers_messages_tagged_with_the_number(
    two: tuple[CloudApiTransport, list[object], Clock],
) -> None:
    transport, got, _ = two
    await writes(transport, ANA, TORONTO, "wamid.in-1")
    await writes(transport, BEN, MONTREAL, "wamid.in-2")
    statuses = [{"id": "wamid.out-1", "status": "delivered", "timestamp": "1772442004", "recipient_id": "1"}]
    await post_signed(transport.webhook_url, SECRET, notify(statuses=statuses, phone_number_id=MONTREAL))
    assert [(m.sender_phone, m.number) for m in got if isinstance(m, InboundMessage)] == [
        (ANA, "toronto"), (BEN, "montreal")]
    assert [r.message_ids for r in got if isinstance(r, DeliveryReceipt)] == [("wamid.out-1",)]


async def test_a_notification_for_a_number_not_ours_is_skipped_without_phone_or_text(
    two: tuple[CloudApiTransport, list[object], Clock], fake: FakeCloudApi,
) -> None:
    transport, got, _ = two
    statuses = [{"id": "wamid.out-1", "status": "read", "timestamp": "1772442004", "recipient_id": "1"}]
    body = notify(messages=[text(ANA, "a secret", "wamid.in-1")], statuses=statuses, phone_number_id="9999")
    with capture_logs() as logs:
        assert (await post_signed(transport.webhook_url, SECRET, body)).status_code == 200
    assert got == []
    [skipped] = [entry for entry in logs if entry["event"] == "cloud_api_foreign_number_skipped"]
    assert skipped["phone_number_id"] == "9999"
    assert "14165550123" not in str(logs) and "a secret" not in str(logs)
    with pytest.raises(SendFailed, match="window is closed"):  # it opened no window either
        await transport.send_text(Recipient(ANA, number="toronto"), "Checking in", kind="check_in")


async def test_each_message_goes_from_its_recipients_number_and_windows_are_per_number(
    two: tuple[CloudApiTransport, list[object], Clock], fake: FakeCloudApi,
) -> None:
    transport, _, _ = two
    await writes(transport, ANA, TORONTO, "wamid.in-1")
    await writes(transport, BEN, MONTREAL, "wamid.in-2")
    await transport.send_text(Recipient(ANA, number="toronto"), "Hi Ana", kind="check_in")
    await transport.send_text(Recipient(BEN, number="montreal"), "Hi Ben", kind="check_in")
    await transport.send_text(Recipient(ANA), "Hi again", kind="check_in")  # no number: the first one
    assert list(zip(fake.sent_from, fake.texts(), strict=True)) == [
        (TORONTO, "Hi Ana"), (MONTREAL, "Hi Ben"), (TORONTO, "Hi again")]

    # Ana wrote to Toronto only: Montreal has no window open for her, so a prompt goes as its template
    await transport.send_text(Recipient(ANA, number="montreal"), "Time for your walk", kind="prompt")
    assert (fake.sent_from[-1], fake.sends[-1]["type"]) == (MONTREAL, "template")
    with pytest.raises(SendFailed, match="window is closed"):
        await transport.send_text(Recipient(ANA, number="montreal"), "Checking in", kind="check_in")
    with pytest.raises(SendFailed, match="'ottawa'") as unknown:
        await transport.send_text(Recipient(ANA, number="ottawa"), "Hi", kind="check_in")
    assert not unknown.value.retryable and len(fake.sends) == 4

    await transport.set_typing(Recipient(BEN, number="montreal"), True)
    await transport.mark_read(Recipient(ANA, number="toronto"), ["wamid.in-1"])
    assert [mark["message_id"] for mark in fake.read_marks] == ["wamid.in-2", "wamid.in-1"]
    assert fake.read_marks_from == [MONTREAL, TORONTO]


async def test_a_rate_limit_on_one_number_pauses_only_that_number(
    two: tuple[CloudApiTransport, list[object], Clock], fake: FakeCloudApi,
) -> None:
    transport, _, clock = two
    await writes(transport, ANA, TORONTO, "wamid.in-1")
    await writes(transport, BEN, MONTREAL, "wamid.in-2")
    ana, ben = Recipient(ANA, number="toronto"), Recipient(BEN, number="montreal")
    fake.fail(status=429, code=130429, retry_after="30")
    with pytest.raises(SendFailed, match="'toronto'") as limited:
        await transport.send_text(ana, "one", kind="check_in")
    assert limited.value.retryable
    await transport.send_text(ben, "for Ben", kind="check_in")
    with pytest.raises(SendFailed, match="resumes in 30 s"):
        await transport.send_text(ana, "one", kind="check_in")
    assert list(zip(fake.sent_from, fake.texts(), strict=True)) == [(MONTREAL, "for Ben")]
    clock.mono += 31
    await transport.send_text(ana, "one", kind="check_in")
    assert fake.sent_from[-1] == TORONTO


@pytest.mark.parametrize(("raw", "numbers"), [
    ("toronto=1111,montreal=2222", (("toronto", "1111"), ("montreal", "2222"))),
    ("1234", (("main", "1234"),)),
    ("site_a=1, site-b=2", (("site_a", "1"), ("site-b", "2"))),
])
def test_cloud_api_phone_number_id_takes_one_id_or_named_ids(raw: str, numbers: tuple[tuple[str, str], ...],
                                                            tmp_path: Path) -> None:
    settings = load_settings({"PROMPTPIPE_STATE_DIR": str(tmp_path), "PROMPTPIPE_TRANSPORT": "cloud-api",
                              "CLOUD_API_TOKEN": "t", "CLOUD_API_APP_SECRET": "s", "CLOUD_API_VERIFY_TOKEN": "v",
                              "CLOUD_API_PHONE_NUMBER_ID": raw}, env_file=None)
    assert settings.cloud_api_numbers == numbers
    transport = build_transport(settings)
    assert isinstance(transport, CloudApiTransport) and tuple(transport.numbers.items()) == numbers


@pytest.mark.parametrize("raw", ["toronto=1111,2222", "Toronto=1111", "toronto=+14165550100", "toronto=1,toronto=2",
                                 "a=1,b=1", "x" * 33 + "=1", "=1"])
def test_a_bad_cloud_api_phone_number_id_is_refused_naming_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="CLOUD_API_PHONE_NUMBER_ID"):
        load_settings({"CLOUD_API_PHONE_NUMBER_ID": raw}, env_file=None)
