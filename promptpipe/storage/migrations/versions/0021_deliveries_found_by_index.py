"""PostgreSQL: the trigger that gives a prompt its receipt level finds the deliveries of a message by their index in
whatever plan it keeps (:data:`promptpipe.storage.rollup.SEEK_BY_INDEX`): a plan kept from when the table was small
read every delivery on each message sent. SQLite: nothing changes.

Create Date: 2026-11-30
"""

from alembic import op

from promptpipe.storage.rollup import SEEK_BY_INDEX, UNSEEK_BY_INDEX

revision = "0021_deliveries_found_by_index"
down_revision = "0020_refuse_unversioned_releases"


def upgrade() -> None:
    for statement in SEEK_BY_INDEX[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    for statement in UNSEEK_BY_INDEX[op.get_bind().dialect.name]:
        op.execute(statement)
