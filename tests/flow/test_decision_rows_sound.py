"""What a statistician notices in the ``decisions`` export: every decision point the service
missed while it was down carries the probability and the draw the normal path makes for that same
point (keyed alike, so an auditor holding the seed checks it the same way) and the hash of the
protocol in force at its scheduled time, even when the study file changed during the outage; and a
withdrawn (or erased) participant's remaining study days are rows of their own, coded
``withdrawn``, apart from the days the service was down and the days nobody reached yet."""

from __future__ import annotations

import csv
import dataclasses
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import select

from promptpipe.app import App
from promptpipe.domain import keys
from promptpipe.domain.localtime import zone_or_utc
from promptpipe.export.files import export_study
from promptpipe.research import admin, erasure
from promptpipe.storage.models import table_of
from promptpipe.study.rules.decision_rule import draw_action
from promptpipe.study.store.decisions import DecisionValues
from promptpipe.study.store.seed import study_seed
from promptpipe.study.store.tables import Decision
from promptpipe.transport.memory import MemoryTransport
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT
from tests.flow.test_decisions import decisions, study, through_days
from tests.schedule_helpers import at, enroll_with_schedule, utc
from tests.study_helpers import in_study, with_study

RANDOMISED = study("[decision]\np = 0.5\n")
CHANGED = study("# p raised after the pilot's first week\n[decision]\np = 0.8\n")
FIVE_DAYS = """name = "Five-day pilot"
length_days = 5

[decision]
p = 0.5
"""
"""Ana's study days 1 … 5 are Tuesday 2026-01-06 … Saturday 2026-01-10 (prompts at 12:50 UTC)."""
BEN = "+14165550142"
TORONTO = zone_or_utc("America/Toronto")
PAST_GRACE = timedelta(hours=2)


async def missed_row(app: App) -> Decision:
    [missed] = [row for row in await decisions(app) if row.unavailable_reason == "missed_service_down"]
    return missed


