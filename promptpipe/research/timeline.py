"""One participant's timeline, newest first, filtered by kind and local day, paged with a cursor. A viewer's summaries
use only closed sets, dates, counts and ids (the words are in ``text``, for researchers); a viewer gets no safety flag,
no team action about one, and the safety message as a plain message."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from promptpipe.domain.localtime import to_instant, zone_or_utc
from promptpipe.domain.messages import MessageKind, kind_shown
from promptpipe.domain.states import VOTE_WORDS, Stage
from promptpipe.domain.timeline import RESEARCHER_ONLY, Cursor, Stream, TimelineKind
from promptpipe.domain.transition_log import TransitionKind
from promptpipe.errors import NotFound
from promptpipe.questionnaires.rules.answers import Missing
from promptpipe.questionnaires.rules.definition import reason_words
from promptpipe.storage.access_tables import AuditEntry
from promptpipe.storage.db import Database
from promptpipe.storage.models import ConsentEvent, Flag, Message, Transition
from promptpipe.storage.participants import participant_by_id
from promptpipe.storage.prompt_tables import PromptDelivery
from promptpipe.storage.queue_tables import Timer
from promptpipe.storage.timeline_reads import Hit, timeline_rows
from promptpipe.study.store.tables import Decision, QuestionnaireAnswer, QuestionnaireInstance

__all__ = ["TimelineEntry", "TimelinePage", "entry_of", "timeline"]


@dataclass(frozen=True)
class TimelineEntry:
    at: str
    """ISO 8601, UTC."""
    kind: TimelineKind
    summary: str
    text: str | None
    """The words behind it (researchers only; None for viewers and where there are none)."""
    due_at: str | None
    """A timer's due time (ISO 8601, UTC); None for the other kinds."""
    ref: str
    """The row it comes from, ``table:id``."""


@dataclass(frozen=True)
class TimelinePage:
    participant_id: str
    timezone: str
    kinds: tuple[TimelineKind, ...]
    """The kinds read (all the role may read when none were asked for)."""
    entries: list[TimelineEntry]
    older: str | None
    """The cursor of the next older page (None: this is the oldest)."""
    newer: str | None
    """The cursor of the next newer page (None: this is the newest)."""


async def timeline(db: Database, participant_id: str, *, identified: bool, kinds: Collection[TimelineKind] = (),
                   first_day: date | None = None, last_day: date | None = None, cursor: Cursor | None = None,
                   limit: int = 50) -> TimelinePage:
    """A page, as a researcher (``identified``) or a viewer reads it; ``first_day``/``last_day``: local, included."""
    allowed = tuple(kind for kind in TimelineKind if identified or kind not in RESEARCHER_ONLY)
    wanted = tuple(kind for kind in allowed if not kinds or kind in kinds)
    streams = [stream for stream in Stream if stream.kind in wanted]

    def read(session: Session) -> tuple[str, list[Hit]]:
        participant = participant_by_id(session, participant_id)
        if participant is None:
            raise NotFound(f"no participant has the id {participant_id}")
        zone = zone_or_utc(participant.timezone)
        since = _midnight(first_day, zone) if first_day else None
        until = _midnight(last_day + timedelta(days=1), zone) if last_day and last_day < date.max else None
        if first_day and last_day and first_day > last_day:
            return participant.timezone, []
        return participant.timezone, timeline_rows(session, participant_id, streams, since=since, until=until,
                                                   cursor=cursor, limit=limit + 1)

    zone, hits = await db.run(read)
    older_first = cursor is not None and not cursor.older
    more = len(hits) > limit
    page = (hits[1:] if older_first else hits[:limit]) if more else hits
    entries = [entry for hit in page if (entry := entry_of(hit, identified)) is not None]
    older = newer = None
    if page:
        if more or older_first:
            older = str(Cursor.of(True, page[-1].at, page[-1].stream, page[-1].row_id))
        if cursor is not None and (more or not older_first):
            newer = str(Cursor.of(False, page[0].at, page[0].stream, page[0].row_id))
    return TimelinePage(participant_id, zone, wanted, entries, older, newer)


