"""Questionnaire instances and answers as the database keeps them, on SQLite and PostgreSQL: an
occasion is scheduled once however often its alarm fires, each item ends answered or with a
missingness code, and an erasure removes the words a participant typed but keeps the coded data."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from promptpipe.clock import ManualClock
from promptpipe.questionnaires.rules.answers import Answer, AnswerSource, Missing
from promptpipe.questionnaires.store.reads import InstanceCount, status_counts
from promptpipe.questionnaires.store.writes import Scheduled, record_answer, record_asked, schedule_instance
from promptpipe.research import admin
from promptpipe.research.erasure import erase
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.study.rules.protocol import OPEN_STUDY
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance

ANA = "+14165550120"
NOW = datetime(2026, 3, 10, 15, 0, tzinfo=timezone.utc)


async def enrolled(db: Database) -> str:
    return (await admin.enroll(db, ManualClock(NOW), admin.Enrolment(phone=ANA, name="Ana",
                                                                     timezone="America/Toronto"))).id


def due(pid: str, occasion: str = "2026-03-10") -> Scheduled:
    return Scheduled(pid, "daily_mood", occasion, "random", NOW, protocol_hash="abc", study_day=3,
                     local_date=occasion, window=(NOW - timedelta(hours=2), NOW + timedelta(hours=4)))


async def test_an_occasion_is_scheduled_once_however_often_it_is_asked_for(db: Database) -> None:
    pid = await enrolled(db)
    first = await db.run(lambda session: schedule_instance(session, due(pid)))
    again = await db.run(lambda session: schedule_instance(session, due(pid)))
    other_day = await db.run(lambda session: schedule_instance(session, due(pid, "2026-03-11")))
    assert first is not None and again is None and other_day not in (None, first)
    rows = await db.run(lambda session: session.execute(
        sa.select(table_of(QuestionnaireInstance)).order_by(sa.column("id"))).all())
    assert [(row.occasion, row.status, row.study_day, row.protocol_hash) for row in rows] == [
        ("2026-03-10", "scheduled", 3, "abc"), ("2026-03-11", "scheduled", 3, "abc")]
    assert rows[0].window_start == NOW - timedelta(hours=2) and rows[0].scheduled_at == NOW


async def test_items_end_answered_or_with_why_not_and_the_instance_tracks_its_progress(db: Database) -> None:
    pid = await enrolled(db)
    instance = await db.run(lambda session: schedule_instance(session, due(pid)))
    assert instance is not None
    later = NOW + timedelta(minutes=3)

    def answer_two_items(session: sa.orm.Session) -> None:
        record_asked(session, instance, pid, "mood", None, NOW)
        record_asked(session, instance, pid, "mood", None, NOW + timedelta(minutes=1), reminded=True)  # asks again
        record_answer(session, instance, "mood", Answer("4", AnswerSource.TAP, codes=(4,), number=4), later, tries=0)
        record_asked(session, instance, pid, "craving", None, later)
        record_answer(session, instance, "craving", Answer("skip", AnswerSource.TYPED, skipped=True), later, tries=1)
        record_answer(session, instance, "cigarettes", Missing.NOT_SHOWN, later)

    await db.run(answer_two_items)
    answers = await db.run(lambda session: session.execute(
        sa.select(table_of(QuestionnaireAnswer)).order_by(sa.column("id"))).all())
    assert [(a.item_id, a.coded, a.source, a.missing, a.tries) for a in answers] == [
        ("mood", "4", "tap", None, 0), ("craving", "", "typed", "skipped", 1),
        ("cigarettes", None, None, "not_shown", 0)]
    assert answers[0].asked_at == NOW  # the first time it was asked
    (row,) = await db.run(lambda session: session.execute(sa.select(table_of(QuestionnaireInstance))).all())
    assert (row.status, row.sent_at, row.first_answer_at, row.current_item) == ("started", NOW, later, None)
    assert await db.run(status_counts) == [InstanceCount("daily_mood", "started", 1)]


async def test_an_erasure_removes_typed_words_and_keeps_the_coded_answers(db: Database) -> None:
    pid = await enrolled(db)
    instance = await db.run(lambda session: schedule_instance(session, due(pid)))
    assert instance is not None

    def answer(session: sa.orm.Session) -> None:
        record_answer(session, instance, "mood", Answer("4", AnswerSource.TAP, codes=(4,), number=4), NOW)
        record_answer(session, instance, "note", Answer("my sister Bea visited", AnswerSource.TYPED,
                                                        text="my sister Bea visited"), NOW)
        record_answer(session, instance, "minutes", Answer("about 20", AnswerSource.TYPED, number=20), NOW)

    await db.run(answer)
    await erase(db, ManualClock(NOW), phone=ANA, study=OPEN_STUDY)
    answers = await db.run(lambda session: session.execute(
        sa.select(table_of(QuestionnaireAnswer)).order_by(sa.column("id"))).all())
    assert [(a.item_id, a.raw, a.coded) for a in answers] == [("mood", "4", "4"), ("note", "", ""),
                                                               ("minutes", "", "20")]
