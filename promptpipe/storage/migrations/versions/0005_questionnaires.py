"""Questionnaires: one row per questionnaire sent (or due) to a participant on one occasion, and
one per item of it, asked, answered or missed; the conversation keeps the one under way.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005_questionnaires"
down_revision = "0004_outbox_participant_status"


def _when(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=True)


JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("conversation") as batch:
        batch.add_column(sa.Column("questionnaire", JSON, nullable=True))
    op.create_table(
        "questionnaire_instance",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("questionnaire_id", sa.String(), nullable=False),
        sa.Column("occasion", sa.String(), nullable=False),
        sa.Column("schedule_kind", sa.String(), nullable=False),
        sa.Column("protocol_hash", sa.String(), nullable=True),
        sa.Column("study_day", sa.Integer(), nullable=True),
        sa.Column("local_date", sa.String(), nullable=True),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=False),
        _when("window_start"),
        _when("window_end"),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=True),
        sa.Column("current_item", sa.String(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("reminders_sent", sa.Integer(), nullable=False),
        _when("sent_at"),
        _when("first_answer_at"),
        _when("ended_at"),
        _when("expires_at"),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("participant_id", "questionnaire_id", "occasion", name="uq_questionnaire_occasion"),
    )
    op.create_index("ix_questionnaire_instance_participant_status", "questionnaire_instance",
                    ["participant_id", "status"])
    op.create_table(
        "questionnaire_answer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("instance_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("item_id", sa.String(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=True),
        _when("asked_at"),
        _when("answered_at"),
        sa.Column("raw", sa.String(), nullable=True),
        sa.Column("coded", sa.String(), nullable=True),
        sa.Column("source", sa.String(), nullable=True),
        sa.Column("missing", sa.String(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["instance_id"], ["questionnaire_instance.id"]),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["message_id"], ["message.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("instance_id", "item_id", name="uq_questionnaire_answer_item"),
    )
    op.create_index("ix_questionnaire_answer_instance_id", "questionnaire_answer", ["instance_id"])
    op.create_index("ix_questionnaire_answer_participant_id", "questionnaire_answer", ["participant_id"])


def downgrade() -> None:
    op.drop_table("questionnaire_answer")
    op.drop_table("questionnaire_instance")
    with op.batch_alter_table("conversation") as batch:
        batch.drop_column("questionnaire")
