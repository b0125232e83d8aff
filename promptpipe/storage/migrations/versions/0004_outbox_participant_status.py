"""An index for the claim a commit makes of what it queued: one participant's due outbox rows.

Without it the claim was read through the index of every pending row (status, due time) and
filtered to the participant: during a burst of 10,000 due prompts each commit's claim walked the
thousands of rows still waiting, so the burst's cost grew with the square of its size.

Create Date: 2026-11-26
"""

from alembic import op

revision = "0004_outbox_participant_status"
down_revision = "0003_prompt_day_counts"


def upgrade() -> None:
    op.create_index("ix_outbox_participant_status", "outbox", ["participant_id", "status", "available_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_participant_status", "outbox")