def _midnight(day: date, zone: ZoneInfo) -> datetime | None:
    try:
        return to_instant(day, time(0), zone)
    except (OverflowError, ValueError):  # the first or last days a calendar holds: no bound
        return None


STAGE_WORDS: dict[str, str] = {Stage.INTAKE: "intake", Stage.FEEDBACK: "feedback",
                               Stage.INTAKE_SUSPENDED: "intake on hold"}
CHANGE_WORDS: dict[str, str] = {TransitionKind.SUB_STATE: "Stage", TransitionKind.STATUS: "Status",
                                TransitionKind.TIMEZONE: "Time zone", TransitionKind.NUMBER: "WhatsApp number"}
"""What a transition changed, by its kind (a study day change says "Study")."""
STATUS_WORDS = {"received": "received", "answered": "answered", "kept": "kept, not answered", "skipped": "skipped",
                "queued": "waiting to be sent", "sending": "being sent", "sent": "sent", "failed": "not sent",
                "uncertain": "may not have arrived", "cancelled": "cancelled before it went out"}
HOW_WORDS = {"tap": "tapped", "typed": "typed", "reaction": "reacted"}
TIMER_WORDS = {"pending": "set", "fired": "went off", "cancelled": "cancelled", "missed": "missed"}
CONSENT_WORDS = {"enrolled": "enrolled", "opted_out": "messages stopped (STOP)", "opted_in": "messages on again",
                 "paused": "paused", "resumed": "resumed", "withdrawn": "withdrawn", "erased": "personal data erased"}
BY_WORDS = {"participant": "by the participant", "model": "on the participant's words", "researcher":
            "by the research team", "server": "by the service", "timer": "by a timer", "screen": "by the crisis screen"}
VIA_WORDS = {"api": "the API", "dashboard": "the dashboard", "cli": "the admin script"}
KIND_WORDS: dict[str, str] = {MessageKind.PROMPT: "daily prompt", MessageKind.POLL_VOTE: "poll vote",
              MessageKind.QUESTIONNAIRE_POLL: "questionnaire poll", MessageKind.CHECK_IN: "check-in"}


def _words(value: str | None, table: dict[str, str] | None = None) -> str:
    if value is None:
        return "—"
    return (table or {}).get(value) or value.replace("_", " ")


