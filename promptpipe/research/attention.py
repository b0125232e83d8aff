"""What needs the research team's attention now (:class:`AttentionKind`); an entry goes once what it reports is over.
One transaction over indexes and the participant table, no scan of the messages, so every page can show the count."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import ColumnElement, FromClause, Select, and_, func, or_, select
from sqlalchemy.orm import Session

from promptpipe.domain.numbers import ONE_NUMBER, NumberPlan
from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.domain.safety import FlagStatus
from promptpipe.domain.states import Stage, Status
from promptpipe.research.oversight import STUCK_ATTEMPTS
from promptpipe.storage.db import Database
from promptpipe.storage.models import Flag, Message, Participant, table_of
from promptpipe.storage.participant_list import count_participants
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.queue_tables import InboxItem, InboxStatus, OutboxItem, OutboxStatus
from promptpipe.storage.service_status import LAST_MODEL_ERROR, WHATSAPP, StatusRow, number_rows, read_statuses
from promptpipe.transport.connection_state import NEEDS_THE_TEAM

__all__ = ["DEFAULT_SILENT_DAYS", "MAX_LISTED", "Attention", "AttentionEntry", "AttentionKind", "Concern",
           "read_attention"]

DEFAULT_SILENT_DAYS = 3
MAX_LISTED = 20  # participants named per entry (the oldest first); the entry's count covers them all
NOT_DELIVERED_AFTER = timedelta(days=1)
NOT_DELIVERED_LOOKBACK = timedelta(days=2)
"""Daily prompts sent 24 to 48 hours ago without a delivered receipt are listed (older ones show on the participant's
page); each costs a row read: 10,000 participants' day is ~20 ms on SQLite."""
MODEL_ERROR_RECENT = timedelta(days=1)

_FLAG, _INBOX, _OUTBOX = table_of(Flag), table_of(InboxItem), table_of(OutboxItem)
_D, _M, _P = table_of(PromptDelivery), table_of(Message), table_of(Participant)


class AttentionKind(StrEnum):
    """What an entry of the list is about, in the order the list shows them."""

    SAFETY_FLAG = "safety_flag"
    NUMBER = "number"
    STUCK_INPUT = "stuck_input"
    UNCERTAIN_SEND = "uncertain_send"
    NOT_DELIVERED = "not_delivered"
    SILENT = "silent"
    INTAKE_ON_HOLD = "intake_on_hold"
    WHATSAPP = "whatsapp"
    MODEL_ERROR = "model_error"


@dataclass(frozen=True)
class Concern:
    """One participant's share of an entry: how many, since when (the oldest)."""

    participant_id: str
    count: int
    since: str
    name: str | None = None  # for callers who may read names


@dataclass(frozen=True)
class AttentionEntry:
    kind: AttentionKind
    count: int
    """How many: flags, inputs, sends, prompts or participants (1 for WhatsApp and the model)."""
    participants: tuple[Concern, ...] = ()
    since: str | None = None
    """The oldest one's time, or when the state began (ISO, UTC)."""
    state: str | None = None
    """WhatsApp's state, or the number's (a name of ``CONNECTION_STATES``)."""
    number: str | None = None
    reason: str | None = None
    """For ``number``: why its participants are listed and what the team can do."""
    error: str | None = None
    """The model error's line: only for callers who may read it (it may quote a participant)."""


@dataclass(frozen=True)
class Attention:
    silent_days: int
    entries: list[AttentionEntry] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(entry.count for entry in self.entries)


def _grouped(session: Session, query: Select[str, int, datetime], limit: int) -> tuple[int, tuple[Concern, ...]]:
    """(total, the first ``limit`` participants, oldest first) of a query of (participant_id, count, oldest)."""
    concerns = sorted((Concern(pid, int(count), oldest.isoformat()) for pid, count, oldest in session.execute(query)),
                      key=lambda c: (c.since, c.participant_id))
    return sum(c.count for c in concerns), tuple(concerns[:limit])


def _concerns(session: Session, source: FromClause, participant: ColumnElement[str], at: ColumnElement[datetime],
              where: ColumnElement[bool], *, detail: bool, limit: int) -> tuple[int, tuple[Concern, ...]]:
    """How many rows of ``source`` match; with ``detail``, grouped by participant."""
    if not detail:
        return int(session.execute(select(func.count()).select_from(source).where(where)).scalar_one()), ()
    query = select(participant, func.count(), func.min(at)).select_from(source).where(where).group_by(participant)
    return _grouped(session, query, limit)


def number_reason(number: str, state: str) -> str:
    if state == "banned":
        return (f"their WhatsApp number {number!r} is banned by WhatsApp: move them to another number, or wait "
                "until the ban is lifted")
    return f"their WhatsApp number {number!r} is logged out: move them to another number, or link it again"


def _on_number(numbers: NumberPlan, name: str) -> ColumnElement[bool]:
    """Participants still in the study who have the number ``name`` (None on their row: the default)."""
    has = _P.c.number == name
    if name == numbers.default:
        has = or_(has, _P.c.number.is_(None))
    return and_(has, _P.c.status.not_in((Status.WITHDRAWN, Status.COMPLETED)), _P.c.erased_at.is_(None))


