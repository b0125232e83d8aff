"""A database error as our callers get it: the driver's first line only, credentials masked."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from promptpipe.domain.text import mask_credentials
from promptpipe.errors import DuplicateKey, StorageError

__all__ = ["first_line", "our_error", "storage_error"]


def our_error(exc: Exception) -> Exception:
    """The error a caller gets for a failed transaction: a database error as :func:`storage_error` makes it."""
    if isinstance(exc, SQLAlchemyError):
        return storage_error(exc)
    if isinstance(exc, UnicodeError):  # a lone surrogate the drivers cannot encode
        return StorageError(f"database error: text that cannot be encoded ({type(exc).__name__})")
    return exc


def first_line(exc: BaseException) -> str:
    cause = getattr(exc, "orig", None) or exc
    return (str(cause).strip().splitlines() or [type(cause).__name__])[0][:300]


def storage_error(exc: SQLAlchemyError) -> StorageError:
    """Our error for a database error: the driver's first line only (later ones can quote a participant's text, as
    PostgreSQL's "Failing row contains (…)"), credentials masked; a unique-key violation as :class:`DuplicateKey`."""
    message = f"database error: {mask_credentials(first_line(exc))}"
    if isinstance(exc, IntegrityError) and (constraint := _unique_violation(exc.orig)) is not None:
        return DuplicateKey(message, constraint=constraint)
    return StorageError(message)


def _unique_violation(orig: BaseException | None) -> str | None:
    """The constraint a unique-key violation broke ("": unnamed); None: another error."""
    if getattr(orig, "sqlstate", None) != "23505" and "UNIQUE constraint failed" not in str(orig):  # psycopg, sqlite3
        return None
    name = getattr(getattr(orig, "diag", None), "constraint_name", None)
    if name:
        return str(name)
    text_ = str(orig)
    return text_.split("UNIQUE constraint failed:", 1)[-1].strip() if "UNIQUE constraint failed" in text_ else ""
