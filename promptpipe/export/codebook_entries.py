"""What every exported column means: type, unit or allowed values, meaning and source (written out by :mod:`.codebook`).
Types: string | integer | number | boolean | datetime | date | json."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from promptpipe.domain.consent import ConsentKind, ConsentSource
from promptpipe.domain.messages import MessageKind, MessageStatus, VoteSource
from promptpipe.domain.outcomes import Outcome
from promptpipe.domain.profile import Intensity
from promptpipe.domain.safety import FlagSource, FlagStatus, Severity
from promptpipe.domain.states import Status, Vote
from promptpipe.domain.tone import ToneOutcome, ToneSource
from promptpipe.domain.transition_log import Actor
from promptpipe.storage.flags import AlertStatus

__all__ = ["PSEUDONYMISED", "STRATUM_PREFIX", "UTC_VALUES", "Entry", "FileDoc", "listed", "pid_entry",
           "stratum_entry", "timed"]

UTC_VALUES = "ISO 8601 in UTC to the second, e.g. 2026-03-02T13:00:00+00:00; empty when it did not happen"
LOCAL_VALUES = ("ISO 8601 on the participant's clock at that moment (the zone they were in then) with its offset, "
                "e.g. 2026-03-02T08:00:00-05:00")
LIST = "a list: items joined with ; in CSV, an array in JSONL"
PSEUDONYMISED = "free text; the participant's own phone number and name are replaced by [phone] and [name]"
STRATUM_PREFIX = "stratum_"


@dataclass(frozen=True)
class Entry:
    column: str
    type: str
    values: str
    meaning: str
    source: str


@dataclass(frozen=True)
class FileDoc:
    name: str
    summary: str
    entries: tuple[Entry, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(e.column for e in self.entries)

    def entry(self, column: str) -> Entry | None:
        return next((e for e in self.entries if e.column == column), None)


def listed(values: Iterable[str]) -> str:
    """From its enum, so the two never differ."""
    return ", ".join(str(value) for value in values)


def timed(prefix: str, meaning: str, source: str) -> tuple[Entry, Entry]:

    return (Entry(f"{prefix}_utc", "datetime", UTC_VALUES, meaning + " (UTC).", source),
            Entry(f"{prefix}_local", "datetime", LOCAL_VALUES, meaning + " (the participant's local time).", source))


def pid_entry(source: str) -> Entry:
    return Entry("participant_id", "string", "a participants.id",
                 "The participant's pseudonym, the same in every file.", source)


def stratum_entry(field: str) -> Entry:
    return Entry(f"{STRATUM_PREFIX}{field}", "string",
                 f"one of the values the protocol lists for {field}; ? when not known at enrollment; empty when "
                 "not given",
                 f"The enrollment field {field!r}, by which the allocation was stratified.",
                 f"participant.strata[{field!r}], set at enrollment (--stratum {field}=...)")


_PROFILE = "conversation.profile"
_HABIT = (
    ("habit_domain", "The habit the participant wants to build, as the model noted it."),
    ("prompt_anchor", "The everyday moment the habit is tied to (e.g. after breakfast)."),
    ("motivational_frame", "Why the habit matters to the participant."),
    ("preferred_time", "When in the day they prefer to do it, as given (often HH:MM)."),
    ("additional_info", "Other notes the model keeps for writing prompts."),
    ("last_successful_prompt", "The latest prompt they reported doing, as the model noted it."),
    ("last_barrier", "What got in the way most recently, as the model noted it."),
    ("last_motivator", "What helped most recently, as the model noted it."),
    ("last_tweak", "The latest change to the prompts the participant asked for or agreed to."),
)

PARTICIPANTS = FileDoc("participants", "One row per participant, as they stand at the time of the export.", (
    Entry("id", "string", "p_ followed by 16 hexadecimal characters",
          "The participant's pseudonym: participant_id in every other file.", "participant.id"),
    Entry("timezone", "string", "an IANA zone name, e.g. America/Toronto",
          "The participant's time zone now (their *_local times are each in the zone in force at that moment: "
          "this one since their last timezone_changed transition).", "participant.timezone"),
    Entry("status", "string", listed(Status),
          "Where the participant stands in the study.", "participant.status"),
    Entry("paused_by", "string", "participant, researcher, participant+researcher; empty unless paused",
          "Who holds the pause: the participant (STOP) and/or the research team.", "participant.paused_by"),
    Entry("opted_out", "boolean", "true, false", "The participant stopped the messages (STOP) and has not "
          "restarted them.", "participant.opted_out"),
    Entry("researcher_paused", "boolean", "true, false", "The research team paused the participant.",
          "participant.researcher_paused"),
    Entry("sub_state", "string", "INTAKE, INTAKE_SUSPENDED, FEEDBACK",
          "The conversation's stage: intake (gathering the habit), intake on hold, or daily feedback.",
          "conversation.sub_state"),
    Entry("arm", "string", "an arm name from study.json; empty when enrolled without a study file",
          "The arm the allocation assigned at enrollment.", "participant.arm (allocation table)"),
    Entry("number", "string", "a name of WHATSAPP_NUMBERS; empty: the deployment's first (default) number",
          "The WhatsApp number the participant is written from (given at enrollment).", "participant.number"),
    Entry("day_one", "date", "YYYY-MM-DD on the participant's calendar; empty until it is known",
          "Study day 1: the first local day after intake or after enrollment, as the protocol says.",
          "participant.day_one"),
    Entry("extra_days", "integer", "days, 0 or more", "Days a researcher added to this participant's study "
          "(extend).", "participant.extra_days"),
    *timed("enrolled_at", "When the participant was enrolled", "participant.enrolled_at"),
    *timed("completed_at", "When the participant completed the study", "participant.completed_at"),
    *timed("erased_at", "When a researcher erased the participant's personal data", "participant.erased_at"),
    *timed("withdrawn_at", "When a researcher withdrew the participant from the study, or erased them without a "
           "withdrawal first (nothing is sent after it; what came before stays in the data)",
           "consent.created_at of the withdrawn event, else of the erased one"),
    *(Entry(name, "string", PSEUDONYMISED, meaning, f"{_PROFILE}.{name}") for name, meaning in _HABIT),
    Entry("intensity", "string", listed(tuple(Intensity)), "The size of the daily steps, moved by the participant's "
          "answers to the intensity poll.", f"{_PROFILE} (server record)"),
    Entry("prompts_sent", "integer", "count", "Daily prompts sent to the participant.",
          "recounted from prompt_delivery rows"),
    Entry("successes", "integer", "count", "Prompts whose standing vote is done.", "recounted from prompt_delivery"),
    Entry("misses", "integer", "count", "Prompts whose standing vote is not this time.",
          "recounted from prompt_delivery"),
    Entry("current_streak", "integer", "days", "Consecutive prompt days with a done vote up to the newest one (a "
          "newest prompt still unanswered does not break it).", "recounted from prompt_delivery"),
    Entry("best_streak", "integer", "days", "The longest run of consecutive prompt days with a done vote.",
          "recounted from prompt_delivery"),
    Entry("last_success_date", "date", "YYYY-MM-DD (local prompt day); empty when none",
          "The newest prompt day with a done vote.", "recounted from prompt_delivery"),
    Entry("last_miss_date", "date", "YYYY-MM-DD (local prompt day); empty when none",
          "The newest prompt day with a not this time vote.", "recounted from prompt_delivery"),
    Entry("tone_active", "string", LIST + "; tags such as concise, warm", "The tone tags in force for the "
          "participant's replies.", "conversation.tone.active"),
))

MESSAGES = FileDoc("messages", "The whole transcript: one row per message in or out, oldest first.", (
    Entry("id", "integer", "unique", "The message's number; deliveries refer to it.", "message.id"),
    pid_entry("message.participant_id"),
    Entry("direction", "string", "in, out", "in: from the participant; out: from the study.", "message.direction"),
    Entry("role", "string", "user, assistant", "Who wrote it: the participant or the service.", "message.role"),
    Entry("kind", "string", listed(MessageKind), "What the message is; researcher: written by the research team, "
          "not the model (payload: by, the researcher or API token; broadcast_id, when it was one of a broadcast); "
          "unreadable: it reached the study phone but could not be decrypted.", "message.kind"),
    Entry("status", "string", listed(MessageStatus),
          "Where the message stands: answered by the service, or handed to WhatsApp; cancelled: not sent because "
          "the participant sent STOP, or was paused or withdrawn, before it went out.", "message.status"),
    Entry("text", "string", PSEUDONYMISED, "The message's words (a description for messages without words).",
          "message.text"),
    *timed("created_at", "When the message was stored", "message.created_at"),
    *timed("sent_at", "When WhatsApp accepted an outgoing message; for an incoming one, when the participant "
           "sent it (their WhatsApp's clock; empty for those received before this was kept)", "message.sent_at"),
    Entry("wa_message_id", "string", "WhatsApp's id", "WhatsApp's id of the message; receipts match on it.",
          "message.wa_message_id"),
    Entry("delivery", "string", "read, delivered, sent, not_delivered, unknown; empty for incoming messages",
          "What WhatsApp reported for an outgoing message; not_delivered: no delivered receipt within the receipt "
          "window; unknown: the transport reports no receipts.", "receipt rows by wa_message_id"),
    *timed("delivered_at", "When WhatsApp reported the message delivered to the phone", "receipt (delivered)"),
    *timed("read_at", "When WhatsApp reported the message read", "receipt (read)"),
    *timed("played_at", "When WhatsApp reported a voice note played", "receipt (played)"),
    Entry("poll_purpose", "string", "done, intensity; empty for other messages",
          "What a poll (or a vote on it) asks: did you do it, or should the steps change size.",
          "message.payload.purpose"),
    Entry("poll_options", "string", LIST, "The options a poll offered.", "message.payload.options"),
    Entry("vote_chosen", "string", LIST, "The options a vote chose.", "message.payload.selected"),
    Entry("vote_source", "string", listed(VoteSource) + "; empty when not a vote",
          "How the vote was given: on the poll, typed as words, or as a reaction.", "message.payload.vote_source"),
    Entry("handled_as", "string", "e.g. counted, outdated, ambiguous; empty when not noted",
          "How the service treated an incoming message or vote.", "message.payload.handled_as"),
    Entry("payload", "json", "a JSON object; texts in it pseudonymised", "Everything else stored with the "
          "message.", "message.payload"),
))

DELIVERIES = FileDoc("deliveries", "One row per daily prompt that went out, and what became of it.", (
    Entry("id", "integer", "unique", "The delivery's number; decisions.delivery_id refers to it.",
          "prompt_delivery.id"),
    pid_entry("prompt_delivery.participant_id"),
    Entry("schedule_id", "string", "s_ followed by hexadecimal characters; empty for a prompt sent by hand",
          "The schedule the prompt came from.", "prompt_delivery.schedule_id"),
    Entry("local_date", "date", "YYYY-MM-DD on the participant's calendar", "The day the prompt is for.",
          "prompt_delivery.local_date"),
    Entry("prompt_text", "string", PSEUDONYMISED, "The prompt as sent.", "prompt_delivery.prompt_text"),
    Entry("prompt_message_id", "integer", "a messages.id", "The prompt in the transcript.",
          "prompt_delivery.prompt_message_id"),
    Entry("poll_message_id", "integer", "a messages.id; empty when no poll went with it",
          "The did you do it? poll in the transcript.", "prompt_delivery.poll_message_id"),
    *timed("sent_at", "When the prompt was queued to be sent", "prompt_delivery.sent_at"),
    *timed("delivered_at", "The earliest delivered receipt of the prompt or its poll", "receipt rows"),
    *timed("read_at", "The earliest read receipt of the prompt or its poll", "receipt rows"),
    Entry("vote", "string", listed(Vote) + "; empty: no vote, or it was withdrawn",
          "The standing answer to the poll (a changed vote replaces the earlier one).", "prompt_delivery.vote"),
    Entry("vote_source", "string", listed(VoteSource) + "; empty without a vote", "How the standing vote was given.",
          "prompt_delivery.vote_source"),
    *timed("voted_at", "When the standing vote was given", "prompt_delivery.voted_at"),
    Entry("vote_changes", "integer", "count", "How often the vote was changed or withdrawn after the first one.",
          "prompt_delivery.vote_changes"),
    *timed("replied_at", "The participant's first written message after the prompt", "prompt_delivery.replied_at"),
    *timed("reminder_at", "When the reminder for an unanswered prompt went out", "prompt_delivery.reminder_at"),
    Entry("reminder_sent", "boolean", "true, false", "A reminder went out.", "prompt_delivery.reminder_at is set"),
    Entry("outcome", "string", listed(Outcome),
          "One word for what became of the prompt: the vote; else a written reply; else not_delivered (no "
          "delivered receipt within the receipt window); else whether a reminder went out.",
          "derived: vote, replied_at, receipts, reminder_at"),
))

TRANSITIONS = FileDoc("transitions", "The audit log: every change of stage, status or time zone, by its declared "
                      "name.", (
    Entry("id", "integer", "unique", "The change's number.", "transition.id"),
    pid_entry("transition.participant_id"),
    Entry("kind", "string", "sub_state, status, timezone, study, number",
          "What changed (study: day one set, an extension; number: moved to another WhatsApp number).",
          "transition.kind"),
    Entry("name", "string", "a declared transition name, e.g. intake_done, participant_stop, study_completed",
          "Which declared change it was.", "transition.name"),
    Entry("actor", "string", listed(Actor) + "; empty on old rows",
          "Who or what caused it.", "transition.actor"),
    Entry("from_value", "string", "the value before; empty at the start", "The value before the change.",
          "transition.from_value"),
    Entry("to_value", "string", "the value after", "The value after the change.", "transition.to_value"),
    Entry("reason", "string", PSEUDONYMISED, "Why, in words.", "transition.reason"),
    *timed("at", "When the change happened", "transition.created_at"),
))

TONE_CHANGES = FileDoc("tone_changes", "Every tone proposal the model made, checked against the allowed tags.", (
    Entry("id", "integer", "unique", "The proposal's number.", "tone_event.id"),
    pid_entry("tone_event.participant_id"),
    Entry("source", "string", listed(ToneSource), "Whether the participant asked for it or the model inferred it.",
          "tone_event.source"),
    Entry("proposed", "string", LIST, "The tags the model proposed.", "tone_event.proposed"),
    Entry("stripped", "string", LIST, "Proposed tags that are not allowed (dropped).", "tone_event.stripped"),
    Entry("outcome", "string", listed(ToneOutcome), "What became of the proposal.",
          "tone_event.outcome"),
    Entry("active_before", "string", LIST, "The tags in force before.", "tone_event.active_before"),
    Entry("active_after", "string", LIST, "The tags in force after.", "tone_event.active_after"),
    Entry("scores", "json", "a JSON object: tag to score", "The tag scores after the update.", "tone_event.scores"),
    *timed("at", "When the proposal was made", "tone_event.created_at"),
))

CONSENT = FileDoc("consent", "The consent ledger: every consent-relevant event, who caused it and the words that "
                  "did.", (
    Entry("id", "integer", "unique", "The event's number.", "consent.id"),
    pid_entry("consent.participant_id"),
    Entry("event", "string", listed(ConsentKind),
          "What happened.", "consent.event"),
    Entry("source", "string", listed(ConsentSource), "Who caused it (model: on the "
          "participant's words).", "consent.source"),
    Entry("actor", "string", "a researcher's name; empty unless source is researcher", "The researcher who acted.",
          "consent.actor"),
    Entry("words", "string", PSEUDONYMISED, "What caused it: the participant's message or the researcher's reason.",
          "consent.words"),
    Entry("reconstructed", "boolean", "true, false", "true: rebuilt at an upgrade from the transition log of a release "
          "that kept no consent ledger (the participant's words were not recorded then; the time is the "
          "transition's).", "consent.reconstructed"),
    *timed("at", "When it happened (for the participant's own: when their message was received)", "consent.created_at"),
    *timed("said_at", "The participant's own opt-out or opt-in: when they sent it, by their WhatsApp's clock; the "
           "latest of these decides, so one sent before it changes nothing (opt_out_superseded, "
           "opt_in_superseded); empty for the others", "consent.said_at"),
))

FLAGS = FileDoc("flags", "Safety concerns raised by the crisis screen or the model, and how they were resolved.", (
    Entry("id", "integer", "unique", "The flag's number.", "flag.id"),
    pid_entry("flag.participant_id"),
    Entry("source", "string", listed(FlagSource), "Raised by the server's phrase list or by the model.",
          "flag.source"),
    Entry("severity", "string", listed(Severity), "How serious the concern is.", "flag.severity"),
    Entry("trigger", "string", PSEUDONYMISED, "The phrase the screen matched, or the model's reason.",
          "flag.trigger"),
    Entry("status", "string", listed(FlagStatus), "Whether the research team has resolved it.", "flag.status"),
    *timed("at", "When it was raised", "flag.created_at"),
    *timed("resolved_at", "When it was resolved", "flag.resolved_at"),
    Entry("resolved_by", "string", "a researcher's name; empty while open", "Who resolved it.", "flag.resolved_by"),
    Entry("resolution_note", "string", PSEUDONYMISED, "The researcher's note.", "flag.resolution_note"),
    Entry("alert_status", "string", listed(AlertStatus), "Whether the alert webhook was called (none: no webhook "
          "set).", "flag.alert_status"),
))

IDENTIFIERS = FileDoc("identifiers", "The key from pseudonyms to people: written only with --include-identifiers. "
                      "Keep it apart from the data.", (
    Entry("participant_id", "string", "a participants.id", "The pseudonym.", "participant.id"),
    Entry("phone", "string", "E.164, e.g. +14165550123 (in CSV with a leading ')", "The participant's phone number.",
          "participant.phone"),
    Entry("name", "string", "free text", "The participant's registered name.", "participant.name"),
))
