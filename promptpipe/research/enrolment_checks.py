"""The checks ``promptpipe-admin enroll`` runs, each on its own, so a form or a CSV row shows every field's problem at
once in the field's own words (``phone: …``, never ``--phone``). Pure: the database is the caller's to ask."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from promptpipe.domain.limits import BACKGROUND_CHARS
from promptpipe.errors import AdminError
from promptpipe.research._common import validate_phone, validate_text, validate_timezone
from promptpipe.research.changes import valid_name
from promptpipe.study.operations import validate_strata
from promptpipe.study.rules.protocol import Study

__all__ = ["STRATA", "Details", "FieldProblem", "check_details", "field_words"]

STRATA = "strata"
"""The field a problem of the strata as a whole belongs to (a value the study does not allow)."""
_OPTION = re.compile(r"^--(?:stratum )?([A-Za-z0-9_.-]+)(?:=…)?: ")


@dataclass(frozen=True)
class Details:
    """What enrolling one participant takes, as typed."""

    phone: str
    name: str
    timezone: str
    background: str = ""
    strata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FieldProblem:
    field: str
    """phone, name, timezone, background, a stratum's name, or :data:`STRATA`."""
    message: str
    """What is wrong, without the field's name."""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def field_words(error: AdminError | str, default: str = STRATA) -> FieldProblem:
    """An enrolment check's message as a field's problem (``--phone: x`` → field ``phone``)."""
    message = str(error)
    found = _OPTION.match(message)
    if found is None:
        return FieldProblem(default, message)
    return FieldProblem(found[1], message[found.end():])


def check_details(study: Study, details: Details) -> tuple[str | None, tuple[FieldProblem, ...]]:
    """The phone in E.164 (None when it is not valid) and each field's problem, in the form's order."""
    problems: list[FieldProblem] = []

    def check(run: Callable[[], str]) -> str | None:
        try:
            return run()
        except AdminError as exc:
            problems.append(field_words(exc))
            return None

    phone = check(lambda: validate_phone(details.phone))
    check(lambda: valid_name(details.name))
    check(lambda: validate_timezone(details.timezone))
    check(lambda: validate_text("--background", details.background, BACKGROUND_CHARS))
    try:
        validate_strata(study, details.strata)
    except AdminError as exc:
        problems.append(field_words(exc))
    return phone, tuple(problems)
