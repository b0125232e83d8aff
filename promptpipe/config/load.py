"""Reading the settings: the environment over ``.env``, each variable parsed, then what follows from them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from promptpipe.config.declared import declarations
from promptpipe.config.settings import Settings, TransportName
from promptpipe.config.values import outside_seed, prompt_file_default
from promptpipe.errors import ConfigError
from promptpipe.study.rules.file import load_study
from promptpipe.study.rules.protocol import OPEN_STUDY

__all__ = ["load_settings", "read_environment"]

_PROMPT_FILES = [(name, spec.env) for name, spec in declarations(Settings) if spec.env.endswith("_PROMPT_FILE")]


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
    values: dict[str, Any] = {}
    for name, spec in declarations(Settings):
        raw = env.get(spec.env)
        if raw is None or (not raw.strip() and not spec.empty_means_off):
            continue  # the default
        values[name] = spec.parse(spec.env, raw.strip())
    settings = _derived(Settings(**values, extra=env), env)
    _check(settings)
    return settings


def _derived(settings: Settings, env: Mapping[str, str]) -> Settings:
    """What follows from other settings: the database, the prompt files, the study and where its seed lives."""
    changes: dict[str, Any] = {}
    if not settings.database_url:
        changes["database_url"] = f"sqlite:///{settings.state_dir / 'promptpipe.db'}"
    for name, variable in _PROMPT_FILES:
        if not env.get(variable, "").strip():
            changes[name] = prompt_file_default(getattr(settings, name))
    study = load_study(settings.study_file) if settings.study_file is not None else OPEN_STUDY
    given = outside_seed(settings.study_seed or "", settings.study_seed_file)
    # Where the seed lives: given from outside, or (unless the study file keeps it in the database
    # on purpose) in a 0600 file of the state directory; the database then keeps its fingerprint.
    outside = given if given is not None else None if study.seed_in_database else settings.state_dir
    changes["study"] = replace(study, outside_seed=outside)
    return replace(settings, **changes)


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
    if not timedelta(0) < settings.lease_heartbeat < settings.lease_ttl:
        raise ConfigError("LEASE_HEARTBEAT must be more than 0 and shorter than LEASE_TTL.")
    if settings.lease_ttl + settings.lease_heartbeat > timedelta(seconds=30):
        raise ConfigError("LEASE_TTL plus LEASE_HEARTBEAT must be 30s or less: a stopped service's numbers must move "
                          "to another within 30 seconds.")
    if settings.several_services and not settings.database_url.startswith("postgresql"):
        raise ConfigError("SEVERAL_SERVICES=on needs DATABASE_URL=postgresql://…: services share their work through "
                          "the database, and a SQLite file serves one process.")
    for variable, pairs in (("WHATSAPP_PAIR_PHONE", settings.whatsapp_pair_phones),
                            ("PREFERRED_SERVICES", settings.preferred_services)):
        unknown = [number for number, _ in pairs if number and number not in settings.number_plan.numbers]
        if unknown:
            raise ConfigError(f"{variable} names the number {unknown[0]!r}, which WHATSAPP_NUMBERS does not have.")
    if settings.web_session_lifetime < timedelta(minutes=1):
        raise ConfigError("WEB_SESSION_LIFETIME must be at least 1m.")
    if settings.transport == TransportName.CLOUD_API:
        missing = [name for name, value in (
            ("CLOUD_API_TOKEN", settings.cloud_api_token),
            ("CLOUD_API_PHONE_NUMBER_ID", settings.cloud_api_numbers),
            ("CLOUD_API_APP_SECRET", settings.cloud_api_app_secret),
            ("CLOUD_API_VERIFY_TOKEN", settings.cloud_api_verify_token)) if not value]
        if missing:
            raise ConfigError("PROMPTPIPE_TRANSPORT=cloud-api needs " + ", ".join(missing) + ": copy them from the "
                              "Meta app and WhatsApp Manager (see 'The WhatsApp Cloud API' in the README).")
        named = [number for number, _ in settings.cloud_api_numbers]
        if settings.whatsapp_numbers and sorted(named) != sorted(settings.whatsapp_numbers):
            raise ConfigError(f"CLOUD_API_PHONE_NUMBER_ID names the numbers {', '.join(named)}, but WHATSAPP_NUMBERS "
                              f"names {', '.join(settings.whatsapp_numbers)}: give each number of WHATSAPP_NUMBERS "
                              "its phone number id (name=id), and no other.")
    for name, variable in _PROMPT_FILES:
        path = getattr(settings, name)
        if not path.is_file():
            raise ConfigError(f"{variable}: the file {str(path)!r} does not exist; point it at a readable text file.")
