"""The daily prompts' counts by participant-local day and arm (``prompt_day_counts``), kept by database triggers in
the transaction of every write that changes a count, whoever writes, so statistics read a few rows a day, never a scan.
A receipt or a message's WhatsApp id sets its prompt's ``prompt_delivery.receipt_level`` (NULL none, 0 delivered, 1
read/played); a delivery written, changed or deleted, or its participant moved to another arm, moves its contribution.

Since V3 (revision 0019) a day and arm has a row per ``shard``, and the triggers add to their connection's (PostgreSQL:
the backend's pid modulo :data:`SHARDS`, so concurrent commits do not queue on one row lock; SQLite: shard 0). A shard
alone means nothing (one may be negative); readers sum a day and arm's shards. The SQL is written once per dialect and
versioned by name (V1: revision 0003; V2: 0012, counted at commit on PostgreSQL). :func:`refill` computes everything
from the rows into shard 0 (revision 0003's backfill, the tests' reference).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

__all__ = ["DROP_V1", "REFILL_V1", "SEEK_BY_INDEX", "SHARDS", "TRIGGERS_V1", "TRIGGERS_V2", "TRIGGERS_V3",
           "TRIGGERS_V4", "UNSEEK_BY_INDEX", "V1_TO_V2", "V2_TO_V1", "create_triggers", "refill"]

_LEVEL_OF = ("(SELECT max(CASE WHEN r.kind = 'delivered' THEN 0 ELSE 1 END) FROM receipt r "
             "WHERE r.wa_message_id = {wa})")
"""A message's receipt level from its receipts (NULL: none, or no WhatsApp id)."""

_COUNTS = "sent, delivered, read, answered, done"

SHARDS = 32
"""PostgreSQL's rows per day and arm: a connection adds to the row of its backend's pid modulo this."""


@dataclass(frozen=True)
class _Key:
    """Which row of a day and arm a trigger adds to: V1 and V2 have one, V3 one per shard."""

    columns: str = "local_date, arm"
    shard: str = ""
    """The shard's value after the arm's in an insert (with its comma), or nothing without shards."""


_ONE_ROW = _Key()
_SQLITE_SHARD = _Key("local_date, arm, shard", ", 0")
_POSTGRESQL_SHARD = _Key("local_date, arm, shard", f", mod(pg_backend_pid(), {SHARDS})")


def _add_up(table: str, indent: str, key: _Key) -> str:
    """An upsert's end: the day's row, where it exists, adds the new counts to its own."""
    return (f"ON CONFLICT ({key.columns}) DO UPDATE SET sent = {table}sent + excluded.sent,\n"
            f"{indent}delivered = {table}delivered + excluded.delivered, read = {table}read + excluded.read,\n"
            f"{indent}answered = {table}answered + excluded.answered, done = {table}done + excluded.done;")


def _sqlite_apply(row: str, sign: str, key: _Key) -> str:
    arm = f"coalesce((SELECT p.arm FROM participant p WHERE p.id = {row}.participant_id), '')"
    return f"""
    INSERT INTO prompt_day_counts ({key.columns}, {_COUNTS})
    SELECT {row}.local_date, {arm}{key.shard},
           {sign}, {sign} * ({row}.receipt_level IS NOT NULL), {sign} * coalesce({row}.receipt_level = 1, 0),
           {sign} * ({row}.vote IS NOT NULL OR {row}.replied_at IS NOT NULL), {sign} * coalesce({row}.vote = 'done', 0)
    WHERE true
    {_add_up("", "        ", key)}"""


def _sqlite_move_arm(arm: str, sign: str, key: _Key) -> str:
    return f"""
    INSERT INTO prompt_day_counts ({key.columns}, {_COUNTS})
    SELECT d.local_date, coalesce({arm}, ''){key.shard}, {sign} * count(*), {sign} * sum(d.receipt_level IS NOT NULL),
           {sign} * sum(coalesce(d.receipt_level = 1, 0)), {sign} * sum(d.vote IS NOT NULL OR d.replied_at IS NOT NULL),
           {sign} * sum(coalesce(d.vote = 'done', 0))
    FROM prompt_delivery d WHERE d.participant_id = NEW.id GROUP BY d.local_date
    {_add_up("", "        ", key)}"""


