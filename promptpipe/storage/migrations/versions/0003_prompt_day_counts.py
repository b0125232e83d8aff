"""Researchers' statistics from a rollup the database keeps, not from a scan of every prompt.

``prompt_day_counts`` holds the daily prompts' counts per participant-local day and arm;
``prompt_delivery.receipt_level`` what the receipts say of each prompt. Both are filled from the
rows already there, then triggers keep them (see :mod:`promptpipe.storage.rollup`, whose V1 SQL
this revision uses; a later change of that SQL comes as a later revision).

Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from promptpipe.storage.mirrors import drop_triggers
from promptpipe.storage.rollup import DROP_V1, REFILL_V1, TRIGGERS_V1, create_triggers, refill

revision = "0003_prompt_day_counts"
down_revision = "0002_consent_reconstructed"


def upgrade() -> None:
    with op.batch_alter_table("prompt_delivery") as batch:
        batch.add_column(sa.Column("receipt_level", sa.Integer(), nullable=True))
    op.create_index("ix_prompt_delivery_prompt_message_id", "prompt_delivery", ["prompt_message_id"])
    op.create_table(
        "prompt_day_counts",
        sa.Column("local_date", sa.String(), nullable=False),
        sa.Column("arm", sa.String(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("sent", "delivered", "read", "answered", "done")),
        sa.PrimaryKeyConstraint("local_date", "arm"),
    )
    bind = op.get_bind()
    refill(bind, REFILL_V1)
    create_triggers(bind, TRIGGERS_V1)


def downgrade() -> None:
    drop_triggers(op.get_bind(), DROP_V1)
    op.drop_table("prompt_day_counts")
    op.drop_index("ix_prompt_delivery_prompt_message_id", "prompt_delivery")
    with op.batch_alter_table("prompt_delivery") as batch:
        batch.drop_column("receipt_level")
