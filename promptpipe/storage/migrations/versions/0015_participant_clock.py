"""The participant's own clock decides their consent: each opt-out and opt-in in the ledger keeps
when the participant sent it (``consent.said_at``, their WhatsApp's timestamp) beside when it was
received (``created_at``), and the participant row keeps the send time of the latest one applied
(``participant.own_consent_at``), so a START written before a later STOP but delivered after it
changes nothing. Rows from before keep None: they were applied in the order they arrived.

Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_participant_clock"
down_revision = "0014_participant_enrolled_index"

_when = sa.DateTime(timezone=True)


def upgrade() -> None:
    # not batches: SQLite's triggers name the tables a batch would rebuild
    op.add_column("participant", sa.Column("own_consent_at", _when, nullable=True))
    op.add_column("consent", sa.Column("said_at", _when, nullable=True))


def downgrade() -> None:
    op.drop_column("consent", "said_at")
    op.drop_column("participant", "own_consent_at")
