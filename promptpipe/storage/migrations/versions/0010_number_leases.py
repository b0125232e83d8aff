"""Several services on one database: ``number_lease`` says which ``serve`` process holds each WhatsApp number (or a role
such as ``@alarms``) until when, with a fencing token that grows each time a lease goes to another process. A database
from before has no leases: the first service to start takes them.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_number_leases"
down_revision = "0009_participant_number"

_when = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "number_lease",
        sa.Column("name", sa.Text(), primary_key=True),
        sa.Column("holder", sa.Text(), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", _when, nullable=False),
        sa.Column("heartbeat_at", _when, nullable=False),
        sa.Column("acquired_at", _when, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("number_lease")
