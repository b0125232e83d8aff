"""The Cloud API transport inside the real service: a participant writes through the signed webhook,
the (fake) model answers, and the answer reaches the (fake) Cloud API."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from promptpipe.research import admin
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


async def test_a_message_through_the_webhook_is_answered_through_the_cloud_api(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cloud: FakeCloudApi,
) -> None:
    transport = CloudApiTransport(CloudApiOptions(
        token="t", numbers={DEFAULT_NUMBER: "1234"}, app_secret=SECRET, verify_token="v", listen="127.0.0.1:0",
        base_url=cloud.url, templates=[("greeting", WhatsAppTemplate("welcome"))]))
    app = await make_app(transport)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550123", name="Ana", timezone="America/Toronto",
                       study=app.settings.study))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()
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
