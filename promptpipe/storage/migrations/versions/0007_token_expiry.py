"""Tokens may expire: ``api_token.expires_at`` (None: never, as every token made before), and the
dashboard shows when each was last used (``api_token.last_used_at``) and where each audited write
came from (``audit_log.address``). Entries and tokens from before stay without them.

Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_token_expiry"
down_revision = "0006_self_report_questionnaire"

_when = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("api_token") as batch:
        batch.add_column(sa.Column("expires_at", _when, nullable=True))
        batch.add_column(sa.Column("last_used_at", _when, nullable=True))
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("address", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_column("address")
    with op.batch_alter_table("api_token") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("expires_at")
