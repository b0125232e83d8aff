"""``promptpipe-admin export``: the study's data as CSV or JSONL, one row per event, times in UTC
and in each participant's zone, on SQLite and PostgreSQL. Pseudonymised (the key to phone numbers
and names only on request, in a file of its own), safe to open in a spreadsheet, private files."""

from __future__ import annotations

import asyncio
import csv
import hashlib
import importlib.metadata
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from promptpipe.cli import admin_main
from promptpipe.domain.profile import HABIT_FIELDS
from promptpipe.errors import AdminError
from promptpipe.export import files as export
from promptpipe.export.cells import csv_cell
from promptpipe.export.files import ExportOptions, export_study
from promptpipe.export.rows import FILE_NAMES
from promptpipe.storage.db import Database
from promptpipe.storage.models import (
    ConsentEvent,
    Conversation,
    Flag,
    Message,
    Participant,
    Receipt,
    ToneEvent,
    Transition,
)
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.store.tables import Decision, StudyProtocol, StudySecret

TORONTO, KOLKATA = ZoneInfo("America/Toronto"), ZoneInfo("Asia/Kolkata")
T0 = datetime(2026, 3, 2, 13, 0, tzinfo=timezone.utc)  # 08:00 in Toronto (EST), 18:30 in Kolkata
TRICKY_TEXT = 'Walked 2km, then "rested"\nsecond line 🏃‍♀️ done'
ANA_PHONE, ANA_NAME = "+14165550101", 'Ana, "the walker"'
RAVI_PHONE, RAVI_NAME = "+14165550102", "Ravi"
ERASED_AT = T0 + timedelta(days=9)

PARTICIPANT_COLUMNS = [
    "id", "timezone", "status", "paused_by", "opted_out", "researcher_paused", "sub_state",
    "arm", "number", "day_one", "extra_days", "enrolled_at_utc", "enrolled_at_local", "completed_at_utc",
    "completed_at_local",
    "erased_at_utc", "erased_at_local", "withdrawn_at_utc", "withdrawn_at_local",
    "habit_domain", "prompt_anchor", "motivational_frame", "preferred_time", "additional_info",
    "last_successful_prompt", "last_barrier", "last_motivator", "last_tweak", "intensity",
    "prompts_sent", "successes", "misses", "current_streak", "best_streak", "last_success_date", "last_miss_date",
    "tone_active", "stratum_site", "stratum_shift",
]
MESSAGE_COLUMNS = [
    "id", "participant_id", "direction", "role", "kind", "status", "text", "created_at_utc", "created_at_local",
    "sent_at_utc", "sent_at_local", "wa_message_id", "delivery", "delivered_at_utc", "delivered_at_local",
    "read_at_utc", "read_at_local", "played_at_utc", "played_at_local",
    "poll_purpose", "poll_options", "vote_chosen", "vote_source", "handled_as", "payload",
]
DELIVERY_COLUMNS = [
    "id", "participant_id", "schedule_id", "local_date", "prompt_text", "prompt_message_id", "poll_message_id",
    "sent_at_utc", "sent_at_local", "delivered_at_utc", "delivered_at_local", "read_at_utc", "read_at_local",
    "vote", "vote_source", "voted_at_utc", "voted_at_local", "vote_changes",
    "replied_at_utc", "replied_at_local", "reminder_at_utc", "reminder_at_local", "reminder_sent", "outcome",
]
DECISION_COLUMNS = [
    "participant_id", "decision_index", "schedule_id", "study_day", "local_date", "scheduled_for_utc",
    "decided_at_utc", "decided_at_local", "timezone", "arm", "available", "unavailable_reason", "action",
    "action_treatment", "probability", "draw", "seed_ref", "protocol_hash", "prompt_style", "model",
    "system_prompt_hash", "not_sent_reason",
    "delivery_id", "prompt_sent", "sent_at_utc", "delivered_at_utc", "read_at_utc", "vote", "vote_source",
    "voted_at_utc", "replied_at_utc", "first_answer_at_utc", "latency_s", "outcome", "self_report_date",
    "self_report", "self_report_status", "self_report_reason", "self_report_at_utc", "withdrawn_at_utc",
    "erased_at_utc",
]
TRANSITION_COLUMNS = ["id", "participant_id", "kind", "name", "actor", "from_value", "to_value", "reason", "at_utc",
                      "at_local"]
TONE_COLUMNS = [
    "id", "participant_id", "source", "proposed", "stripped", "outcome", "active_before", "active_after", "scores",
    "at_utc", "at_local",
]
CONSENT_COLUMNS = ["id", "participant_id", "event", "source", "actor", "words", "reconstructed", "at_utc", "at_local",
                   "said_at_utc", "said_at_local"]
FLAG_COLUMNS = [
    "id", "participant_id", "source", "severity", "trigger", "status", "at_utc", "at_local",
    "resolved_at_utc", "resolved_at_local", "resolved_by", "resolution_note", "alert_status",
]
STUDY_FILES = ["participants", "messages", "deliveries", "decisions", "transitions", "tone_changes", "consent",
               "flags", "questionnaire_instances", "questionnaire_answers"]
COMPANIONS = ["README.md", "codebook.csv", "questionnaire_items.csv", "study.json"]
"""Written next to the data by every export, whatever its format."""
SEED_HEX = "5eed" * 16
"""The study's secret seed as study_secret stores it: it must appear in no exported file."""
STUDY_V1 = """name = "Walking pilot"
length_days = 28
[[arms]]
name = "coach"
[[arms]]
name = "fixed_text"
prompt_style = "fixed"
fixed_prompts = ["Take a short walk after dinner."]
[allocation]
block_size = 2
[allocation.strata]
site = ["toronto", "montreal"]
[decision]
p = 0.5
"""
STUDY_V2 = STUDY_V1.replace("p = 0.5", "p = 0.6").replace("length_days = 28", "length_days = 30")
PROMPT_HASH = hashlib.sha256(b"the prompt generator's system prompt").hexdigest()


def version_files() -> list[str]:
    """The protocol versions' own texts that the seeded study (two versions) exports."""
    return [f"study_protocol_v{n}_{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml"
            for n, text in enumerate((STUDY_V1, STUDY_V2), 1)]


