"""Parsers of single settings that need more than a type: files that must exist, the alert
webhook's URL, the database URL, the prompt files' locations, the WhatsApp numbers and their ids."""

from __future__ import annotations

import ipaddress
import re
import stat
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from promptpipe.config.declared import Parser
from promptpipe.domain.numbers import DEFAULT_NUMBER, NUMBER_NAME, NumberRule, parse_rule
from promptpipe.domain.text import mask_credentials
from promptpipe.errors import ConfigError

__all__ = ["NumberId", "api_listen", "base_url", "cloud_numbers", "e164_phone", "existing_file", "file_path",
           "host_port", "none_if_empty", "normalise_database_url", "number_names", "number_rule", "one_of",
           "outside_seed", "pair_phones", "preferred_services", "prompt_file_default", "service_name",
           "trusted_proxies", "webhook_url"]


def existing_file(name: str, raw: str) -> Path:
    path = Path(raw)
    if not path.is_file():
        raise ConfigError(f"{name}: the file {raw!r} does not exist; point it at a readable text file.")
    return path


def e164_phone(name: str, raw: str) -> str:
    if not re.fullmatch(r"\+\d{7,15}", raw):
        raise ConfigError(f"{name}={raw!r} must be E.164, like +14165550123.")
    return raw


def api_listen(name: str, raw: str) -> str:
    """host:port, or empty: the API and dashboard are off."""
    return raw and host_port(name, raw, "127.0.0.1:8080 (or leave it empty to turn the API and dashboard off).")


def webhook_url(raw: str) -> str | None:
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"ALERT_WEBHOOK_URL={mask_credentials(raw)!r} is not an http(s) URL: write it like "
            "https://alerts.example.org/promptpipe."
        )
    return raw


def normalise_database_url(raw: str) -> str:
    """Accept sqlite:///path, postgres:// and postgresql:// URLs; reject anything else clearly."""
    url = raw.strip()
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    scheme = url.split("://", 1)[0] if "://" in url else ""
    base = scheme.split("+", 1)[0]
    problem = "" if base in ("sqlite", "postgresql") and url.split("://", 1)[1] else "unknown form"
    if not problem:
        try:
            make_url(url)
        except (ArgumentError, ValueError) as exc:
            problem = mask_credentials(str(exc).splitlines()[0])[:200]
    if problem:
        raise ConfigError(
            f"DATABASE_URL={mask_credentials(raw)!r} is not a database URL PromptPipe can use ({problem}): "
            "write sqlite:///path/to/file.db or postgresql://user:password@host:5432/dbname."
        )
    return url


def prompt_file_default(default: Path) -> Path:
    """An unset system prompt: ./prompts/<name> if present (a study's copy beside its .env), else PromptPipe's own."""
    cwd_candidate = Path("prompts") / default.name
    return cwd_candidate if cwd_candidate.is_file() else default


def trusted_proxies(raw: str) -> tuple[str, ...]:
    """WEB_TRUSTED_PROXIES: comma-separated IP addresses or networks."""
    found = tuple(item for item in (part.strip() for part in raw.split(",")) if item)
    for item in found:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ConfigError(f"WEB_TRUSTED_PROXIES: {item!r} is not an IP address or network; write them like "
                              "127.0.0.1,10.0.0.0/8.") from None
    return found


_SEED_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){32,}")


def outside_seed(raw: str, path: Path | None) -> bytes | None:
    """The study seed kept outside the database: PROMPTPIPE_STUDY_SEED_FILE (a file only its owner
    can read, holding 64 or more hex digits) or PROMPTPIPE_STUDY_SEED (the digits themselves)."""
    if raw and path is not None:
        raise ConfigError("set PROMPTPIPE_STUDY_SEED_FILE or PROMPTPIPE_STUDY_SEED, not both.")
    name = "PROMPTPIPE_STUDY_SEED_FILE" if path is not None else "PROMPTPIPE_STUDY_SEED"
    if path is not None:
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(f"{name}: {str(path)!r} can be read by other users; keep the seed secret: "
                              f"chmod 600 {path}")
        raw = path.read_text(encoding="utf-8", errors="replace").strip()
    if not raw:
        return None if path is None else _no_seed(name)
    if not _SEED_HEX.fullmatch(raw):
        return _no_seed(name)
    return bytes.fromhex(raw)


def _no_seed(name: str) -> bytes:
    raise ConfigError(f"{name} must hold a secret of at least 32 bytes written as 64 or more hex digits "
                      "(make one with: openssl rand -hex 32).")


def one_of(options: type[StrEnum]) -> Parser:
    def parse(name: str, raw: str) -> StrEnum:
        try:
            return options(raw)
        except ValueError:
            raise ConfigError(f"{name}={raw!r} is unknown: use one of {', '.join(options)}.") from None

    return parse


