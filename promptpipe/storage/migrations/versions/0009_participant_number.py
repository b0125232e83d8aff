"""Several WhatsApp numbers: ``participant.number`` names the deployment's number a participant
was given at enrolment (everything to them goes from it). Participants from before keep None,
which stands for the deployment's first, default number.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_participant_number"
down_revision = "0008_delivery_answers_index"


def upgrade() -> None:
    op.add_column("participant", sa.Column("number", sa.String(), nullable=True))
    op.create_index("ix_participant_number", "participant", ["number"])


def downgrade() -> None:
    op.drop_index("ix_participant_number", table_name="participant")
    op.drop_column("participant", "number")  # not a batch: SQLite's triggers name the table being rebuilt