def export_names(fmt: str, *extra: str) -> list[str]:
    return sorted([*(f"{name}.{fmt}" for name in [*STUDY_FILES, *extra]), *COMPANIONS, *version_files()])


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
    transitions, tone events, consent events and flags; returns the ids the tests check against."""
    ana_profile = {
        "habit_domain": "walking", "prompt_anchor": "after breakfast", "motivational_frame": "health, family",
        "preferred_time": "08:00", "intensity": "high",
        "counters": {"prompts_sent": 5, "successes": 1, "misses": 1, "current_streak": 0, "best_streak": 1,
                     "last_success_date": "2026-03-02", "last_miss_date": "2026-03-03"},
    }

    def seed(session: Any) -> dict[str, Any]:
        session.add_all([
            Participant(id="p-ana", phone=ANA_PHONE, name=ANA_NAME, timezone="America/Toronto",
                        enrolled_at=T0, updated_at=T0, arm="coach", strata={"site": "toronto"}, day_one="2026-03-02",
                        extra_days=2),
            Participant(id="p-ravi", phone=RAVI_PHONE, name=RAVI_NAME, timezone="Asia/Kolkata", status="paused",
                        paused_by="participant", opted_out=True, enrolled_at=T0 + timedelta(hours=1), updated_at=T0,
                        erased_at=ERASED_AT, erased_by="Dr. Lee", arm="fixed_text",
                        strata={"site": "montreal", "shift": "night"}, day_one="2026-03-03"),
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
        consents = [
            ConsentEvent(participant_id="p-ana", event="enrolled", source="researcher", actor="Dr. Lee",
                         words="consent form signed", created_at=T0),
            ConsentEvent(participant_id="p-ravi", event="opted_out", source="participant", words="STOP",
                         created_at=T0 + timedelta(hours=3)),
        ]
        session.add_all(consents)
        flags = [
            Flag(participant_id="p-ana", source="screen", severity="high", trigger="hopeless",
                 message_id=messages[0].id, status="resolved", resolved_at=T0 + timedelta(hours=1),
                 resolved_by="Dr. Lee", resolution_note="called back, safe", alert_status="sent",
                 created_at=T0 + timedelta(minutes=2)),
            Flag(participant_id="p-ravi", source="model", severity="low", trigger="said they feel low",
                 created_at=T0 + timedelta(hours=2)),
        ]
        session.add_all(flags)
        session.add_all(study_rows())
        session.flush()
        session.add_all(decision_rows(deliveries))
        return {
            "messages": [m.id for m in messages], "deliveries": [d.id for d in deliveries],
            "transitions": [t.id for t in transitions], "tones": [t.id for t in tones],
            "consent": [c.id for c in consents], "flags": [f.id for f in flags],
        }

    return await db.run(seed)


def study_rows() -> list[Any]:
    """Two protocol versions (the second an allowed change), the secret seed, and receipts for
    Ana's first prompt poll."""
    h1, h2 = (hashlib.sha256(text.encode()).hexdigest() for text in (STUDY_V1, STUDY_V2))
    return [
        StudyProtocol(name="Walking pilot", hash=h1, contents=STUDY_V1, previous_hash=None,
                      adopted_at=T0 - timedelta(days=3), adopted_by="first use (Dr. Lee)"),
        StudyProtocol(name="Walking pilot", hash=h2, contents=STUDY_V2, previous_hash=h1,
                      adopted_at=T0 - timedelta(days=1), adopted_by="allowed change (Dr. Lee)"),
        StudySecret(name="seed", value=SEED_HEX, created_at=T0 - timedelta(days=3)),
        Receipt(wa_message_id="wa-poll-1", kind="delivered", at=T0 + timedelta(minutes=2), received_at=T0),
        Receipt(wa_message_id="wa-poll-1", kind="read", at=T0 + timedelta(minutes=3), received_at=T0),
    ]


