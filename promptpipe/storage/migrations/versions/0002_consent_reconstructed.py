"""The consent ledger of people enrolled before it existed, rebuilt from the transition log.

A release before the ledger (up to ca86ccc) logged each status change in ``transition`` only; the ledger came out empty
for them, so nobody could tell from it who had opted out, been paused or withdrawn, nor when (the export's
``withdrawn_at`` is read from it). Each status transition of a participant with no ledger event at all becomes the event
it records, at its time, with a researcher's reason as the words; the rows are marked ``reconstructed``.

Create Date: 2026-11-25
"""

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002_consent_reconstructed"
down_revision = "0001_baseline"

EVENTS = {
    "enrolled": ("enrolled", None), "opted_out": ("opted_out", "participant"), "opted_in": ("opted_in", "participant"),
    "paused_by_researcher": ("paused", "researcher"), "resumed_by_researcher": ("resumed", "researcher"),
    "withdrawn_by_researcher": ("withdrawn", "researcher"), "erased_by_researcher": ("erased", "researcher"),
}
"""The consent event each status transition records, and who caused it when the log does not say."""

_participant = sa.table("participant", sa.column("id", sa.String()), sa.column("enrolled_at", sa.DateTime()))
_consent = sa.table("consent", sa.column("participant_id", sa.String()), sa.column("event", sa.String()),
                    sa.column("source", sa.String()), sa.column("actor", sa.String()), sa.column("words", sa.Text()),
                    sa.column("created_at", sa.DateTime()), sa.column("reconstructed", sa.Boolean()))
_transition = sa.table("transition", sa.column("id", sa.Integer()), sa.column("participant_id", sa.String()),
                       sa.column("kind", sa.String()), sa.column("name", sa.String()), sa.column("reason", sa.Text()),
                       sa.column("actor", sa.String()), sa.column("created_at", sa.DateTime()))
_inbox = sa.table("inbox", sa.column("participant_id", sa.String()), sa.column("key", sa.String()))


def upgrade() -> None:
    with op.batch_alter_table("consent") as batch:
        batch.add_column(sa.Column("reconstructed", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("consent") as batch:  # the default filled the rows; new ones say so themselves
        batch.alter_column("reconstructed", existing_type=sa.Boolean(), server_default=None)
    _rebuild(op.get_bind())


def downgrade() -> None:
    bind = op.get_bind()
    bind.execute(sa.delete(_consent).where(_consent.c.reconstructed.is_(True)))
    with op.batch_alter_table("consent") as batch:
        batch.drop_column("reconstructed")


def _rebuild(bind: Any) -> None:
    missing = dict(bind.execute(sa.select(_participant.c.id, _participant.c.enrolled_at).where(
        ~sa.exists().where(_consent.c.participant_id == _participant.c.id))).all())
    if not missing:
        return
    by_the_team = set(bind.execute(sa.select(_inbox.c.participant_id).where(
        _inbox.c.participant_id.in_(list(missing)), _inbox.c.key.startswith("enroll:"))).scalars())
    history: dict[str, list[Any]] = defaultdict(list)
    for row in bind.execute(sa.select(_transition).where(
            _transition.c.participant_id.in_(list(missing)), _transition.c.kind == "status")
            .order_by(_transition.c.id)):
        history[row.participant_id].append(row)
    rows = []
    for pid, enrolled_at in missing.items():
        enrolment = "researcher" if pid in by_the_team else "server"
        if not any(change.name == "enrolled" for change in history[pid]):
            rows.append(_event(pid, "enrolled", enrolment, "", enrolled_at))
        for change in history[pid]:
            if change.name in EVENTS:
                event, source = EVENTS[change.name]
                source = change.actor or source or enrolment
                rows.append(_event(pid, event, source, change.reason if source == "researcher" else "",
                                   change.created_at))
    bind.execute(sa.insert(_consent), rows)


def _event(pid: str, event: str, source: str, words: str | None, at: Any) -> dict[str, Any]:
    return {"participant_id": pid, "event": event, "source": source, "actor": "", "words": words or "",
            "created_at": at, "reconstructed": True}
