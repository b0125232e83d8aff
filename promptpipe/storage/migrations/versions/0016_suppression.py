"""The suppression list: an erasure keeps, as a keyed hash, the number of someone who had opted out,
so enrolling the number again starts them opted out instead of greeting them.

Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_suppression"
down_revision = "0015_participant_clock"

_when = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "suppression",
        sa.Column("number_hash", sa.String(), nullable=False),
        sa.Column("opted_out_at", _when, nullable=False),
        sa.Column("erased_at", _when, nullable=False),
        sa.PrimaryKeyConstraint("number_hash"),
    )


def downgrade() -> None:
    op.drop_table("suppression")
