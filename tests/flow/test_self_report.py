"""The optional end-of-day self-report: every study day at the protocol's time one poll asks
whether the participant did their habit, whatever the day's decision drew, so send and no_send
points both have an outcome; an answer counts within the window, and the export puts it on the
day's decision points."""

from __future__ import annotations

import csv
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from promptpipe.app import App
from promptpipe.export.files import export_study
from promptpipe.flow import decisions as decisions_module
from promptpipe.research import admin, erasure, team_requests
from promptpipe.study.rules.decision_rule import Draw
from promptpipe.study.rules.file import StudyFileError, parse_study
from promptpipe.study.rules.protocol import SELF_REPORT_OPTIONS, SELF_REPORT_QUESTION, DecisionRule
from promptpipe.study.rules.summary import describe, study_as_dict
from promptpipe.study.store.tables import QuestionnaireInstance
from promptpipe.transport import PollVote, poll_option_hash
from tests.conftest import AppFactory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.feedback_helpers import ANA, DAY, MONDAY_PROMPT, deliveries, polls, vote
from tests.flow.test_decisions import decisions, study
from tests.schedule_helpers import NUDGE, at
from tests.study_helpers import in_study

YES, NO = SELF_REPORT_OPTIONS
WITH_REPORT = study('[decision]\nactions = ["send", "no_send"]\np = 0.5\n'
                    '[self_report]\ntime = "20:00"\nwindow = "3h"\n')
EVENING = timedelta(hours=12, minutes=10)
"""From the 07:50 prompt to 20:00 the same day in Toronto."""


def alternating(rule: DecisionRule | None, seed: bytes, key: str) -> Draw:
    """send on even dates, no_send on odd ones (the draw itself is tested elsewhere)."""
    treated = int(key[-2:]) % 2 == 0
    return Draw("send" if treated else "no_send", 0.5, 0.25 if treated else 0.75, key)


