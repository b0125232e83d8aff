"""Two facts the transcript repeats from the work queues, copied by database triggers (saves an UPDATE per message):
``inbox_done_answers_message`` marks a received message answered when its inbox row is done *without an error* (other
closings set the message's status themselves); ``outbox_sent_marks_message`` copies a sent outbox row's send facts to
its message and marks it sent. SQL once per dialect, versioned by name, like :mod:`.rollup`'s.
"""

from __future__ import annotations

from sqlalchemy import Connection

__all__ = ["DROP_V1", "TRIGGERS_V1", "create_triggers", "drop_triggers"]

_ANSWERS = "UPDATE message SET status = 'answered' WHERE id = NEW.message_id AND status = 'received';"
_ANSWERS_WHEN = ("NEW.status = 'done' AND OLD.status = 'pending' AND NEW.message_id IS NOT NULL "
                 "AND NEW.last_error IS NULL")
_SENT = ("UPDATE message SET status = 'sent', sent_at = NEW.sent_at, wa_message_id = NEW.wa_message_id, "
         "receipts_expected = coalesce(NEW.receipts_expected, false) WHERE id = NEW.message_id;")
_SENT_WHEN = "NEW.status = 'sent' AND OLD.status <> 'sent'"

_SQLITE = [
    f"""CREATE TRIGGER inbox_done_answers_message AFTER UPDATE OF status ON inbox
    WHEN {_ANSWERS_WHEN} BEGIN {_ANSWERS} END""",
    f"""CREATE TRIGGER outbox_sent_marks_message AFTER UPDATE OF status ON outbox
    WHEN {_SENT_WHEN} BEGIN {_SENT} END""",
]

_POSTGRESQL = [
    f"""CREATE FUNCTION inbox_done_answers_message() RETURNS trigger AS $$
    BEGIN {_ANSWERS} RETURN NULL; END $$ LANGUAGE plpgsql""",
    f"""CREATE TRIGGER inbox_done_answers_message AFTER UPDATE OF status ON inbox
    FOR EACH ROW WHEN ({_ANSWERS_WHEN}) EXECUTE FUNCTION inbox_done_answers_message()""",
    f"""CREATE FUNCTION outbox_sent_marks_message() RETURNS trigger AS $$
    BEGIN {_SENT} RETURN NULL; END $$ LANGUAGE plpgsql""",
    f"""CREATE TRIGGER outbox_sent_marks_message AFTER UPDATE OF status ON outbox
    FOR EACH ROW WHEN ({_SENT_WHEN}) EXECUTE FUNCTION outbox_sent_marks_message()""",
]

TRIGGERS_V1 = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL}
"""Revision 0011's triggers, by dialect."""

DROP_V1 = {
    "sqlite": ["DROP TRIGGER IF EXISTS inbox_done_answers_message", "DROP TRIGGER IF EXISTS outbox_sent_marks_message"],
    "postgresql": [
        "DROP TRIGGER IF EXISTS inbox_done_answers_message ON inbox",
        "DROP TRIGGER IF EXISTS outbox_sent_marks_message ON outbox",
        "DROP FUNCTION IF EXISTS inbox_done_answers_message()",
        "DROP FUNCTION IF EXISTS outbox_sent_marks_message()",
    ],
}


def create_triggers(conn: Connection, triggers: dict[str, list[str]] = TRIGGERS_V1) -> None:
    for statement in triggers[conn.dialect.name]:
        conn.exec_driver_sql(statement)


def drop_triggers(conn: Connection, statements: dict[str, list[str]] = DROP_V1) -> None:
    for statement in statements[conn.dialect.name]:
        conn.exec_driver_sql(statement)
