"""Settings: friendly input in, one type out, and errors that name the variable and the fix."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from promptpipe.config import load_settings
from promptpipe.domain.setting_values import parse_duration
from promptpipe.errors import ConfigError


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [("90s", 90), ("15m", 900), ("5h", 18000), ("1h30m", 5400), ("2d", 172800), ("45", 45), ("500ms", 0.5)],
)
def test_durations(raw: str, seconds: float) -> None:
    assert parse_duration("X", raw) == timedelta(seconds=seconds)


@pytest.mark.parametrize("raw", ["soon", "5 hours", "1x", "h", ""])
def test_bad_durations_name_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match=r"FEEDBACK_FOLLOWUP_DELAY=.*15m"):
        parse_duration("FEEDBACK_FOLLOWUP_DELAY", raw)


def test_defaults(tmp_path: Path) -> None:
    settings = load_settings({"PROMPTPIPE_STATE_DIR": str(tmp_path)}, env_file=None)
    assert settings.genai_model == "gpt-4o-mini"
    assert settings.database_url == f"sqlite:///{tmp_path / 'promptpipe.db'}"
    assert settings.transport == "whatsapp" and settings.auto_enroll_new_users is False
    assert settings.history_window == 50
    assert settings.whatsapp_bot_label is False  # a bot tag on an ordinary account is asked for, not assumed
    assert settings.web_trusted_proxies == () and settings.web_max_body_bytes == 1_000_000


def test_values_from_a_dotenv_file_and_environment_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("GENAI_MODEL=from-file\nAUTO_ENROLL_NEW_USERS=yes\nCHAT_HISTORY_LIMIT=-1\n")
    monkeypatch.setenv("GENAI_MODEL", "from-environment")
    settings = load_settings(env_file=env_file)
    assert settings.genai_model == "from-environment"
    assert settings.auto_enroll_new_users is True
    assert settings.history_window == 50


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GENAI_TEMPERATURE": "hot"}, "GENAI_TEMPERATURE='hot' is not a number"),
        ({"GENAI_TEMPERATURE": "3"}, "GENAI_TEMPERATURE=3.0 is out of range"),
        ({"AUTO_ENROLL_NEW_USERS": "maybe"}, "AUTO_ENROLL_NEW_USERS='maybe' is not on/off"),
        ({"CHAT_HISTORY_LIMIT": "-5"}, "CHAT_HISTORY_LIMIT=-5 is too small"),
        ({"DEFAULT_TIMEZONE": "Berlin"}, "DEFAULT_TIMEZONE='Berlin' is not an IANA time zone"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT='xml' is unknown"),
        ({"WHATSAPP_PAIR_PHONE": "555"}, "WHATSAPP_PAIR_PHONE='555' must be E.164"),
        ({"SERVICE_NAME": "clinic a"}, "SERVICE_NAME='clinic a': name the service with 1-64 letters"),
        ({"PREFERRED_SERVICES": "toronto"}, "PREFERRED_SERVICES: entry 1 ('toronto') is not number=service"),
        ({"WHATSAPP_NUMBERS": "toronto", "PREFERRED_SERVICES": "ottawa=clinic-a"},
         "PREFERRED_SERVICES names the number 'ottawa', which WHATSAPP_NUMBERS does not have"),
        ({"POLL_INTERVAL": "5s"}, "POLL_INTERVAL must be 2s or less"),
        ({"INTAKE_BOT_PROMPT_FILE": "/nope/intake.txt"},
         "INTAKE_BOT_PROMPT_FILE: the file '/nope/intake.txt' does not exist"),
        ({"MAX_SCHEDULES_PER_PARTICIPANT": "0"}, "MAX_SCHEDULES_PER_PARTICIPANT=0 is too small"),
        ({"SAFETY_MESSAGE_FILE": "/nope/safety.txt"},
         "SAFETY_MESSAGE_FILE: the file '/nope/safety.txt' does not exist"),
        ({"SAFETY_PHRASES_FILE": "/nope/phrases.txt"}, "SAFETY_PHRASES_FILE: the file '/nope/phrases.txt' does not"),
        ({"ALERT_WEBHOOK_URL": "ftp://alerts.example.org"},
         "ALERT_WEBHOOK_URL='ftp://alerts.example.org' is not an http(s) URL"),
        ({"ALERT_WEBHOOK_URL": "htps://ops:hunter2@alerts.example.org/hook"}, "htps://ops:***@alerts"),
        ({"DEFAULT_TIMEZONE": "localtime"}, "DEFAULT_TIMEZONE='localtime' is not an IANA time zone"),
    ],
)
def test_bad_values_fail_with_the_variable_name(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings(env, env_file=None)
    assert message in str(excinfo.value)


def test_postgres_scheme_alias_is_accepted() -> None:
    settings = load_settings({"DATABASE_URL": "postgres://u@h:5432/d"}, env_file=None)
    assert settings.database_url == "postgresql://u@h:5432/d"


def test_api_key_is_required_only_when_the_model_is_needed() -> None:
    settings = load_settings({}, env_file=None)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        settings.require_llm()
