"""What every researcher operation needs: checking what was typed, finding the participant, asking for an alarm sync."""

from __future__ import annotations

import getpass
import re
import secrets
from datetime import datetime

from sqlalchemy.orm import Session

from promptpipe.domain import keys
from promptpipe.domain.localtime import is_iana_zone
from promptpipe.domain.phones import parse_e164
from promptpipe.domain.text import has_undecodable, has_visible_text
from promptpipe.errors import AdminError, NotFound
from promptpipe.pipeline.events import AlarmSyncRequested, as_input
from promptpipe.storage.db import Database
from promptpipe.storage.inbox_rows import add_input
from promptpipe.storage.models import Conversation, Participant
from promptpipe.storage.participants import participant_by_id, participant_by_phone, participant_id_of

__all__ = ["PARTICIPANT_ID", "ask_for_alarm_sync", "find", "get_participant", "participant_id_in", "participant_key",
           "researcher_name", "validate_phone", "validate_text", "validate_timezone"]


def researcher_name() -> str:
    """Who is running the admin script (the default for ``--by``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (a bare container)
        return "unknown researcher"


def validate_phone(raw: str) -> str:
    raw = validate_text("--phone", raw, 40, required=True)
    try:
        return parse_e164(raw)
    except ValueError as exc:
        raise AdminError(f"--phone: {exc}") from None


def validate_timezone(raw: str) -> str:
    raw = validate_text("--timezone", raw, 60, required=True)
    if not is_iana_zone(raw):
        raise AdminError(
            f"--timezone: {raw!r} is not an IANA time zone; use a name like America/Toronto or Europe/Berlin"
        )
    return raw


def validate_text(option: str, raw: str, limit: int, *, required: bool = False) -> str:
    """A researcher's free text: trimmed, valid UTF-8, no NUL, something visible in it, at most ``limit`` characters."""
    if has_undecodable(raw):
        raise AdminError(f"{option}: the text has bytes that are not valid UTF-8; check the terminal's "
                         "encoding (e.g. LANG=C.UTF-8) and type it again")
    if "\x00" in raw:
        raise AdminError(f"{option}: the text contains a NUL character (\\0), which cannot be sent or stored; "
                         "remove it and try again")
    text = raw.strip()
    if text and not has_visible_text(text):
        raise AdminError(f"{option}: the text has only invisible characters (zero-width spaces, blank "
                         "symbols); write something the participant can read")
    if required and not text:
        raise AdminError(f"{option}: it is empty")
    if len(text) > limit:
        raise AdminError(f"{option}: {len(text):,} characters is too long; at most {limit:,}")
    return text


async def find(db: Database, phone: str) -> Participant | None:
    """The participant with this phone, or None."""
    phone = validate_phone(phone)
    return await db.run(lambda session: participant_by_phone(session, phone))


PARTICIPANT_ID = re.compile(r"p_[0-9a-f]{16}")
"""The form of a participant id (``p_`` and 16 hex digits), which no phone number can take."""


def participant_key(who: str) -> tuple[bool, str]:
    """(whether ``who`` is a participant id, the id or the checked phone number)."""
    by_id = bool(PARTICIPANT_ID.fullmatch(who.strip()))
    return by_id, who.strip() if by_id else validate_phone(who)


def _not_enrolled(by_id: bool, key: str) -> NotFound:
    return NotFound(f"no participant has the id {key}" if by_id
                    else f"{key} is not enrolled; enroll them first with `promptpipe-admin enroll`")


async def get_participant(db: Database, who: str) -> tuple[Participant, Conversation]:
    """The participant named by ``who``: their phone (E.164) or their participant id."""
    by_id, key = participant_key(who)

    def read(session: Session) -> tuple[Participant, Conversation]:
        participant = participant_by_id(session, key) if by_id else participant_by_phone(session, key)
        if participant is None:
            raise _not_enrolled(by_id, key)
        conversation = session.get(Conversation, participant.id)
        assert conversation is not None
        return participant, conversation

    return await db.run(read)


def participant_id_in(session: Session, by_id: bool, key: str) -> str:
    """The id of the participant ``participant_key`` named, read without loading their rows."""
    found = participant_id_of(session, key, by_id=by_id)
    if found is None:
        raise _not_enrolled(by_id, key)
    return found


def ask_for_alarm_sync(db: Database, session: Session, participant_id: str, now: datetime) -> None:
    """The service owns the alarm clock: an inbox row asks it to bring the participant's alarms in line."""
    add_input(db, session, as_input(AlarmSyncRequested(), key=keys.alarm_sync(participant_id, secrets.token_hex(4)),
                                    participant_id=participant_id), now)


