"""Rows of the participants of the numbers a service among several (SEVERAL_SERVICES) holds a lease on."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, exists, func

from promptpipe.storage.models import Participant, table_of

__all__ = ["Numbers", "number_filter", "of_numbers"]

_PARTICIPANT = table_of(Participant)

Numbers = tuple[tuple[str, ...], str]
"""The numbers served here and the default number's name (participants without a number stand for it)."""


def of_numbers(participant_id: Any) -> Any:
    """The participant belongs to one of the numbers bound as ``numbers`` (``default_number``: see :data:`Numbers`)."""
    return exists().where(
        _PARTICIPANT.c.id == participant_id,
        func.coalesce(_PARTICIPANT.c.number, bindparam("default_number")).in_(bindparam("numbers", expanding=True)))


def number_filter(numbers: Numbers | None) -> dict[str, object]:
    """The values :func:`of_numbers` is run with (nothing: every number)."""
    return {} if numbers is None else {"numbers": list(numbers[0]), "default_number": numbers[1]}
