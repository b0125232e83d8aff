"""``study_report``: the study at a glance for its lead — participants by status and arm, study
days reached, prompts sent, delivered and answered per arm, and the decision points: availability,
the reasons for unavailability, and the actions drawn against the designed probability."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import delete

from promptpipe.research import admin
from promptpipe.research.views import as_json
from promptpipe.storage.db import Database
from promptpipe.storage.models import Message, Participant, Receipt, Transition
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.report.reading import study_report
from promptpipe.study.report.text import format_report
from promptpipe.study.rules.file import parse_study
from promptpipe.study.rules.protocol import OPEN_STUDY
from promptpipe.study.rules.summary import SEED_IN_DATABASE_WARNING
from promptpipe.study.store.tables import Decision, StudySecret
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.schedule_helpers import NUDGE, QUIET, at, enroll_with_schedule, phone_marker, utc

STUDY = parse_study(b"""
name = "Report pilot"
length_days = 28
fixed_prompts = ["Take a short walk after dinner."]
[[arms]]
name = "coach"
[[arms]]
name = "fixed_text"
prompt_style = "fixed"
[decision]
p = 0.6
""")
NOW = utc(2026, 3, 10, 17, 0)  # 13:00 in Toronto (EDT)
T0 = utc(2026, 3, 2, 13, 0)


def people() -> list[Participant]:
    """Two per arm (one of them completed, one withdrawn) and one enrolled before the study had arms."""
    phones = iter(f"+141655501{n}" for n in range(30, 40))

    def person(pid: str, arm: str | None, status: str, day_one: str | None, **values: Any) -> Participant:
        return Participant(id=pid, phone=next(phones), name=pid, timezone="America/Toronto", status=status, arm=arm,
                           day_one=day_one, enrolled_at=T0, updated_at=T0, **values)

    return [
        person("p-a1", "coach", "active", "2026-03-02"),  # day 9 now
        person("p-a2", "coach", "completed", "2026-03-01", completed_at=utc(2026, 3, 29, 4)),  # all 28 days
        person("p-b1", "fixed_text", "paused", "2026-03-05", paused_by="participant", opted_out=True),  # day 6
        person("p-b2", "fixed_text", "withdrawn", "2026-03-03"),  # withdrew on day 4
        person("p-x", None, "active", None),
    ]


def prompts() -> list[Any]:
    """Coach: four prompts through WhatsApp (two delivered, one answered by a vote, one by a
    reply; the fourth's poll was delivered but not the prompt itself, which counts as not
    delivered); fixed_text: one prompt through a transport without receipts, answered by a vote."""
    rows: list[Any] = []
    specs: list[tuple[str, bool, str | None, dict[str, Any]]] = [
        ("p-a1", True, "delivered", {"vote": "done", "voted_at": T0}),
        ("p-a1", True, "read", {"replied_at": T0}),
        ("p-a1", True, None, {}),
        ("p-b1", False, None, {"vote": "not_this_time", "voted_at": T0}),
    ]
    for number, (pid, receipts, receipt, outcome) in enumerate(specs, 1):
        message = Message(id=number, participant_id=pid, direction="out", role="assistant", kind="prompt",
                          text="Walk", status="sent", wa_message_id=f"wa-{number}", created_at=T0, sent_at=T0,
                          receipts_expected=receipts)
        rows.append(message)
        rows.append(PromptDelivery(participant_id=pid, inbox_id=number, schedule_id="s1", local_date="2026-03-05",
                                   prompt_text="Walk", prompt_message_id=number, sent_at=T0, **outcome))
        if receipt:
            rows.append(Receipt(wa_message_id=f"wa-{number}", kind=receipt, at=T0, received_at=T0))
    rows += [Message(id=number, participant_id="p-a1", direction="out", role="assistant", kind=kind, text="Walk",
                     status="sent", wa_message_id=f"wa-{number}", created_at=T0, sent_at=T0, receipts_expected=True)
             for number, kind in ((5, "prompt"), (6, "poll"))]
    rows += [PromptDelivery(participant_id="p-a1", inbox_id=5, schedule_id="s1", local_date="2026-03-06",
                            prompt_text="Walk", prompt_message_id=5, poll_message_id=6, sent_at=T0),
             Receipt(wa_message_id="wa-6", kind="delivered", at=T0, received_at=T0)]
    return rows


def decisions() -> list[Decision]:
    specs = ([("coach", True, None, "send")] * 3 + [("coach", True, None, "no_send")] * 2
             + [("coach", False, "not_in_study", "none"), ("coach", False, "quiet_hours", "none")]
             + [("fixed_text", True, None, "send")] + [("fixed_text", True, None, "no_send")] * 3
             + [("fixed_text", False, "paused", "none")] * 2)
    return [Decision(participant_id="p-a1" if arm == "coach" else "p-b1", inbox_id=100 + i, arm=arm, study_day=1,
                     local_date="2026-03-05", decided_at=T0, local_time="2026-03-05T08:00:00-05:00",
                     timezone="America/Toronto", available=available, unavailable_reason=reason, action=action,
                     probability=0.6 if available else None)
            for i, (arm, available, reason, action) in enumerate(specs)]


async def seed(db: Database) -> None:
    def write(session: Any) -> None:
        session.add_all(people())
        session.flush()
        session.add_all([*prompts(), *decisions(), Transition(
            participant_id="p-b2", kind="status", name="withdrawn_by_researcher", from_value="active",
            to_value="withdrawn", created_at=utc(2026, 3, 6, 15))])

    await db.run(write)


async def test_report_counts_participants_days_prompts_and_decision_points(db: Database) -> None:
    await seed(db)
    report = as_json(await study_report(db, STUDY, now=NOW))
    assert report["arms"] == ["coach", "fixed_text", "default"]
    assert report["participants"] == {
        "total": 5, "by_status": {"active": 2, "paused": 1, "completed": 1, "withdrawn": 1},
        "by_arm": {"coach": 2, "fixed_text": 2, "default": 1}}
    assert report["study_days"] == {"with_day_one": 4, "without_day_one": 1, "min": 4, "median": 7.5, "max": 28,
                                    "length_days": 28, "completed": 1}
    assert report["prompts"] == {
        "coach": {"sent": 4, "delivered": 2, "answered": 2, "receipts_expected": 4},
        "fixed_text": {"sent": 1, "delivered": 0, "answered": 1, "receipts_expected": 0},
        "default": {"sent": 0, "delivered": 0, "answered": 0, "receipts_expected": 0}}
    d = report["decisions"]
    await db.run(lambda session: session.execute(delete(Receipt)))  # through WhatsApp, yet nothing arrived
    assert as_json((await study_report(db, STUDY, now=NOW)).prompts["coach"]) == {
        "sent": 4, "delivered": 0, "answered": 2, "receipts_expected": 4}
    assert (d["total"], d["available"], d["availability_rate"]) == (13, 9, round(9 / 13, 4))
    assert d["unavailable_reasons"] == {"not_in_study": 1, "paused": 2, "quiet_hours": 1}
    coach, fixed = d["by_arm"]["coach"], d["by_arm"]["fixed_text"]
    assert (coach["total"], coach["available"], fixed["total"], fixed["available"]) == (7, 5, 6, 4)
    assert coach["actions"] == {
        "send": {"count": 3, "share": 0.6, "designed": 0.6, "expected_range": [0.1706, 1.0]},
        "no_send": {"count": 2, "share": 0.4, "designed": 0.4, "expected_range": [0.0, 0.8294]}}
    assert fixed["actions"]["send"]["share"] == 0.25 and fixed["actions"]["no_send"]["count"] == 3
    assert d["by_arm"]["default"] == {"total": 0, "available": 0, "actions": {
        "send": {"count": 0, "share": None, "designed": 0.6, "expected_range": [0.6, 0.6]},
        "no_send": {"count": 0, "share": None, "designed": 0.4, "expected_range": [0.4, 0.4]}}}


async def test_report_for_the_terminal(db: Database) -> None:
    await seed(db)
    text = format_report(await study_report(db, STUDY, now=NOW))
    lines = text.splitlines()
    assert lines[0] == f"Study: Report pilot (protocol {STUDY.hash[:12]}…)"
    assert lines[1] == "Participants: 5 (active 2, paused 1, completed 1, withdrawn 1)"
    assert lines[2] == "  by arm: coach 2, fixed_text 2, default 1"
    assert lines[3] == ("Study days: 4 participant(s) with a day one (1 without); day reached: min 4, median 7.5, "
                        "max 28 of 28; completed 1")
    assert lines[4] == "Prompts (delivered: a receipt for the prompt itself; answered: a vote or a reply):"
    assert [line.split() for line in lines[5:8]] == [
        ["ARM", "SENT", "DELIVERED", "ANSWERED"], ["coach", "4", "2", "(50%)", "2", "(50%)"],
        ["fixed_text", "1", "n/a", "(no", "receipts)", "1", "(100%)"]]
    assert "Decision points: 13, available 9 (69%)" in lines
    assert "  unavailable: not_in_study 1, paused 2, quiet_hours 1" in lines
    rows = [line.split() for line in lines if line.startswith("    ")]
    assert rows[0] == ["ARM", "AVAILABLE", "ACTION", "COUNT", "SHARE", "DESIGNED", "95%", "RANGE"]
    assert rows[1] == ["coach", "5", "send", "3", "60%", "60%", "17–100%"]
    assert rows[2] == ["no_send", "2", "40%", "40%", "0–83%"]


async def test_without_a_study_file_everyone_is_in_the_default_arm(
    make_app: AppFactory, fake_openai: FakeOpenAIServer
) -> None:
    app = await make_app(MemoryTransport(), **QUIET)
    await enroll_with_schedule(app, fake_openai, "+14165550120", "America/Toronto")
    await admin.enroll(app.db, app.clock, admin.Enrolment(phone="+14165550121", name="Ravi",
                                                          timezone="America/Toronto"))
    fake_openai.say("Welcome Ravi!", match=phone_marker("Ravi"))
    fake_openai.say(NUDGE, match="scheduled daily nudge")
    await at(app, utc(2026, 1, 5, 12, 50))  # Ana's 07:50 prompt
    await admin.simulate_vote(app.db, app.clock, phone="+14165550120", option="Done")
    await app.run_until_idle()

    found = await study_report(app.db, OPEN_STUDY, now=app.clock.now())
    report = as_json(found)
    assert report["study"] == {"name": None, "hash": None, "length_days": None, "decision": None}
    assert report["participants"] == {"total": 2, "by_status": {"active": 2}, "by_arm": {"default": 2}}
    assert report["study_days"]["with_day_one"] == 0
    assert report["prompts"] == {"default": {"sent": 1, "delivered": 0, "answered": 1, "receipts_expected": 0}}
    decided = report["decisions"]
    assert (decided["total"], decided["available"], decided["unavailable_reasons"]) == (1, 1, {})
    assert decided["by_arm"]["default"]["actions"] == {
        "send": {"count": 1, "share": 1.0, "designed": 1.0, "expected_range": [1.0, 1.0]}}
    text = format_report(found)
    assert text.startswith("Study: (no study file: one arm, no randomisation)\nParticipants: 2 (active 2)\n")
    assert "Study days: nobody has a day one yet; completed 0" in text
    assert "Decision points: 1, available 1 (100%)" in text


async def test_an_empty_study(db: Database) -> None:
    report = await study_report(db, STUDY, now=datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(days=1))
    assert report.participants.total == 0 and report.decisions.availability_rate is None
    assert report.study_days.median is None
    assert "Decision points: none yet" in format_report(report)


async def test_after_a_protocol_change_each_decision_is_compared_with_its_own_probability(db: Database) -> None:
    """Ten decisions drawn at p = 0.2, then the protocol moved to p = 0.8 and ten more: the
    designed share is the mean of the probabilities the decisions were drawn with (0.5), not the
    current protocol's 0.8, and the range follows the variance of those draws."""
    def write(session: Any) -> None:
        session.add(people()[0])
        session.flush()
        specs = [(0.2, "send")] * 2 + [(0.2, "no_send")] * 8 + [(0.8, "send")] * 8 + [(0.8, "no_send")] * 2
        session.add_all([Decision(participant_id="p-a1", inbox_id=200 + i, arm="coach", study_day=1,
                                  local_date="2026-03-05", decided_at=T0, local_time="2026-03-05T08:00:00-05:00",
                                  timezone="America/Toronto", available=True, action=action, probability=p)
                         for i, (p, action) in enumerate(specs)])

    await db.run(write)
    changed = parse_study(b'name = "Report pilot"\nlength_days = 28\nfixed_prompts = ["Walk."]\n'
                          b'[[arms]]\nname = "coach"\n[decision]\np = 0.8\n')
    send = (await study_report(db, changed, now=NOW)).decisions.by_arm["coach"].actions["send"]
    assert (send.count, send.share, send.designed) == (10, 0.5, 0.5)
    half = 1.96 * (20 * 0.2 * 0.8) ** 0.5 / 20  # each draw's variance p(1-p), the same at 0.2 and 0.8
    assert send.expected_range == [round(0.5 - half, 4), round(0.5 + half, 4)]