def _numbers_in_trouble(session: Session, numbers: NumberPlan, statuses: dict[str, StatusRow], *, detail: bool,
                        limit: int) -> list[AttentionEntry]:
    entries = []
    for name, row in number_rows(statuses, numbers.numbers).items():
        state = str(row.value.get("name", "")) if row else ""
        if row is None or state not in NEEDS_THE_TEAM:
            continue
        since = str(row.value.get("since") or "") or None
        where = _on_number(numbers, name)
        count = int(session.execute(select(func.count()).select_from(_P).where(where)).scalar_one())
        if not count:
            continue
        ids = session.execute(select(_P.c.id).where(where).order_by(_P.c.enrolled_at, _P.c.id)
                              .limit(limit)).scalars().all() if detail else []
        entries.append(AttentionEntry(AttentionKind.NUMBER, count, tuple(Concern(pid, 1, since or "") for pid in ids),
                                      since=since, state=state, number=name, reason=number_reason(name, state)))
    return entries


def _read(session: Session, now: datetime, silent_days: int, *, flags: bool, whatsapp: bool, model_error: bool,
          detail: bool, limit: int, numbers: NumberPlan = ONE_NUMBER) -> list[AttentionEntry]:
    entries: list[AttentionEntry] = []

    def add(kind: AttentionKind, found: tuple[int, tuple[Concern, ...]]) -> None:
        count, concerns = found
        if count:
            entries.append(AttentionEntry(kind, count, concerns, concerns[0].since if concerns else None))

    if flags:
        add(AttentionKind.SAFETY_FLAG, _concerns(session, _FLAG, _FLAG.c.participant_id, _FLAG.c.created_at,
                                                 _FLAG.c.status == FlagStatus.OPEN, detail=detail, limit=limit))
    statuses = read_statuses(session) if whatsapp or model_error or numbers.several else {}
    if numbers.several:
        entries.extend(_numbers_in_trouble(session, numbers, statuses, detail=detail, limit=limit))
    stuck = or_(_INBOX.c.status == InboxStatus.FAILED,
                and_(_INBOX.c.status == InboxStatus.PENDING, _INBOX.c.attempts >= STUCK_ATTEMPTS))
    add(AttentionKind.STUCK_INPUT, _concerns(session, _INBOX, _INBOX.c.participant_id, _INBOX.c.created_at, stuck,
                                             detail=detail, limit=limit))
    add(AttentionKind.UNCERTAIN_SEND, _concerns(session, _OUTBOX, _OUTBOX.c.participant_id, _OUTBOX.c.created_at,
                                                _OUTBOX.c.status == OutboxStatus.UNCERTAIN, detail=detail, limit=limit))
    undelivered = and_(_D.c.sent_at > now - NOT_DELIVERED_LOOKBACK, _D.c.sent_at <= now - NOT_DELIVERED_AFTER,
                       _D.c.receipt_level.is_(None), _M.c.receipts_expected.is_(True), _M.c.wa_message_id.is_not(None))
    add(AttentionKind.NOT_DELIVERED, _concerns(session, _D.join(_M, _M.c.id == _D.c.prompt_message_id),
                                               _D.c.participant_id, _D.c.sent_at, undelivered, detail=detail,
                                               limit=limit))
    for kind, flt in ((AttentionKind.SILENT, ParticipantFilter(status=Status.ACTIVE, silent_days=silent_days)),
                      (AttentionKind.INTAKE_ON_HOLD,
                       ParticipantFilter(status=Status.ACTIVE, stage=Stage.INTAKE_SUSPENDED))):
        add(kind, (count_participants(session, flt, now), ()))
    if whatsapp or model_error:
        state = statuses.get(WHATSAPP)
        name = state.value.get("name") if state else None
        if whatsapp and name != "connected":
            since = state.value.get("since") if state else None
            entries.append(AttentionEntry(AttentionKind.WHATSAPP, 1, since=str(since) if since else None,
                                          state=str(name) if name else None))
        error = statuses.get(LAST_MODEL_ERROR)
        if model_error and error and error.updated_at > now - MODEL_ERROR_RECENT:
            entries.append(AttentionEntry(AttentionKind.MODEL_ERROR, 1, since=str(error.value.get("at", "")) or None,
                                          error=str(error.value.get("error", "")) if detail else None))
    return entries


def _named(session: Session, entries: list[AttentionEntry]) -> list[AttentionEntry]:
    ids = {concern.participant_id for entry in entries for concern in entry.participants}
    names = {pid: name for pid, name in session.execute(select(_P.c.id, _P.c.name).where(_P.c.id.in_(ids)))}
    return [replace(entry, participants=tuple(replace(c, name=names.get(c.participant_id)) for c in entry.participants))
            for entry in entries]


async def read_attention(db: Database, now: datetime, *, silent_days: int = DEFAULT_SILENT_DAYS, identified: bool,
                         whatsapp: bool, detail: bool = True, limit: int = MAX_LISTED,
                         numbers: NumberPlan = ONE_NUMBER) -> Attention:
    """``identified``: the caller may read safety flags, the model's error and names (a viewer's list has none).
    ``whatsapp``: the service sends through WhatsApp. ``detail=False`` counts only (the navigation's badge)."""

    def read(session: Session) -> list[AttentionEntry]:
        entries = _read(session, now, silent_days, flags=identified, whatsapp=whatsapp, model_error=identified,
                        detail=detail, limit=limit, numbers=numbers)
        return _named(session, entries) if identified and detail else entries

    entries = await db.run(read)
    return Attention(silent_days, entries)
