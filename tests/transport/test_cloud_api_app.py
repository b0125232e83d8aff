"""The Cloud API transport inside the real service: a participant writes through the signed webhook,
the (fake) model answers, and the answer reaches the (fake) Cloud API."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta

import pytest

from promptpipe.app import App
from promptpipe.clock import ManualClock
from promptpipe.domain.messages import MessageStatus
from promptpipe.research import admin
from promptpipe.research.status import read_status
from promptpipe.study.rules.protocol import WhatsAppTemplate
from promptpipe.transport.cloud_api import DEFAULT_NUMBER, CloudApiOptions, CloudApiTransport
from tests.conftest import AppFactory
from tests.fakes.cloud_api import FakeCloudApi, notify, post_signed
from tests.fakes.openai_server import FakeOpenAIServer

SECRET = "app-secret-for-tests"


@pytest.fixture
def cloud() -> Iterator[FakeCloudApi]:
    with FakeCloudApi() as server:
        yield server


async def greeted(make_app: AppFactory, fake: FakeOpenAIServer, cloud: FakeCloudApi) -> tuple[App, CloudApiTransport]:
    """The service on the fake Cloud API, with Ana enrolled and greeted (a template: her window is closed)."""
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={DEFAULT_NUMBER: "1234"}, app_secret=SECRET, verify_token="v", listen="127.0.0.1:0",
        base_url=cloud.url, templates=[("greeting", WhatsAppTemplate("welcome"))]))
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550123", name="Ana", timezone="America/Toronto",
                       study=app.settings.study))
    fake.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
    return app, transport


async def test_a_message_through_the_webhook_is_answered_through_the_cloud_api(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cloud: FakeCloudApi,
) -> None:
    app, transport = await greeted(make_app, fake_openai, cloud)
    assert cloud.sends[0]["type"] == "template"  # nobody has written yet: the window is closed

    fake_openai.say("Glad to hear it. A short walk after lunch?")
    message = {"from": "14165550123", "id": "wamid.in-1", "timestamp": "1772442000", "type": "text",
               "text": {"body": "I want to walk more"}}
    response = await post_signed(transport.webhook_url, SECRET, notify(messages=[message]))
    assert response.status_code == 200
    await app.run_until_idle()
    await asyncio.to_thread(cloud.wait_for_sends, 2)
    assert cloud.texts() == ["Glad to hear it. A short walk after lunch?"]
    assert cloud.sends[-1]["to"] == "14165550123"
    rows = await admin.transcript(app.db, "+14165550123")
    assert [row.text for row in rows if row.direction == "in"] == ["I want to walk more"]


async def test_a_reply_meta_took_before_failing_goes_once_and_its_status_settles_it(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cloud: FakeCloudApi, clock: ManualClock,
) -> None:
    """A 5xx may come after Meta accepted the message: resending it would reach the phone twice.
    The send stays uncertain until the status webhook, which echoes the outbox key, says what happened."""
    app, transport = await greeted(make_app, fake_openai, cloud)
    fake_openai.say("A short walk after lunch, then?")
    cloud.fail(status=500, code=131000, accepted=True)
    message = {"from": "14165550123", "id": "wamid.in-1", "timestamp": "1772442000", "type": "text",
               "text": {"body": "I want to walk more"}}
    await post_signed(transport.webhook_url, SECRET, notify(messages=[message]))
    await app.run_until_idle()
    clock.advance(timedelta(hours=2))
    await app.run_until_idle()
    assert cloud.texts() == ["A short walk after lunch, then?"]  # once, never resent
    reply = (await admin.transcript(app.db, "+14165550123"))[-1]
    assert reply.status == MessageStatus.UNCERTAIN

    key = cloud.sends[-1]["biz_opaque_callback_data"]
    assert key and all(body.get("biz_opaque_callback_data") for body in cloud.sends)
    statuses = [{"id": cloud.message_id(1), "status": status, "timestamp": "1772442060",
                 "recipient_id": "14165550123", "biz_opaque_callback_data": key} for status in ("sent", "delivered")]
    await post_signed(transport.webhook_url, SECRET, notify(statuses=statuses))
    reply = (await admin.transcript(app.db, "+14165550123"))[-1]
    assert (reply.status, reply.whatsapp_id) == (MessageStatus.SENT, cloud.message_id(1))
    assert reply.delivered_at is not None
    assert (await read_status(app.db)).uncertain_sends == 0


async def test_a_failed_status_settles_an_uncertain_send_as_not_delivered(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cloud: FakeCloudApi,
) -> None:
    cloud.fail(status=503, code=2, accepted=True)  # the greeting: taken, then an error
    app, transport = await greeted(make_app, fake_openai, cloud)
    key = cloud.sends[0]["biz_opaque_callback_data"]
    failed = {"id": cloud.message_id(0), "status": "failed", "timestamp": "1772442060", "recipient_id": "14165550123",
              "biz_opaque_callback_data": key, "errors": [{"code": 131026, "title": "Message undeliverable"}]}
    await post_signed(transport.webhook_url, SECRET, notify(statuses=[failed]))
    greeting = (await admin.transcript(app.db, "+14165550123"))[-1]
    assert greeting.status == MessageStatus.FAILED
    assert (await read_status(app.db)).uncertain_sends == 0
