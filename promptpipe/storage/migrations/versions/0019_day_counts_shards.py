"""No row of ``prompt_day_counts`` that every delivery of a day and arm updates: each day and arm has a row per
``shard`` (in the primary key), and the triggers (:data:`promptpipe.storage.rollup.TRIGGERS_V3`) add to the shard of
their connection, so on PostgreSQL the commits of several connections and services no longer queue on one row lock.
Readers sum a day and arm's shards. The rows already there become shard 0; a downgrade sums the shards back into one
row per day and arm.

Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from promptpipe.storage.mirrors import drop_triggers
from promptpipe.storage.rollup import DROP_V1, TRIGGERS_V2, TRIGGERS_V3, create_triggers

revision = "0019_day_counts_shards"
down_revision = "0018_lease_moves"

_COUNTS = ("sent", "delivered", "read", "answered", "done")
_COLLAPSE = [
    "INSERT INTO prompt_day_counts (local_date, arm, shard, {counts}) "
    "SELECT local_date, arm, -1, {sums} FROM prompt_day_counts GROUP BY local_date, arm".format(
        counts=", ".join(_COUNTS), sums=", ".join(f"sum({name})" for name in _COUNTS)),
    "DELETE FROM prompt_day_counts WHERE shard <> -1",
]
"""Each day and arm's shards summed into one row (shard -1 while the others are deleted)."""


def _rebuild(*key: str) -> None:
    """The table with its primary key on ``key`` (the triggers dropped first): on PostgreSQL the key is swapped; SQLite
    cannot change one, so the rows move to a new table (without a column of the old that is not in ``key`` or the
    counts)."""
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("prompt_day_counts_pkey", "prompt_day_counts", type_="primary")
        if "shard" not in key:
            op.drop_column("prompt_day_counts", "shard")
        op.create_primary_key("prompt_day_counts_pkey", "prompt_day_counts", list(key))
        return
    op.create_table(
        "prompt_day_counts_new",
        *(sa.Column(name, sa.Integer() if name == "shard" else sa.String(), nullable=False,
                    server_default="0" if name == "shard" else None) for name in key),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in _COUNTS),
        sa.PrimaryKeyConstraint(*key),
    )
    columns = ", ".join((*key, *_COUNTS))
    op.execute(f"INSERT INTO prompt_day_counts_new ({columns}) SELECT {columns} FROM prompt_day_counts")
    op.drop_table("prompt_day_counts")
    op.rename_table("prompt_day_counts_new", "prompt_day_counts")


def upgrade() -> None:
    bind = op.get_bind()
    drop_triggers(bind, DROP_V1)
    op.add_column("prompt_day_counts", sa.Column("shard", sa.Integer(), nullable=False, server_default="0"))
    _rebuild("local_date", "arm", "shard")
    create_triggers(bind, TRIGGERS_V3)


def downgrade() -> None:
    bind = op.get_bind()
    drop_triggers(bind, DROP_V1)
    for statement in _COLLAPSE:
        op.execute(statement)
    _rebuild("local_date", "arm")
    create_triggers(bind, TRIGGERS_V2)
