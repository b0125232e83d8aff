"""The schema of release b1c231f, the last one before versioned migrations.

An empty database gets it as written here. A database made by that release or an earlier one (they recorded no version)
is brought to it: missing tables are created; missing columns are added and filled with the default the release gave new
rows; columns the release declares NOT NULL are made so once they hold no NULL; missing indexes are made; and the two
flags that replaced ``paused_by`` (``opted_out``, ``researcher_paused``) are filled from it. Everything here is frozen:
later changes of the models come as later revisions, never as edits of this one.

Create Date: 2026-11-25
"""

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql
from sqlalchemy.types import TypeEngine

revision = "0001_baseline"
down_revision = None

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


_DEFAULTS_BY_TABLE: dict[str, dict[str, object]] = {
    "api_token": {"created_by": ""}, "audit_log": {"via": "api"}, "study_protocol": {"adopted_by": ""},
    "participant": {"name": "", "timezone": "UTC", "status": "active", "opted_out": False, "researcher_paused": False,
                    "background": "", "extra_days": 0},
    "consent": {"actor": "", "words": ""},
    "conversation": {"sub_state": "INTAKE", "summary": "", "summary_through": 0, "turns_since_summary": 0,
                     "version": 1},
    "message": {"kind": "text", "receipts_expected": False}, "schedule": {"prep_minutes": 10, "active": True},
    "timer": {"status": "pending", "reason": ""}, "transition": {"reason": ""}, "decision": {"seed_ref": ""},
    "flag": {"trigger": "", "status": "open", "resolution_note": "", "alert_status": "none", "alert_attempts": 0},
    "inbox": {"status": "pending", "attempts": 0}, "outbox": {"status": "pending", "attempts": 0},
    "prompt_delivery": {"vote_changes": 0},
}
DEFAULTS = {(table, column): value for table, values in _DEFAULTS_BY_TABLE.items() for column, value in values.items()}
"""What the release gave new rows, by (table, column)."""


def define(meta: sa.MetaData) -> None:
    """The tables as release b1c231f created them."""
    _access_tables(meta)
    _participant_tables(meta)
    _study_tables(meta)
    _queue_tables(meta)


TYPES: dict[str, Callable[[], TypeEngine[Any]]] = {
    "str": sa.String, "text": sa.Text, "int": sa.Integer, "bool": sa.Boolean, "float": sa.Float,
    "time": lambda: sa.DateTime(timezone=True), "json": lambda: JSON}


def _table(meta: sa.MetaData, name: str, columns: str, *constraints: sa.Constraint) -> None:
    """A table from ``"name type, name type?, …"`` (its columns in order; ``?``: nullable) and its
    constraints, as release b1c231f declared them."""
    kinds = [item.split() for item in columns.split(",")]
    sa.Table(name, meta, *(sa.Column(column, TYPES[kind.rstrip("?")](), nullable=kind.endswith("?"))
                           for column, kind in kinds), *constraints)


def _fk(column: str, target: str = "participant.id") -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [target])


def _access_tables(meta: sa.MetaData) -> None:
    """The API's tokens and its audit log."""
    _table(meta, "api_token", "id int, name str, role str, token_hash str, created_at time, created_by str, "
                              "revoked_at time?, revoked_by str?",
                              sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("name"),
                              sa.UniqueConstraint("token_hash"))
    _table(meta, "audit_log", "id int, actor str, role str, action str, participant_id str?, detail json, via str, "
                              "created_at time",
                              sa.PrimaryKeyConstraint("id"))


def _participant_tables(meta: sa.MetaData) -> None:
    """Participants, their conversations, transcripts, ledgers and flags."""
    _table(meta, "lid_mapping", "lid str, phone str, updated_at time",
                                sa.PrimaryKeyConstraint("lid"))
    _table(meta, "participant", "id str, phone str, lid str?, name str, timezone str, status str, opted_out bool, "
                                "researcher_paused bool, paused_by str?, background text, enrolled_at time, "
                                "updated_at time, erased_at time?, erased_by str?, arm str?, strata json?, "
                                "day_one str?, extra_days int, completed_at time?",
                                sa.PrimaryKeyConstraint("id"))
    _table(meta, "receipt", "id int, wa_message_id str, kind str, at time, received_at time",
                            sa.PrimaryKeyConstraint("id"),
                            sa.UniqueConstraint("wa_message_id", "kind", name="uq_receipt_message_kind"))
    _table(meta, "service_status", "name str, value json, updated_at time",
                                   sa.PrimaryKeyConstraint("name"))
    _table(meta, "consent", "id int, participant_id str, event str, source str, actor str, words text, "
                            "created_at time",
                            _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "conversation", "participant_id str, sub_state str, profile json, tone json, summary text, "
                                 "summary_through int, turns_since_summary int, version int, updated_at time",
                                 _fk("participant_id"), sa.PrimaryKeyConstraint("participant_id"))
    _table(meta, "message", "id int, participant_id str, direction str, role str, kind str, text text, payload json, "
                            "wa_message_id str?, status str, created_at time, sent_at time?, receipts_expected bool",
                            _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "tone_event", "id int, participant_id str, source str, proposed json, stripped json, outcome str, "
                               "active_before json, active_after json, scores json, created_at time",
                               _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "transition", "id int, participant_id str, kind str, name str, from_value str?, to_value str, "
                               "reason text, actor str?, created_at time",
                               _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "flag", "id int, participant_id str, source str, severity str, trigger text, message_id int?, "
                         "status str, resolved_at time?, resolved_by str?, resolution_note text, alert_status str, "
                         "alert_attempts int, alerted_at time?, created_at time",
                         _fk("message_id", "message.id"), _fk("participant_id"), sa.PrimaryKeyConstraint("id"))


