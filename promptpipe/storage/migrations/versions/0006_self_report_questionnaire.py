"""The end-of-day self-report runs as a questionnaire of its own (``self_report``, one yes/no item ``did_habit``): each
day it asked moves from the ``self_report`` table into ``questionnaire_instance`` and ``questionnaire_answer``, coded as
the questionnaire engine codes it (answered: completed, with the tapped option and its code; unanswered: expired), and
the old table goes. A question still open at the upgrade is closed as expired: a vote on its poll after the upgrade is
thanked and not counted.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_self_report_questionnaire"
down_revision = "0005_questionnaires"

QUESTIONNAIRE, ITEM = "self_report", "did_habit"
LABELS = {"yes": ("Yes, I did", "1"), "no": ("Not today", "0")}
UNANSWERED = "not answered before the upgrade that made the self-report a questionnaire"

_when = sa.DateTime(timezone=True)
# untyped columns: each value is copied as the database holds it (a time stays in its stored form)
_old = sa.table("self_report", *(sa.column(name) for name in (
    "id", "participant_id", "local_date", "poll_message_id", "asked_at", "answer", "answered_at")))
_instance = sa.table("questionnaire_instance", *(sa.column(name) for name in (
    "id", "participant_id", "questionnaire_id", "occasion", "schedule_kind", "local_date", "scheduled_at",
    "status", "reason", "tries", "reminders_sent", "sent_at", "first_answer_at", "ended_at")))
_answer = sa.table("questionnaire_answer", *(sa.column(name) for name in (
    "instance_id", "participant_id", "item_id", "message_id", "asked_at", "answered_at", "raw", "coded", "source",
    "missing", "tries")))


def upgrade() -> None:
    conn = op.get_bind()
    for row in conn.execute(sa.select(_old).order_by(_old.c.id)).all():
        answered = row.answer in LABELS
        ended = row.answered_at if answered else row.asked_at
        instance_id = conn.execute(sa.insert(_instance).values(
            participant_id=row.participant_id, questionnaire_id=QUESTIONNAIRE, occasion=row.local_date,
            schedule_kind="fixed", local_date=row.local_date, scheduled_at=row.asked_at,
            status="completed" if answered else "expired", reason=None if answered else UNANSWERED, tries=0,
            reminders_sent=0, sent_at=row.asked_at, first_answer_at=row.answered_at if answered else None,
            ended_at=ended).returning(_instance.c.id)).scalar_one()
        label, code = LABELS.get(row.answer or "", (None, None))
        conn.execute(sa.insert(_answer).values(
            instance_id=instance_id, participant_id=row.participant_id, item_id=ITEM, message_id=row.poll_message_id,
            asked_at=row.asked_at, answered_at=row.answered_at if answered else None, raw=label, coded=code,
            source="tap" if answered else None, missing=None if answered else "expired", tries=0))
    op.drop_index("ix_self_report_poll_message_id", "self_report")
    op.drop_table("self_report")


def downgrade() -> None:
    op.create_table(
        "self_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("local_date", sa.String(), nullable=False),
        sa.Column("poll_message_id", sa.Integer(), nullable=True),
        sa.Column("asked_at", _when, nullable=False),
        sa.Column("answer", sa.String(), nullable=True),
        sa.Column("answered_at", _when, nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["poll_message_id"], ["message.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("participant_id", "local_date", name="uq_self_report_day"),
    )
    op.create_index("ix_self_report_poll_message_id", "self_report", ["poll_message_id"])
    conn = op.get_bind()
    asked = (sa.select(_instance.c.id, _instance.c.participant_id, _instance.c.local_date, _instance.c.sent_at,
                       _answer.c.message_id, _answer.c.coded, _answer.c.answered_at)
             .join(_answer, sa.and_(_answer.c.instance_id == _instance.c.id, _answer.c.item_id == ITEM))
             .where(_instance.c.questionnaire_id == QUESTIONNAIRE, _instance.c.sent_at.is_not(None)))
    answers = {code: word for word, (_, code) in LABELS.items()}
    for row in conn.execute(asked).all():
        conn.execute(sa.insert(_old).values(
            participant_id=row.participant_id, local_date=row.local_date, poll_message_id=row.message_id,
            asked_at=row.sent_at, answer=answers.get(row.coded or ""),
            answered_at=row.answered_at if row.coded in answers else None))
    ids = sa.select(_instance.c.id).where(_instance.c.questionnaire_id == QUESTIONNAIRE)
    conn.execute(sa.delete(_answer).where(_answer.c.instance_id.in_(ids)))
    conn.execute(sa.delete(_instance).where(_instance.c.questionnaire_id == QUESTIONNAIRE))
