"""The export's ``…_local`` times are on the clock the participant was on at that moment: someone
enrolled in Toronto whom a researcher moves to Berlin mid-study has their earlier events at Toronto's
offsets and their later ones at Berlin's, in every file and format; the decisions keep the zone
each decision point recorded."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from promptpipe.export.files import ExportOptions, export_study
from promptpipe.export.pseudonyms import People
from promptpipe.storage.db import Database
from promptpipe.storage.models import ConsentEvent, Message, Participant, Transition
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

ENROLLED = datetime(2026, 3, 2, 14, 0, tzinfo=timezone.utc)
MOVED = datetime(2026, 3, 12, 12, 0, tzinfo=timezone.utc)
"""The researcher's change from America/Toronto to Europe/Berlin."""
WHEN = {  # 09:00 on the participant's clock at each moment, under each offset it had
    "-05:00": datetime(2026, 3, 3, 14, 0, tzinfo=timezone.utc),  # Toronto, standard time
    "-04:00": datetime(2026, 3, 10, 13, 0, tzinfo=timezone.utc),  # Toronto, summer time (from 8 March)
    "+01:00": datetime(2026, 3, 20, 8, 0, tzinfo=timezone.utc),  # Berlin, standard time
    "+02:00": datetime(2026, 3, 30, 7, 0, tzinfo=timezone.utc),  # Berlin, summer time (from 29 March)
}
NINE = {offset: f"{at.date().isoformat()}T09:00:00{offset}" for offset, at in WHEN.items()}
EVERY_FIVE = timedelta(minutes=5)


def _seed(session: Any) -> None:
    session.add(Participant(id="p-mia", phone="+14165550199", name="Mia", timezone="Europe/Berlin",
                            enrolled_at=ENROLLED, updated_at=MOVED, day_one="2026-03-03"))
    session.flush()
    session.add_all([
        Transition(participant_id="p-mia", kind="status", name="enrolled", from_value=None, to_value="active",
                   actor="researcher", reason="enrolled by a researcher", created_at=ENROLLED),
        Transition(participant_id="p-mia", kind="timezone", name="timezone_changed", from_value="America/Toronto",
                   to_value="Europe/Berlin", actor="researcher", reason="changed by a researcher", created_at=MOVED),
        ConsentEvent(participant_id="p-mia", event="enrolled", source="researcher", actor="Dr. Lee",
                     words="consent form signed", created_at=ENROLLED),
    ])
    for n, (offset, at) in enumerate(WHEN.items(), 1):
        local_date = at.date().isoformat()
        session.add(Message(participant_id="p-mia", direction="out", role="assistant", kind="text",
                            text=f"prompt {offset}", status="sent", created_at=at, sent_at=at))
        session.add(PromptDelivery(participant_id="p-mia", inbox_id=n, schedule_id="s1", local_date=local_date,
                                   prompt_text=f"prompt {offset}", sent_at=at, vote="done",
                                   voted_at=at + EVERY_FIVE))
        zone = "America/Toronto" if at < MOVED else "Europe/Berlin"
        session.add(Decision(participant_id="p-mia", inbox_id=n, schedule_id="s1", arm="coach", study_day=n,
                             local_date=local_date, scheduled_for=at, decided_at=at, local_time=NINE[offset],
                             timezone=zone, available=True, action="send", probability=0.5,
                             seed_ref=f"decision:prompt:p-mia:{local_date}"))
        instance = QuestionnaireInstance(participant_id="p-mia", questionnaire_id="mood", occasion=local_date,
                                         schedule_kind="daily", local_date=local_date, scheduled_at=at, sent_at=at,
                                         first_answer_at=at + EVERY_FIVE, ended_at=at + EVERY_FIVE,
                                         status="completed")
        session.add(instance)
        session.flush()
        session.add(QuestionnaireAnswer(instance_id=instance.id, participant_id="p-mia", item_id="mood", asked_at=at,
                                        answered_at=at + EVERY_FIVE, raw="4", coded="4", source="tap"))


