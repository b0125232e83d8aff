"""Storage details a study relies on: upgrades keep data, times stay UTC, logs hide phones."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from promptpipe.clock import ManualClock
from promptpipe.logging import configure_logging, get_logger, mask_phone
from promptpipe.research import admin
from promptpipe.storage import mirrors
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import NewInput, add_inputs, due_inputs
from promptpipe.storage.models import Message, Participant
from promptpipe.storage.numbers_served import number_filter
from promptpipe.storage.outbox_rows import claim_statement
from promptpipe.storage.queue_tables import InboxItem, OutboxItem
from promptpipe.storage.rollup import DROP_V1
from promptpipe.storage.schema import SchemaBehind
from promptpipe.storage.urls import sync_url
from tests.databases import execute_raw


async def test_an_unversioned_older_schema_is_refused_then_upgraded_on_request(database_url: str) -> None:
    database = Database(database_url)
    await database.connect()
    await admin.enroll(database, ManualClock(), admin.Enrolment(phone="+15145550101", name="Ana", timezone="UTC"))
    await execute_raw(database, 'DROP INDEX ix_participant_lid')  # an older release had neither,
    await execute_raw(database, 'ALTER TABLE participant DROP COLUMN "lid"')
    await execute_raw(database, 'ALTER TABLE consent DROP COLUMN "reconstructed"')  # nor what came with them,
    for statement in DROP_V1[sa.make_url(database_url).get_backend_name()]:  # nor the statistics' rollup,
        await execute_raw(database, statement)
    await execute_raw(database, "DROP TABLE prompt_day_counts")
    await execute_raw(database, "DROP INDEX ix_prompt_delivery_prompt_message_id")
    await execute_raw(database, 'ALTER TABLE prompt_delivery DROP COLUMN "receipt_level"')
    await execute_raw(database, "DROP INDEX ix_outbox_participant_status")  # nor the outbox's newest index,
    await execute_raw(database, "DROP TABLE questionnaire_answer")  # nor questionnaires
    await execute_raw(database, "DROP TABLE questionnaire_instance")
    await execute_raw(database, 'ALTER TABLE conversation DROP COLUMN "questionnaire"')
    for table, column in (("api_token", "expires_at"), ("api_token", "last_used_at"), ("audit_log", "address")):
        await execute_raw(database, f'ALTER TABLE {table} DROP COLUMN "{column}"')  # nor tokens that expire
    await execute_raw(database, "DROP INDEX ix_prompt_delivery_participant_answers")  # a narrower index then
    await execute_raw(database,
                      "CREATE INDEX ix_prompt_delivery_participant_id ON prompt_delivery (participant_id, id)")
    await execute_raw(database, "DROP INDEX ix_participant_number")  # one number for everyone
    await execute_raw(database, 'ALTER TABLE participant DROP COLUMN "number"')
    await execute_raw(database, "DROP TABLE number_lease")  # nor leases for several services
    await execute_raw(database, "DROP TABLE lease_move")  # nor the record of their moves
    await execute_raw(database, "DROP INDEX lid_mapping")  # the LID table had its first name
    if sa.make_url(database_url).get_backend_name() == "postgresql":
        await execute_raw(database, "ALTER TABLE whatsapp_lid RENAME CONSTRAINT whatsapp_lid_pkey TO lid_mapping_pkey")
    await execute_raw(database, "ALTER TABLE whatsapp_lid RENAME TO lid_mapping")
    await execute_raw(database, "CREATE INDEX ix_lid_mapping_phone ON lid_mapping (phone)")
    for statement in mirrors.DROP_V1[sa.make_url(database_url).get_backend_name()]:  # nor the transcript's mirrors
        await execute_raw(database, statement)
    await execute_raw(database, 'ALTER TABLE outbox DROP COLUMN "receipts_expected"')
    await execute_raw(database, "DROP INDEX ix_outbox_unsent")  # nor the claims' index of unsent rows
    await execute_raw(database, "DROP INDEX ix_participant_enrolled")  # nor the list's index in enrollment order
    await execute_raw(database, 'ALTER TABLE participant DROP COLUMN "own_consent_at"')  # nor the participant's clock
    await execute_raw(database, 'ALTER TABLE consent DROP COLUMN "said_at"')
    await execute_raw(database, "DROP TABLE suppression")  # nor the suppression list
    await execute_raw(database, "DROP TABLE alembic_version")  # nor versions
    await database.close()

    refused = Database(database_url)
    with pytest.raises(SchemaBehind, match="promptpipe db upgrade"):
        await refused.connect()
    await refused.close()
    upgraded = Database(database_url)
    await upgraded.connect(upgrade=True)
    columns = await upgraded.run(
        lambda session: {col["name"] for col in sa.inspect(session.connection()).get_columns("participant")})
    assert "lid" in columns
    assert [p.name for p in await admin.list_participants(upgraded)] == ["Ana"]
    await upgraded.close()


async def test_times_come_back_as_aware_utc(db: Database) -> None:
    local = datetime(2026, 3, 8, 7, 30, tzinfo=timezone.utc)
    await admin.enroll(db, ManualClock(local), admin.Enrolment(phone="+15145550101", name="Ana",
                                                               timezone="America/Toronto"))
    [row] = await admin.list_participants(db)
    assert datetime.fromisoformat(row.enrolled_at) == local


def test_phone_numbers_are_masked_in_logs() -> None:
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    get_logger("test").info("something", phone="+15145550101", note="reply sent to 15145550101")
    line = json.loads(stream.getvalue().strip().splitlines()[-1])
    assert "5145550101" not in stream.getvalue()
    assert line["phone"].endswith("0101") and line["note"].endswith("*0101")
    assert mask_phone("+4915112345678") == "+*********5678"
    configure_logging("console")


async def test_the_inbox_poll_finds_each_participant_with_a_due_row_once_soonest_due_first(db: Database) -> None:
    """What the lanes' poll (every half second) wakes: Ben, whose row came due first, then Ana
    (three rows waiting, named once), not Cleo (her retry is not due yet); and no more than asked."""
    clock = ManualClock(datetime(2026, 1, 5, 9, tzinfo=timezone.utc))
    ana, ben, cleo = [await admin.enroll(db, clock, admin.Enrolment(phone=phone, name=name,
                                                                    timezone="UTC")) for phone, name in (
        ("+14165550131", "Ana"), ("+14165550132", "Ben"), ("+14165550133", "Cleo"))]
    now = clock.now()
    due_in = {"a1": (ana.id, 0), "a2": (ana.id, -1), "a3": (ana.id, -2), "b1": (ben.id, -5), "c1": (cleo.id, 5)}

    def seed(session: Session) -> None:
        session.execute(sa.update(InboxItem).values(status="done"))  # their enrollments, handled
        ids = add_inputs(db, session, [NewInput(key, pid, "message") for key, (pid, _) in due_in.items()], now)
        for key, (_, minutes) in due_in.items():
            session.execute(sa.update(InboxItem).where(InboxItem.id == ids[key])  # type: ignore[arg-type]
                            .values(available_at=now + timedelta(minutes=minutes)))

    await db.run(seed)
    assert await db.run(lambda s: due_inputs(s, now, 10).participants) == [ben.id, ana.id]
    assert await db.run(lambda s: due_inputs(s, now, 1).participants) == [ben.id]
    later = now + timedelta(minutes=6)
    assert await db.run(lambda s: due_inputs(s, later, 10).participants) == [ben.id, ana.id, cleo.id]


async def test_inputs_stored_together_are_each_stored_once_with_their_payload(db: Database) -> None:
    """Several inputs in one call (the alarm clock's burst, one statement): each new key gets a
    row with its payload and comes back with its id; a key stored before is skipped, so its input runs once."""
    ana = await admin.enroll(db, ManualClock(), admin.Enrolment(phone="+15145550101", name="Ana", timezone="UTC"))
    now = datetime(2026, 1, 5, 12, 0, tzinfo=timezone.utc)
    inputs = [NewInput(f"daily:{n}", ana.id, "daily_prompt", {"schedule_id": n, "slot": "08:00"}) for n in range(3)]
    first = await db.run(lambda s: add_inputs(db, s, inputs[:1], now))
    again = await db.run(lambda s: add_inputs(db, s, inputs, now))
    assert set(first) == {"daily:0"} and set(again) == {"daily:1", "daily:2"}
    rows = await db.run(lambda s: s.execute(sa.select(InboxItem.key, InboxItem.payload, InboxItem.status, InboxItem.id)
                                            .where(InboxItem.key.startswith("daily:"))).all())  # type: ignore[union-attr]
    assert sorted((key, payload, status) for key, payload, status, _ in rows) == [
        (f"daily:{n}", {"schedule_id": n, "slot": "08:00"}, "pending") for n in range(3)]
    assert {key: row_id for key, _, _, row_id in rows} == {**first, **again}


async def test_a_commits_claim_of_what_it_queued_costs_the_same_however_many_others_wait(
    db: Database, database_url: str,
) -> None:
    """The claim in the commit that queued a participant's reply reads their rows only: during a
    burst of due prompts its work must not grow with everyone else's messages still waiting (it
    walked all of them: a 10,000-prompt burst's cost grew with its square). Counted in SQLite's
    virtual-machine steps, which do not depend on the machine."""
    if not database_url.startswith("sqlite"):
        pytest.skip("counts SQLite's steps; PostgreSQL plans by its statistics")
    now = datetime(2026, 1, 5, 12, tzinfo=timezone.utc)
    claim = claim_statement(skip_locked=False, one_participant=True)

    def waiting(count: int, first: int) -> Callable[[Session], None]:
        def seed(session: Session) -> None:
            ids = range(first, first + count)
            connection = session.connection()
            connection.execute(sa.insert(Participant), [
                {"id": f"p{i}", "phone": f"+1416555{i:04d}", "name": "", "timezone": "UTC", "status": "active",
                 "enrolled_at": now, "updated_at": now} for i in ids])
            connection.execute(sa.insert(Message), [
                {"id": i + 1, "participant_id": f"p{i}", "direction": "out", "role": "assistant", "kind": "prompt",
                 "text": "Time for a short walk.", "payload": {}, "status": "queued", "created_at": now} for i in ids])
            connection.execute(sa.insert(OutboxItem), [
                {"key": f"prompt-{i}", "participant_id": f"p{i}", "message_id": i + 1, "status": "pending",
                 "attempts": 0, "available_at": now, "created_at": now} for i in ids])
        return seed

    def steps_to_claim(session: Session, participant_id: str) -> int:
        raw = session.connection().connection.dbapi_connection
        counted = [0]

        def step() -> int:
            counted[0] += 1
            return 0
        raw.set_progress_handler(step, 10)  # type: ignore[union-attr]
        try:
            claimed = claim.rows(session.connection(), {"now": now, "limit": 16, "pid": participant_id})
        finally:
            raw.set_progress_handler(None, 10)  # type: ignore[union-attr]
        assert len(claimed) == 1
        return counted[0]

    await db.run(waiting(20, 0))
    few = await db.run(lambda s: steps_to_claim(s, "p0"))
    await db.run(waiting(2000, 20))
    many = await db.run(lambda s: steps_to_claim(s, "p1"))
    assert many <= few * 1.5, (few, many)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_the_outbox_claims_kept_plan_reads_only_a_participants_unsent_rows(database_url: str) -> None:
    """psycopg prepares a statement after five runs, and PostgreSQL may then keep one plan for
    any parameters. The claim's look for an earlier unsent row of the same participant must
    still read only that participant's unsent rows (the partial index ``ix_outbox_unsent``): with
    its statuses bound, the kept plan could not use that index and read every entry of the status
    index instead, dead ones included (one claim took 20 s mid-burst at 30,000 participants)."""
    statement = claim_statement(skip_locked=True, numbers=True)
    compiled = statement.statement.compile(dialect=sa.create_engine(sync_url(database_url)).dialect)
    values = compiled.construct_params({"now": datetime(2026, 1, 5, 12, tzinfo=timezone.utc), "limit": 50,
                                        **number_filter((("a",), "a"))})
    names: list[str] = []

    def numbered(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    sql = re.sub(r"__\[POSTCOMPILE_(param_\d+)\]", lambda m: f"'{values[m.group(1)]}'", str(compiled))
    sql = re.sub(r"__\[POSTCOMPILE_(\w+)\]", lambda m: f"%({m.group(1)})s", sql)
    sql = re.sub(r"%\((\w+)\)s", numbered, sql).replace("%%", "%")
    engine = sa.create_engine(sync_url(database_url))
    try:
        with engine.connect() as conn:
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            cursor.execute(  # a study under way: 2,000 participants, three prompts sent and one due each
                "INSERT INTO participant (id, phone, name, timezone, status, enrolled_at, updated_at, opted_out, "
                "extra_days, background, researcher_paused) SELECT 'p' || i, '+1416555' || lpad(i::text, 4, '0'), "
                "'', 'UTC', 'active', now(), now(), false, 0, '', false FROM generate_series(1, 2000) i")
            cursor.execute(
                "INSERT INTO message (participant_id, direction, role, kind, text, payload, status, created_at, "
                "receipts_expected) "
                "SELECT 'p' || (i % 2000 + 1), 'out', 'assistant', 'prompt', 'Walk?', '{}', 'sent', now(), false "
                "FROM generate_series(1, 8000) i")
            cursor.execute(
                "INSERT INTO outbox (key, participant_id, message_id, status, attempts, available_at, created_at) "
                "SELECT 'k' || m.id, m.participant_id, m.id, CASE WHEN m.id > 6000 THEN 'pending' ELSE 'sent' END, 0, "
                "now(), now() FROM message m")
            cursor.execute("ANALYZE")
            cursor.execute("SET plan_cache_mode = force_generic_plan")
            cursor.execute(f"PREPARE claim AS {sql}")  # no parameters: psycopg leaves the text alone
            arguments = ", ".join(
                "NULL" if values[name] is None else
                f"'{(values[name][0] if isinstance(values[name], list) else values[name])}'" for name in names)
            cursor.execute(f"EXPLAIN EXECUTE claim({arguments})")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            conn.rollback()
    finally:
        engine.dispose()
    assert "$1" in plan or "$2" in plan  # the kept, generic plan
    [look] = [line for line in plan.splitlines() if " on outbox earlier" in line]
    assert "ix_outbox_unsent" in look, plan