def _value(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_value(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "—" if value is None else str(value)


_TABLES = {Message: "message", PromptDelivery: "prompt_delivery", Decision: "decision",
           QuestionnaireInstance: "questionnaire_instance", QuestionnaireAnswer: "questionnaire_answer",
           Timer: "timer", ConsentEvent: "consent", Transition: "transition", Flag: "flag", AuditEntry: "audit_log"}
"""The table each kind of row comes from, as an entry's reference names it."""
_CONTACT = (Message, PromptDelivery, Decision, QuestionnaireInstance, QuestionnaireAnswer)


def entry_of(hit: Hit, identified: bool) -> TimelineEntry | None:
    """The entry of one row as a researcher (``identified``) or a viewer reads it; None: not for them."""
    row = hit.row
    if isinstance(row, AuditEntry) and not identified and "flag" in row.action:
        return None
    summary, text = _contact(hit, identified) if isinstance(row, _CONTACT) else _record(hit, identified)
    due = row.due_at.isoformat() if isinstance(row, Timer) else None
    return TimelineEntry(hit.at.isoformat(), hit.stream.kind, summary, text if identified else None, due,
                         f"{_TABLES[type(row)]}:{hit.row_id}")


def _contact(hit: Hit, identified: bool) -> tuple[str, str | None]:
    """What went to or came from the participant."""
    row, stream = hit.row, hit.stream
    match row:
        case Message():
            who = ("From the participant" if row.direction == "in" else
                   "From the research team" if row.kind == MessageKind.RESEARCHER else "From the study")
            shown = kind_shown(row.kind, identified)
            what = "" if shown in (MessageKind.TEXT, MessageKind.RESEARCHER) else f" ({_words(shown, KIND_WORDS)})"
            return f"{who}{what}: {_words(row.status, STATUS_WORDS)}", row.text
        case PromptDelivery() if stream is Stream.PROMPT:
            how = "" if row.schedule_id else " (asked for by the research team)"
            return f"Daily prompt for {row.local_date} sent{how}", row.prompt_text
        case PromptDelivery():
            if row.vote:
                summary = f"Answered the prompt for {row.local_date}: {_words(row.vote, VOTE_WORDS)}"
            else:
                summary = f"Took back the answer to the prompt for {row.local_date}"
            if row.vote_source:
                summary += f" ({_words(row.vote_source, HOW_WORDS)})"
            if row.vote_changes:
                summary += f", changed {row.vote_changes} time{'' if row.vote_changes == 1 else 's'}"
            return summary, None
        case Decision():
            day = f", study day {row.study_day}" if row.study_day is not None else ""
            if not row.available:
                return f"Decision point{day}: not available ({_words(row.unavailable_reason)})", None
            chance = f" with probability {row.probability:.2f}" if row.probability is not None else ""
            summary = f"Decision point{day}: drew {_words(row.action)}{chance}"
            return summary + (f"; not sent ({_words(row.not_sent_reason)})" if row.not_sent_reason else ""), None
        case QuestionnaireInstance() if stream is Stream.QUESTIONNAIRE_SENT:
            occasion = ("sent by the research team" if row.occasion.startswith("manual:")
                        else f"sent for {_words(row.occasion)}")
            return f"Questionnaire {row.questionnaire_id} {occasion}", None
        case QuestionnaireInstance():
            why = f": {reason_words(row.reason)}" if row.reason else ""
            return f"Questionnaire {row.questionnaire_id} {_words(row.status)}{why}", None
        case QuestionnaireAnswer():
            verb = "Skipped" if row.missing == Missing.SKIPPED else "Answered"
            how = f" ({_words(row.source, HOW_WORDS)})" if row.source else ""
            text = None
            if row.raw is not None or row.coded:
                coded = f" (coded {row.coded})" if row.coded and row.coded != row.raw else ""
                text = f"{row.raw or ''}{coded}".strip()
            return f"{verb} {row.item_id} of questionnaire {hit.questionnaire_id}{how}", text
    raise TypeError(f"not a row the participant saw: {type(row).__name__}")


def _record(hit: Hit, identified: bool) -> tuple[str, str | None]:
    """What the study recorded about the participant: timers, consent, changes, flags, the audit log."""
    row = hit.row
    match row:
        case Timer():
            return f"Timer {_words(row.kind)} {_words(row.status, TIMER_WORDS)}", row.reason or None
        case ConsentEvent():
            by = _words(row.source, BY_WORDS)
            if identified and row.actor:
                by += f" ({row.actor})"
            rebuilt = " (rebuilt from the transition log)" if row.reconstructed else ""
            return f"Consent: {_words(row.event, CONSENT_WORDS)}, {by}{rebuilt}", row.words or None
        case Transition():
            words = STAGE_WORDS if row.kind == TransitionKind.SUB_STATE else None
            change = (f"{_words(row.from_value, words)} → {_words(row.to_value, words)}" if row.from_value
                      else _words(row.to_value, words))
            what = CHANGE_WORDS.get(row.kind, "Study")
            by = f", {_words(row.actor, BY_WORDS)}" if row.actor else ""
            return f"{what}: {change} ({_words(row.name)}{by})", row.reason or None
        case Flag() if hit.stream is Stream.FLAG_RAISED:
            return f"Safety flag raised ({row.severity}, {_words(row.source, BY_WORDS)})", row.trigger or None
        case Flag():
            return f"Safety flag resolved by {row.resolved_by or 'the research team'}", row.resolution_note or None
        case AuditEntry():
            who = f"{row.actor} ({row.role})" if identified else "The research team"
            text = "; ".join(f"{_words(key)}: {_value(value)}" for key, value in sorted(row.detail.items())) or None
            return f"{who}: {_words(row.action)} via {_words(row.via, VIA_WORDS)}", text
    raise TypeError(f"not a row of the timeline: {type(row).__name__}")
