"""The database boundary: a message is never dropped because a write failed (defect 2), what a
failed write logs never quotes a participant (defect 9), a mistyped DATABASE_URL never echoes its
password (defect 12), and concurrent first starts and enrollments on PostgreSQL end cleanly
(defect 15)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import stat
import traceback
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlalchemy import insert

from promptpipe.clock import ManualClock
from promptpipe.config import load_settings
from promptpipe.errors import AdminError, ConfigError, StorageError
from promptpipe.logging import configure_logging
from promptpipe.research import admin
from promptpipe.research.views import ParticipantView
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory, served_as_pilot
from tests.databases import execute_raw
from tests.fakes.openai_server import FakeOpenAIServer
from tests.participant_helpers import enrolled, inbound_rows

ANA = "+14165550123"






async def test_a_nul_character_in_a_message_is_stored_and_answered(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 2: on PostgreSQL a NUL in the text failed the insert and the message was dropped."""
    app, transport = await enrolled(make_app, fake_openai)
    original = "some days I struggle with depression\x00"
    fake_openai.say("Thank you for telling me.", match="struggle with depression")
    await transport.inject(ANA, original)
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Thank you for telling me."
    [row] = await inbound_rows(app)
    assert (row.text, row.status) == ("some days I struggle with depression", "answered")
    assert base64.b64decode(row.payload["original_text_b64"]).decode("utf-8") == original  # nothing lost
    fake_openai.assert_complete()


