"""Queries on ``outbox``: claiming due sends, settling sends a crash interrupted, and recording
what each send became (with its transcript row)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, and_, bindparam, func, literal_column, or_, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from promptpipe.domain.messages import MessageKind, MessageStatus
from promptpipe.storage.commit_hooks import consent_board
from promptpipe.storage.models import Message, Participant, table_of
from promptpipe.storage.numbers_served import number_filter, of_numbers
from promptpipe.storage.outbox_consent import MAY_SEND, cancel_queued, cancel_unconsented, may_send
from promptpipe.storage.prepared import Prepared
from promptpipe.storage.queue_tables import OutboxItem, OutboxStatus

_OUTBOX = table_of(OutboxItem)

__all__ = ["CLAIM_BATCH", "GREETING_DROPPED", "Claimed", "Queued", "claim_due", "claim_next", "claim_queued",
           "claim_statement", "drop_held_greetings", "may_still_go", "record_sends", "settle_interrupted",
           "settle_uncertain"]

CLAIM_BATCH = 200
_MESSAGE = table_of(Message)
_PARTICIPANT = table_of(Participant)


@dataclass(frozen=True)
class Claimed:
    """An outbox row being sent, with what the transport needs."""

    id: int
    key: str
    participant_id: str
    message_id: int
    attempts: int
    kind: str
    text: str
    payload: dict[str, Any]
    phone: str
    lid: str | None
    number: str | None = None
    """The deployment's number it goes from (None: the default one)."""
    board_at: int = 0
    """The consent board's stamp at its claim: a hold written after it refuses the row (:mod:`.consent_board`)."""


@dataclass(frozen=True)
class Queued:
    """A message a commit has just queued, as stored: what its claim in that commit sends."""

    kind: str
    text: str
    payload: dict[str, Any]


@functools.cache
def claim_statement(*, skip_locked: bool, one_participant: bool = False, participants: bool = False,
                    numbers: bool = False) -> Prepared:
    """``UPDATE outbox SET status='sending' … WHERE id IN (due rows whose participant has no earlier unsent row and may
    be written to) RETURNING id``, run with ``now``, ``limit`` (and ``pid`` or ``pids``). A row held for quiet hours
    holds nothing back until it is due itself. Made once per set of flags (building one costs ~10 ms of CPU)."""
    earlier = _OUTBOX.alias("earlier")
    still_held = and_(earlier.c.held_until.is_not(None), earlier.c.held_until > bindparam("now"))
    # The statuses are written into the SQL, not bound, so PostgreSQL's kept plan can prove the partial index
    # ix_outbox_unsent applies; bound, it scanned the status index's every entry per participant (20 s a claim).
    sending: Any = literal_column(f"'{OutboxStatus.SENDING}'")
    pending: Any = literal_column(f"'{OutboxStatus.PENDING}'")
    # An earlier row that may not be sent any more holds nothing back. A scalar subquery with LIMIT 1, not NOT
    # EXISTS: PostgreSQL plans that anti-join from statistics that mid-burst still say "almost nothing unsent", and
    # read every unsent row per candidate (162 s a claim at 6,000 rows); this stays a lookup in the participant's rows.
    first_blocking = (
        select(earlier.c.id)
        .where(earlier.c.participant_id == _OUTBOX.c.participant_id, earlier.c.id < _OUTBOX.c.id,
               or_(earlier.c.status == sending, and_(earlier.c.status == pending, may_send(earlier))), ~still_held)
        .limit(1)
        .scalar_subquery()
    )
    conditions = [_OUTBOX.c.status == pending, _OUTBOX.c.available_at <= bindparam("now"),
                  first_blocking.is_(None), MAY_SEND]
    if one_participant:
        conditions.append(_OUTBOX.c.participant_id == bindparam("pid"))
    if participants:
        conditions.append(_OUTBOX.c.participant_id.in_(bindparam("pids", expanding=True)))
    if numbers:  # a service among several: only the participants of the numbers it holds
        conditions.append(of_numbers(_OUTBOX.c.participant_id))
    due = (
        select(_OUTBOX.c.id)
        .where(*conditions)
        .order_by(_OUTBOX.c.id)
        .limit(bindparam("limit", type_=Integer))
    )
    if skip_locked:
        due = due.with_for_update(skip_locked=True)
    return Prepared(
        update(OutboxItem).where(_OUTBOX.c.id.in_(due.scalar_subquery()))
        .values(status=OutboxStatus.SENDING, claimed_at=bindparam("now"), attempts=_OUTBOX.c.attempts + 1)
        .returning(*((_OUTBOX.c.id, _OUTBOX.c.key, _OUTBOX.c.message_id, _OUTBOX.c.attempts) if one_participant
                     else (_OUTBOX.c.id,)))
    )


