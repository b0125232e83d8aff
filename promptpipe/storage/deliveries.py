"""Queries on ``prompt_delivery``: one row per daily prompt sent, and what became of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from promptpipe.domain.outcomes import DeliveryFact, counters
from promptpipe.storage.models import Message, table_of
from promptpipe.storage.prepared import InsertRow, Prepared, insert_row, run_sql
from promptpipe.storage.prompt_tables import PromptDelivery

_MESSAGE = table_of(Message)
_DELIVERY = table_of(PromptDelivery)

_INSERT_DELIVERY = Prepared(insert(table_of(PromptDelivery)))


def delivery_row(*, participant_id: str, inbox_id: int, schedule_id: str | None, local_date: str, prompt_text: str,
                 prompt_message_id: int | None, poll_message_id: int | None, now: datetime) -> dict[str, object]:
    """The delivery row of a daily prompt, as :func:`record_delivery` writes it."""
    return {
        "participant_id": participant_id, "inbox_id": inbox_id, "schedule_id": schedule_id, "local_date": local_date,
        "prompt_text": prompt_text, "prompt_message_id": prompt_message_id, "poll_message_id": poll_message_id,
        "sent_at": now, "vote": None, "voted_at": None, "vote_changes": 0, "replied_at": None, "reminder_at": None,
        "vote_source": None,
    }


def record_delivery(
    session: Session, *, participant_id: str, inbox_id: int, schedule_id: str | None, local_date: str,
    prompt_text: str, prompt_message_id: int | None, poll_message_id: int | None, now: datetime,
) -> None:
    """The delivery row of a daily prompt, written in the commit of the prompt event (which runs once)."""
    _INSERT_DELIVERY.rows(session.connection(), delivery_row(
        participant_id=participant_id, inbox_id=inbox_id, schedule_id=schedule_id, local_date=local_date,
        prompt_text=prompt_text, prompt_message_id=prompt_message_id, poll_message_id=poll_message_id, now=now))


def record_delivery_and_recount(session: Session, delivery: Mapping[str, object],
                                along: tuple[Prepared, Mapping[str, Any]] | None = None,
                                ) -> dict[str, int | str | None]:
    """:func:`record_delivery`, then :func:`recount`; on PostgreSQL one statement (the row inserted by a CTE, read back
    with the participant's earlier rows): a daily prompt's commit makes one round trip fewer. ``along``: another
    one-row INSERT run first (the decision point), in the same statement on PostgreSQL."""
    connection = session.connection()
    participant_id = delivery["participant_id"]
    row = insert_row(_INSERT_DELIVERY, connection, delivery) if connection.dialect.name == "postgresql" else None
    first = insert_row(along[0], connection, along[1]) if along is not None and row is not None else None
    if row is None or (along is not None and first is None):
        if along is not None:
            along[0].rows(connection, along[1])
        _INSERT_DELIVERY.rows(connection, delivery)
        return recount(session, str(participant_id))
    nested = "WITH " if first is None else f"WITH along AS ({_values_insert(first)}), "
    sql = (f"{nested}new AS ({_values_insert(row)} RETURNING id, local_date, vote) "
           "SELECT id, local_date, vote FROM prompt_delivery WHERE participant_id = %s::VARCHAR "
           "UNION ALL SELECT id, local_date, vote FROM new ORDER BY id")
    facts = run_sql(connection, sql, [*(first.values if first is not None else ()), *row.values, participant_id])
    return counters([DeliveryFact(local_date=day, vote=vote) for _, day, vote in facts])


def _values_insert(row: InsertRow) -> str:
    return f"INSERT INTO {row.table} ({', '.join(row.columns)}) VALUES ({', '.join(row.placeholders)})"


_DELIVERY_FACTS = Prepared(select(_DELIVERY.c.local_date, _DELIVERY.c.vote)
                            .where(_DELIVERY.c.participant_id == bindparam("pid")).order_by(_DELIVERY.c.id))


def recount(session: Session, participant_id: str) -> dict[str, int | str | None]:
    """The participant's counters, recomputed from the delivery rows (every prompt and vote recounts)."""
    rows = _DELIVERY_FACTS.rows(session.connection(), {"pid": participant_id})
    return counters([DeliveryFact(local_date=day, vote=vote) for day, vote in rows])


@dataclass(frozen=True)
class VoteTarget:
    """The delivery a "did you do it?" vote is about."""

    delivery_id: int
    local_date: str
    vote: str | None
    is_latest: bool
    """Whether it is the participant's newest delivery (only that one's poll counts)."""


def vote_targets(session: Session, participant_id: str, poll_ids: list[int]) -> dict[int, VoteTarget]:
    """The deliveries some votes are about, by their poll's transcript id (polls without a delivery are left out)."""
    if not poll_ids:
        return {}
    latest = select(func.max(_DELIVERY.c.id)).where(_DELIVERY.c.participant_id == participant_id).scalar_subquery()
    rows = session.connection().execute(
        select(_DELIVERY.c.poll_message_id, _DELIVERY.c.id, _DELIVERY.c.local_date, _DELIVERY.c.vote, latest)
        .where(_DELIVERY.c.participant_id == participant_id,
               _DELIVERY.c.poll_message_id.in_(poll_ids))
    ).all()
    return {poll_id: VoteTarget(delivery_id=delivery_id, local_date=day, vote=vote, is_latest=delivery_id == newest)
            for poll_id, delivery_id, day, vote, newest in rows}


def set_vote(session: Session, delivery_id: int, vote: str | None, now: datetime, *, changed: bool,
             source: str = "tap") -> None:
    """``source``: how the participant answered (tap, typed, reaction); kept with the vote."""
    values: dict[str, object] = {"vote": vote, "voted_at": now, "vote_source": source if vote is not None else None}
    if changed:
        values["vote_changes"] = _DELIVERY.c.vote_changes + 1
    session.connection().execute(update(PromptDelivery).where(_DELIVERY.c.id == delivery_id).values(**values))


def mark_reminder_sent(session: Session, prompt_inbox_id: int, now: datetime) -> None:
    session.connection().execute(update(PromptDelivery).where(
        _DELIVERY.c.inbox_id == prompt_inbox_id, _DELIVERY.c.reminder_at.is_(None)
    ).values(reminder_at=now))


_FIRST_REPLY_TO_NEWEST = update(PromptDelivery).where(
    _DELIVERY.c.id == select(func.max(_DELIVERY.c.id)).where(_DELIVERY.c.participant_id == bindparam("pid"))
    .scalar_subquery(), _DELIVERY.c.replied_at.is_(None)).values(replied_at=bindparam("now"))


def mark_first_reply(session: Session, participant_id: str, now: datetime, *, quoted_wa_id: str | None = None) -> None:
    """A written message: the delivery it answers has had its first reply (if it had none yet). That is the prompt the
    message quotes (a swipe reply to an older day's prompt or poll), else the newest."""
    quoted = None if not quoted_wa_id else session.connection().execute(
        select(_DELIVERY.c.id).join(Message, (_MESSAGE.c.id == _DELIVERY.c.prompt_message_id)
                                       | (_MESSAGE.c.id == _DELIVERY.c.poll_message_id))
        .where(_DELIVERY.c.participant_id == participant_id, _MESSAGE.c.wa_message_id == quoted_wa_id).limit(1)
    ).scalar_one_or_none()
    if quoted is None:  # nearly every message: the statement built once
        session.connection().execute(_FIRST_REPLY_TO_NEWEST, {"pid": participant_id, "now": now})
        return
    session.connection().execute(update(PromptDelivery).where(
        _DELIVERY.c.id == quoted, _DELIVERY.c.replied_at.is_(None)).values(replied_at=now))


QUIET_OUT_KINDS = ("prompt", "poll", "reminder")
"""Our messages that keep a poll the last thing we asked (anything else we send moves on)."""


@dataclass(frozen=True)
class PollMessage:
    id: int
    wa_message_id: str | None
    options: tuple[str, ...]


@dataclass(frozen=True)
class NewestPolls:
    """The polls of a participant's newest daily prompt, as typed answers need them."""

    delivery_id: int
    local_date: str
    sent_at: datetime
    vote: str | None
    daily: PollMessage | None
    prompt_wa_id: str | None
    intensity: PollMessage | None
    """The intensity poll, when one went out with this prompt."""
    last_conversational_out: int
    """Our newest transcript message that was not a prompt, poll or reminder (0: none)."""

    def vote_targets(self) -> dict[int, VoteTarget | None]:
        """What :func:`vote_targets` would find for these polls, known without asking (the intensity poll: none)."""
        known: dict[int, VoteTarget | None] = {}
        if self.intensity is not None:
            known[self.intensity.id] = None
        if self.daily is not None:
            known[self.daily.id] = VoteTarget(delivery_id=self.delivery_id, local_date=self.local_date,
                                              vote=self.vote, is_latest=True)
        return known


def poll_message(session: Session, message_id: int | None) -> PollMessage | None:
    """A poll we sent, by its transcript id: its WhatsApp id and options."""
    if message_id is None:
        return None
    row = session.connection().execute(
        select(_MESSAGE.c.wa_message_id, _MESSAGE.c.payload).where(_MESSAGE.c.id == message_id)).first()
    return None if row is None else _as_poll(message_id, *row)


def _as_poll(message_id: int, wa_message_id: str | None, payload: dict[str, Any] | None) -> PollMessage:
    return PollMessage(message_id, wa_message_id, tuple(str(o) for o in (payload or {}).get("options", [])))


_PROMPT, _POLL = _MESSAGE.alias("prompt"), _MESSAGE.alias("poll")
_LAST_OUT = (select(func.max(_MESSAGE.c.id))
             .where(_MESSAGE.c.participant_id == bindparam("pid"), _MESSAGE.c.direction == "out",
                    _MESSAGE.c.kind.not_in(QUIET_OUT_KINDS)).scalar_subquery())
_NEWEST_POLLS = (select(_DELIVERY.c.id, _DELIVERY.c.local_date, _DELIVERY.c.sent_at, _DELIVERY.c.vote,
                        _DELIVERY.c.poll_message_id, _PROMPT.c.wa_message_id, _POLL.c.id, _POLL.c.wa_message_id,
                        _POLL.c.payload, _LAST_OUT)
                 .select_from(_DELIVERY.outerjoin(_PROMPT, _PROMPT.c.id == _DELIVERY.c.prompt_message_id)
                              .outerjoin(_POLL, _POLL.c.id == _DELIVERY.c.poll_message_id))
                 .where(_DELIVERY.c.participant_id == bindparam("pid"))
                 .order_by(_DELIVERY.c.id.desc()).limit(1))
NEWEST_POLLS_ROW = _NEWEST_POLLS.subquery("newest")
"""The same read as a derived table (``pid`` included), read with the turn's state: a statement fewer per message."""


def newest_polls(session: Session, participant_id: str, intensity_poll_id: int | None) -> NewestPolls | None:
    """The newest delivery's polls (None: no prompt was ever sent). ``intensity_poll_id``, the newest intensity poll
    the profile knows, counts only if it went out with that prompt."""
    row = session.connection().execute(_NEWEST_POLLS, {"pid": participant_id}).first()
    return newest_polls_of(session, tuple(row) if row is not None else None, intensity_poll_id)


def newest_polls_of(session: Session, row: tuple[Any, ...] | None,
                    intensity_poll_id: int | None) -> NewestPolls | None:
    """:func:`newest_polls` from a row of :data:`NEWEST_POLLS_ROW` already read (None or NULLs: no prompt sent)."""
    if row is None or row[0] is None:
        return None
    (delivery_id, local_date, sent_at, vote, poll_id, prompt_wa_id, poll_row_id, poll_wa_id, poll_payload,
     last_out_id) = row
    daily = None if poll_row_id is None else _as_poll(poll_row_id, poll_wa_id, poll_payload)
    intensity = (poll_message(session, intensity_poll_id)
                 if intensity_poll_id is not None and intensity_poll_id > (poll_id or 0) else None)
    return NewestPolls(delivery_id=delivery_id, local_date=local_date, sent_at=sent_at, vote=vote, daily=daily,
                       prompt_wa_id=prompt_wa_id, intensity=intensity, last_conversational_out=last_out_id or 0)


@dataclass(frozen=True)
class QuotedMessage:
    """A message a participant quoted or reacted to, found by its WhatsApp id."""

    id: int
    direction: str
    kind: str
    text: str
    prompt_of: str | None
    """The local date of the daily prompt it is (or whose poll it is), if any."""
    newest_prompt: bool
    """It belongs to the participant's newest daily prompt."""


def messages_by_wa_id(session: Session, participant_id: str, wa_ids: list[str]) -> dict[str, QuotedMessage]:
    """The participant's transcript messages with these WhatsApp ids, with the prompt they belong to."""
    if not wa_ids:
        return {}
    connection = session.connection()
    rows = connection.execute(
        select(_MESSAGE.c.wa_message_id, _MESSAGE.c.id, _MESSAGE.c.direction, _MESSAGE.c.kind, _MESSAGE.c.text)
        .where(_MESSAGE.c.participant_id == participant_id, _MESSAGE.c.wa_message_id.in_(wa_ids))
    ).all()
    ids = [row[1] for row in rows]
    newest = connection.execute(
        select(func.max(_DELIVERY.c.id)).where(_DELIVERY.c.participant_id == participant_id)).scalar_one()
    days: dict[int, tuple[str, bool]] = {}
    if ids:
        for delivery_id, day, prompt_id, poll_id in connection.execute(
            select(_DELIVERY.c.id, _DELIVERY.c.local_date, _DELIVERY.c.prompt_message_id,
                   _DELIVERY.c.poll_message_id)
            .where(_DELIVERY.c.participant_id == participant_id,
                   (_DELIVERY.c.prompt_message_id.in_(ids)) | (_DELIVERY.c.poll_message_id.in_(ids)))
        ).all():
            for message_id in (prompt_id, poll_id):
                if message_id is not None:
                    days[message_id] = (day, delivery_id == newest)
    return {wa_id: QuotedMessage(message_id, direction, kind, text, *days.get(message_id, (None, False)))
            for wa_id, message_id, direction, kind, text in rows}


def prompt_wa_ids(session: Session, participant_id: str,
                  local_date: str | None = None) -> tuple[str | None, str | None] | None:
    """WhatsApp ids of the prompt and its poll of the newest delivery that day (any day: None); None without one."""
    query = select(_DELIVERY.c.prompt_message_id, _DELIVERY.c.poll_message_id).where(
        _DELIVERY.c.participant_id == participant_id)
    if local_date is not None:
        query = query.where(_DELIVERY.c.local_date == local_date)
    row = session.connection().execute(query.order_by(_DELIVERY.c.id.desc()).limit(1)).first()
    if row is None:
        return None
    ids = dict(session.connection().execute(
        select(_MESSAGE.c.id, _MESSAGE.c.wa_message_id).where(_MESSAGE.c.id.in_([i for i in row if i is not None]))
    ).all())
    return ids.get(row[0]), ids.get(row[1])
