"""The settings, each declared once on its :class:`Settings` field (see :mod:`promptpipe.config`)."""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from pathlib import Path

from promptpipe.config.declared import duration, floats, ints, on_off, setting, text
from promptpipe.config.values import (
    api_listen,
    base_url,
    cloud_numbers,
    existing_file,
    file_path,
    host_port,
    none_if_empty,
    normalise_database_url,
    number_names,
    number_rule,
    one_of,
    pair_phones,
    preferred_services,
    service_name,
    trusted_proxies,
    webhook_url,
)
from promptpipe.domain.limits import DEFAULT_MAX_SCHEDULES
from promptpipe.domain.numbers import DEFAULT_NUMBER, NumberPlan, NumberRule
from promptpipe.domain.setting_values import LogFormat, validate_timezone
from promptpipe.errors import ConfigError
from promptpipe.study.rules.protocol import OPEN_STUDY, Study

__all__ = ["DEFAULT_HISTORY_WINDOW", "Settings", "TransportName"]


class TransportName(StrEnum):
    """How the service reaches people (PROMPTPIPE_TRANSPORT)."""

    WHATSAPP = "whatsapp"
    CONSOLE = "console"
    """only ``promptpipe chat``"""
    DRY_RUN = "dry-run"
    CLOUD_API = "cloud-api"
    """the official WhatsApp Cloud API (no linked phone)"""


