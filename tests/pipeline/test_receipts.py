"""Delivery and read receipts: what WhatsApp reports about our messages reaches the transcript,
the export and each prompt's outcome; blue ticks go back once a turn is committed."""

from __future__ import annotations

import asyncio
import csv
from datetime import timedelta
from pathlib import Path

from promptpipe.export.files import ExportOptions, export_study
from promptpipe.research import admin
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, MONDAY_PROMPT, polls, prompted
from tests.participant_helpers import ANA as ANA_TORONTO
from tests.participant_helpers import enrolled
from tests.research.test_admin_cli import run_admin

T = MONDAY_PROMPT


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


async def sent_rows(app, phone: str) -> list[dict]:
    return [row for row in await admin.transcript(app.db, phone) if row.direction == "out"]


async def test_receipts_in_any_order_and_twice_keep_the_earliest_time(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport(sends_receipts=True)
    app, _, _ = await prompted(make_app, fake_openai, transport=transport)
    nudge_id = [item.message_id for item in transport.sent if item.kind == "text"][-1]

    await transport.receipt("read", nudge_id, timestamp=T + timedelta(minutes=30))  # read before delivered
    await transport.receipt("delivered", nudge_id, timestamp=T + timedelta(minutes=40))
    await transport.receipt("delivered", nudge_id, timestamp=T + timedelta(minutes=1))  # an earlier one, late
    await transport.receipt("read", nudge_id, timestamp=T + timedelta(minutes=35))  # a repeat
    await transport.receipt("delivered", "3EB0NOBODYSENTTHIS", timestamp=T)  # unknown id

    nudge = next(row for row in await sent_rows(app, ANA) if row.whatsapp_id == nudge_id)
    assert nudge.delivered_at == (T + timedelta(minutes=1)).isoformat()
    assert nudge.read_at == (T + timedelta(minutes=30)).isoformat()
    others = [row for row in await sent_rows(app, ANA) if row.whatsapp_id != nudge_id]
    assert all(row.delivered_at is None and row.read_at is None for row in others)


async def test_a_read_receipt_alone_means_delivered_too(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    transport = MemoryTransport(sends_receipts=True)
    app, _, _ = await prompted(make_app, fake_openai, transport=transport)
    (poll_id,) = polls(transport)

    await transport.receipt("read", poll_id, timestamp=T + timedelta(minutes=5))

    poll = next(row for row in await sent_rows(app, ANA) if row.whatsapp_id == poll_id)
    assert poll.delivered_at == poll.read_at == (T + timedelta(minutes=5)).isoformat()


async def test_a_receipt_that_arrives_before_the_send_is_recorded_still_counts(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    transport = MemoryTransport(sends_receipts=True)
    app, _ = await enrolled(make_app, fake_openai)
    app.transport = transport
    await transport.start(app.inbox.ingest, app.record_receipt)
    # The memory transport numbers its sends; the next one is the reply to this message.
    fake_openai.say("Good to hear from you.")
    await transport.inject(ANA_TORONTO, "hello again", message_id="in-early")
    next_id = "out-2"
    await transport.receipt("delivered", next_id, timestamp=T)
    await app.run_until_idle()

    reply = [row for row in await sent_rows(app, ANA_TORONTO) if row.text == "Good to hear from you."]
    assert reply and reply[0].whatsapp_id == next_id and reply[0].delivered_at == T.isoformat()


async def test_the_transcript_command_shows_delivered_and_read(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, cli_env: Path, capsys,
) -> None:
    transport = MemoryTransport(sends_receipts=True)
    _app, _, _ = await prompted(make_app, fake_openai, transport=transport)
    nudge_id = [item.message_id for item in transport.sent if item.kind == "text"][-1]
    await transport.receipt("delivered", nudge_id, timestamp=T + timedelta(seconds=3))
    await transport.receipt("read", nudge_id, timestamp=T + timedelta(minutes=25))
    capsys.readouterr()

    code, out, _ = await asyncio.to_thread(run_admin, capsys, "transcript", "--phone", ANA)

    assert code == 0
    line = next(line for line in out.splitlines() if "delivered" in line)
    assert "delivered 12:50:03 read 13:15:00" in line


async def prompt_outcome(app, tmp_path: Path, now_after_send: timedelta) -> dict[str, str]:
    out = tmp_path / f"export-{now_after_send.total_seconds():.0f}"
    await export_study(app.db, out, ExportOptions(now=T + now_after_send, receipt_window=timedelta(hours=12)))
    (delivery,) = read_csv(out / "deliveries.csv")
    return delivery


async def test_a_prompt_that_never_reached_the_phone_is_not_delivered_rather_than_ignored(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    transport = MemoryTransport(sends_receipts=True)
    app, _, _ = await prompted(make_app, fake_openai, transport=transport)

    within = await prompt_outcome(app, tmp_path, timedelta(hours=2))
    after = await prompt_outcome(app, tmp_path, timedelta(hours=13))

    assert within["outcome"] == "no_reply"  # it may still arrive
    assert (after["outcome"], after["delivered_at_utc"]) == ("not_delivered", "")
    messages = read_csv(tmp_path / "export-46800" / "messages.csv")
    assert {m["delivery"] for m in messages if m["direction"] == "out" and m["kind"] in ("prompt", "poll")} \
        == {"not_delivered"}


async def test_a_delivered_but_unanswered_prompt_is_no_reply(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    transport = MemoryTransport(sends_receipts=True)
    app, _, _ = await prompted(make_app, fake_openai, transport=transport)
    (poll_id,) = polls(transport)
    await transport.receipt("delivered", poll_id, timestamp=T + timedelta(hours=3))  # the phone came back on

    after = await prompt_outcome(app, tmp_path, timedelta(hours=13))

    assert after["outcome"] == "no_reply"
    assert after["delivered_at_utc"].startswith("2026-01-05T15:50")


async def test_without_receipts_from_the_transport_silence_stays_no_reply(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, _, _ = await prompted(make_app, fake_openai)  # like dry-run: no receipts at all

    after = await prompt_outcome(app, tmp_path, timedelta(days=3))

    assert after["outcome"] == "no_reply"


async def test_answered_messages_get_blue_ticks_after_the_turn_commits(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    assert transport.read_marks == []  # the greeting answered no message of theirs

    await transport.inject(ANA_TORONTO, "I want to walk more in the mornings", message_id="wa-1")
    fake_openai.say("Mornings it is.")
    await app.run_until_idle()

    assert transport.read_marks == [(ANA_TORONTO, ("wa-1",))]
    assert transport.texts_to(ANA_TORONTO)[-1] == "Mornings it is."


async def test_a_turn_that_fails_marks_nothing_read(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai)
    fake_openai.fail(500, match="are you there")

    await transport.inject(ANA_TORONTO, "are you there?", message_id="wa-3")
    await app.run_until_idle()

    assert transport.read_marks == []


async def test_blue_ticks_can_be_switched_off(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport = await enrolled(make_app, fake_openai, MARK_READ="off")

    await transport.inject(ANA_TORONTO, "hello", message_id="wa-4")
    fake_openai.say("Hello!")
    await app.run_until_idle()

    assert transport.read_marks == []
