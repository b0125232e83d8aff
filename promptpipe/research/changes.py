"""What researchers change. A change of the participant's state runs in their lane, ordered with their turns
(:mod:`promptpipe.research.team_requests`); everything works whether or not ``serve`` is running."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.consent import ConsentSource
from promptpipe.domain.limits import BACKGROUND_CHARS, NAME_CHARS, REASON_CHARS
from promptpipe.domain.numbers import ONE_NUMBER, NumberPlan
from promptpipe.domain.states import Status
from promptpipe.domain.text import has_undecodable
from promptpipe.errors import AdminError, Conflict, DuplicateKey, Forbidden
from promptpipe.export.cells import FORMULA_STARTS
from promptpipe.flow.team_changes import STATUS_CHANGES
from promptpipe.logging import get_logger
from promptpipe.pipeline.events import DailyPromptDue, Enrolled, TeamAction, TeamChange, as_input
from promptpipe.research._common import (
    find,
    get_participant,
    researcher_name,
    validate_phone,
    validate_text,
    validate_timezone,
)
from promptpipe.research.quiet_check import quiet_hours_wait
from promptpipe.research.reports import participant_row
from promptpipe.research.team_requests import request_change
from promptpipe.research.views import ParticipantView, iso
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import add_input
from promptpipe.storage.models import Participant
from promptpipe.storage.participants import NewParticipant, create_participant, participant_by_phone, set_details
from promptpipe.study.operations import check_protocol, validate_strata
from promptpipe.study.rules.protocol import OPEN_STUDY, PERSONALISED, QuietHours, Study

__all__ = ["STATUS_COMMANDS", "Enrolment", "enroll", "send_prompt_now", "set_status", "set_timezone",
           "update_participant", "valid_name"]

log = get_logger("promptpipe.research.changes")

ALLOCATION_TRIES = 5


@dataclass(frozen=True)
class Enrolment:
    """Who is enrolled, by whom, into which study and strata, on which of the deployment's numbers."""

    phone: str
    name: str
    timezone: str
    background: str = ""
    by: str = ""
    study: Study = OPEN_STUDY
    strata: Mapping[str, str] | None = None
    numbers: NumberPlan = ONE_NUMBER
    number: str | None = None


async def enroll(db: Database, clock: Clock, enrolment: Enrolment) -> ParticipantView:
    """Create the participant (allocated to an arm, given a number) and queue their greeting for the service."""
    study, numbers, number = enrolment.study, enrolment.numbers, enrolment.number
    phone = validate_phone(enrolment.phone)
    timezone = validate_timezone(enrolment.timezone)
    name = valid_name(enrolment.name)
    background = validate_text("--background", enrolment.background, BACKGROUND_CHARS)
    by = validate_text("--by", enrolment.by or researcher_name(), NAME_CHARS)
    strata = validate_strata(study, enrolment.strata or {})
    now = clock.now()

    def write(session: Session) -> ParticipantView:
        check_protocol(session, study, now)
        existing = participant_by_phone(session, phone)
        if existing is not None:
            raise _already_enrolled(phone, existing)
        try:
            participant = create_participant(session, NewParticipant(
                phone=phone, name=name, timezone=timezone, background=background, reason="enrolled by a researcher",
                source=ConsentSource.RESEARCHER, actor=by, study=study, strata=strata, numbers=numbers, number=number,
            ), now)
        except ValueError as exc:  # the number: one the deployment lacks, or a rule naming none of them
            raise AdminError(f"--number: {exc}") from None
        add_input(db, session, as_input(Enrolled(), key=keys.enrollment(participant.id), participant_id=participant.id),
                  now)
        return participant_row(participant, None)

    for attempt in range(ALLOCATION_TRIES):
        try:
            return await db.run(write)
        except DuplicateKey as exc:
            if "allocation" in exc.constraint and attempt < ALLOCATION_TRIES - 1:
                continue  # someone else took this place in the sequence at the same moment: take the next
            existing = await find(db, phone)
            if existing is None:
                raise
            raise _already_enrolled(phone, existing) from None  # enrolled at the same moment (PostgreSQL)
    raise AssertionError("unreachable")


def valid_name(name: str) -> str:
    """A participant's name as enrolment takes it (also checked for each row of a CSV import)."""
    if not name.strip() and not has_undecodable(name):
        raise AdminError("--name: give the participant's name (it is used to greet them)")
    name = validate_text("--name", name, NAME_CHARS, required=True)
    if "\n" in name or "\r" in name:
        raise AdminError("--name: a name is one line")
    if name[0] in FORMULA_STARTS:
        raise AdminError("--name: a name cannot start with =, +, - or @ (a spreadsheet would run it as a "
                         "formula); write it without that first character")
    return name


