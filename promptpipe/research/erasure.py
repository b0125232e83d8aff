"""Erasing a participant's personal data (``promptpipe-admin erase --phone P``): one transaction overwrites all that
identifies or quotes them (``storage.erasure``), nothing pending for them runs, and their study ends as a withdrawal
ends it. What stays is a pseudonymous tombstone, so the study's numbers still add up. On SQLite the write-ahead log is
then checkpointed, so the old texts are not left readable in it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import transitions
from promptpipe.domain.limits import NAME_CHARS
from promptpipe.domain.transition_log import Actor
from promptpipe.errors import Conflict, NotFound
from promptpipe.logging import get_logger
from promptpipe.research._common import PARTICIPANT_ID, researcher_name, validate_phone, validate_text
from promptpipe.research.team_requests import commit_here
from promptpipe.storage.conversations import load_turn_state
from promptpipe.storage.db import Database
from promptpipe.storage.erasure import erase_identity, erase_texts, stop_everything
from promptpipe.storage.models import Flag, Message, Participant
from promptpipe.storage.participants import participant_by_id, participant_by_phone
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.study.rules.protocol import Study

log = get_logger("promptpipe.research.erasure")

@dataclass(frozen=True)
class ErasurePlan:
    """What an erasure will touch, shown to the researcher before they confirm."""

    participant_id: str
    phone: str
    name: str
    status: str
    messages: int
    deliveries: int
    flags: int


@dataclass(frozen=True)
class ErasureDone:
    participant_id: str
    messages: int
    pending_inputs_closed: int
    unsent_messages_dropped: int
    checkpoint: str


async def plan(db: Database, *, phone: str) -> ErasurePlan:
    """What erasing the participant (``phone``: their phone or participant id) would remove."""
    phone = _who(phone)

    def read(session: Session) -> ErasurePlan:
        person = _enrolled(session, phone)

        def count(model: Any) -> int:
            return int(session.execute(select(func.count()).select_from(model)
                                       .where(model.participant_id == person.id)).scalar_one())

        return ErasurePlan(person.id, person.phone, person.name, person.status, count(Message), count(PromptDelivery),
                           count(Flag))

    return await db.run(read)


async def erase(db: Database, clock: Clock, *, phone: str, study: Study, by: str = "") -> ErasureDone:
    """Erase the participant's personal data (``phone``: their phone or id); ``study`` settles the questionnaires."""
    phone = _who(phone)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    now = clock.now()

    def write(session: Session) -> tuple[str, int, int, int]:
        person = _enrolled(session, phone)
        messages = erase_texts(session, person.id, now)
        closed, dropped = stop_everything(session, person.id, now)
        state = load_turn_state(session, person.id)  # what is left of it, after the texts
        transitions.apply(state, "erased_by_researcher", actor=Actor.RESEARCHER, reason="", actor_name=by)
        commit_here(db, session, state, study, now)
        erase_identity(session, person, now, by)
        return person.id, messages, closed, dropped

    participant_id, messages, closed, dropped = await db.run(write)
    checkpoint = await db.checkpoint()
    log.info("participant_erased", participant_id=participant_id, messages=messages, by_researcher=True)
    return ErasureDone(participant_id, messages, closed, dropped, checkpoint)


def _who(raw: str) -> str:
    return raw.strip() if PARTICIPANT_ID.fullmatch(raw.strip()) else validate_phone(raw)


def _enrolled(session: Session, who: str) -> Participant:
    if PARTICIPANT_ID.fullmatch(who):
        person = participant_by_id(session, who)
        if person is None:
            raise NotFound(f"no participant has the id {who}")
        if person.erased_at is not None:
            raise Conflict(f"{who} was erased already")
        return person
    person = participant_by_phone(session, who)
    if person is None:
        raise NotFound(f"{who} is not enrolled (after an erasure nothing links the number to anyone)")
    return person
