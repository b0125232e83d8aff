"""What every exported column means: its type, its unit or allowed values, its meaning and where
it comes from (see :mod:`promptpipe.export.codebook` for the files written from it).

Types: string | integer | number | boolean | datetime | date | json. A list is a ``string`` in
CSV (items joined with ``;``) and an array in JSONL.
"""

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
from promptpipe.study.rules.protocol import Unavailable

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


def _listed(values: Iterable[str]) -> str:
    """A closed set's values as the codebook lists them (from its enum, so the two never differ)."""
    return ", ".join(str(value) for value in values)


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
    Entry("status", "string", _listed(Status),
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
    *_time("enrolled_at", "When the participant was enrolled", "participant.enrolled_at"),
    *_time("completed_at", "When the participant completed the study", "participant.completed_at"),
    *_time("erased_at", "When a researcher erased the participant's personal data", "participant.erased_at"),
    *_time("withdrawn_at", "When a researcher withdrew the participant from the study (nothing is sent after it; "
           "what came before stays in the data)", "consent.created_at of the withdrawn event"),
    *(Entry(name, "string", PSEUDONYMISED, meaning, f"{_PROFILE}.{name}") for name, meaning in _HABIT),
    Entry("intensity", "string", _listed(tuple(Intensity)), "The size of the daily steps, moved by the participant's "
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
    Entry("kind", "string", _listed(MessageKind), "What the message is; researcher: written by the research team, "
          "not the model (payload: by, the researcher or API token; broadcast_id, when it was one of a broadcast); "
          "unreadable: it reached the study phone but could not be decrypted.", "message.kind"),
    Entry("status", "string", _listed(MessageStatus),
          "Where the message stands: answered by the service, or handed to WhatsApp; cancelled: not sent because "
          "the participant sent STOP, or was paused or withdrawn, before it went out.", "message.status"),
    Entry("text", "string", PSEUDONYMISED, "The message's words (a description for messages without words).",
          "message.text"),
    *_time("created_at", "When the message was stored", "message.created_at"),
    *_time("sent_at", "When WhatsApp accepted an outgoing message; for an incoming one, when the participant "
           "sent it (their WhatsApp's clock; empty for those received before this was kept)", "message.sent_at"),
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
    Entry("vote_source", "string", _listed(VoteSource) + "; empty when not a vote",
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
    Entry("vote", "string", _listed(Vote) + "; empty: no vote, or it was withdrawn",
          "The standing answer to the poll (a changed vote replaces the earlier one).", "prompt_delivery.vote"),
    Entry("vote_source", "string", _listed(VoteSource) + "; empty without a vote", "How the standing vote was given.",
          "prompt_delivery.vote_source"),
    *_time("voted_at", "When the standing vote was given", "prompt_delivery.voted_at"),
    Entry("vote_changes", "integer", "count", "How often the vote was changed or withdrawn after the first one.",
          "prompt_delivery.vote_changes"),
    *_time("replied_at", "The participant's first written message after the prompt", "prompt_delivery.replied_at"),
    *_time("reminder_at", "When the reminder for an unanswered prompt went out", "prompt_delivery.reminder_at"),
    Entry("reminder_sent", "boolean", "true, false", "A reminder went out.", "prompt_delivery.reminder_at is set"),
    Entry("outcome", "string", _listed(Outcome),
          "One word for what became of the prompt: the vote; else a written reply; else not_delivered (no "
          "delivered receipt within the receipt window); else whether a reminder went out.",
          "derived: vote, replied_at, receipts, reminder_at"),
))

_NO_PROMPT = "; empty when no prompt went out"
DECISIONS = FileDoc("decisions", "One row per decision point (a daily prompt time), per participant in time order: "
                    "availability, what was randomised, and the proximal outcome of the prompt if one went out.", (
    _pid("decision.participant_id"),
    Entry("decision_index", "integer", "1, 2, 3 … per participant", "The decision point's number in the "
          "participant's time order (by decided_at_utc; the withdrawn rows derived after a withdrawal follow, by "
          "scheduled_for_utc).", "derived: decision rows ordered by decided_at, then the derived withdrawn rows"),
    Entry("schedule_id", "string", "s_ followed by hexadecimal characters", "The schedule whose prompt time this is "
          "(a participant may have more than one).", "decision.schedule_id"),
    Entry("study_day", "integer", "1 on day one; 0 or less before it; past the study length after it; empty while "
          "day one was not known", "The participant's study day at the decision point.", "decision.study_day"),
    Entry("local_date", "date", "YYYY-MM-DD on the participant's calendar", "The day the prompt time is on.",
          "decision.local_date"),
    Entry("scheduled_for_utc", "datetime", UTC_VALUES, "When the prompt was due (decided_at_utc is later when the "
          "service caught up after being down); on a withdrawn row, when it would have been due (empty when the "
          "participant had no schedule then).", "decision.scheduled_for; derived from the schedule for withdrawn"),
    Entry("decided_at_utc", "datetime", UTC_VALUES + " (always empty on a withdrawn row: nothing was decided)",
          "When the decision was made (UTC).", "decision.decided_at"),
    Entry("decided_at_local", "datetime", "ISO 8601 with the offset of the zone in column timezone",
          "decided_at_utc on the participant's clock, in the zone they were in at the time.", "decision.local_time"),
    Entry("timezone", "string", "an IANA zone name", "The participant's time zone at the decision point.",
          "decision.timezone"),
    Entry("arm", "string", "an arm name from study.json; empty without a study file",
          "The participant's arm at the decision point.", "decision.arm"),
    Entry("available", "boolean", "true, false", "Whether the participant was available for randomisation (the "
          "availability indicator of a micro-randomised trial).", "decision.available"),
    Entry("unavailable_reason", "string", _listed(Unavailable) + "; empty when available",
          "Why the decision point was unavailable: outside the study "
          "days, the participant's own STOP (opted_out), paused by the team (or not active), a baseline day, the "
          "study's quiet hours, the day's prompt already answered, the service was down past MISFIRE_GRACE at the "
          "prompt time (missed_service_down: nothing was sent; the draw is recorded, never acted on), or withdrawn: "
          "a decision point of a study day after the participant was withdrawn or their data erased, up to their "
          "last study day. Withdrawn rows are derived by the export, not recorded by the service (no decision "
          "was made, nothing drawn: decided_at_utc, probability, draw and seed_ref are empty): one per point "
          "their schedules in force at the withdrawal would have had (one per day without a schedule), after the "
          "withdrawal's moment. Days the service was down are missed_service_down instead; days not reached yet "
          "(and days past the last study day) have no row at all.",
          "decision.unavailable_reason; withdrawn: derived from the consent ledger, the schedules and the study "
          "length (export_withdrawn.py)"),
    Entry("action", "string", "send, no_send, personalised, fixed; none when unavailable",
          "What was decided: the drawn action, or the arm's prompt (send) without a decision rule.",
          "decision.action"),
    Entry("action_treatment", "integer", "1, 0; empty when nothing was randomised",
          "1 when the action is the treatment (the first action of the protocol's pair: send or personalised), 0 "
          "for the other (no_send or fixed); empty when unavailable or without a decision rule.",
          "derived from decision.available, decision.action and decision.probability"),
    Entry("probability", "number", "0 to 1; empty without a decision rule and on withdrawn rows",
          "The probability of the treatment action at this decision point (given at unavailable points too: what "
          "the rule of the protocol in force at the scheduled time would have used, missed_service_down included).",
          "decision.probability"),
    Entry("draw", "number", "0 (inclusive) to 1 (exclusive); empty without a decision rule and on withdrawn rows",
          "The uniform number drawn: the treatment when it is below probability. Drawn at unavailable points too "
          "and never acted on there, so availability (decided first, at the scheduled time) can be checked to be "
          "independent of the draw.", "decision.draw"),
    Entry("seed_ref", "string", "decision:prompt:<participant>:<schedule>:<local date>; empty when nothing was drawn",
          "The key the draw was made with: HMAC-SHA256 of it under the study's secret seed (kept by the service in a "
          "file of its own, or in its database when the study file says so; never exported) reproduces the draw, "
          "so an auditor holding the seed can check every draw.",
          "decision.seed_ref"),
    Entry("protocol_hash", "string", "64 hexadecimal characters; empty without a study file",
          "SHA-256 of the study file in force at this decision point (for a missed_service_down or withdrawn row: "
          "the version adopted last at or before its scheduled time, even when the file changed before the service "
          "came back): the protocol_v<n> file of the same hash in study.json's changes holds its text.",
          "decision.protocol_hash"),
    Entry("prompt_style", "string", "personalised, fixed" + _NO_PROMPT, "How the prompt was written: by the model "
          "from the profile, or taken from the protocol's fixed texts.", "decision.prompt_style"),
    Entry("model", "string", "a model name; empty unless the prompt was personalised",
          "The model that wrote the prompt.", "decision.model"),
    Entry("system_prompt_hash", "string", "64 hexadecimal characters; empty unless the prompt was personalised",
          "SHA-256 of the prompt generator's system prompt that wrote it (compare study.json).",
          "decision.system_prompt_hash"),
    Entry("not_sent_reason", "string", "model_outage; empty otherwise",
          "Why a prompt the decision called for did not go out: the model could not write it before the "
          "participant's day ended or the quiet hours began (the service kept trying until then).",
          "decision.not_sent_reason"),
    Entry("delivery_id", "integer", "a deliveries.id" + _NO_PROMPT, "The prompt that went out at this decision "
          "point, in the deliveries file.", "prompt_delivery.id (same participant and inbox event)"),
    Entry("prompt_sent", "integer", "1, 0", "1 when a prompt went out at this decision point.",
          "derived: a prompt_delivery row exists"),
    Entry("sent_at_utc", "datetime", UTC_VALUES, "When WhatsApp accepted the prompt (when it was queued, if that is "
          "not known).", "message.sent_at of the prompt, else prompt_delivery.sent_at"),
    Entry("delivered_at_utc", "datetime", UTC_VALUES, "The earliest delivered receipt of the prompt or its poll.",
          "receipt rows"),
    Entry("read_at_utc", "datetime", UTC_VALUES, "The earliest read receipt of the prompt or its poll.",
          "receipt rows"),
    Entry("vote", "string", _listed(Vote) + _NO_PROMPT + " or no vote stands",
          "The standing answer to the prompt's poll.", "prompt_delivery.vote"),
    Entry("vote_source", "string", _listed(VoteSource) + "; empty without a vote", "How the standing vote was given.",
          "prompt_delivery.vote_source"),
    Entry("voted_at_utc", "datetime", UTC_VALUES, "When the standing vote was given (a changed vote counts from the "
          "change; see deliveries.vote_changes).", "prompt_delivery.voted_at"),
    Entry("replied_at_utc", "datetime", UTC_VALUES, "The participant's first written message after the prompt.",
          "prompt_delivery.replied_at"),
    Entry("first_answer_at_utc", "datetime", UTC_VALUES, "The first answer: the earlier of voted_at_utc and "
          "replied_at_utc.", "derived"),
    Entry("latency_s", "integer", "seconds; empty without an answer", "Seconds from sent_at_utc to "
          "first_answer_at_utc.", "derived"),
    Entry("outcome", "string", "as deliveries.outcome" + _NO_PROMPT, "What became of the prompt, coded as in the "
          "deliveries file.", "derived as deliveries.outcome"),
    Entry("self_report_date", "date", "YYYY-MM-DD; empty without [self_report]",
          "The participant's local date of the end-of-day question that measures this decision point: the point's "
          "own date when it was scheduled before the question's time, the next day's otherwise, so the question "
          "always follows the decision.", "derived from local_date, scheduled_for_utc and self_report.time"),
    Entry("self_report", "string", "yes, no; empty: no answer (see self_report_status), or no [self_report]",
          "The participant's answer to that end-of-day question (did they do their habit, with or without a "
          "prompt). The question has its own timer, asked every study day whatever was drawn and whether or not "
          "the model could write the day's prompt, so it is an outcome for send and no_send points alike.",
          "questionnaire_answers of questionnaire self_report, item did_habit (coded 1 = yes, 0 = no)"),
    Entry("self_report_status", "string", "answered, expired (asked, not answered within the window), not_asked "
          "(see self_report_reason), stopped (the participant stopped or was paused while it was open), open "
          "(still open at export), scheduled (not due yet); empty without [self_report]",
          "What became of that end-of-day question: tells a day not asked from a day not answered.",
          "questionnaire_instances.status of questionnaire self_report on self_report_date"),
    Entry("self_report_reason", "string", "free text; empty when answered or still to come",
          "Why the question was not asked or not answered (paused, withdrawn, the study over, no question planned "
          "for that day).", "questionnaire_instances.reason"),
    Entry("self_report_at_utc", "datetime", UTC_VALUES + "; empty without an answer",
          "When the end-of-day answer was given (within the protocol's window).",
          "questionnaire_answers.answered_at"),
    Entry("withdrawn_at_utc", "datetime", UTC_VALUES + "; empty unless withdrawn", "When the participant was "
          "withdrawn, repeated on each of their decision points so points after it can be told apart without a "
          "join.", "participants.withdrawn_at_utc"),
    Entry("erased_at_utc", "datetime", UTC_VALUES + "; empty unless erased", "When the participant's personal data "
          "was erased (their decision points stay, with no words).", "participants.erased_at_utc"),
))

TRANSITIONS = FileDoc("transitions", "The audit log: every change of stage, status or time zone, by its declared "
                      "name.", (
    Entry("id", "integer", "unique", "The change's number.", "transition.id"),
    _pid("transition.participant_id"),
    Entry("kind", "string", "sub_state, status, timezone, study, number",
          "What changed (study: day one set, an extension; number: moved to another WhatsApp number).",
          "transition.kind"),
    Entry("name", "string", "a declared transition name, e.g. intake_done, participant_stop, study_completed",
          "Which declared change it was.", "transition.name"),
    Entry("actor", "string", _listed(Actor) + "; empty on old rows",
          "Who or what caused it.", "transition.actor"),
    Entry("from_value", "string", "the value before; empty at the start", "The value before the change.",
          "transition.from_value"),
    Entry("to_value", "string", "the value after", "The value after the change.", "transition.to_value"),
    Entry("reason", "string", PSEUDONYMISED, "Why, in words.", "transition.reason"),
    *_time("at", "When the change happened", "transition.created_at"),
))

TONE_CHANGES = FileDoc("tone_changes", "Every tone proposal the model made, checked against the allowed tags.", (
    Entry("id", "integer", "unique", "The proposal's number.", "tone_event.id"),
    _pid("tone_event.participant_id"),
    Entry("source", "string", _listed(ToneSource), "Whether the participant asked for it or the model inferred it.",
          "tone_event.source"),
    Entry("proposed", "string", LIST, "The tags the model proposed.", "tone_event.proposed"),
    Entry("stripped", "string", LIST, "Proposed tags that are not allowed (dropped).", "tone_event.stripped"),
    Entry("outcome", "string", _listed(ToneOutcome), "What became of the proposal.",
          "tone_event.outcome"),
    Entry("active_before", "string", LIST, "The tags in force before.", "tone_event.active_before"),
    Entry("active_after", "string", LIST, "The tags in force after.", "tone_event.active_after"),
    Entry("scores", "json", "a JSON object: tag to score", "The tag scores after the update.", "tone_event.scores"),
    *_time("at", "When the proposal was made", "tone_event.created_at"),
))

CONSENT = FileDoc("consent", "The consent ledger: every consent-relevant event, who caused it and the words that "
                  "did.", (
    Entry("id", "integer", "unique", "The event's number.", "consent.id"),
    _pid("consent.participant_id"),
    Entry("event", "string", _listed(ConsentKind),
          "What happened.", "consent.event"),
    Entry("source", "string", _listed(ConsentSource), "Who caused it (model: on the "
          "participant's words).", "consent.source"),
    Entry("actor", "string", "a researcher's name; empty unless source is researcher", "The researcher who acted.",
          "consent.actor"),
    Entry("words", "string", PSEUDONYMISED, "What caused it: the participant's message or the researcher's reason.",
          "consent.words"),
    Entry("reconstructed", "boolean", "true, false", "true: rebuilt at an upgrade from the transition log of a release "
          "that kept no consent ledger (the participant's words were not recorded then; the time is the "
          "transition's).", "consent.reconstructed"),
    *_time("at", "When it happened (for the participant's own: when their message was received)", "consent.created_at"),
    *_time("said_at", "The participant's own opt-out or opt-in: when they sent it, by their WhatsApp's clock; the "
           "latest of these decides, so one sent before it changes nothing (opt_out_superseded, "
           "opt_in_superseded); empty for the others", "consent.said_at"),
))

FLAGS = FileDoc("flags", "Safety concerns raised by the crisis screen or the model, and how they were resolved.", (
    Entry("id", "integer", "unique", "The flag's number.", "flag.id"),
    _pid("flag.participant_id"),
    Entry("source", "string", _listed(FlagSource), "Raised by the server's phrase list or by the model.",
          "flag.source"),
    Entry("severity", "string", _listed(Severity), "How serious the concern is.", "flag.severity"),
    Entry("trigger", "string", PSEUDONYMISED, "The phrase the screen matched, or the model's reason.",
          "flag.trigger"),
    Entry("status", "string", _listed(FlagStatus), "Whether the research team has resolved it.", "flag.status"),
    *_time("at", "When it was raised", "flag.created_at"),
    *_time("resolved_at", "When it was resolved", "flag.resolved_at"),
    Entry("resolved_by", "string", "a researcher's name; empty while open", "Who resolved it.", "flag.resolved_by"),
    Entry("resolution_note", "string", PSEUDONYMISED, "The researcher's note.", "flag.resolution_note"),
    Entry("alert_status", "string", _listed(AlertStatus), "Whether the alert webhook was called (none: no webhook "
          "set).", "flag.alert_status"),
))

IDENTIFIERS = FileDoc("identifiers", "The key from pseudonyms to people: written only with --include-identifiers. "
                      "Keep it apart from the data.", (
    Entry("participant_id", "string", "a participants.id", "The pseudonym.", "participant.id"),
    Entry("phone", "string", "E.164, e.g. +14165550123 (in CSV with a leading ')", "The participant's phone number.",
          "participant.phone"),
    Entry("name", "string", "free text", "The participant's registered name.", "participant.name"),
))

STUDY_JSON = FileDoc("study.json", "One JSON object: the protocol as run, its changes, and what ran the study. "
                     "Its keys are listed as columns.", (
    Entry("format", "string", "promptpipe study export 1", "Marks the file as written by the export.", "constant"),
    Entry("exported_at", "datetime", UTC_VALUES, "When the export ran.", "the export's clock"),
    Entry("software", "json", "{name, version}", "The software that ran the study and its version (null when not "
          "installed as a package).", "installed package metadata"),
    Entry("model", "string", "a model name; null when not given", "The model configured for the service "
          "(GENAI_MODEL).", "settings"),
    Entry("system_prompt_hashes", "json", "an object: intake, feedback, prompt_generator, summary to 64 hexadecimal "
          "characters", "SHA-256 of each system prompt's text as the service uses it (trimmed), as in "
          "decisions.system_prompt_hash.", "the configured system prompt files"),
    Entry("study_file", "json", "an object: name, hash, length_days, baseline_days, day_one, closing_message, "
          "fixed_prompts, quiet_hours, arms, allocation, decision, self_report, questionnaires (each with its items: "
          "text, type, options with their codes, ranges, show_if); null without a study file",
          "The protocol in force, as the service reads it (times HH:MM, durations in seconds).",
          "the newest study_protocol row, parsed"),
    Entry("hash", "string", "64 hexadecimal characters; null without a study file",
          "SHA-256 of the study file's bytes as adopted.", "study_protocol.hash"),
    Entry("study_file_text", "string", "TOML; null without a study file", "The study file in force, word for word.",
          "study_protocol.contents"),
    Entry("study_file_problem", "string", "null, or why the stored file no longer reads",
          "Set only when the protocol in force cannot be read by this version of the software.",
          "parse of study_protocol.contents"),
    Entry("changes", "json", "a list of {name, hash, previous_hash, adopted_at, adopted_by}, oldest first",
          "Every protocol version the study ran, when it was adopted and by whom (texts of earlier versions are "
          "not included).", "study_protocol rows"),
))

QUESTIONNAIRE_STATUSES = "scheduled, sent, started, completed, expired, stopped, not_sent"
QUESTIONNAIRE_INSTANCES = FileDoc("questionnaire_instances", "One row per questionnaire planned or sent to a "
                                  "participant on one occasion, with how far it got.", (
    Entry("id", "integer", "unique", "The instance; questionnaire_answers.instance_id refers to it.",
          "questionnaire_instance.id"),
    Entry("participant_id", "string", "a participants.id", "Whose it is.", "questionnaire_instance.participant_id"),
    Entry("questionnaire_id", "string", "an id of the study file's [[questionnaires]] (see study.json)",
          "Which questionnaire.", "questionnaire_instance.questionnaire_id"),
    Entry("occasion", "string", "enrollment, intake_complete, a local date YYYY-MM-DD, or manual:… (a team's "
          "piloting send)", "What it was sent for; one instance per participant, questionnaire and occasion.",
          "questionnaire_instance.occasion"),
    Entry("schedule_kind", "string", "event, fixed, random, manual", "How its time was set: at an event, a fixed "
          "time of day, a minute drawn in a daily window, or sent by the team.",
          "questionnaire_instance.schedule_kind"),
    Entry("study_day", "integer", "1 on study day 1; empty for event and manual ones", "The study day it belongs to.",
          "questionnaire_instance.study_day"),
    Entry("local_date", "date", "YYYY-MM-DD on the participant's clock; empty for event and manual ones",
          "The participant's day it belongs to.", "questionnaire_instance.local_date"),
    Entry("status", "string", QUESTIONNAIRE_STATUSES, "How far it got: planned and not yet due (scheduled), sent "
          "and no item answered (sent), answered in part and still open (started), every item asked answered or "
          "missed (completed), closed by open_for (expired), ended by STOP, a pause or a withdrawal (stopped), "
          "never sent (not_sent, see reason).", "questionnaire_instance.status"),
    Entry("reason", "string", "free text of ours; empty unless stopped or not sent", "Why it ended early or was "
          "never sent.", "questionnaire_instance.reason"),
    *_time("scheduled_at", "When it was due (a random time as drawn)", "questionnaire_instance.scheduled_at"),
    Entry("window_start_utc", "datetime", UTC_VALUES, "For a random time: the start of that day's window the draw "
          "used (UTC).", "questionnaire_instance.window_start"),
    Entry("window_end_utc", "datetime", UTC_VALUES, "For a random time: the end of that day's window (UTC).",
          "questionnaire_instance.window_end"),
    *_time("sent_at", "When its first item was sent", "questionnaire_instance.sent_at"),
    *_time("first_answer_at", "When its first item was answered", "questionnaire_instance.first_answer_at"),
    *_time("ended_at", "When it was completed, expired, stopped or found not sent", "questionnaire_instance.ended_at"),
    Entry("expires_at_utc", "datetime", UTC_VALUES, "When it closes or closed: open_for after it was sent (UTC).",
          "questionnaire_instance.expires_at"),
    Entry("reminders_sent", "integer", "0 or more", "Reminders sent while it was open.",
          "questionnaire_instance.reminders_sent"),
    Entry("protocol_hash", "string", "64 hexadecimal characters; empty without a study file", "SHA-256 of the "
          "study file in force when it was planned or sent.", "questionnaire_instance.protocol_hash"),
))
QUESTIONNAIRE_ANSWERS = FileDoc("questionnaire_answers", "Long format: one row per item asked, answered or missed "
                                "(with its missingness code).", (
    Entry("id", "integer", "unique", "The row.", "questionnaire_answer.id"),
    Entry("participant_id", "string", "a participants.id", "Whose answer.", "questionnaire_answer.participant_id"),
    Entry("instance_id", "integer", "a questionnaire_instances.id", "The questionnaire instance it belongs to.",
          "questionnaire_answer.instance_id"),
    Entry("questionnaire_id", "string", "as in questionnaire_instances", "Which questionnaire.",
          "questionnaire_instance.questionnaire_id"),
    Entry("occasion", "string", "as in questionnaire_instances", "Which occasion.", "questionnaire_instance.occasion"),
    Entry("item_id", "string", "an item id of that questionnaire in the study file", "Which item.",
          "questionnaire_answer.item_id"),
    Entry("raw", "string", "the option tapped (our wording), or the words typed (" + PSEUDONYMISED + "); empty "
          "after an erasure of typed words", "The reply as given.", "questionnaire_answer.raw"),
    Entry("coded", "string", "the option's code from the study file (several joined with ; for a multiple choice), "
          "the scale point or the number; empty for a text item, a skip or a missing answer",
          "The value to analyse.", "questionnaire_answer.coded"),
    Entry("source", "string", "tap, typed; empty when missing", "How it was given.", "questionnaire_answer.source"),
    Entry("missing", "string", "skipped, invalid, not_shown, expired, stopped; empty when answered",
          "Why there is no answer: skipped an optional item, no reply fitted after the re-ask, its show_if did not "
          "hold, the questionnaire closed first, or STOP/a pause/a withdrawal ended it.",
          "questionnaire_answer.missing"),
    Entry("tries", "integer", "0, 1 or 2", "Replies to this item that did not fit.", "questionnaire_answer.tries"),
    *_time("asked_at", "When the item was first asked", "questionnaire_answer.asked_at"),
    *_time("answered_at", "When it was answered", "questionnaire_answer.answered_at"),
    Entry("latency_s", "number", "seconds; empty unless answered", "From first asked to answered.",
          "answered_at - asked_at"),
    Entry("protocol_hash", "string", "as in questionnaire_instances", "The study file in force for its instance.",
          "questionnaire_instance.protocol_hash"),
))

FILES: tuple[FileDoc, ...] = (PARTICIPANTS, MESSAGES, DELIVERIES, DECISIONS, TRANSITIONS, TONE_CHANGES, CONSENT,
                              FLAGS, QUESTIONNAIRE_INSTANCES, QUESTIONNAIRE_ANSWERS, IDENTIFIERS, STUDY_JSON)
