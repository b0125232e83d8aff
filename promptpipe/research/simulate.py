"""Acting as a participant without a phone, stored as the WhatsApp transport would store it. Only where the database
records that no real person can be reached (never on the admin command's own settings)."""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from promptpipe.clock import Clock
from promptpipe.domain import keys
from promptpipe.domain.limits import INBOUND_CHARS
from promptpipe.domain.messages import INBOUND_CONTENT, MessageKind
from promptpipe.domain.polls import normalise
from promptpipe.domain.profile import Profile
from promptpipe.domain.text import has_undecodable
from promptpipe.errors import AdminError, Forbidden
from promptpipe.pipeline.inbox import Inbox, InboxConfig
from promptpipe.questionnaires.rules.definition import QuestionnaireState
from promptpipe.research._common import get_participant, validate_phone, validate_text
from promptpipe.storage.db import Database
from promptpipe.storage.deliveries import PollMessage, newest_polls, poll_message, prompt_wa_ids
from promptpipe.storage.live import Live, deployment, live_since
from promptpipe.transport import InboundMessage, PollVote, Reaction, poll_option_hash

__all__ = ["REACTION_TARGETS", "refuse_if_live", "refuse_unless_pilot", "simulate", "simulate_reaction",
           "simulate_vote"]

INSTEAD = ("To try the study as a participant, use the dashboard's Pilot page (a sandbox that reaches nobody) or a "
           "pilot of its own: PROMPTPIPE_TRANSPORT=dry-run with a state directory (or DATABASE_URL) of its own.")


def live_refusal(live: Live, what: str) -> Forbidden:
    return Forbidden(
        f"{what} acts as a participant only where no real person can be reached: this database has been served over "
        f"{live.transport or 'WhatsApp'} since {live.since:%Y-%m-%d %H:%M} UTC, so a real person would get the "
        f"answer (and a START would lift their own STOP). {INSTEAD}")


def never_served_refusal(what: str) -> Forbidden:
    return Forbidden(
        f"{what} acts as a participant only where no real person can be reached, and no service has served this "
        "database yet, so nothing shows that none can be (the first `promptpipe serve` on it may be WhatsApp). For a "
        "pilot, start its service first (PROMPTPIPE_TRANSPORT=dry-run promptpipe serve), then simulate. " + INSTEAD)


async def refuse_if_live(db: Database, what: str = "simulate") -> None:
    """Refuse to act as a participant where a real one can be reached (``promptpipe chat``)."""
    live = await db.run(live_since)
    if live is not None:
        raise live_refusal(live, what)


async def refuse_unless_pilot(db: Database, what: str = "simulate") -> None:
    """Refuse unless the database was served, and only ever over a transport that reaches nobody."""
    live, served = await db.run(lambda session: (live_since(session), deployment(session)))
    if live is not None:
        raise live_refusal(live, what)
    if served is None:
        raise never_served_refusal(what)


async def simulate(db: Database, clock: Clock, *, phone: str, text: str = "", kind: str = "text",
                   reply_to_prompt: str | None = None) -> int:
    """Store a message as if sent on WhatsApp; ``reply_to_prompt`` (YYYY-MM-DD): a swipe reply to that day's prompt."""
    await refuse_unless_pilot(db)
    phone = validate_phone(phone)
    if kind != MessageKind.TEXT:
        if kind not in INBOUND_CONTENT:
            raise AdminError(f"--kind: {kind!r} is not one of text, {', '.join(INBOUND_CONTENT)}")
        if text.strip():
            raise AdminError(f"--kind {kind}: leave the text out (a photo, video or document with a caption "
                             "arrives as text: send the caption as a plain message)")
    else:
        if not text.strip() and not has_undecodable(text):
            raise AdminError("the message text is empty; give the text to send as the participant")
        text = validate_text("the message", text, INBOUND_CHARS, required=True)
    participant, _ = await get_participant(db, phone)
    quoted = None
    if reply_to_prompt is not None:
        day = _parse_day("--reply-to-prompt", reply_to_prompt)
        ids = await db.run(lambda session: prompt_wa_ids(session, participant.id, day))
        if ids is None or ids[0] is None:
            raise AdminError(f"--reply-to-prompt: no daily prompt was sent to {phone} on {day}")
        quoted = ids[0]
    return await _ingest_as(db, clock, phone, text=text.strip(), content=kind, quoted_message_id=quoted)