def _study_tables(meta: sa.MetaData) -> None:
    """The study's protocol, allocation and decisions, and the self-reports."""
    _table(meta, "study_protocol", "id int, name str, hash str, contents text, previous_hash str?, adopted_at time, "
                                   "adopted_by str",
                                   sa.PrimaryKeyConstraint("id"))
    _table(meta, "study_secret", "name str, value str, created_at time",
                                 sa.PrimaryKeyConstraint("name"))
    _table(meta, "allocation", "participant_id str, stratum str, sequence int, arm str, created_at time",
                               _fk("participant_id"), sa.PrimaryKeyConstraint("participant_id"),
                               sa.UniqueConstraint("stratum", "sequence", name="uq_allocation_stratum_sequence"))
    _table(meta, "decision", "id int, participant_id str, inbox_id int, schedule_id str?, arm str?, study_day int?, "
                             "local_date str, scheduled_for time?, decided_at time, local_time str, timezone str, "
                             "available bool, unavailable_reason str?, probability float?, action str, draw float?, "
                             "seed_ref str, prompt_message_id int?, prompt_style str?, model str?, "
                             "system_prompt_hash str?, protocol_hash str?, not_sent_reason str?",
                             _fk("participant_id"), _fk("prompt_message_id", "message.id"),
                             sa.PrimaryKeyConstraint("id"), sa.UniqueConstraint("inbox_id"))
    _table(meta, "self_report", "id int, participant_id str, local_date str, poll_message_id int?, asked_at time, "
                                "answer str?, answered_at time?",
                                _fk("participant_id"), _fk("poll_message_id", "message.id"),
                                sa.PrimaryKeyConstraint("id"),
                                sa.UniqueConstraint("participant_id", "local_date", name="uq_self_report_day"))


def _queue_tables(meta: sa.MetaData) -> None:
    """The queues, the schedules and the prompts that went out."""
    _table(meta, "schedule", "id str, participant_id str, kind str, habit_time str?, window_start str?, "
                             "window_end str?, prep_minutes int, active bool, created_at time, updated_at time",
                             _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "timer", "id int, participant_id str, kind str, due_at time, payload json, status str, reason text, "
                          "created_at time, settled_at time?",
                          _fk("participant_id"), sa.PrimaryKeyConstraint("id"))
    _table(meta, "inbox", "id int, key str, participant_id str, kind str, payload json, message_id int?, status str, "
                          "attempts int, available_at time, created_at time, processed_at time?, last_error text?",
                          _fk("message_id", "message.id"), _fk("participant_id"), sa.PrimaryKeyConstraint("id"),
                          sa.UniqueConstraint("key"))
    _table(meta, "outbox", "id int, key str, participant_id str, message_id int, status str, attempts int, "
                           "available_at time, claimed_at time?, sent_at time?, wa_message_id str?, "
                           "last_error text?, created_at time, held_until time?",
                           _fk("message_id", "message.id"), _fk("participant_id"), sa.PrimaryKeyConstraint("id"),
                           sa.UniqueConstraint("key"))
    _table(meta, "prompt_delivery", "id int, participant_id str, inbox_id int, schedule_id str?, local_date str, "
                                    "prompt_text text, prompt_message_id int?, poll_message_id int?, sent_at time, "
                                    "vote str?, voted_at time?, vote_changes int, vote_source str?, "
                                    "replied_at time?, reminder_at time?",
                                    _fk("participant_id"), _fk("poll_message_id", "message.id"),
                                    _fk("prompt_message_id", "message.id"), sa.PrimaryKeyConstraint("id"),
                                    sa.UniqueConstraint("inbox_id"))


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