def decision_rows(deliveries: list[PromptDelivery]) -> list[Decision]:
    """Ana: an unavailable day before day one (stored last, so its id is the highest), two sent
    prompts (a vote each) and a no_send; Ravi: a sent prompt that got only a reminder, and a day
    he was paused. Deliveries 3 (sent by hand) and 5 have no decision point."""
    def point(pid: str, inbox_id: int, day: int | None, local_date: str, at: datetime, zone: ZoneInfo,
              **values: Any) -> Decision:
        arm = "coach" if pid == "p-ana" else "fixed_text"
        return Decision(participant_id=pid, inbox_id=inbox_id, schedule_id="s1" if pid == "p-ana" else "s2", arm=arm,
                        study_day=day, local_date=local_date, scheduled_for=at, decided_at=at,
                        local_time=at.astimezone(zone).isoformat(timespec="seconds"), timezone=zone.key,
                        **{"available": True, "action": "send", "probability": 0.6,
                           "seed_ref": f"decision:prompt:{pid}:{local_date}", **values})

    done = deliveries[0]
    personalised = {"prompt_style": "personalised", "model": "gpt-test", "system_prompt_hash": PROMPT_HASH}
    return [
        point("p-ana", 1, 1, "2026-03-02", T0, TORONTO, draw=0.25, prompt_message_id=done.prompt_message_id,
              **personalised),
        point("p-ravi", 4, 1, "2026-03-03", T0 + timedelta(days=1), KOLKATA, draw=0.5, prompt_style="fixed"),
        point("p-ana", 2, 2, "2026-03-03", T0 + timedelta(days=1), TORONTO, draw=0.125, **personalised),
        point("p-ana", 91, 3, "2026-03-04", T0 + timedelta(days=2, hours=1), TORONTO, draw=0.875, action="no_send"),
        point("p-ravi", 92, 2, "2026-03-04", T0 + timedelta(days=2), KOLKATA, available=False,
              unavailable_reason="paused", action="none", probability=None, seed_ref=""),
        point("p-ana", 90, 0, "2026-03-01", T0 - timedelta(days=1), TORONTO, available=False,
              unavailable_reason="not_in_study", action="none", probability=None, seed_ref=""),
    ]


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which open() would give 0644 and mkdir 0755."""
    old = os.umask(0o022)
    yield
    os.umask(old)


# ---------------------------------------------------------------- CSV

async def test_csv_export_row_by_row(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "new" / "export"  # created, parents too
    result = await export_study(db, out, ExportOptions(fmt="csv", chunk_size=2))  # several chunks per table
    assert result.rows == {"participants": 2, "messages": 4, "deliveries": 5, "decisions": 6, "transitions": 2,
                           "tone_changes": 1, "consent": 2, "flags": 2, "questionnaire_instances": 0,
                           "questionnaire_answers": 0}
    assert list(FILE_NAMES) == STUDY_FILES and result.key_file is None and result.warnings == []
    assert sorted(p.name for p in out.iterdir()) == export_names("csv")  # no temp left
    assert result.companions == [out / "study.json", out / "codebook.csv", out / "README.md",
                                 out / "questionnaire_items.csv"]

    columns, participants = read_csv(out / "participants.csv")
    assert columns == PARTICIPANT_COLUMNS
    ana, ravi = participants
    assert ana["id"] == "p-ana" and "phone" not in ana and "name" not in ana
    assert (ana["status"], ana["paused_by"], ana["sub_state"]) == ("active", "", "FEEDBACK")
    assert (ana["opted_out"], ana["researcher_paused"], ana["erased_at_utc"], ana["erased_at_local"]) == \
        ("false", "false", "", "")
    assert (ravi["opted_out"], ravi["researcher_paused"]) == ("true", "false")
    assert (ravi["erased_at_utc"], ravi["erased_at_local"]) == (utc(ERASED_AT), "2026-03-11T18:30:00+05:30")
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
    assert all(ravi[field] == "" for field in HABIT_FIELDS)
    # The study: arm, study day 1, extension and one column per enrollment field (the protocol's first).
    assert [(p["arm"], p["day_one"], p["extra_days"]) for p in participants] == [
        ("coach", "2026-03-02", "2"), ("fixed_text", "2026-03-03", "0")]
    assert [(p["stratum_site"], p["stratum_shift"]) for p in participants] == [("toronto", ""), ("montreal", "night")]
    assert (ana["completed_at_utc"], ana["completed_at_local"]) == ("", "")

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
    assert (vote["poll_purpose"], vote["vote_chosen"], vote["vote_source"], vote["handled_as"], vote["poll_options"]) \
        == ("done", "Done", "tap", "counted", "")
    assert json.loads(vote["payload"])["known_poll"] is True
    assert namaste["participant_id"] == "p-ravi" and namaste["handled_as"] == ""
    assert namaste["created_at_local"] == local(T0 + timedelta(hours=2), KOLKATA) == "2026-03-02T20:30:00+05:30"

    columns, deliveries = read_csv(out / "deliveries.csv")
    assert columns == DELIVERY_COLUMNS
    assert [int(d["id"]) for d in deliveries] == study["deliveries"]
    assert [d["outcome"] for d in deliveries] == [
        "done", "not_this_time", "free_text_reply", "reminder_sent", "no_reply"]
    assert [d["reminder_sent"] for d in deliveries] == ["false", "false", "false", "true", "false"]
    # Each prompt's own receipts (only the first prompt's poll has any).
    assert [(d["delivered_at_utc"], d["read_at_utc"]) for d in deliveries] == [
        (utc(T0 + timedelta(minutes=2)), utc(T0 + timedelta(minutes=3)))] + [("", "")] * 4
    done, miss, reply, reminded, silent = deliveries
    assert (done["schedule_id"], done["local_date"], done["vote"], done["vote_changes"]) == (
        "s1", "2026-03-02", "done", "1")
    assert done["poll_message_id"] == str(study["messages"][1]) and miss["poll_message_id"] == ""
    assert (done["sent_at_utc"], done["sent_at_local"]) == (utc(T0), "2026-03-02T08:00:00-05:00")
    assert done["voted_at_local"] == local(T0 + timedelta(minutes=5), TORONTO)
    assert reply["schedule_id"] == "" and reply["replied_at_local"] == local(T0 + timedelta(days=2, minutes=3), TORONTO)
    assert reply["voted_at_utc"] == "" and reply["vote"] == ""
    assert reminded["reminder_at_utc"] == utc(T0 + timedelta(days=1, hours=1))
    assert (reminded["reminder_at_local"] == local(T0 + timedelta(days=1, hours=1), KOLKATA)
            == "2026-03-03T19:30:00+05:30")
    assert (silent["vote"], silent["replied_at_utc"], silent["reminder_at_utc"],
            silent["vote_changes"]) == ("", "", "", "0")

    columns, transitions = read_csv(out / "transitions.csv")
    assert columns == TRANSITION_COLUMNS
    assert [int(t["id"]) for t in transitions] == study["transitions"]
    assert [(t["participant_id"], t["kind"], t["name"], t["from_value"], t["to_value"], t["reason"])
            for t in transitions] == [
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

    columns, consent = read_csv(out / "consent.csv")
    assert columns == CONSENT_COLUMNS
    assert [int(c["id"]) for c in consent] == study["consent"]
    enrolled, stop = consent
    assert (enrolled["participant_id"], enrolled["event"], enrolled["source"], enrolled["actor"],
            enrolled["words"]) == ("p-ana", "enrolled", "researcher", "Dr. Lee", "consent form signed")
    assert (enrolled["at_utc"], enrolled["at_local"]) == (utc(T0), "2026-03-02T08:00:00-05:00")
    assert (stop["participant_id"], stop["event"], stop["source"], stop["actor"], stop["words"]) == \
        ("p-ravi", "opted_out", "participant", "", "STOP")
    assert stop["at_local"] == local(T0 + timedelta(hours=3), KOLKATA) == "2026-03-02T21:30:00+05:30"

    columns, flags = read_csv(out / "flags.csv")
    assert columns == FLAG_COLUMNS
    assert [int(f["id"]) for f in flags] == study["flags"]
    resolved, open_flag = flags
    assert (resolved["participant_id"], resolved["source"], resolved["severity"], resolved["trigger"],
            resolved["status"], resolved["resolved_by"], resolved["resolution_note"], resolved["alert_status"]) == \
        ("p-ana", "screen", "high", "hopeless", "resolved", "Dr. Lee", "called back, safe", "sent")
    assert resolved["at_local"] == local(T0 + timedelta(minutes=2), TORONTO) == "2026-03-02T08:02:00-05:00"
    assert (resolved["resolved_at_utc"], resolved["resolved_at_local"]) == \
        (utc(T0 + timedelta(hours=1)), "2026-03-02T09:00:00-05:00")
    assert (open_flag["participant_id"], open_flag["severity"], open_flag["status"], open_flag["resolved_at_utc"],
            open_flag["resolved_by"], open_flag["resolution_note"], open_flag["alert_status"]) == \
        ("p-ravi", "low", "open", "", "", "", "none")
    assert open_flag["at_local"] == local(T0 + timedelta(hours=2), KOLKATA)


async def test_csv_quotes_only_where_needed(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    await export_study(db, tmp_path / "out")
    raw = (tmp_path / "out" / "messages.csv").read_bytes().decode("utf-8")
    assert raw.startswith("id,participant_id,direction,")
    assert '"Walked 2km, then ""rested""\nsecond line 🏃‍♀️ done"' in raw
    assert ",Namaste," in raw  # a plain text is not quoted


# ---------------------------------------------------------------- JSONL

async def test_jsonl_export_keeps_types(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = await export_study(db, out, ExportOptions(fmt="jsonl"))
    assert result.rows["messages"] == 4 and result.rows["consent"] == 2 and result.rows["flags"] == 2
    assert sorted(p.name for p in out.iterdir()) == export_names("jsonl")

    ana, ravi = read_jsonl(out / "participants.jsonl")
    assert list(ana) == PARTICIPANT_COLUMNS
    assert ana["tone_active"] == ["concise", "warm"] and ravi["tone_active"] == []
    assert ana["prompts_sent"] == 5 and ravi["prompts_sent"] == 0 and ravi["best_streak"] == 0
    assert ana["paused_by"] is None and ravi["last_success_date"] is None and ravi["habit_domain"] is None
    assert ravi["enrolled_at_local"] == local(T0 + timedelta(hours=1), KOLKATA)
    assert ana["opted_out"] is False and ravi["opted_out"] is True and ravi["researcher_paused"] is False
    assert ana["erased_at_utc"] is None and ravi["erased_at_utc"] == utc(ERASED_AT)

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
    assert [d["outcome"] for d in deliveries] == [
        "done", "not_this_time", "free_text_reply", "reminder_sent", "no_reply"]
    assert deliveries[0]["vote_changes"] == 1 and deliveries[0]["prompt_message_id"] == study["messages"][1]
    assert deliveries[2]["schedule_id"] is None and deliveries[4]["vote"] is None

    transitions = read_jsonl(out / "transitions.jsonl")
    assert [t["id"] for t in transitions] == study["transitions"] and list(transitions[0]) == TRANSITION_COLUMNS

    [tone] = read_jsonl(out / "tone_changes.jsonl")
    assert list(tone) == TONE_COLUMNS
    assert tone["proposed"] == ["concise", "sarcastic"] and tone["active_before"] == []
    assert tone["scores"] == {"concise": 0.8}

    consent = read_jsonl(out / "consent.jsonl")
    assert [list(c) for c in consent] == [CONSENT_COLUMNS] * 2
    assert [c["id"] for c in consent] == study["consent"] and consent[1]["words"] == "STOP"
    flags = read_jsonl(out / "flags.jsonl")
    assert [list(f) for f in flags] == [FLAG_COLUMNS] * 2
    assert flags[0]["resolved_by"] == "Dr. Lee" and flags[1]["resolved_at_utc"] is None
    assert flags[1]["resolved_by"] is None and flags[1]["resolution_note"] == ""


# ---------------------------------------------------------------- overwriting, progress, the CLI

async def test_refuses_to_overwrite_without_force(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "deliveries.csv").write_text("an earlier export\n")
    with pytest.raises(AdminError, match=r"already has deliveries\.csv; nothing was written.*--force"):
        await export_study(db, out)
    assert files(out) == {"deliveries.csv": "an earlier export\n"}  # nothing else written, nothing changed

    await export_study(db, out, ExportOptions(fmt="jsonl"))  # another format: no conflict
    before = files(out)
    await db.run(lambda s: s.add(Message(participant_id="p-ravi", direction="in", role="user", text="later",
                                         status="received", created_at=T0 + timedelta(days=5))))
    with pytest.raises(AdminError, match=re.escape("already has participants.jsonl, messages.jsonl")):
        await export_study(db, out, ExportOptions(fmt="jsonl"))
    assert files(out) == before

    result = await export_study(db, out, ExportOptions(force=True))
    assert result.rows["messages"] == 5 and result.rows["deliveries"] == 5
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
    total = 2 + 4 + 5 + 6 + 2 + 1 + 2 + 2
    stream = io.StringIO()
    await export_study(db, tmp_path / "small", ExportOptions(progress=stream, progress_threshold=total + 1))
    assert stream.getvalue() == ""

    stream = io.StringIO()
    await export_study(db, tmp_path / "large", ExportOptions(progress=stream, progress_threshold=total, chunk_size=3))
    shown = stream.getvalue()
    assert "100%" in shown and f"{total}/{total}" in shown and "rows" in shown, shown


async def test_a_failed_export_leaves_no_files(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptpipe.export import files as export

    def broken(row: Any, zones: Any) -> dict[str, Any]:
        raise RuntimeError("disk on fire")

    tables = tuple(export._Table(t.name, t.model, t.columns, broken) if t.name == "transitions" else t
                   for t in export.TABLES)
    monkeypatch.setattr(export, "TABLES", tables)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="disk on fire"):
        await export_study(db, out)
    assert list(out.iterdir()) == []  # neither finished files nor temporary ones


async def test_a_large_file_written_by_its_own_process_is_the_same(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker imports for a second before it writes, so this process takes the file's last
    rows (a sixth) once its own files are done; the file reads as if written in one go. (One test
    for both: each export in worker processes costs a second or two of CPU.)"""
    starts: list[tuple[str, str, int]] = []
    copy = export._copy

    async def spying_copy(db_: Any, table: Any, *args: Any) -> int:
        starts.append((fmt, table.name, args[5] if len(args) > 5 else 0))
        return await copy(db_, table, *args)

    for fmt in export.FORMATS:
        here = await export_study(db, tmp_path / f"here-{fmt}", ExportOptions(fmt=fmt, chunk_size=3))
        with monkeypatch.context() as spied:
            spied.setattr(export, "_copy", spying_copy)
            apart = await export_study(db, tmp_path / f"apart-{fmt}",
                                       ExportOptions(fmt=fmt, chunk_size=3, worker_rows=0))
        assert apart.rows == here.rows and list(apart.rows) == list(FILE_NAMES)
        for name in FILE_NAMES:
            path = f"{name}.{fmt}"
            assert (tmp_path / f"apart-{fmt}" / path).read_bytes() == (tmp_path / f"here-{fmt}" / path).read_bytes()
        assert stat.S_IMODE((tmp_path / f"apart-{fmt}" / f"messages.{fmt}").stat().st_mode) == 0o600
        assert not list((tmp_path / f"apart-{fmt}").glob(".*.tmp"))
    tail = [after for fmt, name, after in starts if fmt == "csv" and name == "messages"]
    assert len(tail) == 1 and tail[0] > 0  # the worker wrote the rows up to that id, this process the rest