def _already_enrolled(phone: str, existing: Participant | None) -> AdminError:
    who = f" as {existing.id} ({existing.name or 'no name'}, {existing.status})" if existing else ""
    return Conflict(f"{phone} is already enrolled{who}; nothing was changed")


STATUS_COMMANDS = STATUS_CHANGES


async def set_status(db: Database, clock: Clock, *, phone: str, action: str, reason: str = "", by: str = "",
                     study: Study = OPEN_STUDY) -> str:
    """pause | resume | withdraw, in the participant's lane; a line saying what happened. ``resume`` lifts only the
    researcher's pause: the participant's own STOP holds."""
    participant, _ = await get_participant(db, phone)
    if action not in STATUS_CHANGES:
        raise AdminError(f"{action!r} is not pause, resume or withdraw")
    reason = validate_text("--reason", reason, REASON_CHARS)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    outcome = await request_change(db, clock, participant.id, TeamChange(action=action, reason=reason, by=by),
                                   study=study)
    return outcome.said_for(participant.phone)


async def set_timezone(db: Database, clock: Clock, *, phone: str, timezone: str, by: str = "",
                       study: Study = OPEN_STUDY) -> str:
    """Move the participant to another time zone, in their lane; their prompts follow it."""
    timezone = validate_timezone(timezone)
    participant, _ = await get_participant(db, phone)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    outcome = await request_change(db, clock, participant.id,
                                   TeamChange(action=TeamAction.TIMEZONE, value=timezone, by=by), study=study)
    return outcome.said_for(participant.phone)


async def send_prompt_now(db: Database, clock: Clock, *, phone: str, study: Study = OPEN_STUDY,
                          quiet: QuietHours | None = None, anyway: bool = False,
                          after_quiet_hours: bool = False) -> int:
    """Queue a daily prompt for now, as their alarm would (quiet hours as in :func:`quiet_hours_wait`). A fixed-text
    arm's is marked as needing no model, so it does not wait behind a turn waiting for the model."""
    participant, _ = await get_participant(db, phone)
    if participant.status != Status.ACTIVE:
        raise Forbidden(f"{participant.phone} is {participant.status}; scheduled messages are not sent to them")
    now = clock.now()
    end = quiet_hours_wait(quiet or study.quiet_hours, who=participant.phone, timezone=participant.timezone, now=now,
                           what="the prompt", anyway=anyway, after_quiet_hours=after_quiet_hours)
    event = DailyPromptDue(manual=True, not_before=iso(end),
                           model_free=study.arm(participant.arm).prompt_style != PERSONALISED)
    key = keys.manual_prompt(participant.id, secrets.token_hex(4))
    inbox_id = await db.run(lambda session: add_input(
        db, session, as_input(event, key=key, participant_id=participant.id), now))
    assert inbox_id is not None
    return inbox_id


async def update_participant(db: Database, clock: Clock, *, who: str, name: str | None = None,
                             background: str | None = None, by: str = "") -> str:
    """Change the name or background notes (None: leave it); a line saying what changed. Not a transition: the API
    keeps its own audit row."""
    name = None if name is None else valid_name(name)
    background = None if background is None else validate_text("--background", background, BACKGROUND_CHARS)
    by = validate_text("--by", by or researcher_name(), NAME_CHARS)
    participant, _ = await get_participant(db, who)
    erased = Forbidden(f"{participant.id} was erased: their personal data is gone and cannot be added back")
    if participant.erased_at is not None:
        raise erased
    name = None if name == participant.name else name
    background = None if background == participant.background else background
    changed = [*([f"name changed from {participant.name!r} to {name!r}"] if name is not None else []),
               *(["background notes " + ("updated" if background else "cleared")] if background is not None else [])]
    if not changed:
        return f"{participant.phone}: nothing changed"
    now = clock.now()
    if not await db.run(lambda session: set_details(session, participant.id, name=name, background=background,
                                                    now=now)):
        raise erased  # erased meanwhile
    log.info("participant_details_changed", participant_id=participant.id,
             fields=[field for field, value in (("name", name), ("background", background)) if value is not None],
             by=by)
    return f"{participant.phone}: " + "; ".join(changed)