def _sqlite_set_level(wa: str, where: str) -> str:
    level = _LEVEL_OF.format(wa=wa)
    return f"UPDATE prompt_delivery SET receipt_level = {level} WHERE {where} AND receipt_level IS NOT {level};"


def _sqlite(key: _Key) -> list[str]:
    return [
        f"""CREATE TRIGGER prompt_day_counts_receipt_added AFTER INSERT ON receipt BEGIN
    {_sqlite_set_level("NEW.wa_message_id",
                       "prompt_message_id IN (SELECT m.id FROM message m WHERE m.wa_message_id = NEW.wa_message_id)")}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_receipt_removed AFTER DELETE ON receipt BEGIN
    {_sqlite_set_level("OLD.wa_message_id",
                       "prompt_message_id IN (SELECT m.id FROM message m WHERE m.wa_message_id = OLD.wa_message_id)")}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_message_id AFTER UPDATE OF wa_message_id ON message
    WHEN OLD.wa_message_id IS NOT NEW.wa_message_id BEGIN
    {_sqlite_set_level("NEW.wa_message_id", "prompt_message_id = NEW.id")}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_delivery_added AFTER INSERT ON prompt_delivery BEGIN
    {_sqlite_apply("NEW", "1", key)}
    {_sqlite_set_level("(SELECT m.wa_message_id FROM message m WHERE m.id = NEW.prompt_message_id)", "id = NEW.id")}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_delivery_changed
    AFTER UPDATE OF local_date, participant_id, vote, replied_at, receipt_level ON prompt_delivery BEGIN
    {_sqlite_apply("OLD", "-1", key)}
    {_sqlite_apply("NEW", "1", key)}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_delivery_removed AFTER DELETE ON prompt_delivery BEGIN
    {_sqlite_apply("OLD", "-1", key)}
    END""",
        f"""CREATE TRIGGER prompt_day_counts_arm_changed AFTER UPDATE OF arm ON participant
    WHEN OLD.arm IS NOT NEW.arm BEGIN
    {_sqlite_move_arm("OLD.arm", "-1", key)}
    {_sqlite_move_arm("NEW.arm", "1", key)}
    END""",
    ]


def _pg_apply(key: _Key) -> str:
    return f"""CREATE FUNCTION prompt_day_counts_apply(d prompt_delivery, sign integer) RETURNS void AS $$
    BEGIN
      INSERT INTO prompt_day_counts AS c ({key.columns}, {_COUNTS})
      VALUES (d.local_date, coalesce((SELECT p.arm FROM participant p WHERE p.id = d.participant_id), ''){key.shard},
              sign, sign * (d.receipt_level IS NOT NULL)::integer, sign * coalesce(d.receipt_level = 1, false)::integer,
              sign * (d.vote IS NOT NULL OR d.replied_at IS NOT NULL)::integer,
              sign * coalesce(d.vote = 'done', false)::integer)
      {_add_up("c.", "          ", key)}
    END $$ LANGUAGE plpgsql"""


def _pg_on_arm(key: _Key) -> str:
    return f"""CREATE FUNCTION prompt_day_counts_on_arm() RETURNS trigger AS $$
    BEGIN
      INSERT INTO prompt_day_counts AS c ({key.columns}, {_COUNTS})
      SELECT d.local_date, coalesce(moved.arm, ''){key.shard}, moved.sign * count(*),
             moved.sign * count(d.receipt_level), moved.sign * count(*) FILTER (WHERE d.receipt_level = 1),
             moved.sign * count(*) FILTER (WHERE d.vote IS NOT NULL OR d.replied_at IS NOT NULL),
             moved.sign * count(*) FILTER (WHERE d.vote = 'done')
      FROM prompt_delivery d, (VALUES (OLD.arm, -1), (NEW.arm, 1)) AS moved (arm, sign)
      WHERE d.participant_id = NEW.id GROUP BY d.local_date, moved.arm, moved.sign
      {_add_up("c.", "          ", key)}
      RETURN NULL;
    END $$ LANGUAGE plpgsql"""


_PG_SET_LEVEL = f"""CREATE FUNCTION prompt_day_counts_set_level(wa text, message_ids integer[]) RETURNS void AS $$
    BEGIN
      UPDATE prompt_delivery SET receipt_level = {_LEVEL_OF.format(wa="wa")}
      WHERE prompt_message_id = ANY(message_ids) AND receipt_level IS DISTINCT FROM {_LEVEL_OF.format(wa="wa")};
    END $$ LANGUAGE plpgsql"""
