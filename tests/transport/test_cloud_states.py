"""Each Cloud API number has its own state, told to the service: connected once a send through it
succeeds, logged out when Meta refuses the access token (every number then), banned when WhatsApp
restricts the account. A number in trouble keeps its messages (they wait, never sent from another
number) and is connected again by its next send that succeeds."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from promptpipe.errors import SendFailed
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport.base import InboundMessage, Recipient
from promptpipe.transport.cloud_api import CloudApiOptions, CloudApiTransport
from promptpipe.transport.connection_state import ConnectionState
from tests.fakes.cloud_api import FakeCloudApi, notify, post_signed

SECRET = "app-secret-for-tests"
TORONTO, MONTREAL = "1111", "2222"
ANA, BEN = "+14165550131", "+14165550132"
Heard = list[tuple[str | None, str]]


@pytest.fixture
def fake() -> Iterator[FakeCloudApi]:
    with FakeCloudApi(TORONTO, MONTREAL) as server:
        yield server


def transport_for(fake: FakeCloudApi, numbers: dict[str, str], heard: Heard, *,
                  listen: str = "") -> CloudApiTransport:
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers=numbers, app_secret=SECRET, verify_token="v", listen=listen, base_url=fake.url,
        templates=[("prompt", WhatsAppTemplate("daily_nudge"))]))

    def told(state: ConnectionState, number: str | None = None) -> None:
        heard.append((number, state.name))

    transport.on_state_change(told)
    return transport


@pytest.fixture
async def two(fake: FakeCloudApi) -> AsyncIterator[tuple[CloudApiTransport, Heard]]:
    heard: Heard = []
    transport = transport_for(fake, {"toronto": TORONTO, "montreal": MONTREAL}, heard, listen="127.0.0.1:0")

    async def on_message(msg: InboundMessage) -> None:
        pass

    await transport.start(on_message)
    yield transport, heard
    await transport.stop()


async def test_a_banned_number_keeps_its_messages_and_the_others_go_on(
        two: tuple[CloudApiTransport, Heard], fake: FakeCloudApi) -> None:
    transport, heard = two
    await transport.send_text(Recipient(ANA, number="toronto"), "Hi", kind="prompt")
    await transport.send_text(Recipient(BEN, number="montreal"), "Hi", kind="prompt")
    await transport.send_text(Recipient(BEN, number="montreal"), "Again", kind="prompt")  # no change: not told
    assert heard == [("toronto", "connected"), ("montreal", "connected")]

    fake.fail(status=400, code=368)
    with pytest.raises(SendFailed, match="number 'montreal' is restricted by WhatsApp") as refused:
        await transport.send_text(Recipient(BEN, number="montreal"), "Today's prompt", kind="prompt")
    assert refused.value.retryable  # it waits for the number (or for the team to move Ben)
    assert heard[-1] == ("montreal", "banned")
    assert transport.connection_states["toronto"].name == "connected"
    assert fake.sent_from == [TORONTO, MONTREAL, MONTREAL]  # nothing went to Ben from Toronto's number

    await transport.send_text(Recipient(BEN, number="montreal"), "Today's prompt", kind="prompt")
    assert heard[-1] == ("montreal", "connected")


async def test_a_refused_token_logs_out_every_number(two: tuple[CloudApiTransport, Heard], fake: FakeCloudApi) -> None:
    transport, heard = two
    fake.fail(status=401, code=190)
    with pytest.raises(SendFailed, match="renew CLOUD_API_TOKEN"):
        await transport.send_text(Recipient(ANA, number="toronto"), "Hi", kind="prompt")
    assert sorted(heard) == [("montreal", "logged_out"), ("toronto", "logged_out")]
    assert "renew CLOUD_API_TOKEN" in transport.connection_states["montreal"].detail


async def test_a_locked_account_in_a_status_notification_bans_its_number(two: tuple[CloudApiTransport, Heard]) -> None:
    transport, heard = two
    failed = [{"id": "wamid.out-1", "status": "failed", "timestamp": "1772442004", "recipient_id": "1",
               "errors": [{"code": 131031, "title": "Business account locked"}]}]
    assert (await post_signed(transport.webhook_url, SECRET,
                              notify(statuses=failed, phone_number_id=MONTREAL))).status_code == 200
    assert heard == [("montreal", "banned")]


async def test_a_transport_with_one_number_reports_it_as_the_one_whatsapp_state(fake: FakeCloudApi) -> None:
    heard: Heard = []
    transport = transport_for(fake, {"main": TORONTO}, heard)
    try:
        await transport.send_text(Recipient(ANA), "Hi", kind="prompt")
        fake.fail(status=400, code=131031)
        with pytest.raises(SendFailed):
            await transport.send_text(Recipient(ANA), "Hi", kind="prompt")
    finally:
        await transport.stop()
    assert heard == [(None, "connected"), (None, "banned")]


async def test_the_start_asks_how_each_number_stands(fake: FakeCloudApi) -> None:
    """A refused token, an unregistered number or a restricted account shows as soon as the
    service starts, not at the first send (the first prompt may be hours away)."""
    fake.statuses[MONTREAL] = "RESTRICTED"
    heard: Heard = []
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={"toronto": TORONTO, "montreal": MONTREAL}, app_secret=SECRET, verify_token="v", listen="",
        base_url=fake.url, check_at_start=True))
    transport.on_state_change(lambda state, number=None: heard.append((number, state.name)))
    try:
        await transport.start(_ignore)
    finally:
        await transport.stop()
    assert sorted(heard) == [("montreal", "banned"), ("toronto", "connected")]
    assert sorted(fake.lookups) == sorted([TORONTO, MONTREAL]) and fake.sends == []


async def test_a_token_refused_at_start_logs_out_every_number(fake: FakeCloudApi) -> None:
    fake.fail_lookup(TORONTO, status=401, code=190)
    fake.fail_lookup(MONTREAL, status=401, code=190)
    heard: Heard = []
    transport = CloudApiTransport(CloudApiOptions(
        token="expired", numbers={"toronto": TORONTO, "montreal": MONTREAL}, app_secret=SECRET, verify_token="v",
        listen="", base_url=fake.url, check_at_start=True))
    transport.on_state_change(lambda state, number=None: heard.append((number, state.name)))
    try:
        await transport.start(_ignore)
    finally:
        await transport.stop()
    assert sorted(set(heard)) == [("montreal", "logged_out"), ("toronto", "logged_out")]
    assert "renew CLOUD_API_TOKEN" in transport.connection_states["toronto"].detail


async def test_a_number_the_start_cannot_ask_about_keeps_no_state(fake: FakeCloudApi) -> None:
    heard: Heard = []
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={"toronto": TORONTO}, app_secret=SECRET, verify_token="v", listen="",
        base_url="http://127.0.0.1:9/v26.0", check_at_start=True))
    transport.on_state_change(lambda state, number=None: heard.append((number, state.name)))
    try:
        await transport.start(_ignore)  # nothing listens there: logged, and the service starts anyway
    finally:
        await transport.stop()
    assert heard == []


async def _ignore(msg: InboundMessage) -> None:
    """Inbound messages are not what these tests watch."""