def _rows(out: Path, name: str, fmt: str) -> list[dict[str, Any]]:
    path = out / f"{name}.{fmt}"
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    with path.open(encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream))


def _offsets(rows: list[dict[str, Any]], column: str) -> list[str]:
    return [row[column][-6:] for row in rows]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
async def test_local_times_are_in_the_zone_in_force_at_that_moment(db: Database, tmp_path: Path, fmt: str) -> None:
    await db.run(_seed)
    out = tmp_path / fmt
    await export_study(db, out, ExportOptions(fmt=fmt))
    offsets = list(WHEN)

    messages = _rows(out, "messages", fmt)
    assert [row["created_at_local"] for row in messages] == list(NINE.values())
    assert _offsets(messages, "sent_at_local") == offsets
    deliveries = _rows(out, "deliveries", fmt)
    assert [row["sent_at_local"] for row in deliveries] == list(NINE.values())
    assert [row["voted_at_local"][11:] for row in deliveries] == [f"09:05:00{offset}" for offset in offsets]
    answers = _rows(out, "questionnaire_answers", fmt)
    assert [row["asked_at_local"] for row in answers] == list(NINE.values())
    assert _offsets(answers, "answered_at_local") == offsets
    instances = _rows(out, "questionnaire_instances", fmt)
    for column in ("scheduled_at_local", "sent_at_local", "first_answer_at_local", "ended_at_local"):
        assert _offsets(instances, column) == offsets, column

    (mia,) = _rows(out, "participants", fmt)
    assert (mia["timezone"], mia["enrolled_at_local"]) == ("Europe/Berlin", "2026-03-02T09:00:00-05:00")
    assert _offsets(_rows(out, "consent", fmt), "at_local") == ["-05:00"]
    enrolled, moved = _rows(out, "transitions", fmt)
    assert (enrolled["at_local"], moved["at_local"]) == ("2026-03-02T09:00:00-05:00", "2026-03-12T13:00:00+01:00")

    readme, codebook = (out / "README.md").read_text(encoding="utf-8"), _rows(out, "codebook", "csv")
    assert "`..._local` on the participant's clock at\nthat moment" in readme
    assert {row["values"] for row in codebook if row["column"] == "created_at_local"} == {
        "ISO 8601 on the participant's clock at that moment (the zone they were in then) with its offset, "
        "e.g. 2026-03-02T08:00:00-05:00"}

    decisions = _rows(out, "decisions", fmt)  # as each decision point recorded them
    assert [(row["decided_at_local"], row["timezone"]) for row in decisions] == [
        (NINE["-05:00"], "America/Toronto"), (NINE["-04:00"], "America/Toronto"),
        (NINE["+01:00"], "Europe/Berlin"), (NINE["+02:00"], "Europe/Berlin")]


def test_zone_at_follows_each_change_and_starts_from_the_first_ones_previous_zone() -> None:
    first, second = datetime(2026, 3, 12, tzinfo=timezone.utc), datetime(2026, 5, 1, tzinfo=timezone.utc)
    people = People([("p-mia", "Asia/Tokyo", "", ""), ("p-ravi", "Asia/Kolkata", "", "")], changes=[
        ("p-mia", first, "America/Toronto", "Europe/Berlin"), ("p-mia", second, "Europe/Berlin", "Asia/Tokyo")])
    before, between, after = first - timedelta(days=1), first + timedelta(days=1), second + timedelta(days=1)
    assert [people.zone_at("p-mia", at).key for at in (before, first, between, second, after)] == [
        "America/Toronto", "Europe/Berlin", "Europe/Berlin", "Asia/Tokyo", "Asia/Tokyo"]
    assert people.zone_at("p-ravi", before).key == "Asia/Kolkata"  # never moved: the zone now
    assert people.zone_at("p-nobody", before).key == "UTC"
    assert people.zone("p-mia").key == "Asia/Tokyo"
