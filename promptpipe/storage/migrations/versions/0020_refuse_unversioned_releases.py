"""Releases from before versioned migrations stop at start on a database this far: ``lid_mapping``
becomes ``whatsapp_lid``, and its phone index takes the old name. Every such release creates a
missing ``lid_mapping`` table when it starts, and that name is now an index's, so its start fails
with "there is already an index named lid_mapping" (SQLite) or 'relation "lid_mapping" already
exists' (PostgreSQL) instead of running on a schema it does not know. The downgrade puts the table
back under its old name (releases from before versions can then start again).

Create Date: 2026-12-02
"""

from alembic import op

revision = "0020_refuse_unversioned_releases"
down_revision = "0019_day_counts_shards"


def upgrade() -> None:
    op.drop_index("ix_lid_mapping_phone", table_name="lid_mapping")
    op.rename_table("lid_mapping", "whatsapp_lid")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE whatsapp_lid RENAME CONSTRAINT lid_mapping_pkey TO whatsapp_lid_pkey")
    op.create_index("lid_mapping", "whatsapp_lid", ["phone"])


def downgrade() -> None:
    op.drop_index("lid_mapping", table_name="whatsapp_lid")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE whatsapp_lid RENAME CONSTRAINT whatsapp_lid_pkey TO lid_mapping_pkey")
    op.rename_table("whatsapp_lid", "lid_mapping")
    op.create_index("ix_lid_mapping_phone", "lid_mapping", ["phone"])
