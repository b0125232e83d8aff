"""Numbers that stay where they are: each lease row keeps the service that holds it (a name that
survives restarts, ``service``), the number's preferred service (``preferred``: from the
configuration, or the first service to hold it) and an operator's request to move it
(``move_to``); ``lease_move`` records each move of a number or of the alarm clock from one
service to another, with its reason. Leases from before have no service: the next holder's take
is not counted as a move.

Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0018_lease_moves"
down_revision = "0017_instance_reason_codes"

_when = sa.DateTime(timezone=True)
_COLUMNS = ("service", "preferred", "move_to")


def upgrade() -> None:
    for name in _COLUMNS:
        op.add_column("number_lease", sa.Column(name, sa.Text(), nullable=False, server_default=""))
    op.create_table(
        "lease_move",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("from_service", sa.Text(), nullable=False),
        sa.Column("to_service", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("moved_at", _when, nullable=False),
    )
    op.create_index("ix_lease_move_moved_at", "lease_move", ["moved_at"])


def downgrade() -> None:
    op.drop_index("ix_lease_move_moved_at", table_name="lease_move")
    op.drop_table("lease_move")
    for name in reversed(_COLUMNS):
        op.drop_column("number_lease", name)
