"""The transcript's copy of what became of a message is written by the database: an inbox row done marks its message
answered, an outbox row sent marks its message sent (see :mod:`promptpipe.storage.mirrors`, whose V1 SQL this revision
uses). ``outbox.receipts_expected`` carries what the transcript row gets when its send is recorded.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from promptpipe.storage.mirrors import DROP_V1, TRIGGERS_V1, create_triggers, drop_triggers

revision = "0011_message_mirrors"
down_revision = "0010_number_leases"


def upgrade() -> None:
    op.add_column("outbox", sa.Column("receipts_expected", sa.Boolean(), nullable=True))
    create_triggers(op.get_bind(), TRIGGERS_V1)


def downgrade() -> None:
    drop_triggers(op.get_bind(), DROP_V1)
    op.drop_column("outbox", "receipts_expected")  # not a batch: SQLite's triggers name the table being rebuilt
