"""Several WhatsApp numbers through the API: a participant enrolled on a named number, moved to
another with a message the team wrote, which reaches them from the new number."""

from __future__ import annotations

from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.web.conftest import serving

ANA = "+14165550161"


async def test_enrol_on_a_number_then_move_them_with_a_message(make_app: AppFactory,
                                                              fake_openai: FakeOpenAIServer) -> None:
    fake_openai.always("Welcome to the study!", match="")
    transport = MemoryTransport()
    app = await make_app(transport, WHATSAPP_NUMBERS="toronto,montreal", API_LISTEN="")
    async with serving(app) as web, web.client() as client:
        refused = await client.post("/api/v1/participants", json={"phone": ANA, "name": "Ana",
                                                                  "timezone": "America/Toronto", "number": "ottawa"})
        assert refused.status_code == 409 and "this deployment has toronto, montreal" in refused.text
        enrolled = await client.post("/api/v1/participants", json={"phone": ANA, "name": "Ana",
                                                                   "timezone": "America/Toronto", "number": "toronto"})
        assert enrolled.status_code == 201
        pid = enrolled.json()["id"]
        await app.run_until_idle()
        same = await client.post(f"/api/v1/participants/{pid}/number", json={"to": "toronto", "message": "Hi"})
        assert same.status_code == 409 and "already" in same.text
        moved = await client.post(f"/api/v1/participants/{pid}/number",
                                  json={"to": "montreal", "message": "We now write to you from this number."})
        assert moved.status_code == 200 and moved.json()["number"] == "montreal"
        viewer = await web.client("viewer").post(f"/api/v1/participants/{pid}/number",
                                                 json={"to": "toronto", "message": "x"})
        assert viewer.status_code == 403
    await app.run_until_idle()
    assert [(sent.to.number, sent.text) for sent in transport.sent] == [
        ("toronto", "Welcome to the study!"), ("montreal", "We now write to you from this number.")]