async def test_a_failed_worker_process_fails_the_export_and_leaves_no_files(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = export._temp

    def taken(out: Path, name: str, file_name: str, temps: dict[str, Path]) -> Path:
        temp = made(out, name, file_name, temps)
        if name == "messages":  # the worker refuses to write over a file it did not create
            temp.write_text("someone else's")
        return temp

    monkeypatch.setattr(export, "_temp", taken)
    out = tmp_path / "out"
    with pytest.raises(AdminError, match=r"the export of messages failed in its own process \(FileExistsError"):
        await export_study(db, out, ExportOptions(worker_rows=0))
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
        "decisions.jsonl: 6 rows", "transitions.jsonl: 2 rows", "tone_changes.jsonl: 1 row", "consent.jsonl: 2 rows",
        "flags.jsonl: 2 rows", "questionnaire_instances.jsonl: 0 rows", "questionnaire_answers.jsonl: 0 rows",
        "study.json: the protocol as run, its changes, the software and the model",
        "codebook.csv: every column of every file explained", "README.md: the codebook, to read",
        "questionnaire_items.csv: each questionnaire item's type, range and coded options", f"written to {out}",
    ]
    assert len(read_jsonl(out / "messages.jsonl")) == 4
    assert not (out / "identifiers.jsonl").exists()

    assert admin_main(["export", "--out", str(out), "--format", "jsonl"]) == 1
    _, err = capsys.readouterr()
    assert "already has participants.jsonl" in err and err.count("\n") == 1
    assert admin_main(["export", "--out", str(out), "--format", "jsonl", "--force", "--include-identifiers"]) == 0
    printed, err = capsys.readouterr()
    assert printed.splitlines()[-2:] == [
        "identifiers.jsonl: 2 rows (the key to phone numbers and names: keep it apart from the data)",
        f"written to {out}",
    ]
    assert err == ""  # the directory the export created is private: nothing to warn about
    assert [row["phone"] for row in read_jsonl(out / "identifiers.jsonl")] == [ANA_PHONE, RAVI_PHONE]

    loose = tmp_path / "shared"
    loose.mkdir()
    loose.chmod(0o755)
    assert admin_main(["export", "--out", str(loose)]) == 0
    printed, err = capsys.readouterr()
    assert printed.splitlines()[-1] == f"written to {loose}" and "identifiers" not in printed
    assert err.splitlines() == [f"warning: {loose} has mode 0755: other users on this machine can list it "
                                f"(the files themselves are 0600); consider chmod 700 {loose}"]

    with pytest.raises(SystemExit):
        admin_main(["export", "--out", str(out), "--format", "xlsx"])
    assert "invalid choice: 'xlsx'" in capsys.readouterr().err


