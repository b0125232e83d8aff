"""On PostgreSQL a daily prompt's delivery is counted in ``prompt_day_counts`` at its transaction's
commit (a deferred constraint trigger, :data:`promptpipe.storage.rollup.TRIGGERS_V2`), so the
day's row is locked for the commit alone, not from the delivery's write to the end of the turn.
SQLite (one writer at a time) is unchanged.

Revision ID: 0012_day_counts_at_commit
Revises: 0011_message_mirrors
Create Date: 2026-11-26
"""

from __future__ import annotations

from alembic import op

from promptpipe.storage.rollup import V1_TO_V2, V2_TO_V1

revision = "0012_day_counts_at_commit"
down_revision = "0011_message_mirrors"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    for statement in V1_TO_V2[bind.dialect.name]:
        bind.exec_driver_sql(statement)


def downgrade() -> None:
    bind = op.get_bind()
    for statement in V2_TO_V1[bind.dialect.name]:
        bind.exec_driver_sql(statement)