async def test_the_report_says_where_the_seed_is_kept_and_flags_it_in_the_database(db: Database) -> None:
    """Issue 27: a seed in the database lets whoever reads it predict the arms and draws to come."""
    report = await study_report(db, STUDY, now=NOW)
    assert (report.seed.kept, report.seed.warning) == ("none", None)
    assert format_report(report).splitlines()[-1] == "Seed: none made yet"

    await db.run(lambda s: s.add(StudySecret(name="seed_fingerprint", value="ab" * 32, created_at=T0)))
    report = await study_report(db, STUDY, now=NOW)
    assert (report.seed.kept, report.seed.warning) == ("outside", None)
    assert format_report(report).splitlines()[-1] == ("Seed: kept outside the database (the database holds only its "
                                                      "fingerprint)")

    await db.run(lambda s: s.add(StudySecret(name="seed", value="cd" * 32, created_at=T0)))
    report = await study_report(db, STUDY, now=NOW)
    assert report.seed.warning == (f"{SEED_IN_DATABASE_WARNING} (left there by an older release: the service moves "
                                   "it to its state directory when it next starts)")
    assert as_json(report)["seed"] == {"kept": "database", "warning": report.seed.warning}
    assert format_report(report).splitlines()[-1] == f"Seed: WARNING: {report.seed.warning}"
    chosen = await study_report(db, replace(STUDY, seed_in_database=True), now=NOW)
    assert chosen.seed.warning == f"{SEED_IN_DATABASE_WARNING} (chosen by the study file: seed_in_database = true)"
    assert "cd" * 32 not in format_report(chosen) and "ab" * 32 not in json.dumps(as_json(chosen))