async def simulate_vote(db: Database, clock: Clock, *, phone: str, option: str) -> int:
    """Tap an option of the open poll (the questionnaire item's, else the newest prompt's) by its words or number."""
    await refuse_unless_pilot(db)
    participant, conversation = await get_participant(db, validate_phone(phone))
    intensity_poll = Profile.from_json(conversation.profile).record.intensity_poll_message
    under_way = QuestionnaireState.from_json(conversation.questionnaire).open
    item_poll = under_way.poll_ids[-1] if under_way is not None and under_way.poll_ids else None

    def read(session: Session) -> list[PollMessage]:
        newest = newest_polls(session, participant.id, intensity_poll)
        polls = [poll_message(session, item_poll)] + ([newest.intensity, newest.daily] if newest else [])
        return [poll for poll in polls if poll is not None and poll.options]

    polls = await db.run(read)
    if not polls:
        raise AdminError(f"{participant.phone} has no poll to answer yet: polls go out with each daily prompt "
                         "(`promptpipe-admin prompt-now` sends one) and with questionnaire items")
    words = normalise(option)
    choice = None
    if words.isdigit():
        poll = polls[0]
        if 1 <= int(words) <= len(poll.options):
            choice = (poll, poll.options[int(words) - 1])
    else:
        choice = next(((poll, o) for poll in polls for o in poll.options if normalise(o) == words), None)
    if choice is None:
        offered = "; ".join(", ".join(f"{n}. {o}" for n, o in enumerate(poll.options, 1)) for poll in polls)
        raise AdminError(f"--vote: {option!r} is not an option of the open poll{'s' if len(polls) > 1 else ''} "
                         f"({offered}); give an option's words or its number")
    poll, chosen = choice
    if poll.wa_message_id is None:
        raise AdminError("that poll has not been sent yet (is `promptpipe serve` running?); try again in a moment")
    return await _ingest_as(db, clock, participant.phone,
                            poll_vote=PollVote(poll.wa_message_id, (poll_option_hash(chosen),)))


REACTION_TARGETS = ("prompt", "poll")


async def simulate_reaction(db: Database, clock: Clock, *, phone: str, emoji: str, to: str = "prompt") -> int:
    """React to the newest daily prompt (or its poll) as the participant; an empty emoji takes a reaction back."""
    await refuse_unless_pilot(db)
    emoji = validate_text("--react", emoji, 16)
    participant, _ = await get_participant(db, validate_phone(phone))
    ids = await db.run(lambda session: prompt_wa_ids(session, participant.id))
    target = None if ids is None else ids[REACTION_TARGETS.index(to)]
    if target is None:
        raise AdminError(f"{participant.phone} has no sent daily {to} to react to yet")
    return await _ingest_as(db, clock, participant.phone, reaction=Reaction(target, emoji))


def _parse_day(option: str, raw: str) -> str:
    try:
        return date.fromisoformat(raw.strip()).isoformat()
    except ValueError:
        raise AdminError(f"{option}: {raw!r} is not a date; write it as YYYY-MM-DD, e.g. 2026-01-05") from None


async def _ingest_as(db: Database, clock: Clock, phone: str, *, text: str = "", **fields: Any) -> int:
    inbox = Inbox(db, clock, InboxConfig(auto_enroll=False, default_timezone="UTC"), wake=lambda *_: None)
    inbox_id = await inbox.ingest(InboundMessage(
        message_id=keys.simulated(secrets.token_hex(8)), sender_phone=phone, sender_lid=None, sender_name="",
        text=text, timestamp=clock.now(), **fields,
    ))
    if inbox_id is None:
        raise AdminError("the message was not stored (see the log)")
    return inbox_id


