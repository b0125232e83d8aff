"""Several WhatsApp numbers (issue 30): each participant is given one at enrolment, by the
deployment's rule or by name, keeps it, and everything to them goes from it; someone who enrols
by writing in keeps the number they wrote to."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptpipe.app.parts import build_transport
from promptpipe.errors import AdminError, ConfigError
from promptpipe.research import admin
from promptpipe.research.number_moves import move_to_number
from promptpipe.research.timeline import timeline
from promptpipe.transport.linked_numbers import LinkedNumbersTransport
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory, make_settings
from tests.fakes.openai_server import FakeOpenAIServer
from tests.research.test_admin_cli import run_admin

ANA, BEN, CHIE, DEV = "+14165550141", "+14165550142", "+14165550143", "+14165550144"
TWO = {"WHATSAPP_NUMBERS": "toronto,montreal"}


async def test_numbers_are_given_in_turn_kept_and_every_message_goes_from_its_own(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.always("Welcome to the study!", match="")
    transport = MemoryTransport()
    app = await make_app(transport, **TWO)
    for phone, name in ((ANA, "Ana"), (BEN, "Ben"), (CHIE, "Chie")):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone=phone, name=name, timezone="UTC",
                           numbers=app.settings.number_plan))
    named = await admin.enroll(app.db, app.clock, admin.Enrolment(phone=DEV, name="Dev", timezone="UTC",
                               numbers=app.settings.number_plan, number="montreal"))
    with pytest.raises(AdminError, match="--number: there is no number 'ottawa'"):
        await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550145", name="Eve", timezone="UTC",
                           numbers=app.settings.number_plan, number="ottawa"))
    assert {row.name: row.number for row in await admin.list_participants(app.db)} == {
        "Ana": "toronto", "Ben": "montreal", "Chie": "toronto", "Dev": "montreal"}  # balanced, then named
    assert named.number == "montreal"
    await app.run_until_idle()
    assert {(sent.to.phone, sent.to.number) for sent in transport.sent} == {
        (ANA, "toronto"), (BEN, "montreal"), (CHIE, "toronto"), (DEV, "montreal")}
    await transport.inject(BEN, "hello, what do I do now?")  # a reply goes from Ben's number too
    await app.run_until_idle()
    assert [sent.to.number for sent in transport.sent if sent.to.phone == BEN] == ["montreal", "montreal"]


async def test_someone_who_writes_in_keeps_the_number_they_wrote_to(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.always("Hi, thanks for writing!", match="")
    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on", **TWO)
    await transport.inject(ANA, "hi, I saw the poster", number="montreal")
    await app.run_until_idle()
    assert (await admin.show(app.db, ANA)).number == "montreal"
    assert [sent.to.number for sent in transport.sent] == ["montreal"]


def test_the_admin_script_names_the_number(cli_env: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATSAPP_NUMBERS", "toronto,montreal")
    code, out, _ = run_admin(capsys, "enroll", "--phone", ANA, "--name", "Ana", "--timezone", "UTC",
                             "--number", "montreal")
    assert code == 0 and "enrolled Ana" in out
    code, _, err = run_admin(capsys, "enroll", "--phone", BEN, "--name", "Ben", "--timezone", "UTC",
                             "--number", "ottawa")
    assert code != 0 and "there is no number 'ottawa'; this deployment has toronto, montreal" in err


def test_settings_that_cannot_serve_their_numbers_are_refused(tmp_path: Path) -> None:
    def settings(**more: str):  # type: ignore[no-untyped-def]
        return make_settings(f"sqlite:///{tmp_path / 'db'}", tmp_path / "state", "http://127.0.0.1:9/v1", **more)

    cloud = {"PROMPTPIPE_TRANSPORT": "cloud-api", "CLOUD_API_TOKEN": "t", "CLOUD_API_APP_SECRET": "s",
             "CLOUD_API_VERIFY_TOKEN": "v"}
    with pytest.raises(ConfigError, match="CLOUD_API_PHONE_NUMBER_ID names the numbers toronto, ottawa"):
        settings(CLOUD_API_PHONE_NUMBER_ID="toronto=1,ottawa=2", **cloud, **TWO)
    plan = settings(CLOUD_API_PHONE_NUMBER_ID="toronto=1,montreal=2", **cloud).number_plan
    assert plan.numbers == ("toronto", "montreal")  # the Cloud API's names, without WHATSAPP_NUMBERS


def test_several_linked_phones_are_served_each_from_its_own_session(tmp_path: Path) -> None:
    state = tmp_path / "state"
    settings = make_settings(f"sqlite:///{tmp_path / 'db'}", state, "http://127.0.0.1:9/v1",
                             PROMPTPIPE_TRANSPORT="whatsapp", WHATSAPP_PAIR_PHONE="montreal=+14165550177", **TWO)
    transport = build_transport(settings)
    assert isinstance(transport, LinkedNumbersTransport)
    toronto, montreal = transport._make("toronto"), transport._make("montreal")
    assert toronto._session_db_path == str(state / "whatsapp-session.db")  # the default number's, as before
    assert montreal._session_db_path == str(state / "whatsapp-session-montreal.db")
    assert (toronto._session.login._pair_phone, montreal._session.login._pair_phone) == (None, "14165550177")


def test_status_counts_each_numbers_participants(cli_env: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATSAPP_NUMBERS", "toronto,montreal")
    for phone, name in ((ANA, "Ana"), (BEN, "Ben"), (CHIE, "Chie")):
        assert run_admin(capsys, "enroll", "--phone", phone, "--name", name, "--timezone", "UTC")[0] == 0
    code, out, _ = run_admin(capsys, "status")
    assert code == 0 and "numbers: toronto 2 participants, montreal 1 participant in the study" in out


def test_the_admin_script_moves_a_participant_with_a_message(cli_env: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHATSAPP_NUMBERS", "toronto,montreal")
    assert run_admin(capsys, "enroll", "--phone", ANA, "--name", "Ana", "--timezone", "UTC",
                     "--number", "toronto")[0] == 0
    code, out, _ = run_admin(capsys, "move-number", "--phone", ANA, "--to", "montreal", "--message",
                             "This is our new number.")
    assert code == 0 and "now written to from montreal (was toronto)" in out and "goes from montreal" in out
    code, _, err = run_admin(capsys, "move-number", "--phone", ANA, "--to", "montreal", "--message", "Again")
    assert code != 0 and "written to from montreal already" in err
    code, out, _ = run_admin(capsys, "show", "--phone", ANA, "--json")
    assert '"number": "montreal"' in out


async def test_a_move_stands_when_the_message_may_not_go(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.always("Welcome!", match="")
    transport = MemoryTransport()
    app = await make_app(transport, **TWO)
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="UTC",
                                                          numbers=app.settings.number_plan,
                       number="toronto"))
    await app.run_until_idle()
    await transport.inject(ANA, "STOP")
    await app.run_until_idle()
    moved = await move_to_number(app.db, app.clock, who=ANA, to="montreal", text="Our new number.",
                                 numbers=app.settings.number_plan)
    await app.run_until_idle()
    assert not moved.message_sent and "the message was not sent" in moved.line
    shown = await admin.show(app.db, ANA)
    assert shown.number == "montreal"
    page = await timeline(app.db, shown.id, identified=True)
    assert any(entry.summary.startswith("WhatsApp number: toronto → montreal") for entry in page.entries)
    assert "Our new number." not in transport.texts_to(ANA)  # their STOP holds