_CLAIMED_DETAILS = Prepared(
    select(_OUTBOX.c.id, _OUTBOX.c.key, _OUTBOX.c.participant_id, _OUTBOX.c.message_id, _OUTBOX.c.attempts,
           _MESSAGE.c.kind, _MESSAGE.c.text, _MESSAGE.c.payload, _PARTICIPANT.c.phone, _PARTICIPANT.c.lid,
           _PARTICIPANT.c.number)
    .join(Message, _MESSAGE.c.id == _OUTBOX.c.message_id)
    .join(Participant, _PARTICIPANT.c.id == _OUTBOX.c.participant_id)
    .where(_OUTBOX.c.id.in_(bindparam("ids", expanding=True)))
    .order_by(_OUTBOX.c.id)
)


PLAN_EACH_TIME = "SET LOCAL plan_cache_mode = force_custom_plan"
"""The dispatcher's claim is planned for the outbox as it is now: a plan PostgreSQL kept from a quieter moment (psycopg
prepares after five runs) ran for minutes mid-burst at 30,000 participants, against 0.1-0.5 s planned then. Planning
costs ~1 ms a claim of up to 200 rows."""


def claim_due(session: Session, statement: Prepared, now: datetime, limit: int = CLAIM_BATCH,
              numbers: tuple[tuple[str, ...], str] | None = None) -> list[Claimed]:
    """Mark at most ``limit`` due rows *sending* and read what sending them needs. Rows that may no longer be sent
    (a reply to a STOP, say) are marked cancelled when a claim finds nothing to send, off the path of a burst."""
    if numbers is not None and not numbers[0]:
        return []
    board_at = _board_at(session)
    values = {"now": now, "limit": limit, **number_filter(numbers)}
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(PLAN_EACH_TIME)
    ids = [outbox_id for (outbox_id,) in statement.rows(connection, values)]
    if not ids:
        cancel_unconsented(session)
        return []
    return _details(session, ids, board_at)


def claim_queued(session: Session, statement: Prepared, participant_id: str, now: datetime, limit: int,
                 queued: Mapping[str, Queued], phone: str, lid: str | None,
                 number: str | None = None) -> list[Claimed]:
    """In the transaction that queued them: mark the participant's due rows *sending* so the outbox sends them at once,
    without a claim of its own. ``queued``: what was just queued, by key (a row queued earlier is read)."""
    board_at = _board_at(session)
    rows = statement.rows(session.connection(), {"now": now, "limit": limit, "pid": participant_id})
    claimed, earlier = [], []
    for outbox_id, key, message_id, attempts in rows:
        if (m := queued.get(key)) is not None:
            claimed.append(Claimed(outbox_id, key, participant_id, message_id, attempts, m.kind, m.text, m.payload,
                                   phone, lid, number, board_at))
        else:
            earlier.append(outbox_id)
    if earlier:
        claimed += _details(session, earlier, board_at)
    return sorted(claimed, key=lambda item: item.id)


