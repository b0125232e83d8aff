"""Settings: read once from the environment and ``.env``, validated, then passed down.

No other module reads ``os.environ``. Every field names its variable, default and meaning in the
field docstring; :func:`load_settings` turns friendly input (``90s``, ``15m``, ``5h``, ``on``) into
proper types and fails with a :class:`ConfigError` that names the variable and the fix.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from dotenv import dotenv_values

from promptpipe.config.values import (
    normalise_database_url,
    optional_file,
    outside_seed,
    prompt_file_path,
    trusted_proxies,
    webhook_url,
)
from promptpipe.domain.limits import DEFAULT_MAX_SCHEDULES
from promptpipe.domain.setting_values import parse_bool, parse_duration, parse_float, parse_int, validate_timezone
from promptpipe.domain.study import OPEN_STUDY, Study
from promptpipe.domain.study_file import load_study
from promptpipe.errors import ConfigError

TRANSPORTS = ("whatsapp", "console", "dry-run")
LOG_FORMATS = ("console", "json")
DEFAULT_HISTORY_WINDOW = 50
_SOURCE_PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@dataclass(frozen=True)
class Settings:
    """Everything the service can be told. Build it with :func:`load_settings`."""

    openai_api_key: str | None = None
    """OPENAI_API_KEY (required by ``serve`` and ``chat``): key for the OpenAI-compatible server."""
    openai_base_url: str | None = None
    """OPENAI_BASE_URL (default: OpenAI's own API): any OpenAI-compatible chat-completions server."""
    genai_model: str = "gpt-4o-mini"
    """GENAI_MODEL (default gpt-4o-mini): model name sent with every request."""
    genai_temperature: float = 0.1
    """GENAI_TEMPERATURE (default 0.1, 0..2): sampling temperature."""
    llm_timeout: timedelta = timedelta(seconds=60)
    """LLM_TIMEOUT (default 60s): give up on one model request after this long."""
    llm_max_retries: int = 2
    """LLM_MAX_RETRIES (default 2): quick retries of one request inside the OpenAI client."""
    state_dir: Path = Path("promptpipe-state")
    """PROMPTPIPE_STATE_DIR (default ./promptpipe-state): WhatsApp session, SQLite file, lock."""
    database_url: str = ""
    """DATABASE_URL (default sqlite:///<state dir>/promptpipe.db): sqlite:/// or postgresql:// URL."""
    db_auto_upgrade: bool = False
    """DB_AUTO_UPGRADE (default off): ``serve`` upgrades a database made by an older release by
    itself (a SQLite file is copied first); off, it refuses and names ``promptpipe db upgrade``."""
    chat_history_limit: int = DEFAULT_HISTORY_WINDOW
    """CHAT_HISTORY_LIMIT (default 50; 0 none; -1 the default): past messages the model sees."""
    intake_prompt_file: Path = _SOURCE_PROMPTS_DIR / "intake_system.txt"
    """INTAKE_BOT_PROMPT_FILE (default prompts/intake_system.txt): intake system prompt."""
    feedback_prompt_file: Path = _SOURCE_PROMPTS_DIR / "feedback_system.txt"
    """FEEDBACK_TRACKER_PROMPT_FILE (default prompts/feedback_system.txt): feedback system prompt."""
    prompt_generator_prompt_file: Path = _SOURCE_PROMPTS_DIR / "prompt_generator_system.txt"
    """PROMPT_GENERATOR_PROMPT_FILE (default prompts/prompt_generator_system.txt)."""
    summary_prompt_file: Path = _SOURCE_PROMPTS_DIR / "summary_system.txt"
    """SUMMARY_PROMPT_FILE (default prompts/summary_system.txt): how older turns are summarised."""
    history_summary_every_turns: int = 10
    """HISTORY_SUMMARY_EVERY_TURNS (default 10; 0 = never): messages older than the history window
    are folded into the conversation's running summary at most once per this many turns."""
    auto_enroll_new_users: bool = False
    """AUTO_ENROLL_NEW_USERS (default off): enroll anyone who writes, instead of ignoring them."""
    default_timezone: str = "UTC"
    """DEFAULT_TIMEZONE (default UTC): IANA zone for participants enrolled without one."""
    debug: bool = False
    """PROMPTPIPE_DEBUG (default off): log message text and tool arguments (study data!)."""
    transport: str = "whatsapp"
    """PROMPTPIPE_TRANSPORT (default whatsapp): whatsapp, console or dry-run."""
    log_format: str = "console"
    """LOG_FORMAT (default console): console (readable) or json (one object per line)."""
    send_rate_per_s: float = 1.0
    """SEND_RATE_PER_SECOND (default 1; 0 = no limit): outbound messages per second, all chats."""
    send_jitter: float = 0.5
    """SEND_JITTER (default 0.5, 0 to 2): each wait the rate imposes is longer by a random share of
    up to this much, so sends never tick like a machine (WhatsApp bans bulk senders)."""
    lane_concurrency: int = 100
    """LANE_CONCURRENCY (default 100): participants whose turns may run at the same time."""
    poll_interval: timedelta = timedelta(milliseconds=500)
    """POLL_INTERVAL (default 0.5s): how often the database is checked for rows written by
    another process (the admin script) and for retries that became due."""
    dryrun_journal: Path | None = None
    """PROMPTPIPE_DRYRUN_JOURNAL (optional; dry-run only): append every message "sent" to this
    file as a JSON line (used by the recovery drill to count deliveries)."""
    whatsapp_pair_phone: str | None = None
    """WHATSAPP_PAIR_PHONE (optional, E.164): log in by an 8-character code for this phone
    instead of scanning a QR code."""
    whatsapp_bot_label: bool = False
    """WHATSAPP_BOT_LABEL (default off): let WhatsApp show its bot label on our messages. neonize
    marks each send with a business-bot node for it, which an ordinary account does not send:
    asked for, not assumed."""
    whatsapp_qr_renewals: int = 5
    """WHATSAPP_QR_RENEWALS (default 5): how often `serve` starts again with a new QR code when
    nobody scans it (each round lasts about 3 minutes); after that it exits with status 1."""
    mark_read: bool = True
    """MARK_READ (default on): show participants blue ticks on their messages once the turn that
    answers them is committed."""
    delivery_receipt_window: timedelta = timedelta(hours=12)
    """DELIVERY_RECEIPT_WINDOW (default 12h): a prompt with no delivered receipt this long after
    it was sent counts as ``not_delivered`` rather than ``no_reply``."""
    typed_answer_window: timedelta = timedelta(0)
    """TYPED_ANSWER_WINDOW (default 0 = until the next prompt): how long after a daily prompt a
    typed "done", "2" or 👍 still answers its polls; after that it is an ordinary message."""
    scheduler_prep_time_minutes: int = 10
    """SCHEDULER_PREP_TIME_MINUTES (default 10): the daily prompt is sent this long before the habit time."""
    misfire_grace: timedelta = timedelta(hours=1)
    """MISFIRE_GRACE (default 1h): a prompt or timer missed while the service was down is still
    sent if it is at most this late; later than that it is skipped and logged as missed."""
    daily_prompt_reminder_delay: timedelta = timedelta(hours=5)
    """DAILY_PROMPT_REMINDER_DELAY (default 5h; 0 = no reminders): remind a participant who has
    not replied to their daily prompt after this long."""
    auto_feedback_after_prompt_enabled: bool = True
    """AUTO_FEEDBACK_AFTER_PROMPT_ENABLED (default on): hand a participant who has not replied
    to FEEDBACK a short while after their prompt."""
    auto_feedback_delay: timedelta = timedelta(minutes=5)
    """AUTO_FEEDBACK_DELAY (default 5m): how long after the prompt that hand-over happens."""
    feedback_initial_timeout: timedelta = timedelta(minutes=15)
    """FEEDBACK_INITIAL_TIMEOUT (default 15m; 0 = off): ask how it went when a participant in
    FEEDBACK has been silent this long."""
    feedback_followup_delay: timedelta = timedelta(hours=3)
    """FEEDBACK_FOLLOWUP_DELAY (default 3h; 0 = off): one more question this long after that."""
    intensity_poll_enabled: bool = True
    """INTENSITY_POLL_ENABLED (default on): with the first daily prompt of a local day, ask in a
    poll whether the daily steps should be smaller, the same or bigger."""
    max_schedules_per_participant: int = DEFAULT_MAX_SCHEDULES
    """MAX_SCHEDULES_PER_PARTICIPANT (default 3): daily prompt schedules one participant may have."""
    safety_phrases_file: Path | None = None
    """SAFETY_PHRASES_FILE (optional): more crisis phrases for the safety screen, one per line
    (# starts a comment), added to the built-in English list."""
    safety_message_file: Path | None = None
    """SAFETY_MESSAGE_FILE (optional): the study's own safety message (its helpline, its team's
    contact), sent at once when the screen or the model flags a concern. Default: our text,
    pointing to local emergency services."""
    alert_webhook_url: str | None = None
    """ALERT_WEBHOOK_URL (optional, http or https): receives a POST with the participant id and
    severity of every safety flag (never the message text)."""
    study_file: Path | None = None
    """PROMPTPIPE_STUDY_FILE (optional): the study protocol (TOML; see study.example.toml). Without
    one the study is open-ended with one arm and no randomisation."""
    study: Study = OPEN_STUDY
    """The protocol read from PROMPTPIPE_STUDY_FILE, with the seed of PROMPTPIPE_STUDY_SEED_FILE or
    PROMPTPIPE_STUDY_SEED (optional, 64 or more hex digits; the database then keeps only its
    fingerprint, see docs/allocation.md)."""
    intake_inactivity: timedelta = timedelta(minutes=30)
    """INTAKE_INACTIVITY (default 30m; 0 = off): put intake on hold when the participant has not
    answered for this long in the middle of it."""
    intake_reminder_delay: timedelta = timedelta(days=1)
    """INTAKE_REMINDER_DELAY (default 1d; 0 = off): invite someone whose intake is on hold to
    finish it after this long (never in the study's quiet hours)."""
    intake_reminder_max: int = 2
    """INTAKE_REMINDER_MAX (default 2): intake reminders at most, each time intake is put on hold."""
    api_listen: str = "127.0.0.1:8080"
    """API_LISTEN (default 127.0.0.1:8080; empty = off): host:port where ``serve`` answers the HTTP
    API and the dashboard. Anything but a loopback address exposes them to the network: put them
    behind HTTPS (a reverse proxy) there."""
    researcher_timezone: str = "UTC"
    """RESEARCHER_TIMEZONE (default UTC): the dashboard shows times in this IANA zone beside each
    participant's own local time."""
    web_session_lifetime: timedelta = timedelta(hours=8)
    """WEB_SESSION_LIFETIME (default 8h): a dashboard sign-in lasts this long."""
    web_trusted_proxies: tuple[str, ...] = ()
    """WEB_TRUSTED_PROXIES (default none): addresses of reverse proxies whose X-Forwarded-For and
    X-Forwarded-Proto are believed (comma-separated IPs or networks). Without it the caller's own
    address counts, whatever headers it sends."""
    web_max_body_bytes: int = 1_000_000
    """WEB_MAX_BODY_BYTES (default 1000000): a request body larger than this is refused (413)."""
    extra: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Every raw variable that was read, for error messages only."""

    @property
    def history_window(self) -> int:
        """How many past transcript messages go to the model (-1 means the default)."""
        if self.chat_history_limit < 0:
            return DEFAULT_HISTORY_WINDOW
        return self.chat_history_limit

    @property
    def whatsapp_session_path(self) -> Path:
        return self.state_dir / "whatsapp-session.db"

    def require_llm(self) -> None:
        """Raise unless a model can be called (``serve`` and ``chat`` need it; admin does not)."""
        if not self.openai_api_key:
            raise ConfigError(
                "OPENAI_API_KEY is not set: put the key of your OpenAI-compatible server in the "
                "environment or in .env (any non-empty value works for a local server)."
            )


def read_environment(env_file: str | Path | None = ".env") -> dict[str, str]:
    """The process environment over the values of ``.env`` (the environment wins)."""
    values: dict[str, str] = {}
    if env_file is not None and Path(env_file).is_file():
        values.update({k: v for k, v in dotenv_values(env_file).items() if v is not None})
    values.update(os.environ)
    return values


def load_settings(env: Mapping[str, str] | None = None, *, env_file: str | Path | None = ".env") -> Settings:
    """Build validated :class:`Settings`; ``env`` replaces the process environment (tests)."""
    env = dict(read_environment(env_file) if env is None else env)

    def get(name: str) -> str:
        return env.get(name, "").strip()

    settings = Settings(**_model_settings(env, get), **_service_settings(get), **_whatsapp_settings(get),
                        **_timer_settings(get), **_safety_settings(get), **_study_settings(get), **_web_settings(env),
                        extra=env)
    _check(settings)
    return settings


Get = Callable[[str], str]
T = TypeVar("T")


def _value(get: Get, name: str, parse: Callable[[str, str], T], default: T) -> T:
    """The variable parsed, or the default when it is not set."""
    raw = get(name)
    return parse(name, raw) if raw else default


def _int(minimum: int) -> Callable[[str, str], int]:
    return functools.partial(parse_int, minimum=minimum)


def _float(low: float, high: float) -> Callable[[str, str], float]:
    return functools.partial(parse_float, low=low, high=high)


_DEFAULTS = Settings()


def _model_settings(env: Mapping[str, str], get: Get) -> dict[str, Any]:
    d = _DEFAULTS
    return {
        "openai_api_key": get("OPENAI_API_KEY") or None,
        "openai_base_url": get("OPENAI_BASE_URL") or None,
        "genai_model": get("GENAI_MODEL") or d.genai_model,
        "genai_temperature": _value(get, "GENAI_TEMPERATURE", _float(0.0, 2.0), d.genai_temperature),
        "llm_timeout": _value(get, "LLM_TIMEOUT", parse_duration, d.llm_timeout),
        "llm_max_retries": _value(get, "LLM_MAX_RETRIES", _int(0), d.llm_max_retries),
        "chat_history_limit": _value(get, "CHAT_HISTORY_LIMIT", _int(-1), d.chat_history_limit),
        "intake_prompt_file": prompt_file_path(env, "INTAKE_BOT_PROMPT_FILE", d.intake_prompt_file),
        "feedback_prompt_file": prompt_file_path(env, "FEEDBACK_TRACKER_PROMPT_FILE", d.feedback_prompt_file),
        "prompt_generator_prompt_file": prompt_file_path(env, "PROMPT_GENERATOR_PROMPT_FILE",
                                                     d.prompt_generator_prompt_file),
        "summary_prompt_file": prompt_file_path(env, "SUMMARY_PROMPT_FILE", d.summary_prompt_file),
        "history_summary_every_turns": _value(get, "HISTORY_SUMMARY_EVERY_TURNS", _int(0),
                                              d.history_summary_every_turns),
    }


def _service_settings(get: Get) -> dict[str, Any]:
    d = _DEFAULTS
    state_dir = Path(get("PROMPTPIPE_STATE_DIR") or "promptpipe-state")
    database_url = get("DATABASE_URL")
    transport = get("PROMPTPIPE_TRANSPORT") or "whatsapp"
    if transport not in TRANSPORTS:
        raise ConfigError(f"PROMPTPIPE_TRANSPORT={transport!r} is unknown: use one of {', '.join(TRANSPORTS)}.")
    log_format = get("LOG_FORMAT") or "console"
    if log_format not in LOG_FORMATS:
        raise ConfigError(f"LOG_FORMAT={log_format!r} is unknown: use console or json.")
    return {
        "state_dir": state_dir,
        "database_url": (normalise_database_url(database_url) if database_url
                         else f"sqlite:///{state_dir / 'promptpipe.db'}"),
        "auto_enroll_new_users": _value(get, "AUTO_ENROLL_NEW_USERS", parse_bool, False),
        "default_timezone": validate_timezone("DEFAULT_TIMEZONE", get("DEFAULT_TIMEZONE") or "UTC"),
        "debug": _value(get, "PROMPTPIPE_DEBUG", parse_bool, False),
        "transport": transport,
        "log_format": log_format,
        "send_rate_per_s": _value(get, "SEND_RATE_PER_SECOND", _float(0.0, 10_000.0), d.send_rate_per_s),
        "send_jitter": _value(get, "SEND_JITTER", _float(0.0, 2.0), d.send_jitter),
        "lane_concurrency": _value(get, "LANE_CONCURRENCY", _int(1), d.lane_concurrency),
        "poll_interval": _value(get, "POLL_INTERVAL", parse_duration, d.poll_interval),
        "dryrun_journal": Path(get("PROMPTPIPE_DRYRUN_JOURNAL")) if get("PROMPTPIPE_DRYRUN_JOURNAL") else None,
        "mark_read": _value(get, "MARK_READ", parse_bool, True),
        "db_auto_upgrade": _value(get, "DB_AUTO_UPGRADE", parse_bool, False),
    }


def _whatsapp_settings(get: Get) -> dict[str, Any]:
    pair_phone = get("WHATSAPP_PAIR_PHONE") or None
    if pair_phone is not None and not re.fullmatch(r"\+\d{7,15}", pair_phone):
        raise ConfigError(f"WHATSAPP_PAIR_PHONE={pair_phone!r} must be E.164, like +14165550123.")
    return {
        "whatsapp_pair_phone": pair_phone,
        "whatsapp_bot_label": _value(get, "WHATSAPP_BOT_LABEL", parse_bool, _DEFAULTS.whatsapp_bot_label),
        "whatsapp_qr_renewals": _value(get, "WHATSAPP_QR_RENEWALS", _int(0), _DEFAULTS.whatsapp_qr_renewals),
        "delivery_receipt_window": _value(get, "DELIVERY_RECEIPT_WINDOW", parse_duration,
                                          _DEFAULTS.delivery_receipt_window),
        "typed_answer_window": _value(get, "TYPED_ANSWER_WINDOW", parse_duration, _DEFAULTS.typed_answer_window),
    }


def _timer_settings(get: Get) -> dict[str, Any]:
    d = _DEFAULTS
    return {
        "scheduler_prep_time_minutes": _value(get, "SCHEDULER_PREP_TIME_MINUTES", _int(0),
                                              d.scheduler_prep_time_minutes),
        "misfire_grace": _value(get, "MISFIRE_GRACE", parse_duration, d.misfire_grace),
        "daily_prompt_reminder_delay": _value(get, "DAILY_PROMPT_REMINDER_DELAY", parse_duration,
                                              d.daily_prompt_reminder_delay),
        "auto_feedback_after_prompt_enabled": _value(get, "AUTO_FEEDBACK_AFTER_PROMPT_ENABLED", parse_bool, True),
        "auto_feedback_delay": _value(get, "AUTO_FEEDBACK_DELAY", parse_duration, d.auto_feedback_delay),
        "feedback_initial_timeout": _value(get, "FEEDBACK_INITIAL_TIMEOUT", parse_duration,
                                           d.feedback_initial_timeout),
        "feedback_followup_delay": _value(get, "FEEDBACK_FOLLOWUP_DELAY", parse_duration, d.feedback_followup_delay),
        "intensity_poll_enabled": _value(get, "INTENSITY_POLL_ENABLED", parse_bool, True),
        "max_schedules_per_participant": _value(get, "MAX_SCHEDULES_PER_PARTICIPANT", _int(1),
                                                d.max_schedules_per_participant),
    }


def _safety_settings(get: Get) -> dict[str, Any]:
    return {
        "safety_phrases_file": optional_file(get, "SAFETY_PHRASES_FILE"),
        "safety_message_file": optional_file(get, "SAFETY_MESSAGE_FILE"),
        "alert_webhook_url": webhook_url(get("ALERT_WEBHOOK_URL")),
    }


def _study_settings(get: Get) -> dict[str, Any]:
    d = _DEFAULTS
    study_file = optional_file(get, "PROMPTPIPE_STUDY_FILE")
    study = load_study(study_file) if study_file is not None else OPEN_STUDY
    outside = outside_seed(get("PROMPTPIPE_STUDY_SEED"), optional_file(get, "PROMPTPIPE_STUDY_SEED_FILE"))
    return {
        "study_file": study_file,
        "study": replace(study, outside_seed=outside) if outside is not None else study,
        "intake_inactivity": _value(get, "INTAKE_INACTIVITY", parse_duration, d.intake_inactivity),
        "intake_reminder_delay": _value(get, "INTAKE_REMINDER_DELAY", parse_duration, d.intake_reminder_delay),
        "intake_reminder_max": _value(get, "INTAKE_REMINDER_MAX", _int(0), d.intake_reminder_max),
    }


def _web_settings(env: Mapping[str, str]) -> dict[str, Any]:
    listen = env.get("API_LISTEN", _DEFAULTS.api_listen).strip()  # set but empty: the API is off
    if listen:
        host, sep, port = listen.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ConfigError(f"API_LISTEN={listen!r} is not host:port: write it like 127.0.0.1:8080 "
                              "(or leave it empty to turn the API and dashboard off).")

    def get(name: str) -> str:
        return env.get(name, "").strip()

    lifetime = _value(get, "WEB_SESSION_LIFETIME", parse_duration, _DEFAULTS.web_session_lifetime)
    if lifetime < timedelta(minutes=1):
        raise ConfigError("WEB_SESSION_LIFETIME must be at least 1m.")
    return {
        "api_listen": listen,
        "researcher_timezone": validate_timezone("RESEARCHER_TIMEZONE", get("RESEARCHER_TIMEZONE") or "UTC"),
        "web_session_lifetime": lifetime,
        "web_trusted_proxies": trusted_proxies(get("WEB_TRUSTED_PROXIES")),
        "web_max_body_bytes": _value(get, "WEB_MAX_BODY_BYTES", _int(1024), _DEFAULTS.web_max_body_bytes),
    }


def _check(settings: Settings) -> None:
    """Rules between settings, and files that must exist."""
    if settings.scheduler_prep_time_minutes > 24 * 60:
        raise ConfigError("SCHEDULER_PREP_TIME_MINUTES must be at most 1440 (a day).")
    if settings.misfire_grace < timedelta(seconds=1):
        raise ConfigError("MISFIRE_GRACE must be at least 1s: with less, every alarm that is a moment late is lost.")
    if settings.auto_feedback_after_prompt_enabled and settings.auto_feedback_delay <= timedelta(0):
        raise ConfigError("AUTO_FEEDBACK_DELAY must be more than 0 (or switch AUTO_FEEDBACK_AFTER_PROMPT_ENABLED off).")
    if settings.poll_interval > timedelta(seconds=2):
        raise ConfigError(
            "POLL_INTERVAL must be 2s or less: rows written by the admin script must be seen within 2 seconds."
        )
    for name, path in (
        ("INTAKE_BOT_PROMPT_FILE", settings.intake_prompt_file),
        ("FEEDBACK_TRACKER_PROMPT_FILE", settings.feedback_prompt_file),
        ("PROMPT_GENERATOR_PROMPT_FILE", settings.prompt_generator_prompt_file),
        ("SUMMARY_PROMPT_FILE", settings.summary_prompt_file),
    ):
        if not path.is_file():
            raise ConfigError(f"{name}: the file {str(path)!r} does not exist; point it at a readable text file.")


