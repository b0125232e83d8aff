"""What the paged pages share: the filter form read from the query string, page numbers, the pager."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from promptpipe.domain.participant_filter import ParticipantFilter
from promptpipe.domain.states import Stage, Status

__all__ = ["PER_PAGE", "STAGE_LABELS", "FilterForm", "Pager", "page_number", "read_filter"]

PER_PAGE = 50
MAX_PAGE_NUMBER = 100_000
STAGE_LABELS: dict[str, str] = {Stage.INTAKE: "intake", Stage.FEEDBACK: "feedback",
                                Stage.INTAKE_SUSPENDED: "intake on hold"}
_FILTER_FIELDS = {"status", "stage", "arm", "silent_days"}
_FORM_FIELD = {"silent_days": "silent"}


@dataclass(frozen=True)
class FilterForm:
    """The filter a page applies, the form's values to show again, and what was wrong in it."""

    flt: ParticipantFilter
    values: dict[str, str]
    problems: list[str] = field(default_factory=list)
    statuses: tuple[str, ...] = tuple(Status)
    stages: tuple[tuple[str, str], ...] = tuple(STAGE_LABELS.items())

    @property
    def query(self) -> dict[str, str]:
        """The filter as query parameters (for links that keep it)."""
        return {key: value for key, value in self.values.items() if value}


def read_filter(status: str, stage: str, arm: str, silent: str) -> FilterForm:
    """The filter from the form's fields; a field that is wrong is left out and explained."""
    values = {"status": status.strip(), "stage": stage.strip(), "arm": arm.strip()[:100], "silent": silent.strip()}
    problems, silent_days = [], None
    if values["silent"]:
        try:
            silent_days = int(values["silent"])
        except ValueError:
            problems.append(f"silent days: {values['silent'][:20]!r} is not a whole number")
            values["silent"] = ""
    wanted = ParticipantFilter(status=values["status"] or None, stage=values["stage"] or None,
                               arm=values["arm"] or None, silent_days=silent_days)
    found = wanted.problems()  # each begins with the field's name
    wrong = {problem.split(":", 1)[0] for problem in found}
    for name in wrong:
        values[_FORM_FIELD.get(name, name)] = ""
    problems.extend(problem.replace("silent_days:", "silent days:", 1) for problem in found)
    return FilterForm(replace(wanted, **dict.fromkeys(wrong & _FILTER_FIELDS)), values, problems)


def page_number(raw: str) -> int:
    """``?page=`` as a number from 1 (anything else: page 1)."""
    try:
        return min(max(int(raw), 1), MAX_PAGE_NUMBER)
    except ValueError:
        return 1


@dataclass(frozen=True)
class Pager:
    page: int
    total: int
    per_page: int
    prev_url: str | None
    next_url: str | None

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def first_item(self) -> int:
        return min((self.page - 1) * self.per_page + 1, self.total)

    @property
    def last_item(self) -> int:
        return min(self.page * self.per_page, self.total)

    @classmethod
    def build(cls, page: int, total: int, link: Callable[[int], str], per_page: int = PER_PAGE) -> Pager:
        pages = max(1, -(-total // per_page))
        return cls(page, total, per_page, link(min(page - 1, pages)) if page > 1 else None,
                   link(page + 1) if page < pages else None)
