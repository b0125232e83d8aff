"""The schema of release b1c231f, the last one before versioned migrations.

An empty database gets it as written here. A database made by that release or an earlier one
(they recorded no version) is brought to it: missing tables are created; missing columns are added
and filled with the default the release gave new rows; columns the release declares NOT NULL are
made so once they hold no NULL; missing indexes are made; and the two flags that replaced
``paused_by`` (``opted_out``, ``researcher_paused``) are filled from it. Everything here is frozen:
later changes of the models come as later revisions, never as edits of this one.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    bind = op.get_bind()
    meta = sa.MetaData()
    define(meta)
    existing = set(sa.inspect(bind).get_table_names())
    added: set[tuple[str, str]] = set()
    for table in meta.sorted_tables:
        if table.name not in existing:
            table.create(bind)
            continue
        present = {column["name"] for column in sa.inspect(bind).get_columns(table.name)}
        for column in table.columns:
            if column.name not in present:
                op.add_column(table.name, sa.Column(column.name, column.type, nullable=True))
                added.add((table.name, column.name))
    _fill_replaced_flags(bind, added)
    for table in meta.sorted_tables:
        if table.name in existing:
            _tighten(bind, table)
    for name, table_name, columns, unique in INDEXES:
        if name not in {index["name"] for index in sa.inspect(bind).get_indexes(table_name)}:
            table = meta.tables[table_name]
            sa.Index(name, *(table.c[column] for column in columns), unique=unique).create(bind)


def downgrade() -> None:
    raise NotImplementedError("the baseline is the oldest schema there is: restore a copy made before the upgrade")


def _fill_replaced_flags(bind: Any, added: set[tuple[str, str]]) -> None:
    """``opted_out`` and ``researcher_paused`` replaced ``paused_by`` ('participant' or
    'researcher', NULL unless paused); an earlier upgrade left them NULL for everyone not paused."""
    for flag, holder in (("opted_out", "participant"), ("researcher_paused", "researcher")):
        if ("participant", flag) in added:
            bind.execute(sa.text(f"UPDATE participant SET {flag} = CASE WHEN paused_by LIKE :holder THEN :yes "
                                 "ELSE :no END").bindparams(holder=f"%{holder}%", yes=True, no=False))


def _tighten(bind: Any, table: sa.Table) -> None:
    """Columns an earlier release's upgrade added as nullable: NULLs get the release's default,
    and the column becomes NOT NULL as declared (left nullable only if NULLs remain)."""
    present = {column["name"]: column for column in sa.inspect(bind).get_columns(table.name)}
    loose = [column for column in table.columns
             if not column.nullable and not column.primary_key and present[column.name]["nullable"]]
    tightened = []
    for column in loose:
        if (table.name, column.name) in DEFAULTS:
            bind.execute(sa.text(f'UPDATE "{table.name}" SET "{column.name}" = :value WHERE "{column.name}" IS NULL')
                         .bindparams(value=DEFAULTS[(table.name, column.name)]))
        nulls = bind.execute(sa.text(f'SELECT count(*) FROM "{table.name}" WHERE "{column.name}" IS NULL')).scalar()
        if not nulls:
            tightened.append(column)
    if tightened:
        with op.batch_alter_table(table.name) as batch:
            for column in tightened:
                batch.alter_column(column.name, existing_type=column.type, nullable=False)


DEFAULTS: dict[tuple[str, str], object] = {
    ("api_token", "created_by"): "",
    ("audit_log", "via"): "api",
    ("participant", "name"): "",
    ("participant", "timezone"): "UTC",
    ("participant", "status"): "active",
    ("participant", "opted_out"): False,
    ("participant", "researcher_paused"): False,
    ("participant", "background"): "",
    ("participant", "extra_days"): 0,
    ("study_protocol", "adopted_by"): "",
    ("consent", "actor"): "",
    ("consent", "words"): "",
    ("conversation", "sub_state"): "INTAKE",
    ("conversation", "summary"): "",
    ("conversation", "summary_through"): 0,
    ("conversation", "turns_since_summary"): 0,
    ("conversation", "version"): 1,
    ("message", "kind"): "text",
    ("message", "receipts_expected"): False,
    ("schedule", "prep_minutes"): 10,
    ("schedule", "active"): True,
    ("timer", "status"): "pending",
    ("timer", "reason"): "",
    ("transition", "reason"): "",
    ("decision", "seed_ref"): "",
    ("flag", "trigger"): "",
    ("flag", "status"): "open",
    ("flag", "resolution_note"): "",
    ("flag", "alert_status"): "none",
    ("flag", "alert_attempts"): 0,
    ("inbox", "status"): "pending",
    ("inbox", "attempts"): 0,
    ("outbox", "status"): "pending",
    ("outbox", "attempts"): 0,
    ("prompt_delivery", "vote_changes"): 0,
}


def define(meta: sa.MetaData) -> None:
    """The tables as release b1c231f created them."""
    sa.Table(
        "api_token", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_hash")
    )
    sa.Table(
        "audit_log", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=True),
        sa.Column("detail", JSON, nullable=False),
        sa.Column("via", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "lid_mapping", meta,
        sa.Column("lid", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("lid")
    )
    sa.Table(
        "participant", meta,
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("phone", sa.String(), nullable=False),
        sa.Column("lid", sa.String(), nullable=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("opted_out", sa.Boolean(), nullable=False),
        sa.Column("researcher_paused", sa.Boolean(), nullable=False),
        sa.Column("paused_by", sa.String(), nullable=True),
        sa.Column("background", sa.Text(), nullable=False),
        sa.Column("enrolled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("erased_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("erased_by", sa.String(), nullable=True),
        sa.Column("arm", sa.String(), nullable=True),
        sa.Column("strata", JSON, nullable=True),
        sa.Column("day_one", sa.String(), nullable=True),
        sa.Column("extra_days", sa.Integer(), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "receipt", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("wa_message_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("wa_message_id", "kind", name="uq_receipt_message_kind")
    )
    sa.Table(
        "service_status", meta,
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("value", JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name")
    )
    sa.Table(
        "study_protocol", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("hash", sa.String(), nullable=False),
        sa.Column("contents", sa.Text(), nullable=False),
        sa.Column("previous_hash", sa.String(), nullable=True),
        sa.Column("adopted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("adopted_by", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "study_secret", meta,
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name")
    )
    sa.Table(
        "allocation", meta,
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("stratum", sa.String(), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("arm", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("participant_id"),
        sa.UniqueConstraint("stratum", "sequence", name="uq_allocation_stratum_sequence")
    )
    sa.Table(
        "consent", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("event", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("words", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "conversation", meta,
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("sub_state", sa.String(), nullable=False),
        sa.Column("profile", JSON, nullable=False),
        sa.Column("tone", JSON, nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summary_through", sa.Integer(), nullable=False),
        sa.Column("turns_since_summary", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("participant_id")
    )
    sa.Table(
        "message", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("direction", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("wa_message_id", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("receipts_expected", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "schedule", meta,
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("habit_time", sa.String(), nullable=True),
        sa.Column("window_start", sa.String(), nullable=True),
        sa.Column("window_end", sa.String(), nullable=True),
        sa.Column("prep_minutes", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "timer", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "tone_event", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("proposed", JSON, nullable=False),
        sa.Column("stripped", JSON, nullable=False),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("active_before", JSON, nullable=False),
        sa.Column("active_after", JSON, nullable=False),
        sa.Column("scores", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "transition", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("from_value", sa.String(), nullable=True),
        sa.Column("to_value", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "decision", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=False),
        sa.Column("schedule_id", sa.String(), nullable=True),
        sa.Column("arm", sa.String(), nullable=True),
        sa.Column("study_day", sa.Integer(), nullable=True),
        sa.Column("local_date", sa.String(), nullable=False),
        sa.Column("scheduled_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("local_time", sa.String(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=False),
        sa.Column("available", sa.Boolean(), nullable=False),
        sa.Column("unavailable_reason", sa.String(), nullable=True),
        sa.Column("probability", sa.Float(), nullable=True),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("draw", sa.Float(), nullable=True),
        sa.Column("seed_ref", sa.String(), nullable=False),
        sa.Column("prompt_message_id", sa.Integer(), nullable=True),
        sa.Column("prompt_style", sa.String(), nullable=True),
        sa.Column("model", sa.String(), nullable=True),
        sa.Column("system_prompt_hash", sa.String(), nullable=True),
        sa.Column("protocol_hash", sa.String(), nullable=True),
        sa.Column("not_sent_reason", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["prompt_message_id"], ["message.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("inbox_id")
    )
    sa.Table(
        "flag", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("severity", sa.String(), nullable=False),
        sa.Column("trigger", sa.Text(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_by", sa.String(), nullable=True),
        sa.Column("resolution_note", sa.Text(), nullable=False),
        sa.Column("alert_status", sa.String(), nullable=False),
        sa.Column("alert_attempts", sa.Integer(), nullable=False),
        sa.Column("alerted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["message_id"], ["message.id"]),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id")
    )
    sa.Table(
        "inbox", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["message_id"], ["message.id"]),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key")
    )
    sa.Table(
        "outbox", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("wa_message_id", sa.String(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("held_until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["message_id"], ["message.id"]),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key")
    )
    sa.Table(
        "prompt_delivery", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=False),
        sa.Column("schedule_id", sa.String(), nullable=True),
        sa.Column("local_date", sa.String(), nullable=False),
        sa.Column("prompt_text", sa.Text(), nullable=False),
        sa.Column("prompt_message_id", sa.Integer(), nullable=True),
        sa.Column("poll_message_id", sa.Integer(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("vote", sa.String(), nullable=True),
        sa.Column("voted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("vote_changes", sa.Integer(), nullable=False),
        sa.Column("vote_source", sa.String(), nullable=True),
        sa.Column("replied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminder_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["poll_message_id"], ["message.id"]),
        sa.ForeignKeyConstraint(["prompt_message_id"], ["message.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("inbox_id")
    )
    sa.Table(
        "self_report", meta,
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(), nullable=False),
        sa.Column("local_date", sa.String(), nullable=False),
        sa.Column("poll_message_id", sa.Integer(), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answer", sa.String(), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["participant_id"], ["participant.id"]),
        sa.ForeignKeyConstraint(["poll_message_id"], ["message.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("participant_id", "local_date", name="uq_self_report_day")
    )


INDEXES: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("ix_audit_log_participant", "audit_log", ("participant_id", "id"), False),
    ("ix_lid_mapping_phone", "lid_mapping", ("phone",), False),
    ("ix_participant_lid", "participant", ("lid",), False),
    ("ix_participant_phone", "participant", ("phone",), True),
    ("ix_receipt_wa_message_id", "receipt", ("wa_message_id",), False),
    ("ix_consent_participant_id", "consent", ("participant_id",), False),
    ("ix_message_participant_direction_created", "message", ("participant_id", "direction", "created_at"), False),
    ("ix_message_participant_id_id", "message", ("participant_id", "id"), False),
    ("ix_message_wa_message_id", "message", ("wa_message_id",), False),
    ("ix_schedule_participant_active", "schedule", ("participant_id", "active"), False),
    ("ix_timer_participant_status", "timer", ("participant_id", "status"), False),
    ("ix_timer_status_due", "timer", ("status", "due_at"), False),
    ("ix_tone_event_participant_id", "tone_event", ("participant_id",), False),
    ("ix_transition_participant_id", "transition", ("participant_id",), False),
    ("ix_decision_participant_id", "decision", ("participant_id", "id"), False),
    ("ix_flag_participant_id", "flag", ("participant_id",), False),
    ("ix_flag_status_id", "flag", ("status", "id"), False),
    ("ix_inbox_participant_status", "inbox", ("participant_id", "status", "id"), False),
    ("ix_inbox_status_available", "inbox", ("status", "available_at"), False),
    ("ix_outbox_participant_id", "outbox", ("participant_id", "id"), False),
    ("ix_outbox_status_available", "outbox", ("status", "available_at"), False),
    ("ix_prompt_delivery_day_counts", "prompt_delivery",
     ("local_date", "participant_id", "vote", "replied_at", "prompt_message_id"), False),
    ("ix_prompt_delivery_participant_id", "prompt_delivery", ("participant_id", "id"), False),
    ("ix_prompt_delivery_poll_message_id", "prompt_delivery", ("poll_message_id",), False),
    ("ix_prompt_delivery_sent_at", "prompt_delivery", ("sent_at",), False),
    ("ix_self_report_poll_message_id", "self_report", ("poll_message_id",), False),
)
