"""What the columns of ``decisions``, ``study.json`` and the questionnaire files mean."""

from __future__ import annotations

from promptpipe.domain.messages import VoteSource
from promptpipe.domain.states import Vote
from promptpipe.export.codebook_entries import PSEUDONYMISED, UTC_VALUES, Entry, FileDoc, listed, pid_entry, timed
from promptpipe.questionnaires.rules.definition import END_REASON_WORDS, EndReason, ItemType
from promptpipe.study.rules.protocol import NotSent, Unavailable

_NO_PROMPT = "; empty when no prompt went out"
DECISIONS = FileDoc("decisions", "One row per decision point (a daily prompt time), per participant in time order: "
                    "availability, what was randomised, and the proximal outcome of the prompt if one went out.", (
    pid_entry("decision.participant_id"),
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
    Entry("unavailable_reason", "string", listed(Unavailable) + "; empty when available",
          "Why the decision point was unavailable: outside the study "
          "days, the participant's own STOP (opted_out), paused by the team (or not active), a baseline day, the "
          "study's quiet hours, the day's prompt already answered, the service was down past MISFIRE_GRACE at the "
          "prompt time (missed_service_down: nothing was sent; the draw is recorded, never acted on; never for a day "
          "past the last study day), or withdrawn: "
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
    Entry("not_sent_reason", "string", listed(NotSent) + "; empty otherwise",
          "Why a prompt the decision called for did not go out: model_outage, the model could not write it before the "
          "participant's day ended or the quiet hours began (the service kept trying until then); "
          "after_outcome_question, it could not go out before the self-report question that measures it was asked "
          "(see self_report_date; the model was down, or its turn waited), and is never sent after it.",
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
    Entry("vote", "string", listed(Vote) + _NO_PROMPT + " or no vote stands",
          "The standing answer to the prompt's poll.", "prompt_delivery.vote"),
    Entry("vote_source", "string", listed(VoteSource) + "; empty without a vote", "How the standing vote was given.",
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
    Entry("self_report_reason", "string", listed(EndReason) + "; empty when answered or still to come",
          "Why the question was not asked or not answered, coded as questionnaire_instances.reason (not_planned: "
          + END_REASON_WORDS[EndReason.NOT_PLANNED] + ").", "questionnaire_instances.reason"),
    Entry("self_report_at_utc", "datetime", UTC_VALUES + "; empty without an answer",
          "When the end-of-day answer was given (within the protocol's window).",
          "questionnaire_answers.answered_at"),
    Entry("withdrawn_at_utc", "datetime", UTC_VALUES + "; empty unless withdrawn", "When the participant was "
          "withdrawn, repeated on each of their decision points so points after it can be told apart without a "
          "join.", "participants.withdrawn_at_utc"),
    Entry("erased_at_utc", "datetime", UTC_VALUES + "; empty unless erased", "When the participant's personal data "
          "was erased (their decision points stay, with no words).", "participants.erased_at_utc"),
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

INSTANCE_REASONS = tuple(code for code in EndReason if code is not EndReason.NOT_PLANNED)
QUESTIONNAIRE_STATUSES = "scheduled, sent, started, completed, expired, stopped, not_sent"
QUESTIONNAIRE_INSTANCES = FileDoc("questionnaire_instances", "One row per questionnaire planned or sent to a "
                                  "participant on one occasion, with how far it got.", (
    Entry("id", "integer", "unique", "The instance; questionnaire_answers.instance_id refers to it.",
          "questionnaire_instance.id"),
    Entry("participant_id", "string", "a participants.id", "Whose it is.", "questionnaire_instance.participant_id"),
    Entry("questionnaire_id", "string", "an id of the study file's [[questionnaires]] (see study.json)",
          "Which questionnaire.", "questionnaire_instance.questionnaire_id"),
    Entry("occasion", "string", "enrollment, intake_complete, study_end, study_end_day_<n> (the end after an "
          "extension of a completed participant: n is the new last study day), a local date YYYY-MM-DD, or manual:… "
          "(a team's piloting send)", "What it was sent for; one instance per participant, questionnaire and "
          "occasion.",
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
    Entry("reason", "string", listed(INSTANCE_REASONS) + "; empty unless it expired, was stopped or not sent",
          "Why it ended unfinished or was never sent: " + "; ".join(
              f"{code}: {END_REASON_WORDS[code]}" for code in INSTANCE_REASONS) + ".", "questionnaire_instance.reason"),
    *timed("scheduled_at", "When it was due (a random time as drawn)", "questionnaire_instance.scheduled_at"),
    Entry("window_start_utc", "datetime", UTC_VALUES, "For a random time: the start of that day's window the draw "
          "used (UTC).", "questionnaire_instance.window_start"),
    Entry("window_end_utc", "datetime", UTC_VALUES, "For a random time: the end of that day's window (UTC).",
          "questionnaire_instance.window_end"),
    *timed("sent_at", "When its first item was sent", "questionnaire_instance.sent_at"),
    *timed("first_answer_at", "When its first item was answered", "questionnaire_instance.first_answer_at"),
    *timed("ended_at", "When it was completed, expired, stopped or found not sent", "questionnaire_instance.ended_at"),
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
    Entry("coded", "number", "the option's code (questionnaire_items.csv lists each item's codes and labels), "
          "the scale point or the number; a multiple choice's codes (CSV: joined with ;, JSONL: a list); empty for "
          "a text item, a skip or a missing answer", "The value to analyse: a number in JSONL, a list of numbers "
          "for a multiple choice.", "questionnaire_answer.coded"),
    Entry("source", "string", "tap, typed; empty when missing", "How it was given.", "questionnaire_answer.source"),
    Entry("missing", "string", "skipped, invalid, not_shown, expired, stopped; empty when answered",
          "Why there is no answer: skipped an optional item, no reply fitted after the re-ask, its show_if did not "
          "hold, the questionnaire closed first, or STOP/a pause/a withdrawal ended it.",
          "questionnaire_answer.missing"),
    Entry("tries", "integer", "0, 1 or 2", "Replies to this item that did not fit.", "questionnaire_answer.tries"),
    *timed("asked_at", "When the item was first asked", "questionnaire_answer.asked_at"),
    *timed("answered_at", "When the participant sent the answer (WhatsApp's timestamp)",
           "questionnaire_answer.answered_at"),
    Entry("latency_s", "number", "seconds; empty unless answered", "From first asked to answered.",
          "answered_at - asked_at"),
    Entry("protocol_hash", "string", "as in questionnaire_instances", "The study file in force for its instance.",
          "questionnaire_instance.protocol_hash"),
))

QUESTIONNAIRE_ITEMS = FileDoc("questionnaire_items.csv", "Every item of every questionnaire of every adopted protocol "
                              "version: what an answer's coded value means (written as CSV in every format).", (
    Entry("protocol_version", "integer", "1, 2, 3 … in adoption order", "The protocol version (its file is "
          "study_protocol_v<N>_<hash>.toml).", "study_protocol, in adoption order"),
    Entry("protocol_hash", "string", "as questionnaire_instances.protocol_hash", "The version's SHA-256: join on "
          "it with questionnaire_id and item_id.", "study_protocol.hash"),
    Entry("questionnaire_id", "string", "the study file's id", "The questionnaire.", "study file"),
    Entry("questionnaire_title", "string", "free text from the study file", "Its title.", "study file"),
    Entry("item_id", "string", "the study file's id", "The item.", "study file"),
    Entry("text", "string", "free text from the study file", "The question as asked.", "study file"),
    Entry("type", "string", listed(ItemType), "How it is answered.", "study file"),
    Entry("low", "number", "empty unless a scale or a number", "The smallest value accepted.", "study file"),
    Entry("high", "number", "empty unless a scale or a number", "The largest value accepted.", "study file"),
    Entry("low_label", "string", "empty when none", "The words at the low end of a scale.", "study file"),
    Entry("high_label", "string", "empty when none", "The words at the high end of a scale.", "study file"),
    Entry("unit", "string", "empty when none", "The unit of a number.", "study file"),
    Entry("decimals", "integer", "0 or more", "Decimal places a typed number may have.", "study file"),
    Entry("codes", "string", "codes joined with ;", "Every code the answer may take (options, scale points, "
          "yes = 1 / no = 0).", "study file"),
    Entry("labels", "string", "labels joined with ;, in the order of codes", "The options' words.", "study file"),
))