_PG_ON_RECEIPT = """CREATE FUNCTION prompt_day_counts_on_receipt() RETURNS trigger AS $$
    DECLARE
      wa text := CASE WHEN TG_OP = 'DELETE' THEN OLD.wa_message_id ELSE NEW.wa_message_id END;
    BEGIN
      PERFORM prompt_day_counts_set_level(wa, ARRAY(SELECT m.id FROM message m WHERE m.wa_message_id = wa));
      RETURN NULL;
    END $$ LANGUAGE plpgsql"""
_PG_ON_MESSAGE = """CREATE FUNCTION prompt_day_counts_on_message() RETURNS trigger AS $$
    BEGIN
      PERFORM prompt_day_counts_set_level(NEW.wa_message_id, ARRAY[NEW.id]);
      RETURN NULL;
    END $$ LANGUAGE plpgsql"""
_PG_ON_DELIVERY = f"""CREATE FUNCTION prompt_day_counts_on_delivery() RETURNS trigger AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM prompt_day_counts_apply(OLD, -1); END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM prompt_day_counts_apply(NEW, 1); END IF;
      IF TG_OP = 'INSERT' THEN
        UPDATE prompt_delivery SET receipt_level = {_LEVEL_OF.format(wa="m.wa_message_id")}
        FROM message m WHERE prompt_delivery.id = NEW.id AND m.id = NEW.prompt_message_id
          AND {_LEVEL_OF.format(wa="m.wa_message_id")} IS NOT NULL;
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql"""
_PG_TRIGGERS = [
    """CREATE TRIGGER prompt_day_counts_receipt AFTER INSERT OR DELETE ON receipt
    FOR EACH ROW EXECUTE FUNCTION prompt_day_counts_on_receipt()""",
    """CREATE TRIGGER prompt_day_counts_message_id AFTER UPDATE OF wa_message_id ON message
    FOR EACH ROW WHEN (OLD.wa_message_id IS DISTINCT FROM NEW.wa_message_id)
    EXECUTE FUNCTION prompt_day_counts_on_message()""",
    """CREATE TRIGGER prompt_day_counts_delivery
    AFTER INSERT OR DELETE OR UPDATE OF local_date, participant_id, vote, replied_at, receipt_level ON prompt_delivery
    FOR EACH ROW EXECUTE FUNCTION prompt_day_counts_on_delivery()""",
    """CREATE TRIGGER prompt_day_counts_arm AFTER UPDATE OF arm ON participant
    FOR EACH ROW WHEN (OLD.arm IS DISTINCT FROM NEW.arm) EXECUTE FUNCTION prompt_day_counts_on_arm()""",
]


def _postgresql(key: _Key) -> list[str]:
    return [_pg_apply(key), _PG_SET_LEVEL, _PG_ON_RECEIPT, _PG_ON_MESSAGE, _PG_ON_DELIVERY, _pg_on_arm(key),
            *_PG_TRIGGERS]


_SQLITE = _sqlite(_ONE_ROW)
_POSTGRESQL = _postgresql(_ONE_ROW)

TRIGGERS_V1 = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL}
"""Revision 0003's triggers, by dialect."""

[_DELIVERY_V1] = [statement for statement in _POSTGRESQL
                  if statement.startswith("CREATE TRIGGER prompt_day_counts_delivery")]
_DELIVERY_V2 = """CREATE CONSTRAINT TRIGGER prompt_day_counts_delivery
    AFTER INSERT OR DELETE OR UPDATE OF local_date, participant_id, vote, replied_at, receipt_level ON prompt_delivery
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION prompt_day_counts_on_delivery()"""
"""PostgreSQL counts a delivery's change at its transaction's commit, so the day's row is locked for the commit alone
(counted mid-turn, a burst's turns queued on it one after another, across services)."""

TRIGGERS_V2 = {"sqlite": _SQLITE, "postgresql": [_DELIVERY_V2 if statement is _DELIVERY_V1 else statement
                                                  for statement in _POSTGRESQL]}
"""Revision 0012's triggers: V1, with the delivery's counted at commit on PostgreSQL."""
V1_TO_V2 = {"sqlite": [], "postgresql": [
    "DROP TRIGGER prompt_day_counts_delivery ON prompt_delivery", _DELIVERY_V2]}
