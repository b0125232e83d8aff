"""A whole study, simulated with the controllable clock: 50 participants in five time zones, two
arms (a personalised coach and fixed texts), a micro-randomised daily prompt, quiet hours at night,
28 study days. Every decision point has exactly one row, nobody gets a message in the quiet hours,
everyone completes after day 28, and the export's decision file loads with the codebook's types."""

from __future__ import annotations

import csv
from collections import Counter
from datetime import datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from promptpipe.storage.models import Message, Participant, Transition
from promptpipe.study.store.tables import Decision
from promptpipe.transport.base import PollVote, poll_option_hash
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, utc
from tests.study_helpers import enroll_walkers, with_study

STUDY = """
name = "Simulated walking study"
length_days = 28
fixed_prompts = ["Walk to the corner and back after lunch.", "Take the stairs once today.",
                 "Stand up and stretch when you finish a call."]

[quiet_hours]
start = "21:30"
end = "08:00"

[[arms]]
name = "coach"
reminder_delay = "13h"

[[arms]]
name = "fixed"
prompt_style = "fixed"
reminder_delay = "0"

[allocation]
block_size = 2

[decision]
actions = ["send", "no_send"]
p = 0.6
"""
ZONES = ("America/Toronto", "Europe/Berlin", "Asia/Kolkata", "Australia/Adelaide", "America/Los_Angeles")
PEOPLE = 50
QUIET_START, QUIET_END = time(21, 30), time(8, 0)


async def vote_on_new_polls(app, transport: MemoryTransport, answered: set[str]) -> None:  # type: ignore[no-untyped-def]
    """Every third participant taps "Done" on each "Did you do it?" poll, an hour after it came."""
    for item in transport.sent:
        if item.kind != "poll" or item.text != "Did you do it?" or item.message_id in answered:
            continue
        answered.add(item.message_id)
        if int(item.to.phone[-2:]) % 3 == 0:
            await transport.inject(item.to.phone, "", vote=PollVote(item.message_id, (poll_option_hash("Done"),)))


def in_quiet_hours(at_utc: datetime, zone: str) -> bool:
    local = at_utc.astimezone(ZoneInfo(zone)).time()
    return local >= QUIET_START or local < QUIET_END


@pytest.mark.long
async def test_a_28_day_study_runs_as_designed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    transport = MemoryTransport()
    app = await make_app(transport, **{**QUIET, **with_study(STUDY)})
    if "postgresql" in app.settings.database_url:
        pytest.skip("the flow is the same on both databases: SQLite keeps the suite inside CI's time")
    await enroll_walkers(app, fake_openai, [ZONES[n % len(ZONES)] for n in range(PEOPLE)])
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    answered: set[str] = set()
    end = utc(2026, 2, 5, 0, 0)  # Monday 5 January + 31 days: past day 28 in every zone
    while app.clock.now() < end:
        await at(app, app.clock.now() + timedelta(hours=1))
        await vote_on_new_polls(app, transport, answered)
        await app.run_until_idle()

    people = {p.id: p for p in await app.db.run(lambda s: s.execute(select(Participant)).scalars().all())}
    decisions = await app.db.run(lambda s: s.execute(select(Decision)).scalars().all())
    in_study = [d for d in decisions if d.study_day is not None and 1 <= d.study_day <= 28]
    per_day = Counter((d.participant_id, d.study_day) for d in in_study)
    assert set(per_day.values()) == {1} and len(per_day) == PEOPLE * 28  # one row per decision point
    available = [d for d in in_study if d.available]
    assert len(available) == PEOPLE * 28  # at 08:50 nobody is paused, in quiet hours or done already
    assert {d.probability for d in available} == {0.6}
    sends = sum(d.action == "send" for d in available) / len(available)
    assert 0.55 < sends < 0.65  # 1,400 draws at p = 0.6
    assert Counter(p.arm for p in people.values()) == {"coach": 25, "fixed": 25}

    outgoing = await app.db.run(lambda s: s.execute(
        select(Message.participant_id, Message.kind, Message.sent_at).where(Message.direction == "out")).all())
    late = [(pid, kind, sent) for pid, kind, sent in outgoing
            if kind != "greeting" and in_quiet_hours(sent, people[pid].timezone)]
    assert late == []
    assert Counter(kind for _, kind, _ in outgoing)["reminder"] > 0  # the coach arm's 13 h reminders came

    assert {p.status for p in people.values()} == {"completed"}
    completions = await app.db.run(lambda s: s.execute(
        select(Transition.reason).where(Transition.name == "study_completed")).scalars().all())
    assert completions == ["study day 28 was the last"] * PEOPLE
    closing = Counter(kind for _, kind, _ in outgoing)["closing"]
    assert closing == PEOPLE

    from promptpipe.export.files import ExportOptions, export_study

    out = tmp_path / "export"
    await export_study(app.db, str(out), ExportOptions(fmt="csv", force=False, include_identifiers=False,
                       now=app.clock.now(), receipt_window=app.settings.delivery_receipt_window))
    types = {(row["file"], row["column"]): row["type"]
             for row in csv.DictReader((out / "codebook.csv").open(encoding="utf-8"))}
    rows = list(csv.DictReader((out / "decisions.csv").open(encoding="utf-8")))
    assert len(rows) == len(decisions)
    for row in rows:
        for column, value in row.items():
            assert_type(types[("decisions", column)], value, column)
    fake_openai.assert_complete()


def assert_type(kind: str, value: str, column: str) -> None:
    """A CSV cell as the codebook types it (empty: missing)."""
    if value == "":
        return
    if kind == "integer":
        int(value)
    elif kind == "number":
        float(value)
    elif kind == "boolean":
        assert value in ("0", "1", "true", "false"), (column, value)
    elif kind == "datetime":
        datetime.fromisoformat(value)
    elif kind == "date":
        datetime.strptime(value, "%Y-%m-%d")