def claim_next(session: Session, statement: Prepared, participant_ids: Sequence[str], now: datetime,
               limit: int) -> list[Claimed]:
    """Mark these participants' due rows *sending* (at most ``limit``) and read what sending them needs."""
    board_at = _board_at(session)
    ids = [outbox_id for (outbox_id,) in statement.rows(session.connection(), {
        "now": now, "limit": limit, "pids": list(participant_ids)})]
    return _details(session, ids, board_at) if ids else []


def _board_at(session: Session) -> int:
    """Where the consent board stands before a claim reads anything (see :attr:`Claimed.board_at`)."""
    board = consent_board(session)
    return board.stamp() if board is not None else 0


def _details(session: Session, ids: list[int], board_at: int) -> list[Claimed]:
    """What sending these claimed rows needs (their message, their participant's address)."""
    return [Claimed(outbox_id, key, participant_id, message_id, attempts, kind, text, payload, phone, lid, number,
                    board_at)
            for outbox_id, key, participant_id, message_id, attempts, kind, text, payload, phone, lid, number
            in _CLAIMED_DETAILS.rows(session.connection(), {"ids": ids})]


_MAY_STILL_GO = Prepared(select(_OUTBOX.c.id).where(_OUTBOX.c.id == bindparam("row_id"), MAY_SEND))


def may_still_go(session: Session, outbox_id: int) -> bool:
    """Whether a claimed row may still go, as the database says now (another process's hold is not on our board)."""
    return _MAY_STILL_GO.one_value(session.connection(), {"row_id": outbox_id}) is not None


def next_release(session: Session, now: datetime) -> datetime | None:
    """When the next message held (quiet hours, or paced) beyond ``now`` may go (a sandbox's clock moves there)."""
    return session.execute(select(func.min(_OUTBOX.c.available_at)).where(
        _OUTBOX.c.status == OutboxStatus.PENDING, _OUTBOX.c.available_at > now)).scalar()


def settle_interrupted(session: Session, target: OutboxStatus, numbers: tuple[tuple[str, ...], str] | None = None,
                       claimed_before: datetime | None = None) -> list[tuple[int, str]]:
    """Rows a crash left *sending* become ``target`` (uncertain: with their transcript row); returns (outbox id,
    participant id) of each. ``numbers``, ``claimed_before``: only these numbers' rows claimed before then."""
    query = select(_OUTBOX.c.id, _OUTBOX.c.participant_id, _OUTBOX.c.message_id).where(
        _OUTBOX.c.status == OutboxStatus.SENDING)
    if claimed_before is not None:
        query = query.where(_OUTBOX.c.claimed_at < claimed_before)
    if numbers is not None:
        query = query.where(of_numbers(_OUTBOX.c.participant_id))
    rows = session.connection().execute(query, number_filter(numbers)).all()
    for outbox_id, _, message_id in rows:
        session.connection().execute(update(_OUTBOX).where(_OUTBOX.c.id == outbox_id).values(
            status=target, last_error="interrupted by a restart while sending"))
        if target == OutboxStatus.UNCERTAIN:
            session.connection().execute(update(_MESSAGE).where(_MESSAGE.c.id == message_id)
                                         .values(status=MessageStatus.UNCERTAIN))
    return [(outbox_id, participant_id) for outbox_id, participant_id, _ in rows]


def settle_uncertain(session: Session, key: str, wa_message_id: str, *, arrived: bool, at: datetime) -> bool:
    """What WhatsApp's status says of an uncertain send (by its outbox key): it went (the transcript follows by
    trigger) or it failed. Returns whether an uncertain row changed."""
    connection = session.connection()
    row = connection.execute(select(_OUTBOX.c.id, _OUTBOX.c.message_id).where(
        _OUTBOX.c.key == key, _OUTBOX.c.status == OutboxStatus.UNCERTAIN)).first()
    if row is None:
        return False
    if arrived:
        connection.execute(update(_OUTBOX).where(_OUTBOX.c.id == row.id).values(
            status=OutboxStatus.SENT, sent_at=at, wa_message_id=wa_message_id, receipts_expected=True))
    else:
        connection.execute(update(_OUTBOX).where(_OUTBOX.c.id == row.id).values(
            status=OutboxStatus.FAILED, last_error="WhatsApp reported it undelivered"))
        connection.execute(update(_MESSAGE).where(_MESSAGE.c.id == row.message_id).values(status=MessageStatus.FAILED))
    return True