V2_TO_V1 = {"sqlite": [], "postgresql": [
    "DROP TRIGGER prompt_day_counts_delivery ON prompt_delivery", _DELIVERY_V1]}

TRIGGERS_V3 = {"sqlite": _sqlite(_SQLITE_SHARD),
               "postgresql": [_DELIVERY_V2 if statement is _DELIVERY_V1 else statement
                              for statement in _postgresql(_POSTGRESQL_SHARD)]}
"""Revision 0019's triggers: V2, adding to a row per day, arm and shard (see the module's docstring)."""

SEEK_BY_INDEX = {"sqlite": [], "postgresql": [
    "ALTER FUNCTION prompt_day_counts_set_level(text, integer[]) SET enable_seqscan = off"]}
"""PostgreSQL: the deliveries of a message are found by their index, in whatever plan PL/pgSQL keeps. Its plan for
``prompt_message_id = ANY(…)`` with an array it cannot see guesses a twentieth of the table: a scan of every delivery
on each message sent, once the table outgrew the plan (~147 M rows read in a 10,000-prompt burst)."""
UNSEEK_BY_INDEX = {"sqlite": [], "postgresql": [
    "ALTER FUNCTION prompt_day_counts_set_level(text, integer[]) RESET enable_seqscan"]}
TRIGGERS_V4 = {dialect: [*statements, *SEEK_BY_INDEX[dialect]] for dialect, statements in TRIGGERS_V3.items()}
"""Revision 0021's triggers: V3, the deliveries of a message found by index."""

DROP_V1 = {
    "sqlite": [f"DROP TRIGGER IF EXISTS prompt_day_counts_{name}" for name in (
        "receipt_added", "receipt_removed", "message_id", "delivery_added", "delivery_changed", "delivery_removed",
        "arm_changed")],
    "postgresql": [
        "DROP TRIGGER IF EXISTS prompt_day_counts_receipt ON receipt",
        "DROP TRIGGER IF EXISTS prompt_day_counts_message_id ON message",
        "DROP TRIGGER IF EXISTS prompt_day_counts_delivery ON prompt_delivery",
        "DROP TRIGGER IF EXISTS prompt_day_counts_arm ON participant",
        *(f"DROP FUNCTION IF EXISTS prompt_day_counts_{name}" for name in (
            "on_receipt", "on_message", "on_delivery", "on_arm", "set_level", "apply")),
    ],
}


def create_triggers(conn: Connection, triggers: dict[str, list[str]] = TRIGGERS_V4) -> None:
    for statement in triggers[conn.dialect.name]:
        conn.exec_driver_sql(statement)


_LEVEL_FROM_MESSAGE = _LEVEL_OF.format(wa="m.wa_message_id")

REFILL_V1 = [
    f"UPDATE prompt_delivery SET receipt_level = (SELECT {_LEVEL_FROM_MESSAGE} FROM message m "
    "WHERE m.id = prompt_delivery.prompt_message_id)",
    "DELETE FROM prompt_day_counts",
    f"""INSERT INTO prompt_day_counts (local_date, arm, {_COUNTS})
    SELECT d.local_date, coalesce(p.arm, ''), count(*), count(d.receipt_level),
           sum(CASE WHEN d.receipt_level = 1 THEN 1 ELSE 0 END),
           sum(CASE WHEN d.vote IS NOT NULL OR d.replied_at IS NOT NULL THEN 1 ELSE 0 END),
           sum(CASE WHEN d.vote = 'done' THEN 1 ELSE 0 END)
    FROM prompt_delivery d LEFT JOIN participant p ON p.id = d.participant_id
    GROUP BY d.local_date, coalesce(p.arm, '')""",
]
"""Every receipt level, then every count (revision 0003's fill); the second wipes what triggers count of the first."""


def refill(conn: Connection, statements: list[str] = REFILL_V1) -> None:
    """Compute the rollup from the rows themselves, as revision 0003 filled it. On PostgreSQL the deferred delivery
    trigger (V2 on) is made immediate first: counted at commit, the receipt levels the first statement corrects would
    be added again after the last statement counted every row."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET CONSTRAINTS ALL IMMEDIATE")
    for statement in statements:
        conn.exec_driver_sql(statement)
