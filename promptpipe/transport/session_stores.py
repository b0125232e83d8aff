"""Where each linked number's WhatsApp session is kept: a SQLite file per number (one service), or a PostgreSQL schema
per number, so any lease holder opens the same session (several services)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

__all__ = ["postgres_session_dsn", "session_schema", "sqlite_session_path"]

SCHEMA_PREFIX = "whatsapp_session_"
LOOPBACK = frozenset({"", "localhost", "127.0.0.1", "::1"})
KEPT_PARAMETERS = ("sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout")
"""What lib/pq takes from the service's URL as a connection setting (it sends anything else as a run-time parameter)."""
LIB_PQ_SSL_MODES = frozenset({"disable", "require", "verify-ca", "verify-full"})


def sqlite_session_path(default_path: Path, number: str, *, is_default: bool) -> Path:
    """``whatsapp-session.db`` for the default number, ``whatsapp-session-<name>.db`` for the others."""
    return default_path if is_default else default_path.with_name(f"{default_path.stem}-{number}{default_path.suffix}")


def session_schema(number: str) -> str:
    return SCHEMA_PREFIX + number


def postgres_session_dsn(database_url: str, number: str) -> str:
    """The database URL in lib/pq's form, the number's schema as ``search_path``. lib/pq requires TLS unless told
    otherwise, so a URL without an sslmode it knows gets ``disable`` on this machine and ``require`` elsewhere."""
    url = make_url(database_url)
    if not url.drivername.startswith("postgresql"):
        raise ValueError("a WhatsApp session is kept in PostgreSQL only when the service's database is PostgreSQL")
    query = {key: value for key, value in url.query.items() if key in KEPT_PARAMETERS}
    mode = str(query.get("sslmode", ""))
    if mode not in LIB_PQ_SSL_MODES:
        host = url.host or ""
        query["sslmode"] = "disable" if host in LOOPBACK or host.startswith("/") else "require"
    query["search_path"] = f'"{session_schema(number)}"'
    return url.set(drivername="postgres", query=query).render_as_string(hide_password=False)