# ---------------------------------------------------------------- pseudonymised by default

IDENTIFYING = [ANA_PHONE, "14165550101", "4165550101", "555-0101", ANA_NAME, "Ana", "walker",
               RAVI_PHONE, "14165550102", "4165550102", RAVI_NAME]


async def seed_identifying_texts(db: Database) -> None:
    """Texts that name the participant or give their number, as greetings and replies do."""
    def seed(session: Any) -> None:
        session.add_all([
            Message(participant_id="p-ana", direction="out", role="assistant", kind="greeting",
                    text="Hi Ana! Welcome to the study.", status="sent", created_at=T0 + timedelta(minutes=20)),
            Message(participant_id="p-ana", direction="in", role="user", kind="text",
                    text='Text me at (416) 555-0101 or +1 416 555 0101, signed ana, "the walker"',
                    payload={"original_text_b64": "SGkgQW5h"},  # "Hi Ana"
                    status="answered", created_at=T0 + timedelta(minutes=21)),
            Message(participant_id="p-ravi", direction="out", role="assistant", kind="text",
                    text="Good morning Ravi", payload={"options": ["Ravi: done", "Not this time"]},
                    status="sent", created_at=T0 + timedelta(minutes=22)),
            Transition(participant_id="p-ravi", kind="status", name="researcher_pause", from_value="paused",
                       to_value="paused", reason="Ravi is travelling, call +14165550102 later",
                       created_at=T0 + timedelta(minutes=23)),
            ConsentEvent(participant_id="p-ana", event="opted_in", source="participant", words="START - Ana",
                         created_at=T0 + timedelta(minutes=24)),
            Flag(participant_id="p-ravi", source="model", severity="medium", trigger="Ravi said he feels alone",
                 created_at=T0 + timedelta(minutes=25)),
        ])
        conversation = session.get(Conversation, "p-ana")
        conversation.profile = {**conversation.profile, "additional_info": "Ana's kids walk with her"}

    await db.run(seed)