async def test_every_study_day_asks_once_whatever_was_drawn_and_the_export_has_the_answers(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(decisions_module, "draw_action", alternating)
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    answers = {}
    for day in range(1, 9):
        await at(app, MONDAY_PROMPT + day * DAY)
        await at(app, MONDAY_PROMPT + day * DAY + EVENING)
        asked = polls(transport, SELF_REPORT_QUESTION)
        assert len(asked) == day  # one question a day, the study days only (Monday was intake day)
        if day % 3:  # answered on two days out of three
            answers[day] = YES if day % 2 else NO
            await vote(app, transport, asked[-1], answers[day])
    rows = [row for row in await decisions(app) if row.study_day and row.study_day >= 1]
    assert {row.action for row in rows} == {"send", "no_send"}

    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        exported = [row for row in csv.DictReader(stream) if row["study_day"] not in ("", "0")]
    expected = {day: {YES: "yes", NO: "no"}[answer] for day, answer in answers.items()}
    assert {int(row["study_day"]): row["self_report"] for row in exported if row["self_report"]} == expected
    by_action = {row["action"] for row in exported if row["self_report"]}
    assert by_action == {"send", "no_send"}  # an outcome whatever was drawn
    assert all(row["self_report_at_utc"] for row in exported if row["self_report"])


async def test_an_answer_after_the_window_is_thanked_but_not_counted(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    [asked] = polls(transport, SELF_REPORT_QUESTION)
    await at(app, MONDAY_PROMPT + DAY + EVENING + timedelta(hours=3, minutes=1))
    await vote(app, transport, asked, YES)
    assert "isn't counted" in transport.texts_to(ANA)[-1]
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        assert not any(row["self_report"] for row in csv.DictReader(stream))


async def test_a_paused_participant_is_not_asked(make_app: AppFactory, fake_openai: FakeOpenAIServer) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await admin.set_status(app.db, app.clock, phone=ANA, action="pause", by="Dr. Lee")
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    await at(app, MONDAY_PROMPT + 2 * DAY + EVENING)
    assert polls(transport, SELF_REPORT_QUESTION) == []


def test_the_protocol_reads_and_describes_the_self_report() -> None:
    parsed = parse_study(WITH_REPORT.encode())
    assert parsed.self_report is not None and parsed.self_report.window == timedelta(hours=3)
    assert "Self-report: every study day at 20:00 their time, answers count for 3h" in describe(parsed)
    assert study_as_dict(parsed)["self_report"] == {"time": "20:00", "window": 10800, "question": SELF_REPORT_QUESTION}
    assert parse_study(study("").encode()).self_report is None


@pytest.mark.parametrize(("body", "words"), [
    ('[self_report]\nwindow = "3h"\n', ["self_report.time is missing"]),
    ('[self_report]\ntime = "8pm"\n', ['self_report.time = "8pm"', "HH:MM"]),
    ('[self_report]\ntime = "23:00"\n[quiet_hours]\nstart = "22:00"\nend = "07:00"\n',
     ["self_report.time = 23:00", "inside the quiet hours"]),
    ('[self_report]\ntime = "20:00"\nwindow = "5m"\n', ["self_report.window must be from 15m to 12h"]),
    ('[self_report]\ntime = "20:00"\nask = "x"\n', ["self_report.ask", "not a key"]),
])
def test_a_wrong_self_report_table_names_the_key_and_the_fix(body: str, words: list[str]) -> None:
    with pytest.raises(StudyFileError) as error:
        parse_study(study(body).encode())
    text = " ".join(error.value.problems)
    assert all(word in text for word in words), text


async def _exported_days(app: App, tmp_path: Path) -> dict[int, dict[str, str]]:
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        return {int(row["study_day"]): row for row in csv.DictReader(stream) if row["study_day"] not in ("", "0")}


async def test_a_model_outage_on_send_days_does_not_cost_the_question(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The question has its own timer: a prompt the model cannot write does not take the
    evening question with it, so the missing outcomes cannot depend on the drawn action."""
    monkeypatch.setattr(decisions_module, "draw_action", alternating)
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.fail(503, message="model down", match="scheduled daily nudge", repeat=True)
    for day in range(1, 5):
        await at(app, MONDAY_PROMPT + day * DAY)
        await at(app, MONDAY_PROMPT + day * DAY + EVENING)
    assert len(polls(transport, SELF_REPORT_QUESTION)) == 4  # send days and no_send days alike
    await at(app, MONDAY_PROMPT + 4 * DAY + EVENING + timedelta(hours=4))
    rows = await _exported_days(app, tmp_path)
    assert {rows[day]["action"] for day in range(1, 5)} == {"send", "no_send"}
    assert {rows[day]["self_report_status"] for day in range(1, 5)} == {"expired"}  # asked, never answered


async def test_a_typed_yes_counts_for_the_evening_question_and_never_for_the_morning_poll(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, pid = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0",
                                         TYPED_ANSWER_WINDOW="16h")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    assert len(polls(transport, SELF_REPORT_QUESTION)) == 1
    await transport.inject(ANA, "yes")
    await app.run_until_idle()
    rows = await _exported_days(app, tmp_path)
    assert (rows[1]["self_report"], rows[1]["self_report_status"]) == ("yes", "answered")
    assert all(row.vote is None for row in await deliveries(app, pid))  # the morning poll stays unanswered


async def test_each_day_is_coded_answered_expired_or_not_asked_with_why(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    await vote(app, transport, polls(transport, SELF_REPORT_QUESTION)[-1], YES)  # day 1: answered
    for day in (2, 3):  # day 2: asked, never answered; day 3: paused
        await at(app, MONDAY_PROMPT + day * DAY)
        await at(app, MONDAY_PROMPT + day * DAY + EVENING)
        await at(app, MONDAY_PROMPT + day * DAY + EVENING + timedelta(hours=4))
        if day == 2:
            await admin.set_status(app.db, app.clock, phone=ANA, action="pause", by="Dr. Lee")
    assert len(polls(transport, SELF_REPORT_QUESTION)) == 2
    rows = await _exported_days(app, tmp_path)
    assert [(rows[day]["self_report"], rows[day]["self_report_status"]) for day in (1, 2, 3)] == [
        ("yes", "answered"), ("", "expired"), ("", "not_asked")]
    assert "paused" in rows[3]["self_report_reason"]
    assert rows[1]["self_report_date"] == rows[1]["local_date"]


LATE_POINTS = study('[self_report]\ntime = "07:00"\nwindow = "3h"\n')
"""The self-report before the 07:50 prompt: each day's prompt is measured the next morning."""


async def test_a_decision_point_after_the_question_is_measured_by_the_next_days_question(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, LATE_POINTS, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY)  # day 1's prompt, after day 1's 07:00 question
    await at(app, MONDAY_PROMPT + 2 * DAY - timedelta(minutes=45))  # day 2, 07:05
    await vote(app, transport, polls(transport, SELF_REPORT_QUESTION)[-1], NO)
    rows = await _exported_days(app, tmp_path)
    next_day = (date.fromisoformat(rows[1]["local_date"]) + DAY).isoformat()
    assert (rows[1]["self_report_date"], rows[1]["self_report"], rows[1]["self_report_status"]) == (
        next_day, "no", "answered")


async def _ended_on_day_three(make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
                              end: Callable[[App], Awaitable[object]]) -> tuple[str, dict[str, str]]:
    """Ana's study ended by ``end`` on day 3, after its prompt and before its question; exported a
    week later: none of her questions is left scheduled, day 3's reads not asked, and every row
    dates the end. The end's time and her participant row."""
    app, _, pid = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    for day in (1, 2):
        await at(app, MONDAY_PROMPT + day * DAY + EVENING)
    ended = MONDAY_PROMPT + 3 * DAY + timedelta(hours=1)
    await at(app, ended)
    await end(app)
    await at(app, ended + 7 * DAY)
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "participants.csv").open(encoding="utf-8") as stream:
        [person] = list(csv.DictReader(stream))
    assert (person["id"], person["status"]) == (pid, "withdrawn")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        points = [row for row in csv.DictReader(stream) if row["study_day"] not in ("", "0")]
    assert "scheduled" not in {row["self_report_status"] for row in points}
    [ending_day] = [row for row in points if row["study_day"] == "3" and row["unavailable_reason"] != "withdrawn"]
    assert ending_day["self_report_status"] == "not_asked"
    assert {row["withdrawn_at_utc"] for row in points} == {ended.isoformat(timespec="seconds")}
    return ended.isoformat(timespec="seconds"), person


async def test_an_erasure_without_a_withdrawal_ends_the_study_in_the_export(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    """Erasing someone who was never withdrawn ends their study at that moment: the export dates
    it, and the questions planned after it read as not asked, none left scheduled."""
    async def erase(app: App) -> None:
        await erasure.erase(app.db, app.clock, study=app.settings.study, phone=ANA, by="Dr. Lee")

    erased, person = await _ended_on_day_three(make_app, fake_openai, tmp_path, erase)
    assert person["withdrawn_at_utc"] == person["erased_at_utc"] == erased


async def test_a_withdrawal_the_service_did_not_get_to_ends_the_questions_as_its_lane_would(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The admin script applies a withdrawal itself when no service takes it in time: what was
    planned is settled as when the lane applies it, none left scheduled."""
    monkeypatch.setattr(team_requests, "WAIT_FOR_SERVICE_S", 0.0)

    async def withdraw(app: App) -> None:
        await admin.set_status(app.db, app.clock, phone=ANA, action="withdraw", by="Dr. Lee", study=app.settings.study)

    withdrawn, person = await _ended_on_day_three(make_app, fake_openai, tmp_path, withdraw)
    assert (person["withdrawn_at_utc"], person["erased_at_utc"]) == (withdrawn, "")


async def test_an_answer_is_timed_by_when_it_was_sent_not_when_it_was_processed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    asked_at = MONDAY_PROMPT + DAY + EVENING
    await at(app, asked_at)
    [poll] = polls(transport, SELF_REPORT_QUESTION)
    await at(app, asked_at + timedelta(hours=2, minutes=10))  # the answer was held (an outage) until 22:10
    sent = asked_at + timedelta(minutes=30)
    await transport.inject(ANA, "", vote=PollVote(poll, (poll_option_hash(YES),)), timestamp=sent)
    await app.run_until_idle()
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        [day_one] = [row for row in csv.DictReader(stream) if row["study_day"] == "1"]
    assert (day_one["self_report"], day_one["self_report_at_utc"]) == ("yes", sent.isoformat(timespec="seconds"))


async def test_a_typed_answer_sent_after_its_window_does_not_answer_the_next_days_question(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    """Typed at 23:30 on day 1 (the 20:00 question's window closed at 23:00), held behind a
    retrying turn until day 2's question was open: it belongs to no window, so it is kept, coded
    late, and day 2's question still waits for its own answer."""
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    typed = MONDAY_PROMPT + DAY + EVENING + timedelta(hours=3, minutes=30)
    await at(app, MONDAY_PROMPT + 2 * DAY + EVENING + timedelta(minutes=5))
    await transport.inject(ANA, "yes", timestamp=typed)
    await app.run_until_idle()
    await at(app, MONDAY_PROMPT + 3 * DAY)
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        days = {row["study_day"]: row for row in csv.DictReader(stream)}
    assert (days["1"]["self_report_status"], days["2"]["self_report_status"]) == ("expired", "expired")
    assert days["2"]["self_report"] == ""
    [late] = [row for row in await admin.transcript(app.db, ANA) if row.direction == "in" and row.text == "yes"]
    assert late.payload.get("handled_as") == "late"


async def test_a_window_that_closed_while_the_service_was_down_ends_at_its_close(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, _, pid = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    asked_at = MONDAY_PROMPT + DAY + EVENING
    await at(app, asked_at)
    await at(app, asked_at + timedelta(hours=5))  # nothing ran from 20:00 to 01:00
    [instance] = await app.db.run(lambda s: s.execute(select(QuestionnaireInstance).where(
        QuestionnaireInstance.participant_id == pid, QuestionnaireInstance.sent_at.is_not(None))).scalars().all())
    assert instance.status == "expired"
    assert instance.ended_at == asked_at + timedelta(hours=3)  # the window's close, not the restart


async def test_a_tap_given_in_the_window_counts_though_it_arrives_after_the_window_closed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    """Tapped at 22:00 inside the 20:00-23:00 window; the service was down until 01:00, and its
    expiry ran before the tap was read. The tap is judged by when it was given: it counts."""
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    asked_at = MONDAY_PROMPT + DAY + EVENING
    await at(app, asked_at)
    [poll] = polls(transport, SELF_REPORT_QUESTION)
    await at(app, asked_at + timedelta(hours=5))  # back at 01:00: the window closed at 23:00
    tapped = asked_at + timedelta(hours=2)
    await transport.inject(ANA, "", vote=PollVote(poll, (poll_option_hash(YES),)), timestamp=tapped)
    await app.run_until_idle()
    assert "isn't counted" not in transport.texts_to(ANA)[-1]
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        [day_one] = [row for row in csv.DictReader(stream) if row["study_day"] == "1"]
    assert (day_one["self_report"], day_one["self_report_status"], day_one["self_report_at_utc"]) == (
        "yes", "answered", tapped.isoformat(timespec="seconds"))


async def test_a_typed_answer_given_in_the_window_counts_though_it_is_read_after_the_window_closed(
    make_app: AppFactory, fake_openai: FakeOpenAIServer, tmp_path: Path,
) -> None:
    """Typed "yes" at 22:00 inside the 20:00-23:00 window; the service was down until 01:00 and
    its expiry ran before the message was read. Judged by when it was sent, it counts; a second
    "yes" typed inside the window, read later still, answers nothing more."""
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    fake_openai.always("Good to hear.", match="")
    asked_at = MONDAY_PROMPT + DAY + EVENING
    await at(app, asked_at)
    await at(app, asked_at + timedelta(hours=5))  # back at 01:00: the window closed at 23:00
    typed = asked_at + timedelta(hours=2)
    await transport.inject(ANA, "yes", timestamp=typed)
    await app.run_until_idle()
    assert "counts" in transport.texts_to(ANA)[-1]
    await transport.inject(ANA, "yes", timestamp=typed + timedelta(minutes=5))
    await app.run_until_idle()
    assert "counts" not in transport.texts_to(ANA)[-1]
    await export_study(app.db, tmp_path / "out")
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as stream:
        [day_one] = [row for row in csv.DictReader(stream) if row["study_day"] == "1"]
    assert (day_one["self_report"], day_one["self_report_status"], day_one["self_report_at_utc"]) == (
        "yes", "answered", typed.isoformat(timespec="seconds"))


async def test_a_second_tap_inside_the_window_is_not_taken_for_a_late_answer(
    make_app: AppFactory, fake_openai: FakeOpenAIServer,
) -> None:
    app, transport, _ = await in_study(make_app, fake_openai, WITH_REPORT, DAILY_PROMPT_REMINDER_DELAY="0")
    fake_openai.always(NUDGE, match="scheduled daily nudge")
    await at(app, MONDAY_PROMPT + DAY + EVENING)
    [poll] = polls(transport, SELF_REPORT_QUESTION)
    await vote(app, transport, poll, YES)
    await vote(app, transport, poll, NO)  # the questionnaire is over: this one is not counted, and says so
    assert "isn't counted" in transport.texts_to(ANA)[-1]