async def test_undecodable_bytes_in_a_message_are_stored_as_replacement_characters(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.say("Got it.", match="broken")
    await transport.inject(ANA, "a broken \udcff byte", name="An\udcffa")
    await app.run_until_idle()
    [row] = await inbound_rows(app)
    assert row.text == "a broken \ufffd byte"
    fake_openai.assert_complete()


async def test_a_nul_from_the_model_in_tool_arguments_fails_nothing(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.call_tool("save_user_profile", {"habit_domain": "walk\u0000ing more"}, match="walk more")
    fake_openai.say("Saved: walking more.", match="SAVED")
    await transport.inject(ANA, "I want to walk more")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Saved: walking more."
    assert (await admin.show(app.db, ANA)).profile["habit_domain"] == "walking more"
    fake_openai.assert_complete()


async def test_a_message_the_database_cannot_store_waits_in_the_spool_until_it_recovers(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Defect 2: a database error while storing a WhatsApp message dropped it. Here the
    transcript table is really missing for a while (a failed migration, a broken disk)."""
    app, transport = await enrolled(make_app, fake_openai)
    await execute_raw(app.db, "ALTER TABLE message RENAME TO message_away")
    await transport.inject(ANA, "are you getting my messages?", message_id="wa-1")
    assert app.inbox.spooled == 1
    [spooled] = list((tmp_path / "state" / "spool").iterdir())
    assert stat.S_IMODE(spooled.stat().st_mode) == 0o600
    assert stat.S_IMODE(spooled.parent.stat().st_mode) == 0o700
    await app.run_until_idle()  # still failing: it stays in the spool
    assert len(app.inbox.spool) == 1  # type: ignore[arg-type]

    await execute_raw(app.db, "ALTER TABLE message_away RENAME TO message")
    fake_openai.say("Yes, all of them.", match="getting my messages")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Yes, all of them."
    assert len(app.inbox.spool) == 0  # type: ignore[arg-type]
    await transport.inject(ANA, "are you getting my messages?", message_id="wa-1")  # WhatsApp redelivers it
    await app.run_until_idle()
    assert [r.text for r in await inbound_rows(app)] == ["are you getting my messages?"]
    fake_openai.assert_complete()


async def test_the_spool_survives_a_restart(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    await execute_raw(app.db, "ALTER TABLE message RENAME TO message_away")
    await transport.inject(ANA, "one message before the crash")
    await execute_raw(app.db, "ALTER TABLE message_away RENAME TO message")
    await app.stop()

    transport = MemoryTransport()
    fake_openai.say("I have it.", match="before the crash")
    restarted = await make_app(transport)  # the spool is drained at start
    await restarted.run_until_idle()
    assert transport.texts_to(ANA) == ["I have it."]
    fake_openai.assert_complete()


async def test_when_even_the_spool_cannot_be_written_the_message_waits_in_memory(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    real_open = os.open

    def disk_full(path: object, *args: object, **kwargs: object) -> int:
        if "spool" in str(path):
            raise OSError(28, "No space left on device")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", disk_full)
    await execute_raw(app.db, "ALTER TABLE message RENAME TO message_away")
    await transport.inject(ANA, "the disk is full but here I am")
    await execute_raw(app.db, "ALTER TABLE message_away RENAME TO message")
    monkeypatch.setattr(os, "open", real_open)
    fake_openai.say("Here you are.", match="disk is full")
    await app.run_until_idle()
    assert transport.texts_to(ANA)[-1] == "Here you are."
    fake_openai.assert_complete()


async def test_a_failed_write_never_logs_the_participants_text(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 9: a failed insert logged SQLAlchemy's parameters (the participant's text)."""
    app, transport = await enrolled(make_app, fake_openai)
    secret = "my private words about my health"
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        await execute_raw(app.db, "ALTER TABLE message RENAME TO message_away")
        await transport.inject(ANA, secret)
        await app.run_until_idle()
        await execute_raw(app.db, "ALTER TABLE message_away RENAME TO message")
    finally:
        configure_logging("console")
    logged = stream.getvalue()
    assert "inbound_spooled" in logged
    assert secret not in logged and "+14165550123" not in logged


async def test_a_storage_error_carries_no_row_values(db: Database) -> None:
    """The driver's own message can quote the row ("Failing row contains (…)" on PostgreSQL)."""
    secret = "words a participant wrote"
    now = datetime.now(timezone.utc)
    with pytest.raises(StorageError) as caught:
        await db.run(lambda session: session.execute(insert(Message).values(
            participant_id="p_missing", direction="in", role=None, text=secret, payload={}, status="received",
            created_at=now)))
    shown = "".join(traceback.format_exception(caught.value))
    assert secret not in shown and "database error" in shown


@pytest.mark.parametrize("url", [
    "postgresql://ana:s3cret-pw@127.0.0.1:notaport/study",
    "postgres//ana:s3cret-pw@127.0.0.1/study",
    "mysql://ana:s3cret-pw@127.0.0.1/study",
])
def test_a_mistyped_database_url_never_shows_its_password(url: str) -> None:
    """Defect 12: a mistyped DATABASE_URL echoed its password in the error."""
    with pytest.raises(ConfigError) as caught:
        load_settings({"DATABASE_URL": url}, env_file=None)
    assert "s3cret-pw" not in str(caught.value) and "ana:***@" in str(caught.value)


async def test_an_unreachable_database_never_shows_its_password() -> None:
    db = Database("postgresql://ana:s3cret-pw@127.0.0.1:9/study")
    with pytest.raises(ConfigError) as caught:
        await db.connect()
    await db.close()
    assert "s3cret-pw" not in "".join(traceback.format_exception(caught.value))


async def test_concurrent_first_starts_create_the_schema_once(empty_database_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Defect 15: concurrent first starts failed with raw unique-constraint errors
    (pg_type_typname_nsp_index) on PostgreSQL. On SQLite, switching a new file to WAL answered
    "database is locked" without waiting, about once in 60 such starts: 100 rounds on new files."""
    urls = [empty_database_url] if "postgresql" in empty_database_url else [
        f"sqlite:///{tmp_path / f'first-{n}.db'}" for n in range(100)]
    for url in urls:
        databases = [Database(url) for _ in range(4)]
        try:
            results = await asyncio.gather(*(db.connect() for db in databases), return_exceptions=True)
        finally:
            for db in databases:
                await db.close()
        assert [r for r in results if isinstance(r, BaseException)] == []


async def test_concurrent_enrollments_of_one_phone_say_already_enrolled(database_url: str) -> None:
    """Defect 15: the losers failed with a raw ix_participant_phone error."""
    first = Database(database_url)
    await first.connect()
    others = [Database(database_url) for _ in range(4)]
    clock = ManualClock()
    try:
        results = await asyncio.gather(
            *(admin.enroll(db, clock, admin.Enrolment(phone=ANA, name=f"Ana {n}", timezone="UTC"))
              for n, db in enumerate([first, *others])),
            return_exceptions=True)
    finally:
        for db in [first, *others]:
            await db.close()
    enrolled_rows = [r for r in results if isinstance(r, ParticipantView)]
    refusals = [r for r in results if isinstance(r, AdminError)]
    assert len(enrolled_rows) == 1 and len(refusals) == 4, results
    assert all("is already enrolled" in str(r) for r in refusals)


async def test_two_messages_from_a_new_sender_at_once_enroll_them_once(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, AUTO_ENROLL_NEW_USERS="on")
    for _ in range(2):  # one turn, or two when the loser of the race is stored a moment later
        fake_openai.say("Hello! Welcome.", match="hello there")
    await asyncio.gather(transport.inject(ANA, "hello there", message_id="m1"),
                         transport.inject(ANA, "hello there", message_id="m2"))
    await app.run_until_idle()
    participants = await admin.list_participants(app.db)
    assert [p.phone for p in participants] == [ANA]
    assert [r.status for r in await inbound_rows(app)] == ["answered", "answered"]
    assert fake_openai.errors == []
    fake_openai.reset()  # the second answer is used only when the race splits the messages into two turns


def test_undecodable_command_line_text_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    """Defect 18: `enroll --name` or `simulate` with an undecodable byte printed a traceback."""
    from promptpipe.cli import admin_main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("PROMPTPIPE_TRANSPORT", "dry-run")
    served_as_pilot(database_url)  # a pilot: simulate is allowed
    code = admin_main(["enroll", "--phone", ANA, "--name", "An\udcffa", "--timezone", "UTC"])
    out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "not valid UTF-8" in err and "Traceback" not in err
    assert admin_main(["enroll", "--phone", ANA, "--name", "Ana", "--timezone", "UTC"]) == 0
    capsys.readouterr()
    code = admin_main(["simulate", "--phone", ANA, "hello \udcfe there"])
    out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "not valid UTF-8" in err
    code = admin_main(["list", "--json"])
    out, _ = capsys.readouterr()
    assert [p["name"] for p in json.loads(out)] == ["Ana"]


async def test_a_whatsapp_message_arriving_while_the_database_fails_is_answered_later(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    """Defect 2, at the edge: the WhatsApp handler logged the database error and returned, and the
    message (already acknowledged to WhatsApp) was gone."""
    from neonize.aioze.events import ConnectedEv, MessageEv

    from tests.transport.test_whatsapp_transport import Harness, message_event, settle

    h = Harness()
    app = await make_app(h.transport)
    await settle(lambda: h.client.connect_calls == 1)
    await h.client.emit(ConnectedEv, ConnectedEv(status=True))
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone=ANA, name="Ana", timezone="America/Toronto"))
    fake_openai.say("Hi Ana!", match="Participant: Ana")
    await app.run_until_idle()

    await execute_raw(app.db, "ALTER TABLE message RENAME TO message_away")
    await h.client.emit(MessageEv, message_event("I walked 20 minutes\x00 today"))
    assert app.inbox.spooled == 1
    await execute_raw(app.db, "ALTER TABLE message_away RENAME TO message")
    fake_openai.say("Twenty minutes, well done!", match="I walked 20 minutes today")
    await app.run_until_idle()
    [row] = await inbound_rows(app)
    assert (row.text, row.status, row.whatsapp_id) == ("I walked 20 minutes today", "answered", "3EB0INBOUND")
    assert any(jid.User == ANA[1:] for jid, _ in h.client.sent)
    fake_openai.assert_complete()


async def test_a_write_that_waited_too_long_for_another_process_fails_as_a_storage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The admin script holding the file's write lock beyond the busy timeout: the service's
    transaction fails with our one-line error (its caller keeps the input and tries again), not
    with the driver's own exception, which nothing above the database layer expects."""
    import sqlite3

    from promptpipe.storage import sqlite_engine
    monkeypatch.setattr(sqlite_engine, "SQLITE_BUSY_TIMEOUT_MS", 50)
    url = f"sqlite:///{tmp_path / 'locked.db'}"
    db = Database(url)
    await db.connect()
    rival = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
    rival.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError, match="database is locked"):
            await db.run(lambda session: session.connection())
    finally:
        rival.execute("ROLLBACK")
        rival.close()
    assert await db.run(lambda session: session.connection() is not None)  # usable again once the lock is gone
    await db.close()
