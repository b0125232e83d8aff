"""The participant list's default order, oldest enrollment first with ties by id, gets an index on
(enrolled_at, id), so a page of 50 is read off the index instead of sorting every participant
for each request (10,000 participants on SQLite: the page's ids ~3.4 -> ~0.1 ms; the API's
participant list, the request the dashboard and API clients make most, ~14 -> ~8 ms of server time).

Create Date: 2026-11-27
"""

from alembic import op

revision = "0014_participant_enrolled_index"
down_revision = "0013_outbox_unsent"


def upgrade() -> None:
    op.create_index("ix_participant_enrolled", "participant", ["enrolled_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_participant_enrolled", "participant")
