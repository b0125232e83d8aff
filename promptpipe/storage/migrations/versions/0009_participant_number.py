"""Several WhatsApp numbers: ``participant.number`` names the deployment's number a participant
was given at enrolment (everything to them goes from it). Participants from before keep None,
which stands for the deployment's first, default number.

Revision ID: 0009_participant_number
Revises: 0008_delivery_answers_index
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_participant_number"
down_revision = "0008_delivery_answers_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("participant", sa.Column("number", sa.String(), nullable=True))
    op.create_index("ix_participant_number", "participant", ["number"])


def downgrade() -> None:
    op.drop_index("ix_participant_number", table_name="participant")
    op.drop_column("participant", "number")  # not a batch: SQLite's triggers name the table being rebuilt