def exported(out: Path) -> list[dict[str, str]]:
    with (out / "decisions.csv").open(encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


async def down_over(app: App, make_app: AppFactory, transport: MemoryTransport, clock,  # type: ignore[no-untyped-def]
                    day: int, text: str) -> App:
    """The service stops after day ``day - 1`` and comes back past the grace of day ``day``'s
    prompt, with the study file ``text`` (a changed one adopted on purpose)."""
    await app.stop()
    clock.set(MONDAY_PROMPT + day * DAY + PAST_GRACE)
    again = await make_app(transport, start=False, **with_study(text))
    await again.start(background=False, allow_protocol_change=True)
    await again.run_until_idle()
    return again


async def test_a_missed_point_has_the_draw_the_normal_path_makes_for_that_point(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock, tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    app, transport, pid = await in_study(make_app, fake_openai, RANDOMISED)
    await through_days(app, fake_openai, range(1, 3))
    again = await down_over(app, make_app, transport, clock, 3, RANDOMISED)
    await through_days(again, fake_openai, range(4, 5))
    missed = await missed_row(again)
    seed = await again.db.run(lambda s: study_seed(s, None, again.settings.study.outside_seed))
    rule = again.settings.study.decision
    point = keys.daily_prompt(pid, missed.schedule_id or "", date.fromisoformat(missed.local_date))
    assert missed.seed_ref == keys.decision_draw(point)  # the key daily_prompt.py draws that point with
    assert (missed.probability, missed.draw) == (0.5, draw_action(rule, seed, missed.seed_ref).draw)
    assert (missed.available, missed.action) == (False, "none")  # drawn, never acted on
    normal = [row for row in await decisions(again) if row.available]
    assert len(normal) == 3 and {row.seed_ref.rsplit(":", 1)[0] for row in normal} == {
        missed.seed_ref.rsplit(":", 1)[0]}  # one key shape: only the local date differs
    assert all(row.draw == draw_action(rule, seed, row.seed_ref).draw for row in normal)
    await export_study(again.db, tmp_path / "out")
    [row] = [r for r in exported(tmp_path / "out") if r["unavailable_reason"] == "missed_service_down"]
    assert (row["probability"], row["draw"], row["seed_ref"]) == ("0.5", str(missed.draw), missed.seed_ref)
    assert row["action_treatment"] == ""  # not randomised: nothing to analyse as treatment


async def test_a_missed_point_keeps_the_protocol_in_force_at_its_time_when_the_file_changed_meanwhile(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock, tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, RANDOMISED)
    await through_days(app, fake_openai, range(1, 2))
    first = app.settings.study.hash
    again = await down_over(app, make_app, transport, clock, 2, CHANGED)
    second = again.settings.study.hash
    assert first != second
    await through_days(again, fake_openai, range(3, 4))
    missed = await missed_row(again)
    assert missed.scheduled_for == MONDAY_PROMPT + 2 * DAY and missed.decided_at > missed.scheduled_for
    assert (missed.protocol_hash, missed.probability) == (first, 0.5)  # the protocol of its time, and its p
    after = (await decisions(again))[-1]
    assert (after.local_date, after.protocol_hash, after.probability) == ("2026-01-08", second, 0.8)
    await export_study(again.db, tmp_path / "out")
    rows = exported(tmp_path / "out")
    assert [(r["local_date"], r["protocol_hash"], r["probability"]) for r in rows] == [
        ("2026-01-05", first, "0.5"), ("2026-01-06", first, "0.5"), ("2026-01-07", first, "0.5"),
        ("2026-01-08", second, "0.8")]


async def join_study(app: App, fake: FakeOpenAIServer, transport: MemoryTransport, phone: str, name: str) -> str:
    """Another participant in Toronto who finishes intake now (study day 1 is tomorrow)."""
    pid = await enroll_with_schedule(app, fake, phone, "America/Toronto", name=name)
    fake.call_tool("transition_state", {"target_state": "FEEDBACK", "reason": "plan complete"}, match="set too")
    fake.say("Great, tell me how it goes.", match="set too")
    await transport.inject(phone, "I'm set too")
    await app.run_until_idle()
    return pid


def prompt_times(first: int, last: int) -> list[str]:
    """Ana's (and Ben's) prompt times, 07:50 in Toronto, on study days ``first`` … ``last``."""
    return [(MONDAY_PROMPT + day * DAY).isoformat(timespec="seconds") for day in range(first, last + 1)]


def local(day: int) -> str:
    return (MONDAY_PROMPT + day * DAY).astimezone(TORONTO).date().isoformat()


async def test_a_withdrawn_participants_remaining_study_days_are_coded_withdrawn(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, ana = await in_study(make_app, fake_openai, FIVE_DAYS)
    await at(app, utc(2026, 1, 5, 15, 0))  # after Monday's prompt time
    ben = await join_study(app, fake_openai, transport, BEN, "Ben")  # no decision point before he withdraws
    await at(app, utc(2026, 1, 5, 22, 0))
    await admin.set_status(app.db, app.clock, phone=BEN, action="withdraw", by="Dr. Lee")
    await through_days(app, fake_openai, range(1, 3))
    withdrawn = MONDAY_PROMPT + 2 * DAY + timedelta(hours=3)  # Wednesday, after that day's prompt
    await at(app, withdrawn)
    await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="Dr. Lee")
    await through_days(app, fake_openai, range(3, 9), personalised=False)  # past the end: nothing is written
    assert {row.participant_id for row in await decisions(app)} == {ana}
    await export_study(app.db, tmp_path / "out")
    rows = exported(tmp_path / "out")
    anas = [r for r in rows if r["participant_id"] == ana]
    assert [(r["decision_index"], r["study_day"], r["local_date"], r["available"], r["unavailable_reason"])
            for r in anas] == [
        ("1", "0", local(0), "false", "not_in_study"), ("2", "1", local(1), "true", ""),
        ("3", "2", local(2), "true", ""), ("4", "3", local(3), "false", "withdrawn"),
        ("5", "4", local(4), "false", "withdrawn"), ("6", "5", local(5), "false", "withdrawn")]
    coded = [r for r in anas if r["unavailable_reason"] == "withdrawn"]
    assert [r["scheduled_for_utc"] for r in coded] == prompt_times(3, 5)
    assert {(r["action"], r["action_treatment"], r["probability"], r["draw"], r["seed_ref"], r["decided_at_utc"],
             r["prompt_sent"]) for r in coded} == {("none", "", "", "", "", "", "0")}  # nothing was drawn or sent
    assert {(r["protocol_hash"], r["arm"], r["timezone"], r["schedule_id"]) for r in coded} == {
        (app.settings.study.hash, anas[1]["arm"], "America/Toronto", anas[1]["schedule_id"])}
    assert {r["withdrawn_at_utc"] for r in anas} == {withdrawn.isoformat(timespec="seconds")}
    bens = [r for r in rows if r["participant_id"] == ben]
    assert [(r["decision_index"], r["study_day"], r["unavailable_reason"], r["scheduled_for_utc"]) for r in bens] == [
        (str(day), str(day), "withdrawn", when) for day, when in zip(range(1, 6), prompt_times(1, 5), strict=True)]


async def test_an_erasure_codes_the_days_from_that_moment_and_a_missed_day_stays_missed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock, tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """Three kinds of empty day side by side: the service was down (missed_service_down), the
    participant was erased before that day's prompt (withdrawn, from the erasure on), and the
    days after the study's last day, which have no row at all."""
    app, transport, ana = await in_study(make_app, fake_openai, FIVE_DAYS)
    await through_days(app, fake_openai, range(1, 2))
    again = await down_over(app, make_app, transport, clock, 2, FIVE_DAYS)
    erased = datetime.combine(date(2026, 1, 8), datetime.min.time(), TORONTO)  # Thursday 00:00, before its prompt
    await at(again, erased)
    await erasure.erase(again.db, again.clock, study=again.settings.study, phone=ANA, by="Dr. Lee")
    await at(again, MONDAY_PROMPT + 9 * DAY)
    await export_study(again.db, tmp_path / "out")
    rows = [r for r in exported(tmp_path / "out") if r["participant_id"] == ana]
    assert [(r["study_day"], r["unavailable_reason"]) for r in rows] == [
        ("0", "not_in_study"), ("1", ""), ("2", "missed_service_down"), ("3", "withdrawn"), ("4", "withdrawn"),
        ("5", "withdrawn")]
    assert [r["scheduled_for_utc"] for r in rows[3:]] == prompt_times(3, 5)
    assert {r["erased_at_utc"] for r in rows} == {erased.astimezone(timezone.utc).isoformat(timespec="seconds")}
    in_db = await again.db.run(lambda s: s.execute(select(Decision.unavailable_reason)).scalars().all())
    assert "withdrawn" not in in_db  # derived by the export; the decision table records what happened


async def test_every_day_of_a_several_day_outage_has_its_missed_row(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, clock,  # type: ignore[no-untyped-def]
) -> None:
    """Down from after day 2's prompt until past day 5's: days 3, 4 and 5 each get one row."""
    app, transport, _ = await in_study(make_app, fake_openai, RANDOMISED)
    await through_days(app, fake_openai, range(1, 3))
    again = await down_over(app, make_app, transport, clock, 5, RANDOMISED)
    rows = [row for row in await decisions(again) if row.study_day and row.study_day >= 1]
    assert [(row.study_day, row.unavailable_reason) for row in rows] == [
        (1, None), (2, None), (3, "missed_service_down"), (4, "missed_service_down"), (5, "missed_service_down")]
    before = len(await decisions(again))
    await again.stop()
    restarted = await make_app(transport, start=False, **with_study(RANDOMISED))
    await restarted.start(background=False)
    await restarted.run_until_idle()
    assert len(await decisions(restarted)) == before  # a second start adds none


def test_the_flow_writes_every_column_of_a_decision_point() -> None:
    """The flow builds a plain ``DecisionValues``, not the table's model: a column added to the
    table and not to it would be left empty on every decision point of a study."""
    written = {field.name for field in dataclasses.fields(DecisionValues)}
    assert written == {column.name for column in table_of(Decision).columns} - {"id"}