async def test_export_is_pseudonymised_by_default(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    await seed_identifying_texts(db)
    for fmt in ("csv", "jsonl"):
        out = tmp_path / fmt
        result = await export_study(db, out, ExportOptions(fmt=fmt))
        assert result.key_file is None
        assert sorted(p.name for p in out.iterdir()) == export_names(fmt)
        for path in out.iterdir():
            data = path.read_bytes()
            for needle in IDENTIFYING:
                assert needle.encode() not in data, f"{needle!r} is in {path.name}"

    # Participants are known by id only; their own number and name in texts became marks.
    columns, participants = read_csv(tmp_path / "csv" / "participants.csv")
    assert "phone" not in columns and "name" not in columns and [p["id"] for p in participants] == ["p-ana", "p-ravi"]
    assert participants[0]["additional_info"] == "[name]'s kids walk with her"
    messages = {m["text"]: m for m in read_csv(tmp_path / "csv" / "messages.csv")[1]}
    assert "Hi [name]! Welcome to the study." in messages
    assert "Text me at [phone] or [phone], signed [name]" in messages
    assert "Good morning [name]" in messages and messages["Good morning [name]"]["poll_options"] == \
        "[name]: done;Not this time"
    assert "Namaste" in messages and TRICKY_TEXT in messages  # other texts are untouched
    jsonl = {m["text"]: m for m in read_jsonl(tmp_path / "jsonl" / "messages.jsonl")}
    assert jsonl["Text me at [phone] or [phone], signed [name]"]["payload"] == \
        {"original_text_b64": "SGkgW25hbWVd"}  # "Hi [name]"
    _, transitions = read_csv(tmp_path / "csv" / "transitions.csv")
    assert transitions[-1]["reason"] == "[name] is travelling, call [phone] later"
    _, consent = read_csv(tmp_path / "csv" / "consent.csv")
    assert consent[-1]["words"] == "START - [name]" and consent[0]["actor"] == "Dr. Lee"  # staff stay named
    _, flags = read_csv(tmp_path / "csv" / "flags.csv")
    assert flags[-1]["trigger"] == "[name] said he feels alone"


async def test_include_identifiers_writes_the_key_apart(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = await export_study(db, out, ExportOptions(include_identifiers=True))
    assert result.key_file == out / "identifiers.csv" and result.key_rows == 2
    assert "identifiers" not in result.rows  # the study files are reported as before
    assert sorted(p.name for p in out.iterdir()) == export_names("csv", "identifiers")
    columns, key = read_csv(out / "identifiers.csv")
    assert columns == ["participant_id", "phone", "name"]
    # Phone numbers stay plain E.164 (no spreadsheet quote): the key joins on them as they are.
    assert key == [
        {"participant_id": "p-ana", "phone": ANA_PHONE, "name": ANA_NAME},
        {"participant_id": "p-ravi", "phone": RAVI_PHONE, "name": RAVI_NAME},
    ]
    for name in STUDY_FILES:  # the study data itself stays pseudonymised
        data = (out / f"{name}.csv").read_bytes()
        assert ANA_PHONE.encode() not in data and b"Ravi" not in data and b"Ana" not in data

    await export_study(db, out, ExportOptions(fmt="jsonl", include_identifiers=True))
    assert read_jsonl(out / "identifiers.jsonl") == [
        {"participant_id": "p-ana", "phone": ANA_PHONE, "name": ANA_NAME},
        {"participant_id": "p-ravi", "phone": RAVI_PHONE, "name": RAVI_NAME},
    ]

    # An earlier key file is never overwritten without --force ...
    (out / "identifiers.csv").write_text("kept\n")
    for name in STUDY_FILES:
        (out / f"{name}.csv").unlink()
    with pytest.raises(AdminError, match=r"already has identifiers\.csv; nothing was written"):
        await export_study(db, out, ExportOptions(include_identifiers=True))
    assert not (out / "participants.csv").exists()
    # ... and an export without the flag leaves it alone, with a warning that it is there.
    result = await export_study(db, out)
    assert (out / "identifiers.csv").read_text() == "kept\n" and result.key_file is None
    assert len(result.warnings) == 2 and all("links participant ids to phone numbers" in w for w in result.warnings)
    assert {w.split(" ", 1)[0] for w in result.warnings} == {
        str(out / "identifiers.csv"), str(out / "identifiers.jsonl")}
    await export_study(db, out, ExportOptions(include_identifiers=True, force=True))
    assert read_csv(out / "identifiers.csv")[1][0]["participant_id"] == "p-ana"


# ---------------------------------------------------------------- spreadsheets: formulas and NULs

FORMULAS = {
    "hyperlink": '=HYPERLINK("http://x","y")', "dde": "=cmd|' /C calc'!A0", "plus": "+1", "minus": "-2",
    "at": "@SUM(1)", "tab": "\tTab first", "cr": "\rCR first",
}


async def test_csv_neutralises_formulas_and_drops_nuls(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    nul = db.is_sqlite  # PostgreSQL refuses NUL in text and JSON, so only SQLite can hold one
    def seed(session: Any) -> None:
        session.add(Message(participant_id="p-ana", direction="in", role="user", kind="text",
                            text=FORMULAS["hyperlink"], status="answered", created_at=T0 + timedelta(minutes=40)))
        session.add(Message(participant_id="p-ana", direction="out", role="assistant", kind="poll",
                            text="\x00=NUL first" if nul else "=NUL first", status="sent",
                            payload={"options": ["-5 min", "Done"], "purpose": "intensity"},
                            created_at=T0 + timedelta(minutes=41)))
        session.add(Transition(participant_id="p-ana", kind="status", name="note", to_value="active",
                               reason=FORMULAS["at"], created_at=T0 + timedelta(minutes=42)))
        session.add(ConsentEvent(participant_id="p-ana", event="paused", source="researcher", actor="+staff",
                                 words=FORMULAS["tab"], created_at=T0 + timedelta(minutes=43)))
        session.add(Flag(participant_id="p-ana", source="model", severity="low", trigger=FORMULAS["cr"],
                         resolution_note="a=b, -c mid-text", created_at=T0 + timedelta(minutes=44)))
        conversation = session.get(Conversation, "p-ana")
        conversation.profile = {**conversation.profile, "additional_info": FORMULAS["dde"],
                                "habit_domain": FORMULAS["plus"], "prompt_anchor": FORMULAS["minus"],
                                "last_tweak": "nul\x00inside" if nul else "nulinside"}

    await db.run(seed)
    out = tmp_path / "out"
    await export_study(db, out)
    for path in out.iterdir():
        assert b"\x00" not in path.read_bytes(), path.name

    def quoted(text: str) -> str:
        return "'" + text

    _, participants = read_csv(out / "participants.csv")
    ana = participants[0]
    assert ana["additional_info"] == quoted("=cmd|' /C calc'!A0")
    assert (ana["habit_domain"], ana["prompt_anchor"]) == (quoted("+1"), quoted("-2"))
    assert ana["last_tweak"] == "nulinside" and ana["preferred_time"] == "08:00"  # ordinary texts unchanged
    assert ana["prompts_sent"] == "5"  # numbers are not texts

    _, messages = read_csv(out / "messages.csv")
    hyperlink, poll = messages[-2:]
    assert hyperlink["text"] == quoted('=HYPERLINK("http://x","y")')
    assert poll["text"] == quoted("=NUL first")  # the NUL removed first, then the = neutralised
    assert poll["poll_options"] == quoted("-5 min;Done")  # a list cell is one cell
    assert json.loads(poll["payload"])["options"] == ["-5 min", "Done"]  # JSON objects start with {
    assert messages[0]["text"] == TRICKY_TEXT
    _, transitions = read_csv(out / "transitions.csv")
    assert transitions[-1]["reason"] == quoted("@SUM(1)")
    _, consent = read_csv(out / "consent.csv")
    assert (consent[-1]["words"], consent[-1]["actor"]) == (quoted("\tTab first"), quoted("+staff"))
    _, flags = read_csv(out / "flags.csv")
    assert flags[-1]["trigger"] == quoted("\rCR first") and flags[-1]["resolution_note"] == "a=b, -c mid-text"

    # JSONL keeps every text exactly (no quote), and still has no raw NUL.
    await export_study(db, out, ExportOptions(fmt="jsonl"))
    jsonl_ana = read_jsonl(out / "participants.jsonl")[0]
    assert (jsonl_ana["additional_info"], jsonl_ana["habit_domain"], jsonl_ana["prompt_anchor"]) == \
        (FORMULAS["dde"], "+1", "-2")
    assert jsonl_ana["last_tweak"] == ("nul\x00inside" if nul else "nulinside")  # escaped as \u0000 on disk
    assert read_jsonl(out / "messages.jsonl")[-2]["text"] == FORMULAS["hyperlink"]
    assert read_jsonl(out / "flags.jsonl")[-1]["trigger"] == "\rCR first"
    assert b"\x00" not in (out / "participants.jsonl").read_bytes()

    # Numbers stay numbers in CSV, negative ones too; the same texts get the quote.
    assert [csv_cell(v) for v in (-2, -1.5, 0, 3.25)] == [-2, -1.5, 0, 3.25]
    assert [csv_cell(v) for v in ("-2", "-1.5", "+1", "2")] == ["'-2", "'-1.5", "'+1", "2"]
    # A phone number in E.164 is no formula a spreadsheet could run: it stays as it is.
    assert [csv_cell(v) for v in ("+14165550101", "+1416555010x", "+1 416")] == \
        ["+14165550101", "'+1416555010x", "'+1 416"]


# ---------------------------------------------------------------- file modes

async def test_export_files_and_directories_are_private(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask_022: None
) -> None:
    temp_modes: list[int] = []
    copy = export._copy

    async def spying_copy(db_: Any, table: Any, *args: Any) -> int:
        temp_modes.extend(mode(p) for p in (tmp_path / "new").rglob(f".{table.name}.*.tmp"))
        return await copy(db_, table, *args)

    monkeypatch.setattr(export, "_copy", spying_copy)
    out = tmp_path / "new" / "export"
    result = await export_study(db, out, ExportOptions(include_identifiers=True))
    assert result.warnings == []
    assert mode(tmp_path / "new") == 0o700 and mode(out) == 0o700  # both made by the export
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == len(STUDY_FILES) + 1 + len(COMPANIONS) + len(version_files())
    assert all(mode(out / name) == 0o600 for name in names)
    assert temp_modes == [0o600] * (len(STUDY_FILES) + 1)  # private before the first byte was written

    # An earlier, world-readable file is replaced by a private one.
    (out / "messages.csv").chmod(0o644)
    await export_study(db, out, ExportOptions(fmt="csv", force=True))
    assert mode(out / "messages.csv") == 0o600

    # An existing private directory is used as it is, without a warning.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    assert (await export_study(db, private, ExportOptions(fmt="jsonl"))).warnings == []
    assert all(mode(p) == 0o600 for p in private.iterdir())


async def test_a_directory_other_users_can_read_is_left_alone_with_a_warning(
    db: Database, study: dict[str, Any], tmp_path: Path, umask_022: None
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    result = await export_study(db, shared)
    assert mode(shared) == 0o755  # maybe a home directory or /tmp: not ours to change
    assert result.warnings == [f"{shared} has mode 0755: other users on this machine can list it "
                               f"(the files themselves are 0600); consider chmod 700 {shared}"]
    assert all(mode(p) == 0o600 for p in shared.iterdir())


# ---------------------------------------------------------------- decision points and the protocol

async def test_decisions_one_row_per_decision_point_with_its_proximal_outcome(
    db: Database, study: dict[str, Any], tmp_path: Path
) -> None:
    def answer_by_writing_first(session: Any) -> None:  # Ana wrote 4 minutes in, then voted "not this time"
        session.get(PromptDelivery, study["deliveries"][1]).replied_at = T0 + timedelta(days=1, minutes=4)

    await db.run(answer_by_writing_first)
    out = tmp_path / "out"
    # Ana's four decision points are read whole all the same
    result = await export_study(db, out, ExportOptions(chunk_size=2))
    assert result.rows["decisions"] == 6
    columns, rows = read_csv(out / "decisions.csv")
    assert columns == DECISION_COLUMNS
    # Ordered by participant, then time: the point stored last (the day before day one) comes first.
    assert [(r["participant_id"], r["decision_index"], r["local_date"], r["study_day"]) for r in rows] == [
        ("p-ana", "1", "2026-03-01", "0"), ("p-ana", "2", "2026-03-02", "1"), ("p-ana", "3", "2026-03-03", "2"),
        ("p-ana", "4", "2026-03-04", "3"), ("p-ravi", "1", "2026-03-03", "1"), ("p-ravi", "2", "2026-03-04", "2")]
    before, done, miss, held_back, reminded, paused = rows

    # A prompt that went out: its vote, receipts and how long the answer took.
    assert (done["available"], done["unavailable_reason"], done["action"], done["action_treatment"]) == \
        ("true", "", "send", "1")
    assert (done["probability"], done["draw"], done["seed_ref"]) == ("0.6", "0.25", "decision:prompt:p-ana:2026-03-02")
    assert (done["arm"], done["prompt_style"], done["model"], done["system_prompt_hash"]) == \
        ("coach", "personalised", "gpt-test", PROMPT_HASH)
    assert (done["decided_at_utc"], done["decided_at_local"], done["timezone"], done["scheduled_for_utc"]) == \
        (utc(T0), "2026-03-02T08:00:00-05:00", "America/Toronto", utc(T0))
    assert (done["delivery_id"], done["prompt_sent"]) == (str(study["deliveries"][0]), "1")
    sent = T0 + timedelta(minutes=1, seconds=2)  # when WhatsApp took the prompt's message
    assert (done["sent_at_utc"], done["delivered_at_utc"], done["read_at_utc"]) == \
        (utc(sent), utc(T0 + timedelta(minutes=2)), utc(T0 + timedelta(minutes=3)))
    assert (done["vote"], done["voted_at_utc"], done["replied_at_utc"], done["first_answer_at_utc"]) == \
        ("done", utc(T0 + timedelta(minutes=5)), "", utc(T0 + timedelta(minutes=5)))
    assert (done["latency_s"], done["outcome"]) == (str(5 * 60 - 62), "done")
    # The first answer is the earlier of the reply and the vote; the outcome is coded as in deliveries.
    assert (miss["vote"], miss["first_answer_at_utc"], miss["latency_s"], miss["outcome"]) == \
        ("not_this_time", utc(T0 + timedelta(days=1, minutes=4)), "240", "not_this_time")
    assert miss["sent_at_utc"] == utc(T0 + timedelta(days=1))  # no transcript message: when it was queued
    assert (miss["delivered_at_utc"], miss["read_at_utc"], reminded["delivered_at_utc"]) == ("", "", "")
    assert (reminded["outcome"], reminded["latency_s"], reminded["first_answer_at_utc"], reminded["prompt_style"],
            reminded["model"]) == ("reminder_sent", "", "", "fixed", "")
    assert reminded["decided_at_local"] == local(T0 + timedelta(days=1), KOLKATA)

    # Randomised to hold the prompt back: the control action, nothing sent.
    assert (held_back["action"], held_back["action_treatment"], held_back["draw"], held_back["prompt_sent"],
            held_back["delivery_id"], held_back["outcome"]) == ("no_send", "0", "0.875", "0", "", "")
    # Unavailable: the coded reason, nothing drawn.
    for row, reason in ((before, "not_in_study"), (paused, "paused")):
        assert (row["available"], row["unavailable_reason"], row["action"], row["action_treatment"]) == \
            ("false", reason, "none", "")
        assert (row["probability"], row["draw"], row["seed_ref"], row["prompt_sent"], row["vote"], row["outcome"]) == \
            ("", "", "", "0", "", "")
    assert "Walk, after breakfast" not in (out / "decisions.csv").read_text(encoding="utf-8")  # never the texts

    await export_study(db, out, ExportOptions(fmt="jsonl"))
    points = read_jsonl(out / "decisions.jsonl")
    assert [list(p) for p in points] == [DECISION_COLUMNS] * 6
    assert [(p["available"], p["action_treatment"], p["prompt_sent"]) for p in points] == [
        (False, None, 0), (True, 1, 1), (True, 1, 1), (True, 0, 0), (True, 1, 1), (False, None, 0)]
    assert (points[1]["probability"], points[1]["draw"], points[1]["latency_s"]) == (0.6, 0.25, 238)


async def test_study_json_records_the_protocol_as_run_and_no_secret_is_exported(
    db: Database, study: dict[str, Any], tmp_path: Path
) -> None:
    prompts = {"intake": "intake prompt", "feedback": "feedback prompt",
               "prompt_generator": "the prompt generator's system prompt", "summary": "summary prompt"}
    out = tmp_path / "out"
    await export_study(db, out, ExportOptions(include_identifiers=True, model="gpt-test", system_prompts=prompts))
    document = json.loads((out / "study.json").read_text(encoding="utf-8"))
    h1, h2 = (hashlib.sha256(text.encode()).hexdigest() for text in (STUDY_V1, STUDY_V2))
    assert document["hash"] == h2 == document["study_file"]["hash"]  # the version in force
    assert document["study_file_text"] == STUDY_V2
    as_run = document["study_file"]
    assert (as_run["name"], as_run["length_days"], as_run["decision"]["p"]) == ("Walking pilot", 30, 0.6)
    assert [arm["name"] for arm in as_run["arms"]] == ["coach", "fixed_text"]
    assert as_run["allocation"] == {"block_sizes": [2], "strata": {"site": ["toronto", "montreal"]}}
    v1, v2 = f"study_protocol_v1_{h1[:12]}.toml", f"study_protocol_v2_{h2[:12]}.toml"
    assert document["changes"] == [
        {"name": "Walking pilot", "hash": h1, "previous_hash": None, "adopted_at": utc(T0 - timedelta(days=3)),
         "adopted_by": "first use (Dr. Lee)", "in_force_from": utc(T0 - timedelta(days=3)),
         "in_force_until": utc(T0 - timedelta(days=1)), "file": v1},
        {"name": "Walking pilot", "hash": h2, "previous_hash": h1, "adopted_at": utc(T0 - timedelta(days=1)),
         "adopted_by": "allowed change (Dr. Lee)", "in_force_from": utc(T0 - timedelta(days=1)),
         "in_force_until": None, "file": v2},
    ]
    # Every version's own text, so decisions made under the first one can be read against it.
    assert [(out / name).read_text(encoding="utf-8") for name in (v1, v2)] == [STUDY_V1, STUDY_V2]
    assert all(hashlib.sha256((out / name).read_bytes()).hexdigest() == digest for name, digest in ((v1, h1), (v2, h2)))
    assert document["model"] == "gpt-test"
    assert document["system_prompt_hashes"] == {name: hashlib.sha256(text.encode()).hexdigest()
                                                for name, text in prompts.items()}
    assert document["system_prompt_hashes"]["prompt_generator"] == PROMPT_HASH  # as the decision rows carry it
    assert document["software"] == {"name": "promptpipe", "version": importlib.metadata.version("promptpipe")}

    await export_study(db, out, ExportOptions(fmt="jsonl", include_identifiers=True, force=True))
    seed = await db.run(lambda session: session.get(StudySecret, "seed").value)
    assert seed == SEED_HEX
    assert len(list(out.iterdir())) == 2 * (len(STUDY_FILES) + 1) + len(COMPANIONS) + 2  # + the two versions
    for path in out.iterdir():
        data = path.read_bytes()
        assert seed.encode() not in data and seed.upper().encode() not in data, path.name
        assert bytes.fromhex(seed) not in data, path.name


async def test_without_a_study_file(db: Database, tmp_path: Path) -> None:
    await db.run(lambda session: session.add(Participant(
        id="p-solo", phone=ANA_PHONE, name="Solo", timezone="UTC", enrolled_at=T0, updated_at=T0)))
    out = tmp_path / "out"
    result = await export_study(db, out)
    assert result.rows["decisions"] == 0
    assert read_csv(out / "decisions.csv") == (DECISION_COLUMNS, [])
    columns, [solo] = read_csv(out / "participants.csv")
    assert not [c for c in columns if c.startswith("stratum_")] and (solo["arm"], solo["day_one"]) == ("", "")
    document = json.loads((out / "study.json").read_text(encoding="utf-8"))
    assert (document["study_file"], document["hash"], document["changes"], document["model"]) == (None, None, [], None)
    assert document["system_prompt_hashes"] == {}


async def test_a_completed_participant(db: Database, study: dict[str, Any], tmp_path: Path) -> None:
    done_at = datetime(2026, 4, 3, 4, 0, tzinfo=timezone.utc)  # local midnight in Toronto after day 32

    def complete(session: Any) -> None:
        ana = session.get(Participant, "p-ana")
        ana.status, ana.completed_at = "completed", done_at

    await db.run(complete)
    await export_study(db, tmp_path / "out")
    ana = read_csv(tmp_path / "out" / "participants.csv")[1][0]
    assert (ana["status"], ana["completed_at_utc"], ana["completed_at_local"]) == \
        ("completed", utc(done_at), "2026-04-03T00:00:00-04:00")


async def test_an_earlier_exports_documents_are_refreshed_but_other_files_are_not_overwritten(
    db: Database, study: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("# My own notes\n")
    with pytest.raises(AdminError, match=r"already has README\.md; nothing was written"):
        await export_study(db, out)
    assert [p.name for p in out.iterdir()] == ["README.md"]
    await export_study(db, out, ExportOptions(force=True))
    assert "# The study's data" in (out / "README.md").read_text(encoding="utf-8")

    (out / "codebook.csv").write_text("file,column\n")  # looks alike, but not written by an export
    with pytest.raises(AdminError, match=r"already has .*codebook\.csv"):
        await export_study(db, out, ExportOptions(fmt="jsonl"))
    await export_study(db, out, ExportOptions(force=True))
    # only the other format's files: the documents are ours
    result = await export_study(db, out, ExportOptions(fmt="jsonl"))
    assert [p.name for p in result.companions] == ["study.json", "codebook.csv", "README.md", "questionnaire_items.csv"]


async def test_an_export_killed_midway_leaves_nothing_behind_after_the_next_one(
    db: Database, study: dict[str, Any], tmp_path: Path
) -> None:
    """A kill skips every clean-up: its hidden partial files are removed by the next export into
    the same directory (never a half-written file under a real name)."""
    out = tmp_path / "export"
    out.mkdir(mode=0o700)
    stale = [out / ".messages.csv.0badc0de.tmp", out / ".study.json.12345678.tmp"]
    for path in stale:
        path.write_text("half a row,")
    unrelated = out / ".notes.txt"
    unrelated.write_text("someone else's")
    await export_study(db, out)
    assert not any(path.exists() for path in stale)
    assert unrelated.exists()
    assert not list(out.glob(".*.tmp"))


async def test_rows_are_formatted_off_the_event_loop(
    db: Database, study: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Formatting and pseudonymising a large export is CPU work: done on the loop it stalled the
    service (health answered 1.8 s late); it runs in a worker thread, chunk by chunk."""
    import threading

    from promptpipe.export import pseudonyms

    threads: set[int] = set()
    scrub = pseudonyms.People.scrub

    def recording_scrub(self: Any, participant_id: str, text: Any) -> Any:
        threads.add(threading.get_ident())
        return scrub(self, participant_id, text)

    monkeypatch.setattr(pseudonyms.People, "scrub", recording_scrub)
    await export_study(db, tmp_path / "export")
    assert threads and threading.get_ident() not in threads