def file_path(name: str, raw: str) -> Path:
    return Path(raw)


def none_if_empty(name: str, raw: str) -> str | None:
    return raw or None


def number_names(name: str, raw: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in raw.split(",") if part.strip())
    bad = [part for part in names if not NUMBER_NAME.fullmatch(part)]
    if bad or len(set(names)) != len(names):
        raise ConfigError(f"{name}={raw!r}: give each number a different name of 1-32 lowercase letters, digits, "
                          "'-' or '_', separated by commas (e.g. toronto,montreal).")
    return names


def number_rule(name: str, raw: str) -> NumberRule:
    try:
        return parse_rule(raw)
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}.") from None


def host_port(name: str, raw: str, example: str = "127.0.0.1:8090.") -> str:
    host, sep, port = raw.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"{name}={raw!r} is not host:port: write it like {example}")
    return raw


class NumberId(tuple[str, str]):
    """A (number name, value) pair that reads as ``name=value`` (``promptpipe check``): a Cloud API
    phone number id, or a pairing phone (name empty: the default number's)."""

    def __str__(self) -> str:
        return f"{self[0]}={self[1]}" if self[0] else self[1]  # a bare value: the default number's


def cloud_numbers(name: str, raw: str) -> tuple[tuple[str, str], ...]:
    """``name=id,name=id`` (the first the default), or a bare id: one number named ``main``."""
    text = raw.strip()
    if not text:
        return ()
    bare = "=" not in text and "," not in text
    pairs: list[tuple[str, str]] = []
    for place, part in enumerate(text.split(","), 1):
        number, sep, number_id = (DEFAULT_NUMBER, "=", text) if bare else (p.strip() for p in part.partition("="))
        if not sep or not NUMBER_NAME.fullmatch(number) or not number_id.isdigit():
            raise ConfigError(f"{name}: entry {place} ({part.strip()!r}) is not name=id: write one phone number id, "
                              "or name=id pairs separated by commas (e.g. toronto=1234,montreal=5678), each name "
                              "1-32 of a-z 0-9 _ - and each id the digits WhatsApp Manager shows.")
        pairs.append(NumberId((number, number_id)))
    for label, seen in (("name", [pair[0] for pair in pairs]), ("phone number id", [pair[1] for pair in pairs])):
        twice = sorted({value for value in seen if seen.count(value) > 1})
        if twice:
            raise ConfigError(f"{name}: the {label} {twice[0]!r} is given twice; each number once, by one name.")
    return tuple(pairs)


def pair_phones(name: str, raw: str) -> tuple[tuple[str, str], ...]:
    """A bare E.164 phone (the default number), or ``name=phone`` pairs separated by commas."""
    text = raw.strip()
    if not text:
        return ()
    if "=" not in text:
        return (NumberId(("", e164_phone(name, text))),)
    return _number_pairs(name, text, lambda phone: e164_phone(name, phone),
                         "name=phone: write one phone, or name=phone pairs separated by commas (e.g. "
                         "toronto=+14165550123), each number once.")


def _number_pairs(name: str, raw: str, value: Callable[[str], str | None], wanted: str) -> tuple[tuple[str, str], ...]:
    """``number=value`` pairs separated by commas, each number once; ``value`` checks one (None: refused)."""
    pairs: list[tuple[str, str]] = []
    for place, part in enumerate(raw.split(","), 1):
        number, sep, given = (piece.strip() for piece in part.partition("="))
        fits = sep and NUMBER_NAME.fullmatch(number) and all(number != seen for seen, _ in pairs)
        checked = value(given) if fits else None
        if checked is None:
            raise ConfigError(f"{name}: entry {place} ({part.strip()!r}) is not {wanted}")
        pairs.append(NumberId((number, checked)))
    return tuple(pairs)


SERVICE_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def service_name(name: str, raw: str) -> str:
    if not SERVICE_NAME.fullmatch(raw):
        raise ConfigError(f"{name}={raw!r}: name the service with 1-64 letters, digits, '.', '_' or '-' "
                          "(e.g. clinic-a), the same at every restart.")
    return raw


def preferred_services(name: str, raw: str) -> tuple[tuple[str, str], ...]:
    return _number_pairs(name, raw, lambda service: service if SERVICE_NAME.fullmatch(service) else None,
                         "number=service: write pairs separated by commas (e.g. toronto=clinic-a,montreal=clinic-b), "
                         "each number once, each service as its SERVICE_NAME.")


def base_url(name: str, raw: str) -> str:
    if not raw.startswith(("https://", "http://")):
        raise ConfigError(f"{name}={raw!r} is not an http(s) URL: write it like https://graph.facebook.com/v26.0.")
    return raw.rstrip("/")
