"""What every exported column means: its type, its unit or allowed values, its meaning and where
it comes from (see :mod:`promptpipe.research.codebook` for the files written from it).

Types: string | integer | number | boolean | datetime | date | json. A list is a ``string`` in
CSV (items joined with ``;``) and an array in JSONL.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FILES", "STRATUM_PREFIX", "Entry", "FileDoc", "stratum_entry"]

UTC_VALUES = "ISO 8601 in UTC to the second, e.g. 2026-03-02T13:00:00+00:00; empty when it did not happen"
LOCAL_VALUES = "ISO 8601 on the participant's clock (their zone now) with its offset, e.g. 2026-03-02T08:00:00-05:00"
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

    def entry(self, column: str) -> Entry | None:
        return next((e for e in self.entries if e.column == column), None)


def _time(prefix: str, meaning: str, source: str) -> tuple[Entry, Entry]:
    """The ``…_utc`` and ``…_local`` pair every time in the participant files comes as."""
    return (Entry(f"{prefix}_utc", "datetime", UTC_VALUES, meaning + " (UTC).", source),
            Entry(f"{prefix}_local", "datetime", LOCAL_VALUES, meaning + " (the participant's local time).", source))


def _pid(source: str) -> Entry:
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
          "The participant's time zone now; their *_local times are shown in it.", "participant.timezone"),
    Entry("status", "string", "active, paused, completed, withdrawn",
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
    Entry("day_one", "date", "YYYY-MM-DD on the participant's calendar; empty until it is known",
          "Study day 1: the first local day after intake or after enrollment, as the protocol says.",
          "participant.day_one"),
    Entry("extra_days", "integer", "days, 0 or more", "Days a researcher added to this participant's study "
          "(extend).", "participant.extra_days"),
    *_time("enrolled_at", "When the participant was enrolled", "participant.enrolled_at"),
    *_time("completed_at", "When the participant completed the study; empty unless status is completed",
           "participant.completed_at"),
    *_time("erased_at", "When a researcher erased the participant's personal data; empty otherwise",
           "participant.erased_at"),
    *(Entry(name, "string", PSEUDONYMISED, meaning, f"{_PROFILE}.{name}") for name, meaning in _HABIT),
    Entry("intensity", "string", "low, normal, high", "The size of the daily steps, moved by the participant's "
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
    _pid("message.participant_id"),
    Entry("direction", "string", "in, out", "in: from the participant; out: from the study.", "message.direction"),
    Entry("role", "string", "user, assistant", "Who wrote it: the participant or the service.", "message.role"),
    Entry("kind", "string", "text, prompt, poll, poll_vote, reaction, reminder, greeting, apology, closing, voice, "
          "image …", "What the message is.", "message.kind"),
    Entry("status", "string", "in: received, answered, failed; out: queued, sent, failed, uncertain",
          "Where the message stands: answered by the service, or handed to WhatsApp.", "message.status"),
    Entry("text", "string", PSEUDONYMISED, "The message's words (a description for messages without words).",
          "message.text"),
    *_time("created_at", "When the message was stored", "message.created_at"),
    *_time("sent_at", "When WhatsApp accepted an outgoing message; empty for incoming ones", "message.sent_at"),
    Entry("wa_message_id", "string", "WhatsApp's id", "WhatsApp's id of the message; receipts match on it.",
          "message.wa_message_id"),
    Entry("delivery", "string", "read, delivered, sent, not_delivered, unknown; empty for incoming messages",
          "What WhatsApp reported for an outgoing message; not_delivered: no delivered receipt within the receipt "
          "window; unknown: the transport reports no receipts.", "receipt rows by wa_message_id"),
    *_time("delivered_at", "When WhatsApp reported the message delivered to the phone", "receipt (delivered)"),
    *_time("read_at", "When WhatsApp reported the message read", "receipt (read)"),
    *_time("played_at", "When WhatsApp reported a voice note played", "receipt (played)"),
    Entry("poll_purpose", "string", "done, intensity; empty for other messages",
          "What a poll (or a vote on it) asks: did you do it, or should the steps change size.",
          "message.payload.purpose"),
    Entry("poll_options", "string", LIST, "The options a poll offered.", "message.payload.options"),
    Entry("vote_chosen", "string", LIST, "The options a vote chose.", "message.payload.selected"),
    Entry("vote_source", "string", "tap, typed, reaction; empty when not a vote",
          "How the vote was given: on the poll, typed as words, or as a reaction.", "message.payload.vote_source"),
    Entry("handled_as", "string", "e.g. counted, outdated, ambiguous; empty when not noted",
          "How the service treated an incoming message or vote.", "message.payload.handled_as"),
    Entry("payload", "json", "a JSON object; texts in it pseudonymised", "Everything else stored with the "
          "message.", "message.payload"),
))

DELIVERIES = FileDoc("deliveries", "One row per daily prompt that went out, and what became of it.", (
    Entry("id", "integer", "unique", "The delivery's number; decisions.delivery_id refers to it.",
          "prompt_delivery.id"),
    _pid("prompt_delivery.participant_id"),
    Entry("schedule_id", "string", "s_ followed by hexadecimal characters; empty for a prompt sent by hand",
          "The schedule the prompt came from.", "prompt_delivery.schedule_id"),
    Entry("local_date", "date", "YYYY-MM-DD on the participant's calendar", "The day the prompt is for.",
          "prompt_delivery.local_date"),
    Entry("prompt_text", "string", PSEUDONYMISED, "The prompt as sent.", "prompt_delivery.prompt_text"),
    Entry("prompt_message_id", "integer", "a messages.id", "The prompt in the transcript.",
          "prompt_delivery.prompt_message_id"),
    Entry("poll_message_id", "integer", "a messages.id; empty when no poll went with it",
          "The did you do it? poll in the transcript.", "prompt_delivery.poll_message_id"),
    *_time("sent_at", "When the prompt was queued to be sent", "prompt_delivery.sent_at"),
    *_time("delivered_at", "The earliest delivered receipt of the prompt or its poll", "receipt rows"),
    *_time("read_at", "The earliest read receipt of the prompt or its poll", "receipt rows"),
    Entry("vote", "string", "done, not_this_time; empty: no vote, or it was withdrawn",
          "The standing answer to the poll (a changed vote replaces the earlier one).", "prompt_delivery.vote"),
    Entry("vote_source", "string", "tap, typed, reaction; empty without a vote", "How the standing vote was given.",
          "prompt_delivery.vote_source"),
    *_time("voted_at", "When the standing vote was given", "prompt_delivery.voted_at"),
    Entry("vote_changes", "integer", "count", "How often the vote was changed or withdrawn after the first one.",
          "prompt_delivery.vote_changes"),
    *_time("replied_at", "The participant's first written message after the prompt", "prompt_delivery.replied_at"),
    *_time("reminder_at", "When the reminder for an unanswered prompt went out", "prompt_delivery.reminder_at"),
    Entry("reminder_sent", "boolean", "true, false", "A reminder went out.", "prompt_delivery.reminder_at is set"),
    Entry("outcome", "string", "done, not_this_time, free_text_reply, not_delivered, reminder_sent, no_reply",
          "One word for what became of the prompt: the vote; else a written reply; else not_delivered (no "
          "delivered receipt within the receipt window); else whether a reminder went out.",
          "derived: vote, replied_at, receipts, reminder_at"),
))
