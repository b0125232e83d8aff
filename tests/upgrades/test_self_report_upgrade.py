"""The end-of-day self-reports an earlier release recorded become the ``self_report``
questionnaire's instances on upgrade (answered: completed with the option and its code; not
answered: expired, saying why), so the export codes every day the same way whichever release
asked it; a downgrade gives them back."""

from __future__ import annotations

import asyncio
from typing import Any

import sqlalchemy as sa

from promptpipe.storage import schema
from promptpipe.storage.db import Database
from promptpipe.storage.models import table_of
from promptpipe.storage.urls import sync_url
from promptpipe.study.store.tables import QuestionnaireAnswer, QuestionnaireInstance
from tests.upgrades.releases import PEOPLE, downgrade, load_release

RELEASE = "release-b1c231f"
"""The first release with the self-report table."""
ASKED = [("2026-01-06", "2026-01-07 01:00:00", "yes", "2026-01-07 01:20:00"),
         ("2026-01-07", "2026-01-08 01:00:00", None, None)]


def _execute(url: str, statement: Any, **values: Any) -> list[Any]:
    engine = sa.create_engine(sync_url(url))
    try:
        with engine.begin() as conn:
            result = conn.execute(statement, values)
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


async def _read(url: str) -> list[tuple[Any, ...]]:
    db = Database(url)
    await db.connect()
    try:
        i, a = table_of(QuestionnaireInstance), table_of(QuestionnaireAnswer)
        return list(await db.run(lambda session: session.execute(
            sa.select(i.c.questionnaire_id, i.c.occasion, i.c.status, i.c.reason, i.c.sent_at, a.c.item_id,
                      a.c.message_id, a.c.raw, a.c.coded, a.c.source, a.c.missing, a.c.answered_at)
            .join(a, a.c.instance_id == i.c.id).order_by(i.c.occasion)).all()))
    finally:
        await db.close()


async def test_each_asked_day_becomes_an_instance_coded_as_the_questionnaires_are(database_url: str) -> None:
    load_release(database_url, RELEASE)
    [(ana, message_id)] = _execute(database_url, sa.text(
        "SELECT p.id, min(m.id) FROM participant p JOIN message m ON m.participant_id = p.id WHERE p.phone = :phone "
        "GROUP BY p.id"), phone=PEOPLE["Ana"])
    utc = "" if database_url.startswith("sqlite") else "+00"  # SQLite keeps UTC times without a zone
    for local_date, asked_at, answer, answered_at in ASKED:
        _execute(database_url, sa.text(
            "INSERT INTO self_report (participant_id, local_date, poll_message_id, asked_at, answer, answered_at) "
            "VALUES (:pid, :day, :message, :asked, :answer, :answered)"),
            pid=ana, day=local_date, message=message_id, asked=asked_at + utc, answer=answer,
            answered=answered_at and answered_at + utc)
    await asyncio.to_thread(schema.upgrade, database_url)

    answered, unanswered = await _read(database_url)
    assert answered[:4] == ("self_report", "2026-01-06", "completed", None)
    assert answered[5:11] == ("did_habit", message_id, "Yes, I did", "1", "tap", None)
    assert (answered[4].isoformat(), answered[11].isoformat()) == ("2026-01-07T01:00:00+00:00",
                                                                   "2026-01-07T01:20:00+00:00")
    assert unanswered[:4] == ("self_report", "2026-01-07", "expired", "window_closed")
    assert (unanswered[8], unanswered[10], unanswered[11]) == (None, "expired", None)
    assert "self_report" not in sa.inspect(sa.create_engine(sync_url(database_url))).get_table_names()

    await asyncio.to_thread(downgrade, database_url, "0005_questionnaires")
    rows = _execute(database_url, sa.text("SELECT local_date, poll_message_id, answer FROM self_report "
                                          "ORDER BY local_date"))
    assert [tuple(row) for row in rows] == [("2026-01-06", message_id, "yes"), ("2026-01-07", message_id, None)]
    assert _execute(database_url, sa.text("SELECT count(*) FROM questionnaire_instance"))[0][0] == 0


SENTENCES = {  # what earlier releases wrote, and its code
    "the participant is paused (paused by the team)": "paused",
    "the participant is paused (opted out)": "opted_out",
    "the participant withdrew before it was sent": "withdrawn",
    "its time ran out": "window_closed",
    "its time ran out before it could be sent (not active, or the service was down)": "not_sent_in_time",
    "time zone changed: its time on the new clock had passed": "time_zone_changed",
    "questionnaire baseline was under way": "another_under_way",
    "a sentence no release wrote": "a sentence no release wrote",
}


async def test_the_reasons_earlier_releases_wrote_in_words_become_the_codebook_s_codes(database_url: str) -> None:
    load_release(database_url, RELEASE)
    await asyncio.to_thread(schema.upgrade, database_url, target="0016_suppression")
    [(ana,)] = _execute(database_url, sa.text("SELECT id FROM participant WHERE phone = :phone"), phone=PEOPLE["Ana"])
    for n, sentence in enumerate(SENTENCES):
        _execute(database_url, sa.text(
            "INSERT INTO questionnaire_instance (participant_id, questionnaire_id, occasion, schedule_kind, "
            "scheduled_at, status, reason, tries, reminders_sent) VALUES (:pid, 'baseline', :occasion, 'event', "
            "'2026-01-07 01:00:00', 'not_sent', :reason, 0, 0)"), pid=ana, occasion=f"manual:{n}", reason=sentence)
    await asyncio.to_thread(schema.upgrade, database_url)
    rows = _execute(database_url, sa.text("SELECT occasion, reason FROM questionnaire_instance "
                                          "WHERE occasion LIKE 'manual:%'"))
    assert dict(rows) == {f"manual:{n}": code for n, code in enumerate(SENTENCES.values())}
