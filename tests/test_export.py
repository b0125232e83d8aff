"""``promptpipe-admin export``: the study's data as CSV or JSONL, one row per event, times in UTC
and in each participant's zone, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from promptpipe.cli import admin_main
from promptpipe.db import Database
from promptpipe.errors import AdminError
from promptpipe.export import FILE_NAMES, export_study
from promptpipe.models import Conversation, Message, Participant, PromptDelivery, ToneEvent, Transition
from promptpipe.state import PROFILE_FIELDS

TORONTO, KOLKATA = ZoneInfo("America/Toronto"), ZoneInfo("Asia/Kolkata")
T0 = datetime(2026, 3, 2, 13, 0, tzinfo=timezone.utc)  # 08:00 in Toronto (EST), 18:30 in Kolkata
TRICKY_TEXT = 'Walked 2km, then "rested"\nsecond line 🏃‍♀️ done'

PARTICIPANT_COLUMNS = [
    "id", "phone", "name", "timezone", "status", "paused_by", "sub_state", "enrolled_at_utc", "enrolled_at_local",
    "habit_domain", "prompt_anchor", "motivational_frame", "preferred_time", "additional_info",
    "last_successful_prompt", "last_barrier", "last_motivator", "last_tweak", "intensity",
    "prompts_sent", "successes", "misses", "current_streak", "best_streak", "last_success_date", "last_miss_date",
    "tone_active",
]
MESSAGE_COLUMNS = [
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at_utc", "created_at_local",
    "sent_at_utc", "sent_at_local", "wa_message_id", "poll_purpose", "poll_options", "vote_chosen", "handled_as",
    "payload",
]
DELIVERY_COLUMNS = [
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at_utc", "sent_at_local", "vote", "voted_at_utc", "voted_at_local", "vote_changes",
    "replied_at_utc", "replied_at_local", "reminder_at_utc", "reminder_at_local", "reminder_sent", "outcome",
]
TRANSITION_COLUMNS = ["id", "participant_id", "kind", "name", "from_value", "to_value", "reason", "at_utc", "at_local"]
TONE_COLUMNS = [
    "id", "participant_id", "source", "proposed", "stripped", "outcome", "active_before", "active_after", "scores",
    "at_utc", "at_local",
]


def utc(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat(timespec="seconds")


def local(value: datetime, zone: ZoneInfo) -> str:
    return value.astimezone(zone).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the study (``db``: tests/conftest.py)

@pytest.fixture
async def study(db: Database) -> dict[str, Any]:
    return await seed_study(db)


async def seed_study(db: Database) -> dict[str, Any]:
    """Two participants in different zones, a transcript, five deliveries (one per outcome),
    transitions and tone events; returns the ids the tests check against."""
    ana_profile = {
        "habit_domain": "walking", "prompt_anchor": "after breakfast", "motivational_frame": "health, family",
        "preferred_time": "08:00", "intensity": "high",
        "counters": {"prompts_sent": 5, "successes": 1, "misses": 1, "current_streak": 0, "best_streak": 1,
                     "last_success_date": "2026-03-02", "last_miss_date": "2026-03-03"},
    }

    def seed(session: Any) -> dict[str, Any]:
        session.add_all([
            Participant(id="p-ana", phone="+15145550101", name="Ana, \"the walker\"", timezone="America/Toronto",
                        enrolled_at=T0, updated_at=T0),
            Participant(id="p-ravi", phone="+919876543210", name="Ravi", timezone="Asia/Kolkata", status="paused",
                        paused_by="participant", enrolled_at=T0 + timedelta(hours=1), updated_at=T0),
        ])
        session.flush()
        session.add_all([
            Conversation(participant_id="p-ana", sub_state="FEEDBACK", profile=ana_profile,
                         tone={"active": ["concise", "warm"], "scores": {"concise": 0.8}}, updated_at=T0),
            Conversation(participant_id="p-ravi", sub_state="INTAKE", profile={}, tone={}, updated_at=T0),
        ])
        messages = [
            Message(participant_id="p-ana", direction="in", role="user", kind="text", text=TRICKY_TEXT,
                    status="answered", wa_message_id="wa-in-1", created_at=T0),
            Message(participant_id="p-ana", direction="out", role="assistant", kind="poll",
                    text="Did you do it?", payload={"options": ["Done", "Not this time"], "purpose": "done"},
                    status="sent", wa_message_id="wa-poll-1", created_at=T0 + timedelta(minutes=1),
                    sent_at=T0 + timedelta(minutes=1, seconds=2)),
            Message(participant_id="p-ana", direction="in", role="user", kind="poll_vote", text="(poll vote: Done)",
                    payload={"poll_message_id": "wa-poll-1", "selected": ["Done"], "purpose": "done",
                             "handled_as": "counted", "known_poll": True},
                    status="answered", created_at=T0 + timedelta(minutes=5)),
            Message(participant_id="p-ravi", direction="out", role="assistant", kind="text", text="Namaste",
                    status="queued", created_at=T0 + timedelta(hours=2)),
        ]
        session.add_all(messages)
        session.flush()
        day = T0
        deliveries = [
            PromptDelivery(participant_id="p-ana", inbox_id=1, schedule_id="s1", local_date="2026-03-02",
                           prompt_text="Walk, after breakfast", prompt_message_id=messages[1].id,
                           poll_message_id=messages[1].id, sent_at=day, vote="done",
                           voted_at=day + timedelta(minutes=5), vote_changes=1),
            PromptDelivery(participant_id="p-ana", inbox_id=2, schedule_id="s1", local_date="2026-03-03",
                           prompt_text="Walk again", sent_at=day + timedelta(days=1), vote="not_this_time",
                           voted_at=day + timedelta(days=1, minutes=9)),
            PromptDelivery(participant_id="p-ana", inbox_id=3, schedule_id=None, local_date="2026-03-04",
                           prompt_text="Manual prompt", sent_at=day + timedelta(days=2),
                           replied_at=day + timedelta(days=2, minutes=3)),
            PromptDelivery(participant_id="p-ravi", inbox_id=4, schedule_id="s2", local_date="2026-03-03",
                           prompt_text="Stretch", sent_at=day + timedelta(days=1),
                           reminder_at=day + timedelta(days=1, hours=1)),
            PromptDelivery(participant_id="p-ravi", inbox_id=5, schedule_id="s2", local_date="2026-03-04",
                           prompt_text="Stretch", sent_at=day + timedelta(days=2)),
        ]
        session.add_all(deliveries)
        transitions = [
            Transition(participant_id="p-ana", kind="sub_state", name="intake_done", from_value="INTAKE",
                       to_value="FEEDBACK", reason="profile complete", created_at=T0 + timedelta(minutes=30)),
            Transition(participant_id="p-ravi", kind="status", name="participant_stop", from_value="active",
                       to_value="paused", reason="sent STOP", created_at=T0 + timedelta(hours=3)),
        ]
        session.add_all(transitions)
        tones = [
            ToneEvent(participant_id="p-ana", source="explicit", proposed=["concise", "sarcastic"],
                      stripped=["sarcastic"], outcome="applied", active_before=[], active_after=["concise"],
                      scores={"concise": 0.8}, created_at=T0 + timedelta(minutes=10)),
        ]
        session.add_all(tones)
        session.flush()
        return {
            "messages": [m.id for m in messages], "deliveries": [d.id for d in deliveries],
            "transitions": [t.id for t in transitions], "tones": [t.id for t in tones],
        }

    return await db.run(seed)


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}


# ---------------------------------------------------------------- CSV

async def test_csv_export_row_by_row(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "new" / "export"  # created, parents too
    counts = await export_study(db, out, fmt="csv", chunk_size=2)  # several chunks per table
    assert counts == {"participants": 2, "messages": 4, "deliveries": 5, "transitions": 2, "tone_changes": 1}
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.csv" for name in FILE_NAMES)  # no temp left

    columns, participants = read_csv(out / "participants.csv")
    assert columns == PARTICIPANT_COLUMNS
    ana, ravi = participants
    assert ana["id"] == "p-ana" and ana["name"] == 'Ana, "the walker"' and ana["phone"] == "+15145550101"
    assert (ana["status"], ana["paused_by"], ana["sub_state"]) == ("active", "", "FEEDBACK")
    assert ana["enrolled_at_utc"] == "2026-03-02T13:00:00+00:00"
    assert ana["enrolled_at_local"] == "2026-03-02T08:00:00-05:00" == local(T0, TORONTO)
    assert (ana["habit_domain"], ana["motivational_frame"], ana["last_barrier"]) == ("walking", "health, family", "")
    assert ana["intensity"] == "high" and ana["tone_active"] == "concise;warm"
    assert [ana[c] for c in ("prompts_sent", "successes", "misses", "current_streak", "best_streak")] == \
        ["5", "1", "1", "0", "1"]
    assert (ana["last_success_date"], ana["last_miss_date"]) == ("2026-03-02", "2026-03-03")
    assert (ravi["status"], ravi["paused_by"], ravi["sub_state"], ravi["timezone"]) == \
        ("paused", "participant", "INTAKE", "Asia/Kolkata")
    assert ravi["enrolled_at_local"] == local(T0 + timedelta(hours=1), KOLKATA) == "2026-03-02T19:30:00+05:30"
    assert ravi["intensity"] == "normal" and ravi["tone_active"] == ""  # defaults
    assert [ravi[c] for c in ("prompts_sent", "successes", "misses", "current_streak", "best_streak")] == ["0"] * 5
    assert (ravi["last_success_date"], ravi["last_miss_date"]) == ("", "")
    assert all(ravi[field] == "" for field in PROFILE_FIELDS)

    columns, messages = read_csv(out / "messages.csv")
    assert columns == MESSAGE_COLUMNS
    assert [int(m["id"]) for m in messages] == study["messages"]
    text, poll, vote, namaste = messages
    assert text["text"] == TRICKY_TEXT  # commas, quotes, a newline and an emoji survive the round trip
    assert (text["direction"], text["role"], text["kind"], text["status"], text["wa_message_id"]) == \
        ("in", "user", "text", "answered", "wa-in-1")
    assert (text["created_at_utc"], text["created_at_local"]) == (utc(T0), local(T0, TORONTO))
    assert (text["sent_at_utc"], text["sent_at_local"], text["poll_options"], text["payload"]) == ("", "", "", "{}")
    assert (poll["poll_purpose"], poll["poll_options"], poll["vote_chosen"]) == ("done", "Done;Not this time", "")
    assert poll["sent_at_local"] == local(T0 + timedelta(minutes=1, seconds=2), TORONTO) == "2026-03-02T08:01:02-05:00"
    assert json.loads(poll["payload"]) == {"options": ["Done", "Not this time"], "purpose": "done"}
    assert (vote["poll_purpose"], vote["vote_chosen"], vote["handled_as"], vote["poll_options"]) == \
        ("done", "Done", "counted", "")
    assert json.loads(vote["payload"])["known_poll"] is True
    assert namaste["participant_id"] == "p-ravi" and namaste["handled_as"] == ""
    assert namaste["created_at_local"] == local(T0 + timedelta(hours=2), KOLKATA) == "2026-03-02T20:30:00+05:30"

    columns, deliveries = read_csv(out / "deliveries.csv")
    assert columns == DELIVERY_COLUMNS
    assert [int(d["id"]) for d in deliveries] == study["deliveries"]
    assert [d["outcome"] for d in deliveries] == ["done", "not_this_time", "free_text_reply", "reminder_sent", "no_reply"]
    assert [d["reminder_sent"] for d in deliveries] == ["false", "false", "false", "true", "false"]
    done, miss, reply, reminded, silent = deliveries
    assert (done["schedule_id"], done["local_date"], done["vote"], done["vote_changes"]) == ("s1", "2026-03-02", "done", "1")
    assert done["poll_message_id"] == str(study["messages"][1]) and miss["poll_message_id"] == ""
    assert (done["sent_at_utc"], done["sent_at_local"]) == (utc(T0), "2026-03-02T08:00:00-05:00")
    assert done["voted_at_local"] == local(T0 + timedelta(minutes=5), TORONTO)
    assert reply["schedule_id"] == "" and reply["replied_at_local"] == local(T0 + timedelta(days=2, minutes=3), TORONTO)
    assert reply["voted_at_utc"] == "" and reply["vote"] == ""
    assert reminded["reminder_at_utc"] == utc(T0 + timedelta(days=1, hours=1))
    assert reminded["reminder_at_local"] == local(T0 + timedelta(days=1, hours=1), KOLKATA) == "2026-03-03T19:30:00+05:30"
    assert (silent["vote"], silent["replied_at_utc"], silent["reminder_at_utc"], silent["vote_changes"]) == ("", "", "", "0")

    columns, transitions = read_csv(out / "transitions.csv")
    assert columns == TRANSITION_COLUMNS
    assert [int(t["id"]) for t in transitions] == study["transitions"]
    assert [(t["participant_id"], t["kind"], t["name"], t["from_value"], t["to_value"], t["reason"]) for t in transitions] == [
        ("p-ana", "sub_state", "intake_done", "INTAKE", "FEEDBACK", "profile complete"),
        ("p-ravi", "status", "participant_stop", "active", "paused", "sent STOP"),
    ]
    assert transitions[0]["at_local"] == local(T0 + timedelta(minutes=30), TORONTO)
    assert transitions[1]["at_local"] == local(T0 + timedelta(hours=3), KOLKATA)

    columns, tones = read_csv(out / "tone_changes.csv")
    assert columns == TONE_COLUMNS
    [tone] = tones
    assert int(tone["id"]) == study["tones"][0]
    assert (tone["source"], tone["proposed"], tone["stripped"], tone["outcome"], tone["active_before"],
            tone["active_after"]) == ("explicit", "concise;sarcastic", "sarcastic", "applied", "", "concise")
    assert json.loads(tone["scores"]) == {"concise": 0.8} and tone["scores"] == '{"concise":0.8}'
    assert (tone["at_utc"], tone["at_local"]) == (utc(T0 + timedelta(minutes=10)), "2026-03-02T08:10:00-05:00")


async def test_csv_quotes_only_where_needed(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    await export_study(db, tmp_path / "out")
    raw = (tmp_path / "out" / "messages.csv").read_bytes().decode("utf-8")
    assert raw.startswith("id,participant_id,direction,")
    assert '"Walked 2km, then ""rested""\nsecond line 🏃‍♀️ done"' in raw
    assert ",Namaste," in raw  # a plain text is not quoted


# ---------------------------------------------------------------- JSONL

async def test_jsonl_export_keeps_types(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    counts = await export_study(db, out, fmt="jsonl")
    assert counts["messages"] == 4
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.jsonl" for name in FILE_NAMES)

    ana, ravi = read_jsonl(out / "participants.jsonl")
    assert list(ana) == PARTICIPANT_COLUMNS
    assert ana["tone_active"] == ["concise", "warm"] and ravi["tone_active"] == []
    assert ana["prompts_sent"] == 5 and ravi["prompts_sent"] == 0 and ravi["best_streak"] == 0
    assert ana["paused_by"] is None and ravi["last_success_date"] is None and ravi["habit_domain"] is None
    assert ravi["enrolled_at_local"] == local(T0 + timedelta(hours=1), KOLKATA)

    text, poll, vote, namaste = read_jsonl(out / "messages.jsonl")
    assert list(text) == MESSAGE_COLUMNS
    assert text["text"] == TRICKY_TEXT and text["id"] == study["messages"][0]
    assert text["sent_at_utc"] is None and text["poll_options"] is None and text["payload"] == {}
    assert poll["poll_options"] == ["Done", "Not this time"] and poll["payload"]["purpose"] == "done"
    assert vote["vote_chosen"] == ["Done"] and vote["handled_as"] == "counted" and vote["payload"]["known_poll"] is True
    assert namaste["sent_at_local"] is None
    assert "🏃" in (out / "messages.jsonl").read_text(encoding="utf-8")  # not \\u-escaped

    deliveries = read_jsonl(out / "deliveries.jsonl")
    assert [list(d) for d in deliveries] == [DELIVERY_COLUMNS] * 5
    assert [d["reminder_sent"] for d in deliveries] == [False, False, False, True, False]
    assert [d["outcome"] for d in deliveries] == ["done", "not_this_time", "free_text_reply", "reminder_sent", "no_reply"]
    assert deliveries[0]["vote_changes"] == 1 and deliveries[0]["prompt_message_id"] == study["messages"][1]
    assert deliveries[2]["schedule_id"] is None and deliveries[4]["vote"] is None

    transitions = read_jsonl(out / "transitions.jsonl")
    assert [t["id"] for t in transitions] == study["transitions"] and list(transitions[0]) == TRANSITION_COLUMNS

    [tone] = read_jsonl(out / "tone_changes.jsonl")
    assert list(tone) == TONE_COLUMNS
    assert tone["proposed"] == ["concise", "sarcastic"] and tone["active_before"] == []
    assert tone["scores"] == {"concise": 0.8}


# ---------------------------------------------------------------- overwriting, progress, the CLI

async def test_refuses_to_overwrite_without_force(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "deliveries.csv").write_text("an earlier export\n")
    with pytest.raises(AdminError, match=r"already has deliveries\.csv; nothing was written.*--force"):
        await export_study(db, out)
    assert files(out) == {"deliveries.csv": "an earlier export\n"}  # nothing else written, nothing changed

    await export_study(db, out, fmt="jsonl")  # another format: no conflict
    before = files(out)
    await db.run(lambda s: s.add(Message(participant_id="p-ravi", direction="in", role="user", text="later",
                                         status="received", created_at=T0 + timedelta(days=5))))
    with pytest.raises(AdminError, match="already has participants.jsonl, messages.jsonl"):
        await export_study(db, out, fmt="jsonl")
    assert files(out) == before

    counts = await export_study(db, out, force=True)
    assert counts["messages"] == 5 and counts["deliveries"] == 5
    _, deliveries = read_csv(out / "deliveries.csv")
    assert len(deliveries) == 5  # the earlier file was replaced
    assert "later" in (out / "messages.csv").read_text(encoding="utf-8")
    assert files(out)["messages.jsonl"] == before["messages.jsonl"]  # the other format is left alone
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


async def test_out_must_be_a_directory(db: Database, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(AdminError, match="is not a directory"):
        await export_study(db, blocker)


async def test_progress_bar_only_for_a_large_export(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    total = 2 + 4 + 5 + 2 + 1
    stream = io.StringIO()
    await export_study(db, tmp_path / "small", progress=stream, progress_threshold=total + 1)
    assert stream.getvalue() == ""

    stream = io.StringIO()
    await export_study(db, tmp_path / "large", progress=stream, progress_threshold=total, chunk_size=3)
    shown = stream.getvalue()
    assert "100%" in shown and f"{total}/{total}" in shown and "rows" in shown, shown


async def test_a_failed_export_leaves_no_files(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptpipe import export

    def broken(row: Any, zones: Any) -> dict[str, Any]:
        raise RuntimeError("disk on fire")

    tables = tuple(export._Table(t.name, t.model, t.columns, broken) if t.name == "transitions" else t
                   for t in export.TABLES)
    monkeypatch.setattr(export, "TABLES", tables)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="disk on fire"):
        await export_study(db, out)
    assert list(out.iterdir()) == []  # neither finished files nor temporary ones


def test_cli_export_prints_rows_per_file(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def seeded() -> None:
        database = Database(database_url)
        await database.connect()
        try:
            await seed_study(database)
        finally:
            await database.close()

    asyncio.run(seeded())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("PROMPTPIPE_STATE_DIR", str(tmp_path / "state"))
    out = tmp_path / "export"
    assert admin_main(["export", "--out", str(out), "--format", "jsonl"]) == 0
    printed, _ = capsys.readouterr()
    assert printed.splitlines() == [
        "participants.jsonl: 2 rows", "messages.jsonl: 4 rows", "deliveries.jsonl: 5 rows",
        "transitions.jsonl: 2 rows", "tone_changes.jsonl: 1 row", f"written to {out}",
    ]
    assert len(read_jsonl(out / "messages.jsonl")) == 4

    assert admin_main(["export", "--out", str(out), "--format", "jsonl"]) == 1
    _, err = capsys.readouterr()
    assert "already has participants.jsonl" in err and err.count("\n") == 1
    assert admin_main(["export", "--out", str(out), "--format", "jsonl", "--force"]) == 0

    with pytest.raises(SystemExit):
        admin_main(["export", "--out", str(out), "--format", "xlsx"])
    assert "invalid choice: 'xlsx'" in capsys.readouterr().err
