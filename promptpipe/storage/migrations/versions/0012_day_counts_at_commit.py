"""On PostgreSQL a daily prompt's delivery is counted in ``prompt_day_counts`` at its transaction's commit (a deferred
constraint trigger, :data:`promptpipe.storage.rollup.TRIGGERS_V2`), so the day's row is locked for the commit alone, not
from the delivery's write to the end of the turn. SQLite (one writer at a time) is unchanged.

Create Date: 2026-11-26
"""

from alembic import op

from promptpipe.storage.rollup import V1_TO_V2, V2_TO_V1, create_triggers

revision = "0012_day_counts_at_commit"
down_revision = "0011_message_mirrors"


def upgrade() -> None:
    create_triggers(op.get_bind(), V1_TO_V2)


def downgrade() -> None:
    create_triggers(op.get_bind(), V2_TO_V1)