def record_sends(session: Session, outcomes: Sequence[tuple[int, int, dict[str, object], dict[str, object]]]) -> None:
    """For each send: (outbox id, transcript id, outbox values, transcript values). Rows that set the same columns go
    in one executemany per table: a burst sends thousands, and a statement each kept the database thread busy."""
    outbox: dict[tuple[str, ...], list[dict[str, object]]] = {}
    messages: dict[tuple[str, ...], list[dict[str, object]]] = {}
    for outbox_id, message_id, values, message_values in outcomes:
        outbox.setdefault(tuple(sorted(values)), []).append(_bound(outbox_id, values))
        if message_values:
            messages.setdefault(tuple(sorted(message_values)), []).append(_bound(message_id, message_values))
    connection = session.connection()
    postgres = connection.dialect.name == "postgresql"
    for table, groups in ((_OUTBOX, outbox), (_MESSAGE, messages)):
        for columns, rows in groups.items():
            if postgres and len(rows) > 1:  # one statement, its values as arrays (psycopg's executemany: a pipeline)
                _update_from_arrays(table, columns).rows(connection, {
                    name: [row[name] for row in rows] for name in ("row_id", *(f"new_{c}" for c in columns))})
            else:
                _update_by_id(table, columns).many(connection, rows)


def _bound(row_id: int, values: dict[str, object]) -> dict[str, object]:
    return {"row_id": row_id, **{f"new_{name}": value for name, value in values.items()}}


_UPDATES: dict[tuple[str, tuple[str, ...]], Prepared] = {}


def _update_by_id(table: Any, columns: tuple[str, ...]) -> Prepared:
    """``UPDATE table SET col = :new_col … WHERE id = :row_id``, built once per column set."""
    key = (table.name, columns)
    if key not in _UPDATES:
        _UPDATES[key] = Prepared(update(table).where(table.c.id == bindparam("row_id"))
                         .values({name: bindparam(f"new_{name}") for name in columns}))
    return _UPDATES[key]


def _update_from_arrays(table: Any, columns: tuple[str, ...]) -> Prepared:
    """PostgreSQL: ``UPDATE table SET col = v.new_col … FROM unnest(:row_id, :new_col …) AS v WHERE id = v.row_id``,
    each parameter a list (one per row): one statement text whatever the number of rows. 20 rows cost psycopg 150 µs
    of CPU this way against 288 µs as an executemany."""
    key = (f"{table.name} arrays", columns)
    if key not in _UPDATES:
        names = ("row_id", *(f"new_{name}" for name in columns))
        types = (table.c.id.type, *(table.c[name].type for name in columns))
        rows = func.unnest(*(bindparam(name, type_=ARRAY(type_)) for name, type_ in zip(names, types, strict=True))
                           ).table_valued(*names).render_derived()
        _UPDATES[key] = Prepared(update(table).where(table.c.id == rows.c.row_id)
                                 .values({name: rows.c[f"new_{name}"] for name in columns}))
    return _UPDATES[key]


GREETING_DROPPED = "dropped: the participant wrote first and the coach already answered"
"""What a held greeting dropped by the conversation says (``last_error``)."""


def drop_held_greetings(session: Session, participant_id: str) -> int:
    """Cancel the participant's greetings held for quiet hours (the talk began without them); returns how many."""
    waiting = (select(_OUTBOX.c.message_id)
               .join(_MESSAGE, _MESSAGE.c.id == _OUTBOX.c.message_id)
               .where(_OUTBOX.c.participant_id == participant_id, _OUTBOX.c.status == OutboxStatus.PENDING,
                      _MESSAGE.c.kind == MessageKind.GREETING))
    return cancel_queued(session, waiting, GREETING_DROPPED)