DEFAULT_HISTORY_WINDOW = 50
_SOURCE_PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@dataclass(frozen=True)
class Settings:
    """Everything the service can be told. Build it with :func:`load_settings`."""

    openai_api_key: str | None = setting(
        "OPENAI_API_KEY", None, none_if_empty, section="model", readme=True, secret=True,
        shown="— (required by `serve`, `chat`)",
        meaning="Key for the OpenAI-compatible server. Any non-empty value works for a local server that ignores it.")
    openai_base_url: str | None = setting(
        "OPENAI_BASE_URL", None, none_if_empty, section="model", readme=True, shown="OpenAI",
        meaning="Base URL of any OpenAI-compatible chat-completions server. Empty: OpenAI's own API.")
    genai_model: str = setting("GENAI_MODEL", "gpt-4o-mini", text, section="model", readme=True,
                               meaning="Model name sent with every request.")
    genai_temperature: float = setting("GENAI_TEMPERATURE", 0.1, floats(0.0, 2.0), section="model",
                                       meaning="Sampling temperature, 0 to 2.")
    llm_timeout: timedelta = setting(
        "LLM_TIMEOUT", timedelta(seconds=60), duration, section="model",
        meaning="Give up on one model request after this long (the participant gets a short apology, the message is "
                "kept).")
    llm_max_retries: int = setting(
        "LLM_MAX_RETRIES", 2, ints(0), section="model",
        meaning="Quick retries of one request inside the OpenAI client before the turn is retried later.")

    state_dir: Path = setting(
        "PROMPTPIPE_STATE_DIR", Path("promptpipe-state"), file_path, section="storage", readme=True,
        shown="`./promptpipe-state`",
        meaning="The WhatsApp session, the default SQLite database and the single-instance lock live here.")
    database_url: str = setting(
        "DATABASE_URL", "", lambda name, raw: normalise_database_url(raw), section="storage", readme=True,
        shown="SQLite file in the state dir",
        meaning="Empty: sqlite:///<PROMPTPIPE_STATE_DIR>/promptpipe.db. Or postgresql://user:pw@host:5432/db.")
    several_services: bool = setting(
        "SEVERAL_SERVICES", False, on_off, section="storage",
        meaning="on: several `serve` processes share one PostgreSQL database, each serving the WhatsApp numbers it "
                "holds a lease on (see 'Several services' in the README). off: one service per database.")
    lease_ttl: timedelta = setting(
        "LEASE_TTL", timedelta(seconds=15), duration, section="storage", example="15s", shown="`15s`",
        meaning="With SEVERAL_SERVICES: how long a service holds a number without a heartbeat; a stopped service's "
                "numbers go to the others within this time and one heartbeat.")
    lease_heartbeat: timedelta = setting(
        "LEASE_HEARTBEAT", timedelta(seconds=5), duration, section="storage", example="5s", shown="`5s`",
        meaning="With SEVERAL_SERVICES: how often a service renews its numbers and takes free ones.")
    service_name: str = setting(
        "SERVICE_NAME", "", service_name, section="storage", shown="host name:state directory",
        meaning="With SEVERAL_SERVICES: this service's name, the same after every restart (letters, digits, '.', "
                "'_', '-'). A number stays with its service while it runs, and waits a lease's time for it to "
                "come back.")
    preferred_services: tuple[tuple[str, str], ...] = setting(
        "PREFERRED_SERVICES", (), preferred_services, section="storage", shown="the first service to take each",
        example="", meaning="With SEVERAL_SERVICES: the service each number prefers, as number=SERVICE_NAME pairs "
                            "(e.g. toronto=clinic-a,montreal=clinic-b): it links the number (shows its QR code) and "
                            "serves it while it runs; another takes it only while that service is down.")
    db_auto_upgrade: bool = setting(
        "DB_AUTO_UPGRADE", False, on_off, section="storage", readme=True,
        meaning="on: `serve` upgrades a database an older release made by itself (a SQLite file is copied first). "
                "off: it refuses and names `promptpipe db upgrade` (see Upgrading in the README).")

    chat_history_limit: int = setting(
        "CHAT_HISTORY_LIMIT", DEFAULT_HISTORY_WINDOW, ints(-1), section="conversation", readme=True,
        meaning="Past transcript messages the model sees each turn: 0 for none, -1 for the default.")
    intake_prompt_file: Path = setting(
        "INTAKE_BOT_PROMPT_FILE", _SOURCE_PROMPTS_DIR / "intake_system.txt", file_path, section="conversation",
        example="", shown="`prompts/intake_system.txt`",
        meaning="The intake system prompt (a plain text file). Empty: the file in ./prompts.")
    feedback_prompt_file: Path = setting(
        "FEEDBACK_TRACKER_PROMPT_FILE", _SOURCE_PROMPTS_DIR / "feedback_system.txt", file_path, section="conversation",
        example="", shown="`prompts/feedback_system.txt`",
        meaning="The feedback system prompt. Empty: the file in ./prompts.")
    prompt_generator_prompt_file: Path = setting(
        "PROMPT_GENERATOR_PROMPT_FILE", _SOURCE_PROMPTS_DIR / "prompt_generator_system.txt", file_path,
        section="conversation", example="", shown="`prompts/prompt_generator_system.txt`",
        meaning="The system prompt that writes the daily habit prompt. Empty: the file in ./prompts.")
    summary_prompt_file: Path = setting(
        "SUMMARY_PROMPT_FILE", _SOURCE_PROMPTS_DIR / "summary_system.txt", file_path, section="conversation",
        example="", shown="`prompts/summary_system.txt`",
        meaning="The system prompt that folds older turns into the running summary. Empty: the file in ./prompts.")
    history_summary_every_turns: int = setting(
        "HISTORY_SUMMARY_EVERY_TURNS", 10, ints(0), section="conversation", readme=True,
        meaning="Fold messages older than the history window into a running summary (written by the model) at most "
                "once per this many turns (0 = never).")
    auto_enroll_new_users: bool = setting(
        "AUTO_ENROLL_NEW_USERS", False, on_off, section="conversation", readme=True,
        meaning="Answer unknown senders by enrolling them (off: they are ignored and logged).")
    default_timezone: str = setting(
        "DEFAULT_TIMEZONE", "UTC", validate_timezone, section="conversation",
        meaning="IANA time zone for participants enrolled without one (auto-enrolment, `promptpipe chat`).")

    transport: TransportName = setting(
        "PROMPTPIPE_TRANSPORT", TransportName.WHATSAPP, one_of(TransportName), section="transport", readme=True,
        meaning="whatsapp (a real phone), cloud-api (the official WhatsApp Cloud API, no linked phone), dry-run "
                "(nothing is sent; replies are recorded as sent), console (only `promptpipe chat`).")
    whatsapp_numbers: tuple[str, ...] = setting(
        "WHATSAPP_NUMBERS", (), number_names, section="transport", shown="one number, `main`",
        example="", meaning="The deployment's WhatsApp numbers by name, the first the default (e.g. toronto,montreal). "
                            "Each participant is given one at enrolment and keeps it. Empty: one number, named main.")
    number_assignment: NumberRule = setting(
        "NUMBER_ASSIGNMENT", NumberRule(), number_rule, section="transport", example="balanced",
        shown="`balanced`", meaning="How a new participant is given a number when the team names none: balanced "
                                    "(the fewest participants in the study), arm (the number named like their arm) or "
                                    "stratum:FIELD (named like their level of FIELD, e.g. stratum:site).")
    dryrun_journal: Path | None = setting(
        "PROMPTPIPE_DRYRUN_JOURNAL", None, file_path, section="transport",
        meaning="dry-run only: append every message 'sent' to this file, one JSON line each (the recovery drill "
                "counts deliveries from it).")
    whatsapp_pair_phones: tuple[tuple[str, str], ...] = setting(
        "WHATSAPP_PAIR_PHONE", (), pair_phones, section="transport", shown="none (QR codes)",
        meaning="Log in by an 8-character code for this phone (E.164, e.g. +14165550123) instead of scanning a QR "
                "code. Several numbers: name=phone pairs separated by commas (a number not named shows QR codes).")
    whatsapp_bot_label: bool = setting(
        "WHATSAPP_BOT_LABEL", False, on_off, section="transport", readme=True,
        meaning="Let WhatsApp show its bot label on our messages (neonize then marks every send as a business bot's, "
                "which an ordinary account does not).")
    whatsapp_qr_renewals: int = setting(
        "WHATSAPP_QR_RENEWALS", 5, ints(0), section="transport",
        meaning="When nobody scans the QR code (about 3 minutes of codes), serve starts again with a new one this "
                "many times, then exits with status 1 and says what to run.")
    cloud_api_token: str | None = setting(
        "CLOUD_API_TOKEN", None, none_if_empty, section="transport", secret=True,
        meaning="cloud-api: the access token (a system user's permanent token) that may send for the phone number.")
    cloud_api_numbers: tuple[tuple[str, str], ...] = setting(
        "CLOUD_API_PHONE_NUMBER_ID", (), cloud_numbers, section="transport",
        meaning="cloud-api: the phone number's id in WhatsApp Manager (not the number itself). Several numbers: "
                "name=id,name=id (names of a-z 0-9 _ -, the first the default), all on one webhook.")
    cloud_api_app_secret: str | None = setting(
        "CLOUD_API_APP_SECRET", None, none_if_empty, section="transport", secret=True,
        meaning="cloud-api: the Meta app's secret; a webhook call not signed with it is refused.")
    cloud_api_verify_token: str | None = setting(
        "CLOUD_API_VERIFY_TOKEN", None, none_if_empty, section="transport", secret=True,
        meaning="cloud-api: a phrase of your choosing, given to Meta with the webhook's URL; Meta's check of the "
                "webhook must bring it back.")
    cloud_api_webhook_listen: str = setting(
        "CLOUD_API_WEBHOOK_LISTEN", "127.0.0.1:8090", host_port, section="transport",
        meaning="cloud-api: host:port where the webhook listens; put an HTTPS reverse proxy in front of it.")
    cloud_api_base_url: str = setting(
        "CLOUD_API_BASE_URL", "https://graph.facebook.com/v26.0", base_url, section="transport",
        meaning="cloud-api: the Graph API with its version.")
    mark_read: bool = setting(
        "MARK_READ", True, on_off, section="transport",
        meaning="Blue ticks: mark a participant's messages read once the turn answering them is committed.")
    delivery_receipt_window: timedelta = setting(
        "DELIVERY_RECEIPT_WINDOW", timedelta(hours=12), duration, section="transport",
        meaning="A prompt with no delivered receipt this long after it was sent counts as not_delivered, not "
                "no_reply.")
    typed_answer_window: timedelta = setting(
        "TYPED_ANSWER_WINDOW", timedelta(0), duration, section="transport", example="0",
        shown="`0` (until the next prompt)",
        meaning="How long after a daily prompt a typed 'done', '2', 'yes' or 👍 still answers its polls (0: until the "
                "next prompt); after that it is an ordinary message. Taps on the poll count until the next prompt.")
    send_rate_per_s: float = setting(
        "SEND_RATE_PER_SECOND", 1.0, floats(0.0, 10_000.0), section="transport", readme=True, example="1",
        shown="`1`", meaning="Outbound messages per second across all chats, for each WhatsApp number (0 = no limit).")
    send_jitter: float = setting(
        "SEND_JITTER", 0.5, floats(0.0, 2.0), section="transport", readme=True,
        meaning="Each wait the rate imposes is longer by a random share of up to this (0 to 2), so sends never tick "
                "like a machine.")
    lane_concurrency: int = setting(
        "LANE_CONCURRENCY", 100, ints(1), section="transport",
        meaning="Participants whose turns may run at the same time.")
    poll_interval: timedelta = setting(
        "POLL_INTERVAL", timedelta(milliseconds=500), duration, section="transport", example="0.5s",
        shown="`0.5s`",
        meaning="How often the database is checked for rows written by another process (the admin script) and for "
                "retries that came due (at most 2s).")

    scheduler_prep_time_minutes: int = setting(
        "SCHEDULER_PREP_TIME_MINUTES", 10, ints(0), section="timers", readme=True,
        meaning="The daily prompt goes out this many minutes before the habit time the participant chose, but "
                "never before that day begins (a 00:05 habit's prompt goes at 00:00).")
    misfire_grace: timedelta = setting(
        "MISFIRE_GRACE", timedelta(hours=1), duration, section="timers", readme=True,
        meaning="A prompt or timer missed while the service was down is sent late up to this much, else skipped and "
                "logged (the end of a study and questionnaires' timers are never skipped).")
    daily_prompt_reminder_delay: timedelta = setting(
        "DAILY_PROMPT_REMINDER_DELAY", timedelta(hours=5), duration, section="timers", readme=True,
        meaning="Remind a participant who has not answered their daily prompt after this long (0 = none).")
    auto_feedback_after_prompt_enabled: bool = setting(
        "AUTO_FEEDBACK_AFTER_PROMPT_ENABLED", True, on_off, section="timers", readme=True,
        meaning="Hand a participant who has not answered their prompt to the feedback conversation, after "
                "AUTO_FEEDBACK_DELAY.")
    auto_feedback_delay: timedelta = setting(
        "AUTO_FEEDBACK_DELAY", timedelta(minutes=5), duration, section="timers", readme=True,
        meaning="How long after the prompt that hand-over happens.")
    feedback_initial_timeout: timedelta = setting(
        "FEEDBACK_INITIAL_TIMEOUT", timedelta(minutes=15), duration, section="timers", readme=True,
        meaning="In the feedback conversation, ask how it went after this much silence (0 = never) …")
    feedback_followup_delay: timedelta = setting(
        "FEEDBACK_FOLLOWUP_DELAY", timedelta(hours=3), duration, section="timers", readme=True,
        meaning="… and once more after this much further silence (0 = never).")
    intensity_poll_enabled: bool = setting(
        "INTENSITY_POLL_ENABLED", True, on_off, section="timers", readme=True,
        meaning="With the first daily prompt of a local day, ask in a poll whether the daily steps should be lighter, "
                "the same or more.")
    max_schedules_per_participant: int = setting(
        "MAX_SCHEDULES_PER_PARTICIPANT", DEFAULT_MAX_SCHEDULES, ints(1), section="timers", readme=True,
        meaning="Daily prompt schedules one participant may have (each sends one prompt a day).")

    study_file: Path | None = setting(
        "PROMPTPIPE_STUDY_FILE", None, existing_file, section="study", readme=True,
        meaning="The study protocol (TOML: arms, study days, quiet hours, randomisation; see study.example.toml and "
                "`promptpipe study check FILE`). Empty: an open-ended study with one arm and no randomisation.")
    study_seed_file: Path | None = setting(
        "PROMPTPIPE_STUDY_SEED_FILE", None, existing_file, section="study", readme=True,
        meaning="A file (mode 0600) holding the study's secret seed as 64 or more hex digits; the database then keeps "
                "only its fingerprint (see docs/allocation.md).")
    study_seed: str | None = setting(
        "PROMPTPIPE_STUDY_SEED", None, none_if_empty, section="study", readme=True, secret=True,
        meaning="The same seed given directly (not both).")
    intake_inactivity: timedelta = setting(
        "INTAKE_INACTIVITY", timedelta(minutes=30), duration, section="study", readme=True,
        meaning="Put intake on hold when the participant stops answering in the middle of it (0 = off).")
    intake_reminder_delay: timedelta = setting(
        "INTAKE_REMINDER_DELAY", timedelta(days=1), duration, section="study", readme=True,
        meaning="While intake is on hold, invite them to finish it after this long (0 = never; never in quiet "
                "hours) …")
    intake_reminder_max: int = setting(
        "INTAKE_REMINDER_MAX", 2, ints(0), section="study", readme=True,
        meaning="… at most this many times.")

    safety_message_file: Path | None = setting(
        "SAFETY_MESSAGE_FILE", None, existing_file, section="safety", readme=True, shown="our text",
        meaning="The study's own safety message (its helpline, its team), sent at once when a message shows crisis "
                "words or the model flags a concern. Empty: PromptPipe's text, pointing to local emergency services.")
    safety_phrases_file: Path | None = setting(
        "SAFETY_PHRASES_FILE", None, existing_file, section="safety", readme=True,
        meaning="More crisis phrases for the safety screen (one per line, # for comments), added to the built-in "
                "English list.")
    alert_webhook_url: str | None = setting(
        "ALERT_WEBHOOK_URL", None, lambda name, raw: webhook_url(raw), section="safety", readme=True,
        meaning="Receives a JSON POST (flag id, participant id, severity; never the text) for every safety flag.")

    api_listen: str = setting(
        "API_LISTEN", "127.0.0.1:8080", api_listen, section="web", readme=True, empty_means_off=True,
        meaning="host:port where `promptpipe serve` answers the HTTP API and the dashboard (empty = off). Keep it on "
                "127.0.0.1 unless a reverse proxy with HTTPS stands in front.")
    researcher_timezone: str = setting(
        "RESEARCHER_TIMEZONE", "UTC", validate_timezone, section="web", readme=True,
        meaning="The dashboard shows times in this IANA zone beside each participant's own.")
    web_session_lifetime: timedelta = setting(
        "WEB_SESSION_LIFETIME", timedelta(hours=8), duration, section="web", readme=True,
        meaning="How long a dashboard sign-in lasts (at least 1m).")
    web_trusted_proxies: tuple[str, ...] = setting(
        "WEB_TRUSTED_PROXIES", (), lambda name, raw: trusted_proxies(raw), section="web", readme=True,
        meaning="Reverse proxies (IPs or networks, comma-separated) whose X-Forwarded-For/-Proto are believed; "
                "without it they are ignored.")
    web_max_body_bytes: int = setting(
        "WEB_MAX_BODY_BYTES", 1_000_000, ints(1024), section="web", readme=True,
        meaning="A larger request body is refused (413) before it is read.")
    web_niceness: int = setting(
        "WEB_NICENESS", 10, ints(0, 19), section="web", readme=True,
        meaning="`promptpipe web` lowers its own CPU priority to this niceness (0-19, as `nice`) and, above 0, runs in "
                "Linux's idle scheduling class, so that on a busy machine the service's turns for participants come "
                "before the dashboard's pages (the pages then use cores the service leaves free). Its database writer "
                "keeps the priority it started with: a write holds the database's lock. 0: as started.")

    log_format: LogFormat = setting(
        "LOG_FORMAT", LogFormat.CONSOLE, one_of(LogFormat), section="logs", readme=True,
        meaning="console (readable) or json (one object per line); phone numbers are always masked.")
    debug: bool = setting(
        "PROMPTPIPE_DEBUG", False, on_off, section="logs",
        meaning="Log message text and tool arguments too. They are study data: keep this off in a real study.")

    eval_player_base_url: str | None = setting(
        "EVAL_PLAYER_BASE_URL", None, none_if_empty, section="evaluation", shown="OPENAI_BASE_URL",
        meaning="OpenAI-compatible server of the model that plays the simulated participants. Empty: the coach's.")
    eval_player_api_key: str | None = setting(
        "EVAL_PLAYER_API_KEY", None, none_if_empty, section="evaluation", secret=True, shown="OPENAI_API_KEY",
        meaning="Key for that server. Empty: the coach's key.")
    eval_player_model: str | None = setting(
        "EVAL_PLAYER_MODEL", None, none_if_empty, section="evaluation", shown="GENAI_MODEL",
        meaning="Model that plays the simulated participants. Empty: the coach's model.")
    eval_player_temperature: float = setting(
        "EVAL_PLAYER_TEMPERATURE", 0.9, floats(0.0, 2.0), section="evaluation",
        meaning="Sampling temperature of the simulated participants (varied people write variously).")
    eval_judge_base_url: str | None = setting(
        "EVAL_JUDGE_BASE_URL", None, none_if_empty, section="evaluation", shown="OPENAI_BASE_URL",
        meaning="OpenAI-compatible server of the judge model. Empty: the coach's.")
    eval_judge_api_key: str | None = setting(
        "EVAL_JUDGE_API_KEY", None, none_if_empty, section="evaluation", secret=True, shown="OPENAI_API_KEY",
        meaning="Key for the judge's server. Empty: the coach's key.")
    eval_judge_model: str | None = setting(
        "EVAL_JUDGE_MODEL", None, none_if_empty, section="evaluation", shown="GENAI_MODEL",
        meaning="Model that scores each conversation against the rubric. Empty: the coach's model.")
    eval_judge_second_model: str | None = setting(
        "EVAL_JUDGE_SECOND_MODEL", None, none_if_empty, section="evaluation", shown="—",
        meaning="A second judge model (same server). Empty: the first judge scores every conversation twice. "
                "Either way the two passes' agreement is reported.")
    eval_judge_temperature: float = setting(
        "EVAL_JUDGE_TEMPERATURE", 0.7, floats(0.0, 2.0), section="evaluation",
        meaning="Sampling temperature of the judge: above 0, so two passes of one model show how noisy it is.")
    eval_concurrency: int = setting(
        "EVAL_CONCURRENCY", 4, ints(1), section="evaluation",
        meaning="Conversations (and then judge requests) under way at once.")

    # ------------------------------------------------------------------ derived, not variables
    study: Study = OPEN_STUDY
    """The protocol read from PROMPTPIPE_STUDY_FILE, with where its seed lives (``outside_seed``)."""
    extra: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Every raw variable that was read, for error messages only."""

    @property
    def history_window(self) -> int:
        """How many past transcript messages go to the model (-1 means the default)."""
        return DEFAULT_HISTORY_WINDOW if self.chat_history_limit < 0 else self.chat_history_limit

    @property
    def number_plan(self) -> NumberPlan:
        """The deployment's numbers (WHATSAPP_NUMBERS, or names given to Cloud API phone number ids) and their rule."""
        cloud = (tuple(number for number, _ in self.cloud_api_numbers) if self.transport == TransportName.CLOUD_API
                 else ())
        return NumberPlan(self.whatsapp_numbers or cloud or (DEFAULT_NUMBER,), self.number_assignment)

    @property
    def service(self) -> str:
        """This service's name among several (SERVICE_NAME; by default its host and state directory)."""
        return self.service_name or f"{socket.gethostname()}:{self.state_dir.resolve()}"

    @property
    def whatsapp_session_path(self) -> Path:
        return self.state_dir / "whatsapp-session.db"

    def pair_phone_of(self, number: str) -> str | None:
        """The phone that links ``number`` by a pairing code (None: QR codes)."""
        for name, phone in self.whatsapp_pair_phones:
            if name == number or (not name and number == self.number_plan.default):
                return phone
        return None

    def require_llm(self) -> None:
        """Raise unless a model can be called (``serve`` and ``chat`` need it; admin does not)."""
        if not self.openai_api_key:
            raise ConfigError(
                "OPENAI_API_KEY is not set: put the key of your OpenAI-compatible server in the "
                "environment or in .env (any non-empty value works for a local server)."
            )
